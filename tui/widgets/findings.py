"""The review's findings list: grouped by kind with counts, in the order given, multi-select marks.

Dumb: it renders the findings it is given and posts the usual OptionList messages. Texts in the
rows are untrusted (details quote entries) and are always literal.
"""
from __future__ import annotations

from typing import Sequence

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text
from tui.widgets.lists import HmcList
from textual.widgets.option_list import Option

from tui.literal import visible_controls

SEVERITY_STYLE = {"critical": "bold white on red", "error": "bold red", "warning": "bold yellow",
                  "info": "bold cyan"}
SEVERITY_TAG = {"critical": "CRIT", "error": "ERR ", "warning": "WARN", "info": "INFO"}
DETAIL_WIDTH = 84  # about two lines of the list; the detail pane shows the whole reason
INDENT = 5  # the detail hangs under the severity tag


def _short(text: str, width: int = DETAIL_WIDTH) -> str:
    """One line of `text`, cut at a word boundary (never mid-word) with an ellipsis."""
    one = " ".join(visible_controls(text).split())
    if len(one) <= width:
        return one
    cut = one[: width - 1]
    space = cut.rfind(" ")
    if space >= width // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:—-") + "…"


def finding_row(finding, selected: bool, kept: bool, words: Sequence[str] = ()) -> RenderableType:
    """`☑ WARN memory #5 ↔ #14`, then the detail indented below it (wrapped lines stay indented);
    `words`: a filter's words, highlighted in the detail (tui.widgets.filter_match)."""
    head = Text(no_wrap=True, overflow="ellipsis")
    head.append("☑ " if selected else "☐ ", style="bold" if selected else "dim")
    head.append(SEVERITY_TAG.get(finding.severity, finding.severity[:4]),
                style=SEVERITY_STYLE.get(finding.severity, ""))
    head.append(f" {finding.where}", style="bold")
    if kept:
        head.append("  kept", style="italic dim")
    detail = Text(_short(finding.detail), style="dim" if kept else "")
    if words:
        from tui.widgets.filter_match import highlight

        detail = highlight(detail, words)
    return Group(head, Padding(detail, (0, 0, 0, INDENT)))


def heading(kind: str, items: Sequence) -> Text:
    text = Text(f"{kind}", style="bold underline")
    text.append(f" ({len(items)})", style="bold")
    return text


class FindingsList(HmcList):
    """Findings grouped by kind; `finding_at(index)` maps a highlighted row back to its Finding."""

    DEFAULT_CSS = """
    FindingsList, FindingsList:focus { height: 1fr; border: none; padding: 0 1 0 0; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._rows: list[object | None] = []  # Finding for a finding row, None for a heading

    def show(self, findings: Sequence, selected: set[str], kept: set[str], keep_key: str | None = None,
             words: Sequence[str] = ()) -> None:
        """Replace the rows; keep the highlight on `keep_key`, or on the finding that followed it;
        `words`: the filter's words, highlighted in each row.

        When `keep_key` is gone (kept, fixed), the cursor lands on the next finding that is still
        listed (the previous one at the end), so it stays in the same place.
        """
        old_index = self.highlighted
        old_keys = [f.key if f is not None else None for f in self._rows]
        self.clear_options()
        groups: dict[str, list] = {}
        for f in findings:  # findings arrive sorted most severe first: groups follow that order
            groups.setdefault(f.kind, []).append(f)
        options: list[Option | None] = []
        rows: list[object | None] = []
        for gi, (kind, items) in enumerate(groups.items()):
            if gi:
                options.append(None)
            options.append(Option(heading(kind, items), id=f"h-{kind}", disabled=True))
            rows.append(None)
            for f in items:
                options.append(Option(finding_row(f, f.key in selected, f.key in kept, words), id=f"f-{f.key}"))
                rows.append(f)
        self._rows = rows
        self.add_options(options)
        if not findings:
            return
        where = {f.key: i for i, f in enumerate(rows) if f is not None}
        target = where.get(keep_key) if keep_key is not None else None
        if target is None and keep_key in old_keys:
            at = old_keys.index(keep_key)
            after = [k for k in old_keys[at + 1:] if k in where]
            before = [k for k in reversed(old_keys[:at]) if k in where]
            if after or before:
                target = where[(after or before)[0]]
        if target is None:
            target = old_index if old_index is not None else 1
            target = max(1, min(target, len(rows) - 1))
            while target < len(rows) and rows[target] is None:
                target += 1
            if target >= len(rows):
                target = max(i for i, f in enumerate(rows) if f is not None)
        self.highlighted = target

    def finding_at(self, index: int | None):
        if index is None or not (0 <= index < len(self._rows)):
            return None
        return self._rows[index]

    @property
    def current(self):
        return self.finding_at(self.highlighted)

    @property
    def findings(self) -> list:
        return [f for f in self._rows if f is not None]
