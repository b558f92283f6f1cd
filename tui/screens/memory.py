"""Memory mode: MEMORY.md and USER.md side by side, with gauges, and every way to fix them."""

from __future__ import annotations

import asyncio

from rich.text import Text
from textual import work
from textual.worker import get_current_worker
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import OptionList

from core.store.memory import FILE_NAMES, TARGETS, Op, Snapshot, StoreError, prompt_block
from tui.literal import literal, visible_controls
from tui.screens.base import ModeScreen
from tui.widgets.entries import EntryList
from tui.widgets.filter_bar import FilterBar
from tui.widgets.footer import KeyFooter
from tui.widgets.header import HmcHeader
from tui.widgets.store_pane import StorePane
from tui.widgets.work_progress import WorkProgress


SCAN_DELAY = 0.25  # seconds after the first frame before the first scan (it competes with the frame's write)
READ_ONLY = {"add": "Add", "edit": "Edit", "delete": "Delete", "undo": "Undo", "history": "Restore",
             "repair": "Repair", "preview": "Prompt"}  # greyed while time travelling
ORIGIN_DELAY = 0.1  # and before the history rebuild (the origin lines): after the panes are out


def usage_note(figures, short: bool) -> str | None:
    """The line under a gauge when the prompt's label differs from the file's usage (a blocked entry's
    notice is counted in the prompt), or None; one short line on a small terminal."""
    if not figures.differ:
        return None
    n = figures.blocked
    if short:
        return f"Prompt says {figures.prompt_label} (counts {n} [BLOCKED] notice{'s' if n != 1 else ''})"
    return (f"Prompt label {figures.prompt_label}: it counts the [BLOCKED] notice of {n} blocked "
            f"entr{'y' if n == 1 else 'ies'}; the gauge counts the file, as the limit checks do")


class MemoryScreen(ModeScreen):
    MODE = "memory"
    AREA = "memory"
    HELP = """\
## Memory
Both files Hermes injects into every session. The gauge shows the label Hermes puts in the prompt.
**a** add · **e**/Enter edit · **d** delete · **u** undo hmc's last write · **h** removed entries
(Enter restores) · **p** the exact prompt block · **r** repair a drifted file · **o** where an entry
was written · **i** the entry's history (its earlier texts and the sessions that wrote them) ·
**M** move or copy the entry to another profile (u undoes both sides) ·
**Tab** other file · **t** the timeline of every write · **T** time travel: the stores as they were
on a date, read-only (**n** diff with now, **Esc** back to now). The muted line under each entry says when it
was added and by whom ("added 12 Oct · telegram · 3 revisions", "no recorded call · by 16 Sep"), and how many
sessions loaded it.
**/** filters the entries of both files as you type (Enter keeps the filter, Esc clears it) ·
**j**/**k**, **g**/**G** move in the list. Anywhere: **1**–**5** switch modes (memory, pending,
search, review, profiles; **3** lands in the session search box) · **?** or **F1** this help · **ctrl+p**
every action by name.
"""
    # Focus starts on MEMORY.md's entries (Textual's default, the first focusable widget, was the
    # hidden filter line, which on_mount then took it from: the screen's styles worked out twice)
    AUTO_FOCUS = "#entries-memory"
    DEFAULT_CSS = """
    MemoryScreen #travel-banner { height: auto; background: $warning; color: $background; padding: 0 1; }
    MemoryScreen #snapshot-banner { height: auto; color: $warning; padding: 0 1; }
    """
    BINDINGS = [
        Binding("a", "add", "Add", id="memory.add", tooltip="Add an entry to the focused file"),
        Binding("e,enter", "edit", "Edit", id="memory.edit", tooltip="Edit the highlighted entry"),
        Binding("d,delete", "delete", "Delete", id="memory.delete", tooltip="Delete the highlighted entry (asks first)"),
        Binding("u", "undo", "Undo", id="memory.undo", tooltip="Undo hmc's last write (refused if the file changed since)"),
        Binding("M", "move_profile", "Move to profile", id="memory.move", show=False,
                tooltip="Move or copy the highlighted entry to another profile's same file (u undoes both sides)"),
        Binding("h", "history", "Removed", id="memory.history", tooltip="Entries hmc removed or replaced; Enter restores one"),
        Binding("p", "preview", "Prompt", id="memory.preview", tooltip="The exact block Hermes injects into the prompt"),
        Binding("r", "repair", "Repair", id="memory.repair", tooltip="Repair a drifted or unreadable file (backup first)"),
        Binding("o", "provenance", "Origin", id="memory.origin", tooltip="Open the session where this entry was written"),
        Binding("i", "entry_history", "History", id="memory.entry_history",
                tooltip="The entry's earlier texts, with diffs and the sessions that wrote them"),
        Binding("T", "time_travel", "Time travel", id="memory.time_travel", show=False,  # ? and ctrl+p list it
                tooltip="Show the stores as they were on a date (read-only)"),
        Binding("n", "travel_diff", "Diff with now", id="memory.travel_diff",
                tooltip="What changed between the date shown and now"),
        Binding("escape", "travel_back", "Back to now", id="memory.travel_back",
                tooltip="Leave time travel: the stores as they are now"),
        Binding("slash", "filter", "Filter entries", id="memory.filter", show=False, priority=True,
                tooltip="Filter the entries of both files as you type (Esc clears)"),
        Binding("tab", "other_pane", "Other file", id="memory.switch", tooltip="Switch between MEMORY.md and USER.md", show=False),
    ]

    def compose(self) -> ComposeResult:
        yield HmcHeader()  # the filter line is mounted above the panes when / first opens it (filter_bar)
        with Horizontal(id="panes"):
            for target in TARGETS:
                store = self.app.curator.stores[target]  # read as the app opened: the gauges mount at their level
                yield StorePane(target, store.last.usage, store.limit)
        yield WorkProgress(self.app.long_work)
        yield KeyFooter()

    def on_mount(self) -> None:
        self._scan_cache: dict[str, list[str]] = {}
        self._scanning: set[str] = set()
        self._first_scan = True
        # The line under a gauge when the prompt's label differs (a blocked entry) comes with the first
        # scan's badges: telling needs Hermes's threat patterns, compiled off the UI thread by then
        self._notes_on = False
        self._origins: dict[str, dict[str, str]] = {}
        self._loads: dict[str, dict[str, str]] = {}  # per target, entry -> which sessions loaded it
        self.stale_chats: list = []  # open chats on an older snapshot (core.snapshots.compare.Stale)
        self.travel_at = None  # time travel: the moment shown (a datetime), read-only; None: now
        self.travel_past: dict[str, tuple[str, ...]] = {}
        self.timeline = None  # the rebuilt history (core.timeline), built off the UI thread after the first frame
        self._origins_curator = self.app.curator  # the profile the origin lines are for
        self.app.memory_changed.subscribe(self, self._stores_changed)
        self.reload()
        self.query_one("#entries-memory", EntryList).focus()
        later = getattr(self.app, "after_first_frame", None)
        (later or self.call_after_refresh)(lambda: self.set_timer(ORIGIN_DELAY, self.load_origins))
        (later or self.call_after_refresh)(lambda: self.set_timer(ORIGIN_DELAY, self.load_loaded))

    def _stores_changed(self, target: str | None = None) -> None:
        if self._origins_curator is not self.app.curator:  # another profile: its own history, and now
            self._origins_curator = self.app.curator
            self.timeline, self._origins, self._loads = None, {}, {}
            if self.travel_at is not None:
                self.travel_at, self.travel_past = None, {}
                self._travel_banner()
                self.refresh_bindings()
            self.load_origins()
        elif self.timeline is not None:  # the origin lines follow the write (the first load does it otherwise)
            self.load_origins()
        self.load_loaded()
        self.reload(target)

    # -- rendering -----------------------------------------------------------------------------

    def marks_for(self, entries) -> dict[int, list[str]]:
        """The scan badges known so far (entries not scanned yet get theirs once scan_marks is done)."""
        return {i: self._scan_cache[e] for i, e in enumerate(entries) if self._scan_cache.get(e)}

    def reload(self, target: str | None = None) -> None:
        curator = self.app.curator
        if not self._notes_on and not any(self.entries_shown(t) for t in TARGETS):
            self._notes_on = True  # no entry: nothing to scan, nothing to wait for
        for t in TARGETS if target is None else (target,):
            store = curator.stores[t]
            snap = store.last if self.travel_at is None else Snapshot(t, self.travel_past.get(t, ()), exists=True)
            n = len(snap.entries)
            title = f"{FILE_NAMES[t]}  ·  {n} entr{'y' if n == 1 else 'ies'}"
            only = self.filtered(snap.entries)
            if only is not None:
                title += f"  ·  {len(only)} match the filter"
            if self.travel_at is not None:
                title += "  ·  then"
            origins = self.origin_lines(t) if self.travel_at is None else None  # they describe the entries now
            empty = ("No entries then." if self.travel_at is not None else
                     f"{FILE_NAMES[t]} is empty: Hermes injects nothing for it. Press a to add an entry "
                     f"({'what the agent should know about you' if t == 'user' else 'facts, conventions, decisions'}"
                     "; Tab switches files).")
            note = usage_note(store.figures(snap), short=self.app.size.height < 30) if self._notes_on else None
            self.query_one(f"#pane-{t}", StorePane).show(snap, store.limit, store.enabled, self.marks_for(snap.entries),
                                                         title, origins, empty, only, note,
                                                         self.filter_words() if only is not None else ())
        self.update_bindings()
        unscanned = [e for t in TARGETS for e in self.entries_shown(t)
                     if e not in self._scan_cache and e not in self._scanning]
        if unscanned:  # once the entries are on screen: the scan (and its import) never delays them
            self._scanning.update(unscanned)
            if self._first_scan:
                self._first_scan = False
                self.set_timer(SCAN_DELAY, lambda: self.scan_marks(unscanned))
            else:
                self.scan_marks(unscanned)

    @work(thread=True, group="memory-scan", exit_on_error=False)
    def scan_marks(self, entries: list[str]) -> None:
        """Scan entries off the UI thread; the badges appear when it is done."""
        from core.scan import scanner

        release = self.app.curator.release
        if not self._notes_on:  # Hermes's patterns compiled here, not on the UI thread (the gauges' notes)
            for store in self.app.curator.stores.values():
                store.figures()
        badges: dict[str, list[str]] = {}
        for entry in entries:
            found = scanner.scan(entry, release)
            badge = []
            if any(f.hermes_blocks for f in found) and release.load_scan:
                badge.append("⚠ blocked by Hermes")
            elif scanner.blocking(found):
                badge.append("⚠ scan")
            badges[entry] = badge
        self.app.call_from_thread(self._scanned, badges)

    @work(thread=True, exclusive=True, group="memory-origins", exit_on_error=False)
    def load_origins(self) -> None:
        """Rebuild the history off the UI thread (cached: fast after the first time) and put each
        entry's origin line under it. No state.db, or one that can't be read: no origin lines."""
        curator = self.app.curator
        if not curator.home.state_db.exists():
            return
        from core.sessions.db import SessionsError
        from core.store.memory import StoreError as _StoreError
        from core.timeline import build_timeline
        from core.timeline.view import origin_lines
        from core.timeline.writes import DamagedCache

        worker = get_current_worker()
        try:
            with self.app.long_work("rebuilding the memory history") as progress:
                timeline = build_timeline(curator, progress=progress)
                try:
                    lines = origin_lines(timeline, curator.now())
                except DamagedCache:  # met when an origin's write was read: rebuilt, checked this time
                    timeline = build_timeline(curator, progress=progress, verified=True)
                    lines = origin_lines(timeline, curator.now())
        except (SessionsError, _StoreError, OSError):
            return
        self.app.call_from_thread(self._origins_loaded, curator, timeline, lines, worker)

    def _origins_loaded(self, curator, timeline, lines: dict[str, dict[str, str]], worker=None) -> None:
        if curator is not self.app.curator:  # another profile meanwhile
            return
        if worker is not None and worker.is_cancelled:  # a newer rebuild (after a write) replaced this one
            return
        self.timeline = timeline
        if lines != self._origins:
            self._origins = lines
            self.reload()

    def origin_lines(self, target: str) -> dict[str, str]:
        """Each entry's line under it: who wrote it (the history), then which sessions loaded it."""
        written, loaded = self._origins.get(target, {}), self._loads.get(target, {})
        return {e: " · ".join(x for x in (written.get(e), loaded.get(e)) if x) for e in written.keys() | loaded.keys()}

    @work(thread=True, exclusive=True, group="memory-loaded", exit_on_error=False)
    def load_loaded(self) -> None:
        """Read what every session loaded (off the UI thread): which sessions loaded each entry, and
        the open chats still on an older snapshot. No state.db, or one that can't be read: nothing."""
        from core.snapshots.compare import entry_loads, stale_sessions
        from core.timeline.view import loaded_words

        curator = self.app.curator
        if not curator.home.state_db.exists():  # (another profile's lines and banner go)
            self.app.call_from_thread(self._loaded_read, curator, {}, [])
            return
        try:
            snaps = curator.snapshots()
        except Exception:  # noqa: BLE001 - a damaged state.db: no loaded lines (search says why)
            self.app.call_from_thread(self._loaded_read, curator, {}, [])
            return
        now = curator.now()
        loads = {}
        for target, store in curator.stores.items():
            entries = store.last.entries
            found = entry_loads(snaps, target, entries, curator.release)
            if found is not None:
                loads[target] = {e: loaded_words(load, now) for e, load in zip(entries, found)}
        stale = stale_sessions(snaps, curator.now_entries(), now)
        self.app.call_from_thread(self._loaded_read, curator, loads, stale)

    def _loaded_read(self, curator, loads: dict, stale: list) -> None:
        if curator is not self.app.curator:
            return
        self.stale_chats = stale
        self._snapshot_banner()
        if loads != self._loads:
            self._loads = loads
            self.reload()

    def _snapshot_banner(self) -> None:
        from textual.widgets import Static

        from core.timeline.view import stale_notice

        # about the files now: not shown over the stores of another date
        text = stale_notice(self.stale_chats, self.app.curator.now()) if self.travel_at is None else ""
        banners = self.query("#snapshot-banner")
        if not text:
            if banners:
                banners.first().remove()
        elif banners:
            banners.first().update(Text(text))
        else:
            self.mount(Static(Text(text), id="snapshot-banner", markup=False), after=self.query_one(HmcHeader))

    def _scanned(self, badges: dict[str, list[str]]) -> None:
        fresh = {e: b for e, b in badges.items() if e not in self._scan_cache}
        self._scan_cache.update(badges)
        self._scanning.difference_update(badges)
        notes = not self._notes_on
        self._notes_on = True
        if any(fresh.values()) or notes:
            self.reload()

    def update_bindings(self) -> None:
        """Re-grey the footer only when what can apply changed."""
        state = (self.travel_at, *(self.why_not(a) for a in ("add", "edit", "delete", "provenance", "repair", "undo")))
        if state != getattr(self, "_binding_state", None):
            self._binding_state = state
            self.refresh_bindings()

    def show_entry(self, target: str, entry: str | None = None, index: int | None = None) -> None:
        """Focus `target`'s list and highlight `entry` (at `index` if it is still there, else its first
        exact match, else the first entry containing it): where review's g and an add land.

        Runs after the pending reload (the store's change signal reaches this screen on its next
        turn), so the list already holds the entry."""
        self.call_after_refresh(self._show_entry, target, entry, index)

    def _show_entry(self, target: str, entry: str | None, index: int | None) -> None:
        lst = self.query_one(f"#entries-{target}", EntryList)
        lst.focus()
        if entry is None:
            return
        entries = list(self.app.curator.stores[target].last.entries)
        if index is not None and 0 <= index < len(entries) and entries[index] == entry:
            lst.highlight_entry(index)
            return
        index = next((i for i, e in enumerate(entries) if e == entry),
                     next((i for i, e in enumerate(entries) if entry.strip() and entry.strip() in e), None))
        if index is not None:
            lst.highlight_entry(index)

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
        entries = self.entries_shown(self.target)
        index = lst.entry_at(lst.highlighted)
        if index is None or not (0 <= index < len(entries)):
            return None
        return entries[index]

    def filter_bar(self) -> FilterBar:
        """The filter line, mounted the first time `/` opens it: one widget (a text box) less to build
        and style before the first frame. It is registered at once, so the keys typed right behind
        `/` reach it (FilterBar.start)."""
        bar = super().filter_bar()
        if bar is None:
            bar = FilterBar(id="memory-filter")
            self.mount(bar, before="#panes")
        return bar

    def apply_filter(self) -> None:
        self.reload()

    def filter_list(self) -> EntryList:
        return self.query_one(f"#entries-{self.target}", EntryList)

    def filtered(self, entries) -> list[int] | None:
        """The indexes of the entries the filter keeps (None: no filter, every entry)."""
        if not self.filter_text.strip():
            return None
        return [i for i, e in enumerate(entries) if self.matches_filter(e)]

    def entries_shown(self, target: str) -> tuple[str, ...]:
        """The entries in the pane: the file's now, or the store's as it was while time travelling."""
        if getattr(self, "travel_at", None) is not None:
            return self.travel_past.get(target, ())
        return self.app.curator.stores[target].last.entries

    def hidden(self, action: str) -> bool:
        """Diff with now and Back to now exist only while time travelling."""
        return action in ("travel_diff", "travel_back") and getattr(self, "travel_at", None) is None

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        reason = self.why_not("edit")
        if reason:  # Enter on a greyed edit (time travel, a drifted file) says why, as the e key does
            self.notify(reason, title="Not now", severity="warning", timeout=4, markup=False)
            return
        self.action_edit()

    def why_not(self, action: str) -> str | None:
        if not self.is_mounted or not hasattr(self, "_scan_cache"):
            return None
        store = self.app.curator.stores[self.target]
        snap = store.last
        name = FILE_NAMES[self.target]
        if self.travel_at is not None and action in READ_ONLY:
            from core.timeline.view import moment_label

            return (f"{READ_ONLY[action]}: read-only while showing {moment_label(self.travel_at)} "
                    "(Esc returns to now)")
        if action in ("add", "edit", "delete"):
            verb = action.capitalize()
            if not store.enabled:
                return f"{verb}: {name} is disabled in config.yaml"
            add_through_drift = (action == "add" and snap.drift and not snap.error and not snap.symlink
                                 and not getattr(getattr(store, "release", None), "add_checks_drift", True))
            if not snap.writable and not add_through_drift:  # newer Hermes lets one add through a drift
                why = ("it is a symbolic link" if snap.symlink else "it has drifted (r repairs it)" if snap.drift
                       else "it can't be read (r repairs it)")
                return f"{verb}: hmc won't write {name}: {why}"
            if action != "add" and self.selected() is None:
                return f"{verb}: {name} has no entry to {action}"
            return None
        if action == "move_profile":
            if self.selected() is None:
                return f"Move: {name} has no entry selected"
            if not self.app.other_profiles():
                return f"Move: {self.app.curator.home.profile} is the home's only profile"
            return None
        if action == "provenance":
            return None if self.selected() is not None else f"Origin: {name} has no entry selected"
        if action == "entry_history":
            return None if self.selected() is not None else f"Its history: {name} has no entry selected"
        if action == "repair":
            return None if (snap.drift or snap.error or snap.untidy) else f"Repair: {name} is already clean"
        if action == "undo":
            return None if self.app.curator.history.undoable() is not None else "Undo: hmc has written nothing to undo"
        return None

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
        from tui.screens.dialogs import EditAgain, EditEntryDialog

        initial = None
        while True:
            result = await self.app.push_screen_wait(
                EditEntryDialog(self.app.curator, target, original, initial=initial))
            if result is None:
                return
            if original is None:
                ops = [Op("add", content=result.text)]
            elif result.text in (original, visible_controls(original)):  # opened and saved as it was
                self.notify("No change.", markup=False)
                return
            else:
                ops = [Op("replace", content=result.text, old_text=original, matched_entry=original)]
            try:
                written = await self.app.write(target, ops, force=result.force, editable=True)
                if written is not None:
                    self.show_entry(target, result.text)  # the list moves to the new (or edited) entry
                return
            except EditAgain as again:  # the entry changed on disk: edit mine against theirs
                original, initial = again.theirs, again.mine

    @work(exclusive=True, group="memory-write")
    async def action_delete(self) -> None:
        from tui.screens.dialogs import ConfirmDialog

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
    async def action_move_profile(self) -> None:
        """M: the highlighted entry to another profile (app.move_entry). Three keys: M, Enter, Enter."""
        entry = self.selected()
        if entry is not None:
            await self.app.move_entry(self.target, entry)

    @work(exclusive=True, group="memory-write")
    async def action_undo(self) -> None:
        await self.app.undo()

    @work(exclusive=True, group="memory-write")
    async def action_history(self) -> None:
        from tui.screens.dialogs import PickDialog

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
        written = await self.app.write(item.target, [Op("add", content=item.text)], action="restore",
                                       said="Entry restored.")
        if written is not None:
            self.show_entry(item.target, item.text)

    def action_preview(self) -> None:
        from tui.screens.dialogs import TextDialog

        store = self.app.curator.stores[self.target]
        entries = store.last.entries
        block = prompt_block(self.target, entries, store.limit, store.release)
        self.app.push_screen(TextDialog(
            f"Prompt block — {store.name}", block or "(empty store: Hermes injects nothing for it)",
            note="Hermes injects this once, at the start of each session: a change made now reaches the agent in its next session.",
        ))

    @work(exclusive=True, group="memory-write")
    async def action_repair(self) -> None:
        from tui.screens.dialogs import ConfirmDialog

        target = self.target
        store = self.app.curator.stores[target]
        snap = store.read()
        drop: list[int] = []
        if snap.error and "UTF-8" in snap.error:
            body = (f"{snap.error}.\n\nRepair saves the file as {store.name}.bak.<time> first, then rewrites it in "
                    "Hermes's form with each undecodable byte replaced by U+FFFD (�). Check the entries afterwards.")
        elif snap.error:
            self.notify(snap.error, severity="error", markup=False)
            return
        else:
            from core.store.memory import tidy_entries

            long = [i for i, e in enumerate(tidy_entries(snap.raw or "")) if len(e) > store.limit]
            what = (f"{store.name} has drifted: {snap.drift}." if snap.drift else
                    f"Hermes reads {store.name} fine, but it has " + "; ".join(snap.untidy) + ".")
            body = (f"{what}\n\nRepair saves the file as {store.name}.bak.<time> first, then rewrites the entries "
                    "in the exact form Hermes writes (no byte-order mark, LF line ends, a § line with stray "
                    "spaces read as a separator, each entry once).")
            if long:
                body += (f"\n\n{len(long)} entr{'y is' if len(long) == 1 else 'ies are'} longer than the whole "
                         f"{store.limit:,}-char limit. hmc never cuts an entry: repairing removes "
                         f"{'it' if len(long) == 1 else 'them'} from the file and keeps "
                         f"{'it' if len(long) == 1 else 'them'} in hmc's history (h), where you can shorten and restore.")
                drop = long
        if not await self.app.push_screen_wait(ConfirmDialog(f"Repair {store.name}?", body, yes="Repair",
                                                             no="Cancel", danger=True)):
            return
        try:
            result = await asyncio.to_thread(store.repair, drop)
        except StoreError as exc:
            self.notify(str(exc), title="Repair refused", severity="error", markup=False)
            return
        self.app.stores_written(target)
        self.notify(result.messages[0], title=f"{store.name} repaired", markup=False)

    # -- time travel -------------------------------------------------------------------------------

    @work(exclusive=True, group="memory-travel")
    async def action_time_travel(self) -> None:
        """Pick a moment; the panes show the stores as they were then (read-only, under a banner)."""
        from core.sessions.db import SessionsError
        from core.timeline import build_timeline
        from tui.screens.time_travel import MomentDialog

        timeline = self.timeline
        if timeline is None or timeline.curator is not self.app.curator:
            try:
                with self.app.long_work("rebuilding the memory history") as progress:
                    timeline = await asyncio.to_thread(build_timeline, self.app.curator, progress=progress)
            except (SessionsError, StoreError, OSError) as exc:
                self.notify(f"Can't read the agent's history: {exc}", title="Time travel", severity="error",
                            markup=False)
                return
            self.timeline = timeline

        def preview(moment) -> str:
            state = timeline.state_at(moment)
            return " · ".join(f"{FILE_NAMES[t]} had {len(state[t])} entr{'y' if len(state[t]) == 1 else 'ies'}"
                              for t in TARGETS)

        start = self.travel_at.strftime("%Y-%m-%d") if self.travel_at is not None else ""
        moment = await self.app.push_screen_wait(MomentDialog(self.app.curator.today, preview, start))
        if moment is None:
            return
        self.travel_at = moment
        self.travel_past = timeline.state_at(moment)
        self._travel_banner()
        self.reload()
        self.refresh_bindings()

    def _travel_banner(self) -> None:
        from textual.widgets import Static

        self._snapshot_banner()
        banners = self.query("#travel-banner")
        if self.travel_at is None:
            if banners:
                banners.first().remove()
            return
        from core.timeline.view import moment_label

        text = Text(f"TIME TRAVEL · the stores on {moment_label(self.travel_at)} · read-only", style="bold")
        text.append("  ·  n diff with now · T another date · Esc back to now")
        if banners:
            banners.first().update(text)
        else:
            self.mount(Static(text, id="travel-banner", markup=False), after=self.query_one(HmcHeader))

    def action_travel_back(self) -> None:
        if self.travel_at is None:
            return
        self.travel_at, self.travel_past = None, {}
        self._travel_banner()
        self.reload()
        self.refresh_bindings()

    def action_travel_diff(self) -> None:
        from core.timeline.view import moment_label, travel_diff
        from tui.screens.time_travel import TravelDiffDialog, diff_body

        if self.travel_at is None:
            return
        now = {t: self.app.curator.stores[t].last.entries for t in TARGETS}
        label = moment_label(self.travel_at)
        self.app.push_screen(TravelDiffDialog(f"Then ({label}) and now", diff_body(travel_diff(self.travel_past, now),
                                                                                  label)))

    def action_entry_history(self) -> None:
        from tui.screens.entry_history import EntryHistoryScreen

        entry = self.selected()
        if entry is not None:
            self.app.push_screen(EntryHistoryScreen(self.target, entry))

    def action_provenance(self) -> None:
        entry = self.selected()
        if entry is not None:
            self.app.open_provenance(entry, self.target, self.timeline)
