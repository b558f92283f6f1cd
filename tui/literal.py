"""Untrusted text (entries, messages, summaries, file names) shown literally, never as markup.

The one literal renderer. Everything hmc shows from a file or a database goes through `visible`:

- C0 controls (ESC, BEL, CR, …) become their control pictures (ESC → ␛, NUL → ␀), DEL → ␡;
  newline and tab are kept;
- C1 controls (U+0080–U+009F, among them U+009B, the one-byte CSI) become `\\x9b`;
- bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069), which reorder what a
  terminal shows, become `\\u202e`;
- lone surrogates (U+D800–U+DFFF, from JSON `"\\ud800"`), which no terminal encoding can carry,
  become `\\ud800`.

So no escape sequence stored in a file can restyle, retitle or clear a terminal, write its
clipboard (OSC 52) or disguise what a line says. `literal` wraps the result in a rich `Text`
(markup-looking brackets stay brackets); `dumps` is the JSON form (those code points escaped as
`\\uXXXX`, other non-ASCII kept); `SafeConsole` applies `visible` to every text segment it prints,
so a string that skipped `literal` still can't reach the terminal raw.
"""

from __future__ import annotations

import functools
import json
import re
from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:  # pragma: no cover
    from rich.text import Text
# rich is imported when a Text or the console is first made, not here: a command that prints JSON
# (`hmc status --json`, `pending list --json`) needs `dumps` only, and rich's console is ~30 ms.

__all__ = ["literal", "visible", "visible_controls", "dumps", "SafeConsole", "UNSAFE", "masked"]

# Everything a terminal might act on, or that reorders a line, other than newline and tab.
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _show(match: re.Match) -> str:
    cp = ord(match.group())
    if cp < 0x20:
        return chr(0x2400 + cp)  # control pictures: ␀ … ␟ (ESC → ␛)
    if cp == 0x7F:
        return "\u2421"  # ␡
    if cp <= 0x9F:
        return f"\\x{cp:02x}"
    return f"\\u{cp:04x}"  # bidi overrides and isolates, lone surrogates


def visible(text: object) -> str:
    """`text` with every control, bidi override/isolate and lone surrogate made visible."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    return UNSAFE.sub(_show, text)


visible_controls = visible  # the name the TUI screens use


def fitting(text: object) -> str:
    """`visible(text)` for a line that must fit its box in every terminal: U+200D (zero width
    joiner) shown as `\\u200d`. Rich counts emoji joined by it (woman + laptop, a family of three)
    as one 2-cell picture; a terminal that doesn't join them (tmux, xterm, most Linux ones) paints
    each part (4 or 6 cells), pushing the box's right border out of line. Shown like the other
    invisible characters, every terminal paints the emoji on either side as Rich counts them, and
    the joiner Hermes's scan blocks the entry for is in sight."""
    return visible(text).replace("\u200d", "\\u200d")


def literal(text: object, style: str = "") -> Text:
    """A rich Text holding `text` exactly (markup-looking brackets stay brackets), controls visible."""
    from rich.text import Text

    return Text(visible(text), style=style)


# JSON: json.dumps escapes C0 itself; DEL, C1, bidi controls and lone surrogates are left raw with
# ensure_ascii=False. They can only occur inside strings (JSON's own syntax is ASCII), so escaping
# them afterwards keeps the document valid and the value unchanged for any JSON reader.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def dumps(obj: Any, **kwargs: Any) -> str:
    """json.dumps for output: non-ASCII text kept readable, no raw control or bidi code point."""
    kwargs.setdefault("ensure_ascii", False)
    kwargs.setdefault("default", str)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(obj, **kwargs))


def _safe_console() -> type:
    """SafeConsole, made when first asked for (tui.literal.SafeConsole: the module's __getattr__)."""
    from rich.console import Console
    from rich.segment import Segment

    class SafeConsole(Console):
        """A rich Console that makes controls visible in every text segment it writes.

        Styles are rendered by rich from the segment's style, never from its text, so only the
        text is touched; rich's own control segments (cursor moves) pass unchanged.
        """

        def _render_buffer(self, buffer: Iterable[Segment]) -> str:
            safe = (seg if seg.control else Segment(visible(seg.text), seg.style, seg.control) for seg in buffer)
            return super()._render_buffer(safe)

        def on_broken_pipe(self) -> None:
            """The reader went away (`hmc log | head -1`): stop, as a closed pipe stops any CLI tool.
            rich's own answer is SystemExit(1), the code for refusals and findings: the command's
            caller (tui.cli.main) ends quietly with 0 instead."""
            self.quiet = True
            raise ReaderGone

    SafeConsole.__module__, SafeConsole.__qualname__ = __name__, "SafeConsole"
    return SafeConsole


def __getattr__(name: str):
    if name == "SafeConsole":
        cls = globals()["SafeConsole"] = _safe_console()
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class ReaderGone(Exception):
    """The pipe hmc writes to was closed by its reader. Not an OSError, so that no command's
    handler of the OS refusing a file takes it for one ("can't read: broken pipe")."""


def masked(text: object) -> str:
    """A field that may hold a token someone pasted (a session's id or source, an origin line, an
    entry, a message), with the token masked as the command line masks it (the one Masker,
    core.scan.mask). A string is masked once: a list repainting shows the same texts again."""
    if isinstance(text, str):
        return _masked_text(text)
    from core.scan.mask import Masker

    return Masker()(text)


@functools.lru_cache(maxsize=8192)
def _masked_text(text: str) -> str:
    from core.scan.mask import Masker

    return Masker()(text)


def masked_spans(spans, mask=None) -> list:
    """A snippet's (part, is_match) spans, or the whole snippet masked and unmarked when it holds a
    secret (a match inside a token must not show the token's pieces around it)."""
    whole = "".join(part for part, _ in spans)
    shown = (mask or masked)(whole)
    return list(spans) if shown == whole else [(shown, False)]
