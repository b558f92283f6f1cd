"""What a session knew (search mode's l): the memory blocks it loaded at its start, exactly, and what
changed in the files since (core.snapshots.compare.report), in the read-only text dialog."""

from __future__ import annotations

from rich.text import Text

from tui.literal import literal, masked, visible_controls
from tui.screens.dialogs import TextDialog

STYLES = {"block": "", "note": "dim", "warning": "yellow", "ok": "green", "heading": "bold",
          "added": "green", "changed": "yellow", "removed": "red"}
NOTE = ("Hermes loads memory once, when a session starts: this is what that session's agent had, read "
        "from the prompt state.db stored for it. /new or /reset in that chat loads the files as they are now.")


def report_text(lines: list[tuple[str, str]]) -> Text:
    """The report as styled, literal text (entries are untrusted: never markup; secrets masked)."""
    out = Text()
    for i, (kind, line) in enumerate(lines):
        if i:
            out.append("\n")
        out.append_text(literal(visible_controls(masked(line)), STYLES[kind]))
    return out


def loaded_memory_dialog(session, lines: list[tuple[str, str]], when: str) -> TextDialog:
    title = f"What {session.where} knew — loaded {when}"
    from tui.guide import about

    return about("loaded memory", TextDialog(title, report_text(lines), note=NOTE))
