"""The review's findings list: grouped by kind with counts, most severe first, multi-select marks.

Dumb: it renders the findings it is given and posts the usual OptionList messages. Texts in the
rows are untrusted (details quote entries) and are always literal.
"""
from __future__ import annotations

from typing import Sequence

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.literal import visible_controls

SEVERITY_STYLE = {"critical": "bold white on red", "error": "bold red", "warning": "bold yellow",
                  "info": "bold cyan"}
SEVERITY_TAG = {"critical": "CRIT", "error": "ERR ", "warning": "WARN", "info": "INFO"}
DETAIL_WIDTH = 70


def _short(text: str, width: int = DETAIL_WIDTH) -> str:
    one = " ".join(visible_controls(text).split())
    return one if len(one) <= width else one[: width - 1].rstrip() + "…"


def finding_row(finding, selected: bool, kept: bool) -> Text:
    """`☑ WARN memory #5 ↔ #14  one holds 75% of the other's words…`"""
    row = Text(no_wrap=False)
    row.append("☑ " if selected else "☐ ", style="bold" if selected else "dim")
    row.append(SEVERITY_TAG.get(finding.severity, finding.severity[:4]),
               style=SEVERITY_STYLE.get(finding.severity, ""))
    row.append(f" {finding.where}", style="bold")
    if kept:
        row.append("  kept", style="italic dim")
    row.append("\n     ")
    row.append(_short(finding.detail), style="dim" if kept else "")
    return row


def heading(kind: str, items: Sequence) -> Text:
    text = Text(f"{kind}", style="bold underline")
    text.append(f" ({len(items)})", style="bold")
    return text


class FindingsList(OptionList):
    """Findings grouped by kind; `finding_at(index)` maps a highlighted row back to its Finding."""

    DEFAULT_CSS = """
    FindingsList, FindingsList:focus { height: 1fr; border: none; padding: 0 1 0 0; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._rows: list[object | None] = []  # Finding for a finding row, None for a heading

    def show(self, findings: Sequence, selected: set[str], kept: set[str], keep_key: str | None = None) -> None:
        """Replace the rows; keep the highlight on `keep_key` (or the same position)."""
        old_index = self.highlighted
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
                options.append(Option(finding_row(f, f.key in selected, f.key in kept), id=f"f-{f.key}"))
                rows.append(f)
        self._rows = rows
        self.add_options(options)
        if not findings:
            return
        target = None
        if keep_key is not None:
            target = next((i for i, f in enumerate(rows) if f is not None and f.key == keep_key), None)
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
