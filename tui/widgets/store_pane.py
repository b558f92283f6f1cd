"""One store's pane: title, capacity gauge, a problem banner, and the numbered entries."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Label, Static

from core.store.memory import FILE_NAMES, Snapshot
from tui.literal import literal
from tui.widgets.entries import EntryList
from tui.widgets.gauge import CapacityGauge


class StorePane(Vertical):
    """Renders a Snapshot it is given; it never reads files itself."""

    def __init__(self, target: str, **kwargs) -> None:
        super().__init__(id=f"pane-{target}", classes="store-pane", **kwargs)
        self.target = target

    def compose(self) -> ComposeResult:
        yield Label(FILE_NAMES[self.target], classes="pane-title")
        yield CapacityGauge(id=f"gauge-{self.target}")
        yield Static("", classes="pane-banner", markup=False)
        yield EntryList(id=f"entries-{self.target}")

    @property
    def entry_list(self) -> EntryList:
        return self.query_one(EntryList)

    def show(self, snap: Snapshot, limit: int, enabled: bool, marks: dict[int, list[str]], title: str) -> None:
        self.query_one(".pane-title", Label).update(Text(title, style="bold"))
        self.query_one(CapacityGauge).update(snap.usage, limit)
        banner = self.query_one(".pane-banner", Static)
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
            problems.append(f"⚠ Over the limit by {snap.usage - limit:,} chars: Hermes refuses every add until it shrinks.")
        banner.update(literal("\n".join(problems)))
        banner.display = bool(problems)
        self.set_class(bool(snap.error or snap.drift), "-problem")
        self.entry_list.show(snap.entries, limit, marks)
