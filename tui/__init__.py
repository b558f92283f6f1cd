"""The Textual app and the command line, in their own rooms, lowest first:

- literal.py: the one literal renderer (untrusted text is never markup, controls made visible);
- guide.py: which page of the guide (docs/) explains each screen and dialog;
- widgets/: small, dumb, reusable widgets;
- screens/: one module per mode, the queue skeleton both pending tabs fill in, and the dialogs;
- modes.py: each mode's screen class, imported on first use;
- palette.py: the command palette's commands (only the palette uses the word), shown by
  screens/palette_dialog.py;
- app.py: CuratorApp, which wires the curator to the screens;
- cli/: the `hmc` command line (main.py and one module per subcommand), which opens the app.

Import rule: a room imports only rooms before it, and core/ (tests/core/test_layout.py keeps it,
and that there are no import cycles). So no screen or widget imports the command line, the app
or the palette; what both interfaces share lives in core/ (masking, creating a home, the
refusal type) or in literal.py.
"""

__version__ = "0.1.0"  # hmc's version: pyproject.toml reads it from here (`hmc --version`)
