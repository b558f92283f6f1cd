"""The `hmc` command line: main.py (global options, dispatch, exit codes), open_tui.py (`hmc` with
no subcommand: the first-run question, then the app), common.py (the context, output, errors)
and one module per subcommand (demo, status, memory, pending + pending_skills, search, review,
undo, history). `python -m tui.cli` runs it as the `hmc` console script does.

May import: the standard library, rich, core/, tui.literal, and, to open the TUI, tui.app and
tui.screens.first_run. Nothing below imports it.
"""
