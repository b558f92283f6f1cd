"""Untrusted text (entries, messages, summaries, file names) shown literally, never as markup."""

from __future__ import annotations

from rich.text import Text


def visible_controls(text: str) -> str:
    """Control characters made visible (ESC shows as ␛), so escape sequences can't restyle a terminal."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch in "\n\t":
            out.append(ch)
        elif code < 0x20:
            out.append(chr(0x2400 + code))
        elif code == 0x7F:
            out.append("␡")
        else:
            out.append(ch)
    return "".join(out)


def literal(text: str, style: str = "") -> Text:
    """A rich Text holding `text` exactly (markup-looking brackets stay brackets)."""
    return Text(visible_controls(text), style=style)
