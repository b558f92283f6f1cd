"""One store's pane: title, capacity gauge, a problem banner, and the numbered entries."""

from __future__ import annotations

from typing import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from core.store.memory import FILE_NAMES, Snapshot
from tui.literal import literal
from tui.widgets.entries import EntryList
from tui.widgets.gauge import CapacityGauge
from core.plural import counted


class StorePane(Vertical):
    """Renders a Snapshot it is given; it never reads files itself."""

    def __init__(self, target: str, used: int = 0, limit: int = 1, **kwargs) -> None:
        """`used`/`limit`: the gauge's figures as it mounts, when known (the first `show` then
        keeps its level class: no second styling of the gauge)."""
        super().__init__(id=f"pane-{target}", classes="store-pane", **kwargs)
        self.target = target
        self._figures = (used, limit)

    def compose(self) -> ComposeResult:
        # the title rides on the gauge's first line, and the problem banner is mounted only when a
        # problem shows: fewer widgets to style and lay out (start-up time)
        yield CapacityGauge(*self._figures, id=f"gauge-{self.target}",
                            title=Text(FILE_NAMES[self.target], style="bold"), classes="pane-title")
        yield EntryList(id=f"entries-{self.target}")

    @property
    def entry_list(self) -> EntryList:
        return self.query_one(EntryList)

    def show(self, snap: Snapshot, limit: int, enabled: bool, marks: dict[int, list[str]], title: str,
             origins: dict[str, str] | None = None, empty: str = "", only=None, note: str | None = None,
             words: Sequence[str] = ()) -> None:
        """`note`: one muted line under the gauge (why the prompt's label differs from the gauge);
        `only` and `words`: the entries a filter keeps and its words, highlighted in them."""
        gauge = self.query_one(CapacityGauge)
        gauge.set_title(Text(title, style="bold"))
        gauge.update(snap.usage, limit)
        problems = []
        if snap.error:
            problems.append(f"✗ {snap.error}. Press r to repair (a backup is saved first).")
        elif snap.symlink:
            problems.append(f"⚠ {FILE_NAMES[self.target]} is a symbolic link: hmc shows it but won't write it.")
        if snap.drift:
            problems.append(f"⚠ Drifted: {snap.drift}. Hermes refuses to edit this file. Press r to repair.")
        elif snap.untidy and not snap.error:
            problems.append("Untidy, though Hermes reads it fine: " + "; ".join(snap.untidy) + ". r tidies it.")
        if not enabled:
            problems.append("⚠ Disabled in config.yaml: Hermes ignores this store and hmc won't write it.")
        if snap.usage > limit:
            problems.append(f"⚠ Over the limit by {counted(snap.usage - limit, 'char')}: Hermes refuses every add until it shrinks.")
        banners = self.query(".pane-banner")
        if problems:
            text = literal("\n".join(problems))
            if banners:
                banners.first().update(text)
                banners.first().display = True
            else:
                self.mount(Static(text, classes="pane-banner", markup=False), after=gauge)
        elif banners:
            banners.first().display = False
        notes = self.query(".pane-note")
        if note:
            if notes:
                notes.first().update(literal(note, "dim"))
                notes.first().display = True
            else:
                self.mount(Static(literal(note, "dim"), classes="pane-note", markup=False), after=gauge)
        elif notes:
            notes.first().display = False
        self.set_class(bool(snap.error or snap.drift), "-problem")
        self.entry_list.show(snap.entries, limit, marks, origins=origins, empty=empty, only=only, words=words)
