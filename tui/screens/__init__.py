"""One module per mode (memory, pending and its skills tab, search, review), the timeline, an
entry's history and time travel, the first-run screen, help, the dialogs and the command palette's
dialog (palette_dialog.py: it shows the commands tui/palette.py lists). queue.py is the
skeleton both pending tabs fill in; search_transcript.py is search mode's transcript side.

May import: textual, rich, tui.literal, tui.widgets and core/. Never tui.modes, tui.palette,
tui.app or tui.cli: a screen reaches the app through `self.app` at run time.
"""
