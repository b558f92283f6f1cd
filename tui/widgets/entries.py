"""The numbered entry list of one store. Entries are untrusted text: always rendered literally."""

from __future__ import annotations

from typing import Sequence

from rich.table import Table
from rich.text import Text
from tui.widgets.lists import HmcList
from textual.widgets.option_list import Option

from tui.literal import visible_controls


def entry_prompt(number: int, entry: str, limit: int, marks: Sequence[str] = ()) -> Table:
    """`  3  text…  (123)` as a grid, so wrapped and multi-line entries keep a hanging indent."""
    body = Text(visible_controls(entry))
    size = len(entry)
    body.append(f"  ({size:,})", style="bold red" if size > limit else "dim")
    for mark in marks:
        body.append(f"  {mark}", style="bold yellow")
    grid = Table.grid(padding=(0, 1), expand=True)
    grid.add_column(width=3, justify="right", style="bold")
    grid.add_column(ratio=1)
    grid.add_row(str(number), body)
    return grid


class EntryList(HmcList):
    """An OptionList of entries; posts OptionList.OptionHighlighted/Selected as usual."""

    DEFAULT_CSS = """
    EntryList, EntryList:focus { height: 1fr; border: none; padding: 0; }
    """

    def show(self, entries: Sequence[str], limit: int, marks: dict[int, list[str]] | None = None,
             keep: int | None = None) -> None:
        """Replace the options, keeping the highlight where it was (or on `keep`)."""
        old = self.highlighted if keep is None else keep
        self.clear_options()
        marks = marks or {}
        options: list[Option | None] = []
        for i, entry in enumerate(entries):
            if i:
                options.append(None)  # a rule between entries keeps multi-line entries apart
            options.append(Option(entry_prompt(i + 1, entry, limit, marks.get(i, ())), id=f"e{i}"))
        self.add_options(options)
        if entries:
            self.highlighted = min(old if old is not None else 0, len(entries) - 1)

    def highlight_entry(self, index: int) -> None:
        """Put the cursor on entry `index` and bring it into view."""
        if 0 <= index < self.option_count:
            self.highlighted = index
            self.call_after_refresh(self.scroll_to_highlight)
