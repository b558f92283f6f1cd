"""Entries side by side with their differences highlighted (difflib, word by word).

Dumb: `show(panels)` renders one or two (title, body) panels it is given. `diff_pair(a, b)` and
`mark_spans(text, spans)` build the highlighted bodies; every text stays literal (never markup).
"""
from __future__ import annotations

import difflib
import re
from typing import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from tui.literal import visible_controls

REMOVED = "bold red underline"
ADDED = "bold green underline"
MARKED = "bold reverse"
STRUCK = "red strike"
_TOKENS = re.compile(r"\s+|[^\W_]+|.", re.UNICODE)


def _tokens(text: str) -> list[str]:
    # CJK has no spaces: compare it character by character
    return [t for tok in _TOKENS.findall(text)
            for t in (list(tok) if any("\u3040" <= c <= "\u9fff" for c in tok) else [tok])]


def _opcodes(a: str, b: str):
    """(op, the part of `a`, the part of `b`) word by word (controls made visible first)."""
    a, b = visible_controls(a), visible_controls(b)
    ta, tb = _tokens(a), _tokens(b)
    matcher = difflib.SequenceMatcher(None, ta, tb, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        yield op, "".join(ta[i1:i2]), "".join(tb[j1:j2])


def diff_pair(a: str, b: str) -> tuple[Text, Text]:
    """`a` with what `b` lacks highlighted, and `b` with what `a` lacks highlighted."""
    left, right = Text(), Text()
    for op, pa, pb in _opcodes(a, b):
        if op == "equal":
            left.append(pa)
            right.append(pb)
            continue
        if pa:
            left.append(pa, style=REMOVED if pa.strip() else "")
        if pb:
            right.append(pb, style=ADDED if pb.strip() else "")
    return left, right


def inline_diff(a: str, b: str, base: str = "") -> Text:
    """`b` as one text with what changed from `a` in place: each removed part struck through in red,
    then an arrow and the part that replaced it, in green ("Node ~~20~~→22": never "2022")."""
    out = Text(style=base)
    for op, pa, pb in _opcodes(a, b):
        if op == "equal":
            out.append(pa)
            continue
        if pa:
            out.append(pa, style=STRUCK if pa.strip() else "")
        if pa.strip() and pb.strip():
            out.append("→", style="dim")
        if pb:
            out.append(pb, style=ADDED if pb.strip() else "")
    return out


def mark_spans(text: str, spans: Sequence[tuple[int, int]], style: str = MARKED) -> Text:
    """`text` with the given character spans highlighted."""
    out = Text(visible_controls(text))
    for start, end in spans:
        if 0 <= start < end <= len(text):
            out.stylize(style, start, end)
    return out


class SideBySide(Horizontal):
    """One or two titled panels (two for a pair of entries)."""

    DEFAULT_CSS = """
    SideBySide { height: 1fr; }
    SideBySide > VerticalScroll {
        width: 1fr; height: 1fr; border: round $panel-lighten-2; padding: 0 1;
    }
    SideBySide > VerticalScroll.-hidden { display: none; }
    SideBySide Static { width: 1fr; }
    """

    def compose(self) -> ComposeResult:
        for i in (0, 1):
            with VerticalScroll(id=f"side-{i}"):
                yield Static("", id=f"side-body-{i}", markup=False)

    def show(self, panels: Sequence[tuple[Text | str, Text]]) -> None:
        for i in (0, 1):
            box = self.query_one(f"#side-{i}", VerticalScroll)
            body = self.query_one(f"#side-body-{i}", Static)
            if i < len(panels):
                title, text = panels[i]
                box.border_title = title  # a Text is shown literally; a str title is markup (ours only)
                body.update(text)
                box.set_class(False, "-hidden")
                box.scroll_home(animate=False)
            else:
                body.update("")
                box.border_title = ""
                box.set_class(True, "-hidden")
