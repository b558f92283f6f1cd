"""Untrusted text (entries, messages, summaries, file names) shown literally, never as markup."""

from __future__ import annotations

from rich.text import Text

from core.sessions.snippets import show_controls as visible_controls  # ESC shows as ␛: escapes can't restyle a terminal

__all__ = ["literal", "visible_controls"]


def literal(text: str, style: str = "") -> Text:
    """A rich Text holding `text` exactly (markup-looking brackets stay brackets)."""
    return Text(visible_controls(text), style=style)
