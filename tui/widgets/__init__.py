"""Small, dumb, reusable widgets: capacity gauge, entry list, transcript, findings, diffs, the queue
tabs, the footer and header. They render what they are given and post messages upward; they
don't open files or databases.

May import: textual, rich, tui.literal and core/ (for value types and pure helpers). Never
tui.screens, tui.app, tui.palette or tui.cli.
"""
