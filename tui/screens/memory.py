"""Memory mode: MEMORY.md and USER.md side by side, with gauges, and every way to fix them."""

from __future__ import annotations

import asyncio

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, OptionList

from core.scan import scanner
from core.store.memory import FILE_NAMES, TARGETS, Op, StoreError, prompt_block
from tui.literal import literal
from tui.screens.dialogs import ChoiceDialog, ConfirmDialog, EditAgain, EditEntryDialog, PickDialog, TextDialog
from tui.widgets.entries import EntryList
from tui.widgets.header import HmcHeader
from tui.widgets.store_pane import StorePane


class MemoryScreen(Screen):
    MODE = "memory"
    AREA = "memory"
    HELP = """\
## Memory
Both files Hermes injects into every session. The gauge shows the label Hermes puts in the prompt.
**a** add · **e**/Enter edit · **d** delete · **u** undo hmc's last write · **h** removed entries
(Enter restores) · **p** the exact prompt block · **r** repair a drifted file · **o** where an entry
was written · **Tab** other file.
"""
    BINDINGS = [
        Binding("a", "add", "Add", id="memory.add", tooltip="Add an entry to the focused file"),
        Binding("e,enter", "edit", "Edit", id="memory.edit", tooltip="Edit the highlighted entry"),
        Binding("d,delete", "delete", "Delete", id="memory.delete", tooltip="Delete the highlighted entry (asks first)"),
        Binding("u", "undo", "Undo", id="memory.undo", tooltip="Undo hmc's last write (refused if the file changed since)"),
        Binding("h", "history", "History", id="memory.history", tooltip="Entries hmc removed or replaced; Enter restores one"),
        Binding("p", "preview", "Prompt", id="memory.preview", tooltip="The exact block Hermes injects into the prompt"),
        Binding("r", "repair", "Repair", id="memory.repair", tooltip="Repair a drifted or unreadable file (backup first)"),
        Binding("o", "provenance", "Origin", id="memory.origin", tooltip="Open the session where this entry was written"),
        Binding("tab", "other_pane", "Other file", id="memory.switch", tooltip="Switch between MEMORY.md and USER.md", show=False),
    ]

    def compose(self) -> ComposeResult:
        yield HmcHeader()
        with Horizontal(id="panes"):
            for target in TARGETS:
                yield StorePane(target)
        yield Footer()

    def on_mount(self) -> None:
        self._scan_cache: dict[str, list[str]] = {}
        self.app.memory_changed.subscribe(self, self.reload)
        self.reload()
        self.query_one("#entries-memory", EntryList).focus()

    # -- rendering -----------------------------------------------------------------------------

    def marks_for(self, entries) -> dict[int, list[str]]:
        marks = {}
        for i, entry in enumerate(entries):
            if entry not in self._scan_cache:
                found = scanner.scan(entry)
                badge = []
                if any(f.hermes_blocks for f in found):
                    badge.append("⚠ blocked by Hermes")
                elif scanner.blocking(found):
                    badge.append("⚠ scan")
                self._scan_cache[entry] = badge
            if self._scan_cache[entry]:
                marks[i] = self._scan_cache[entry]
        return marks

    def reload(self, target: str | None = None) -> None:
        curator = self.app.curator
        for t in TARGETS if target is None else (target,):
            store = curator.stores[t]
            snap = store.last
            title = f"{FILE_NAMES[t]}  ·  {len(snap.entries)} entries"
            self.query_one(f"#pane-{t}", StorePane).show(snap, store.limit, store.enabled, self.marks_for(snap.entries), title)
        self.update_bindings()

    def update_bindings(self) -> None:
        """Re-grey the footer only when what can apply changed (each refresh rebuilds the footer)."""
        state = tuple(self.check_action(a, ()) for a in ("add", "edit", "delete", "provenance", "repair", "undo"))
        if state != getattr(self, "_binding_state", None):
            self._binding_state = state
            self.refresh_bindings()

    # -- state -----------------------------------------------------------------------------------

    @property
    def target(self) -> str:
        focused = self.focused
        if isinstance(focused, EntryList) and focused.id:
            return focused.id.removeprefix("entries-")
        return self._last_target if hasattr(self, "_last_target") else "memory"

    def on_descendant_focus(self, event) -> None:
        if isinstance(event.widget, EntryList) and event.widget.id:
            self._last_target = event.widget.id.removeprefix("entries-")
        self.update_bindings()

    def selected(self) -> str | None:
        lst = self.query_one(f"#entries-{self.target}", EntryList)
        entries = self.app.curator.stores[self.target].last.entries
        if lst.highlighted is None or not (0 <= lst.highlighted < len(entries)):
            return None
        return entries[lst.highlighted]

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.action_edit()

    def check_action(self, action: str, parameters) -> bool | None:
        if not self.is_mounted or not hasattr(self, "_scan_cache"):
            return True
        store = self.app.curator.stores[self.target]
        snap = store.last
        if action == "add":
            return snap.writable and store.enabled or None
        if action in ("edit", "delete"):
            return (snap.writable and store.enabled and self.selected() is not None) or None
        if action == "provenance":
            return self.selected() is not None or None
        if action == "repair":
            return bool(snap.drift or snap.error) or None
        if action == "undo":
            return self.app.curator.history.undoable() is not None or None
        return True

    # -- actions ---------------------------------------------------------------------------------

    def action_other_pane(self) -> None:
        other = TARGETS[1 - TARGETS.index(self.target)]
        self.query_one(f"#entries-{other}", EntryList).focus()

    def action_add(self) -> None:
        self.edit_flow(self.target, None)

    def action_edit(self) -> None:
        entry = self.selected()
        if entry is not None:
            self.edit_flow(self.target, entry)

    @work(exclusive=True, group="memory-write")
    async def edit_flow(self, target: str, original: str | None) -> None:
        initial = None
        while True:
            result = await self.app.push_screen_wait(
                EditEntryDialog(self.app.curator, target, original, initial=initial))
            if result is None:
                return
            if original is None:
                ops = [Op("add", content=result.text)]
            elif result.text == original:
                self.notify("No change.")
                return
            else:
                ops = [Op("replace", content=result.text, old_text=original, matched_entry=original)]
            try:
                await self.app.write(target, ops, force=result.force, editable=True)
                return
            except EditAgain as again:  # the entry changed on disk: edit mine against theirs
                original, initial = again.theirs, again.mine

    @work(exclusive=True, group="memory-write")
    async def action_delete(self) -> None:
        entry = self.selected()
        if entry is None:
            return
        target = self.target
        body = Text("Delete this entry from ", style="")
        body.append(FILE_NAMES[target], style="bold")
        body.append("? It stays in hmc's history (h) and u undoes it.\n\n")
        body.append_text(literal(entry))
        if await self.app.push_screen_wait(ConfirmDialog("Delete entry", body, yes="Delete", danger=True)):
            await self.app.write(target, [Op("remove", old_text=entry, matched_entry=entry)])

    @work(exclusive=True, group="memory-write")
    async def action_undo(self) -> None:
        await self.app.undo()

    @work(exclusive=True, group="memory-write")
    async def action_history(self) -> None:
        curator = self.app.curator
        current = {t: list(s.last.entries) for t, s in curator.stores.items()}
        removed = await asyncio.to_thread(curator.history.removed_entries, current)
        rows = []
        for item in removed:
            row = Text(f"{FILE_NAMES[item.target]:<9} {self.app.ago(item.ts):<14} {item.action:<8} ", style="dim")
            row.append_text(literal(" ".join(item.text.split())))
            rows.append(row)
        choice = await self.app.push_screen_wait(PickDialog(
            "Removed and replaced entries", rows,
            note="Enter puts the entry back (limit and scan apply). u in memory mode undoes hmc's last write.",
            empty="hmc has not removed or replaced any entry in this home yet.",
        ))
        if choice is None:
            return
        item = removed[choice]
        await self.app.write(item.target, [Op("add", content=item.text)], action="restore")

    def action_preview(self) -> None:
        store = self.app.curator.stores[self.target]
        entries = store.last.entries
        block = prompt_block(self.target, entries, store.limit)
        self.app.push_screen(TextDialog(
            f"Prompt block — {store.name}", block or "(empty store: Hermes injects nothing for it)",
            note="Hermes injects this once, at the start of each session: a change made now reaches the agent in its next session.",
        ))

    @work(exclusive=True, group="memory-write")
    async def action_repair(self) -> None:
        target = self.target
        store = self.app.curator.stores[target]
        snap = store.read()
        drop: list[int] = []
        if snap.error and "UTF-8" in snap.error:
            body = (f"{snap.error}.\n\nRepair saves the file as {store.name}.bak.<time> first, then rewrites it in "
                    "Hermes's form with each undecodable byte replaced by U+FFFD (�). Check the entries afterwards.")
        elif snap.error:
            self.notify(snap.error, severity="error")
            return
        else:
            long = [i for i, e in enumerate(snap.entries) if len(e) > store.limit]
            body = (f"{store.name} has drifted: {snap.drift}.\n\nRepair saves the file as {store.name}.bak.<time> "
                    "first, then rewrites the same entries in the exact form Hermes writes.")
            if long:
                body += (f"\n\n{len(long)} entr{'y is' if len(long) == 1 else 'ies are'} longer than the whole "
                         f"{store.limit:,}-char limit. hmc never cuts an entry: repairing removes "
                         f"{'it' if len(long) == 1 else 'them'} from the file and keeps "
                         f"{'it' if len(long) == 1 else 'them'} in hmc's history (h), where you can shorten and restore.")
                drop = long
        choice = await self.app.push_screen_wait(ChoiceDialog(
            f"Repair {store.name}", body, [("repair", "Repair"), ("cancel", "Cancel")], default="cancel",
        ))
        if choice != "repair":
            return
        try:
            result = await asyncio.to_thread(store.repair, drop)
        except StoreError as exc:
            self.notify(str(exc), title="Repair refused", severity="error")
            return
        self.app.stores_written(target)
        self.notify(result.messages[0], title=f"{store.name} repaired")

    def action_provenance(self) -> None:
        entry = self.selected()
        if entry is not None:
            self.app.open_provenance(entry)
