"""The timeline: every write to MEMORY.md / USER.md, newest first (core.timeline), filterable by
file, writer and date, with the diff of the selected one; R rolls one back (asks first, showing
the change), u undoes hmc's last write (a rollback included). Escape goes back."""

from __future__ import annotations

import asyncio
import difflib

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Input, OptionList, Select, Static
from textual.widgets.option_list import Option

from core.store.memory import FILE_NAMES, TARGETS, Op, ScanRefused, StoreError
from tui.literal import literal
from tui.screens.base import ModeScreen
from tui.widgets.footer import KeyFooter
from tui.widgets.header import HmcHeader
from tui.widgets.write_view import change_lines, masked, refusal_detail, refusal_row, write_detail, write_row
from tui.widgets.lists import HmcList
from tui.widgets.filter_bar import FilterBar
from tui.widgets.usage_chart import usage_lines
from tui.widgets.work_progress import WorkProgress


KNOWN_AT_MOST = 5000  # writes: a longer known history is not shown before the first frame (its
# usage chart and rows would hold that frame back); the screen says "loading…" until it is rebuilt


def usage_of(timeline, curator) -> list:
    """Each store's usage week by week (the chart)."""
    from core.timeline.usage import usage_series

    return [usage_series(timeline, t, curator.stores[t].limit, today=curator.today) for t in TARGETS]


def key_of(item) -> str:
    """A listed row's identity (a write's id; a refused call's result row), kept across refilters."""
    return item.id if hasattr(item, "id") else f"refused-{item.call.result_id}"


def is_refusal(item) -> bool:
    return item is not None and not hasattr(item, "id")


def refusals_of(timeline) -> list:
    """(Refusal, its session's source) for the calls the tool refused."""
    from core.timeline.refusals import select

    names = getattr(timeline, "refused_sources", {})
    return [(r, names.get(r.call.session_id)) for r in select(getattr(timeline, "refused", ()))]


def same_history(a, b) -> bool:
    """Two rebuilds of one history that list the same writes, each as it was (a new rebuild of an
    unchanged history)."""
    return len(a.writes) == len(b.writes) and a.writes.columns() == b.writes.columns()  # compared as
    # the rows' columns (C's tuple compare): no Write object made for each of thousands of writes


class TimelineScreen(ModeScreen):
    MODE = "timeline"
    AREA = "history"
    HELP = """\
## Timeline
Every write to MEMORY.md and USER.md, newest first: the agent's memory tool calls (from state.db,
replayed with your release's rules), hmc's own writes, and changes seen only in the files: credited to
Hermes when its evidence says so (an approval in Hermes, the background review), else "no recorded
call". Filter by file, writer and date (YYYY-MM-DD, or 7d / 2w / 3m / 1y ago).
**R** rolls the selected write back: it asks first and shows the change; the rollback is hmc's own
write, so **u** undoes it. If the entries it touched have changed since, it says how and offers the
edit dialog instead. **Esc** goes back.
"""
    BINDINGS = [
        Binding("R", "rollback", "Roll back", id="timeline.rollback",
                tooltip="Undo the selected write's effect, as a new write (asks first)"),
        Binding("u", "undo", "Undo", id="timeline.undo", tooltip="Undo hmc's last write (a rollback included)"),
        Binding("escape", "back", "Back", id="timeline.back", tooltip="Back to where you were"),
        Binding("slash", "filter", "Filter writes", id="timeline.filter", show=False, priority=True,
                tooltip="Filter the writes as you type: entry text, writer, action (Esc clears)"),
    ]
    DEFAULT_CSS = """
    TimelineScreen #tl-title { height: 1; padding: 0 1; }
    TimelineScreen #tl-chart { height: auto; padding: 0 1; }
    TimelineScreen #tl-filters { height: 1; padding: 0 1; }
    TimelineScreen #tl-filters Select { width: 18; margin-right: 1; }
    TimelineScreen #tl-filters Input { width: 20; margin-right: 1; }
    TimelineScreen #tl-status { height: auto; padding: 0 1; color: $text-muted; }
    TimelineScreen #tl-body { height: 1fr; }
    TimelineScreen #tl-writes { width: 3fr; height: 1fr; border: none; }
    TimelineScreen #tl-diff-box { width: 2fr; height: 1fr; border-left: solid $panel-lighten-2; padding: 0 1; }
    TimelineScreen.-narrow #tl-body { layout: vertical; }
    TimelineScreen.-narrow #tl-writes { width: 1fr; }
    TimelineScreen.-narrow #tl-diff-box { width: 1fr; border-left: none; border-top: solid $panel-lighten-2; }
    TimelineScreen.-narrow #tl-filters Select { width: 13; }
    TimelineScreen.-narrow #tl-filters Input { width: 18; }
    """

    def __init__(self, known=None) -> None:
        """`known`: the history the app rebuilt last for this profile (memory mode's, for its origin
        lines), shown in the first frame; the screen rebuilds it and repaints only if it changed."""
        super().__init__()
        self.timeline = None
        self._known = known if known is not None and len(known.writes) <= KNOWN_AT_MOST else None
        self.shown: list = []  # the writes and refused calls listed, newest first
        self.refused: list = []  # (Refusal, source): the calls the tool refused
        self._sources: tuple[str, ...] = ()
        self._then: str | None = None  # an action asked for before the history was shown (the palette's)

    def when_loaded(self, action: str) -> None:
        """Run one of this screen's actions once a history is shown (at once if one is): picked from
        the palette over another mode, it must act on the writes, not on a screen still loading."""
        if self.timeline is not None:
            self.app.call_later(self.app.run_action, action, self)
        else:
            self._then = action

    def _run_then(self) -> None:
        action, self._then = self._then, None
        if action is not None:
            self.app.call_later(self.app.run_action, action, self)

    def compose(self) -> ComposeResult:
        yield HmcHeader()
        yield Static(Text("History — loading…", style="bold"), id="tl-title")
        yield Static("", id="tl-chart", markup=False)
        with Horizontal(id="tl-filters"):
            yield Select([(FILE_NAMES[t], t) for t in TARGETS], prompt="All files", id="tl-target", compact=True)
            yield Select([], prompt="All writers", id="tl-source", compact=True)
            yield Input(placeholder="since (date, 7d)", id="tl-since", compact=True)
            yield Input(placeholder="until (date, 1d)", id="tl-until", compact=True)
        yield Static("", id="tl-status", markup=False)
        yield FilterBar(id="tl-filter")
        with Horizontal(id="tl-body"):
            yield HmcList(id="tl-writes")
            with VerticalScroll(id="tl-diff-box"):
                yield Static("", id="tl-diff", markup=False)
        yield WorkProgress(self.app.long_work)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.app.memory_changed.subscribe(self, lambda _=None: self.load())
        self.query_one("#tl-writes", OptionList).focus()
        known, self._known = self._known, None
        if known is not None and known.curator is self.app.curator:
            self._loaded(known, usage_of(known, self.app.curator), refusals_of(known))
        self.load()

    # -- loading -------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="timeline-load", exit_on_error=False)
    def load(self) -> None:
        """Rebuild the history off the UI thread (cached: fast after the first time)."""
        from core.sessions.db import SessionsError
        from core.timeline import build_timeline

        curator = self.app.curator
        try:
            with self.app.long_work("rebuilding the memory history") as progress:
                timeline = build_timeline(curator, progress=progress, verified=True)
        except (SessionsError, StoreError, OSError) as exc:
            self.app.call_from_thread(self._failed, f"Can't read the agent's history: {exc}")
            return
        self.app.call_from_thread(self._loaded, timeline, usage_of(timeline, curator), refusals_of(timeline))

    def _failed(self, message: str) -> None:
        self.query_one("#tl-title", Static).update(Text("History", style="bold"))
        self.status(message, error=True)
        self._run_then()  # the failure is on screen; the action finds no write to act on

    def _loaded(self, timeline, series=(), refused=()) -> None:
        from core.timeline.view import sources

        refused = list(refused)
        if self.timeline is not None and same_history(self.timeline, timeline) and series == self.series \
                and [(r.call, s) for r, s in refused] == [(r.call, s) for r, s in self.refused]:
            self.timeline = timeline  # the one shown, rebuilt: nothing to repaint
            return
        self.timeline = timeline
        self.refused = refused
        self.series = series
        self.draw_chart()
        found = tuple(sources(timeline))
        if found != self._sources:
            self._sources = found
            select = self.query_one("#tl-source", Select)
            value = select.value
            with self.prevent(Select.Changed):
                select.set_options([(literal(masked(s)), s) for s in found])  # untrusted: literal, tokens masked
                if value in found:
                    select.value = value
        self.refilter()
        self._run_then()

    # -- filters -------------------------------------------------------------------------------

    def filters(self) -> tuple[tuple[str | None, str | None, object, object], str | None]:
        """((target, writer, since, until), what is wrong with a date): a bad date is flagged and
        left out of the filter (the list keeps showing what the other filters select)."""
        from core.sessions.search import QueryError, parse_day

        target = self.query_one("#tl-target", Select).value
        source = self.query_one("#tl-source", Select).value
        days: list[object] = []
        problem = None
        for name in ("since", "until"):
            field = self.query_one(f"#tl-{name}", Input)
            try:
                days.append(parse_day(field.value, self.app.curator.today))
                field.set_class(False, "-invalid")
            except QueryError as exc:
                field.set_class(True, "-invalid")
                days.append(None)
                problem = problem or f"{name}: {exc} (left out until it is a date)"
        return (None if target is Select.NULL else target, None if source is Select.NULL else source, *days), problem

    @on(Select.Changed)
    @on(Input.Changed)
    def refilter(self) -> None:
        """Filters apply as they are typed; a bad date is flagged at once, and the list shows what the
        other filters select (as search does)."""
        if self.timeline is None:
            return
        from core.timeline.view import matches

        wanted, problem = self.filters()
        lst = self.query_one("#tl-writes", OptionList)
        selected = self.selected()
        target, source, since, until = wanted
        writes = [w for w in self.timeline.log(target, since, until) if matches(w, source=source)
                  and self.matches_filter(write_row(w).text.plain, w.note or "",
                                          *(t for change in w.changes for t in change if t))]
        refused = self.refused_shown(target, source, since, until)
        rows = [(w.timestamp, 0, n, w) for n, w in enumerate(writes)]
        rows += [(r.call.timestamp or 0.0, 1, n, r) for n, (r, _) in enumerate(refused)]
        rows.sort(key=lambda row: row[:3])
        self.shown = [row[3] for row in reversed(rows)]
        source_of = {id(r): s for r, s in self.refused}
        lst.clear_options()
        words = self.filter_words()  # what the filter matched, shown in each row it keeps
        lst.add_options([Option((refusal_row(x, source_of.get(id(x))) if is_refusal(x) else write_row(x)).marked(words),
                                id=f"w{i}") for i, x in enumerate(self.shown)])
        total = len(self.timeline.writes)
        title = Text("History", style="bold")
        title.append(f"  ·  {len(writes):,} of {total:,} write{'s' if total != 1 else ''}", style="dim")
        if self.refused:
            title.append(", ", style="dim")
            title.append(f"{len(refused):,} of {len(self.refused):,} refused", style="red")
        title.append(", newest first", style="dim")
        self.query_one("#tl-title", Static).update(title)
        if self.shown:
            ids = [key_of(x) for x in self.shown]
            wanted_key = key_of(selected) if selected is not None else None
            lst.highlighted = ids.index(wanted_key) if wanted_key in ids else 0
        if problem:
            self.status(problem, error=True)
        elif self.shown:
            self.status("")
        else:
            self.status("No writes recorded" + (" match these filters." if any(wanted) else
                                                " (no memory tool calls in state.db, no hmc writes)."
                                                if not self.filter_text else " match the filter."))
        self.show_detail()
        self.refresh_bindings()

    def refused_shown(self, target, source, since, until) -> list:
        """The refused calls the filters select (their writer is the agent, on its session's source)."""
        from core.timeline.refusals import matching

        out = []
        for r, src in self.refused:
            if not matching(r.call, target, since, until) or (source and source not in ("agent", src)):
                continue
            if not self.matches_filter(refusal_row(r, src).text.plain, *r.texts):
                continue
            out.append((r, src))
        return out

    def draw_chart(self) -> None:
        """How each store filled up: a bar per week against its limit (core.timeline.usage)."""
        chart = self.query_one("#tl-chart", Static)
        width = (self.size.width or self.app.size.width) - 2  # shown in the first frame: not laid out yet
        chart.update(usage_lines(self.series, width) if self.series else "")
        chart.display = bool(self.series)

    def on_resize(self) -> None:
        if getattr(self, "series", None):
            self.draw_chart()

    def apply_filter(self) -> None:
        self.refilter()

    def filter_list(self) -> OptionList:
        return self.query_one("#tl-writes", OptionList)

    def status(self, text: str, error: bool = False) -> None:
        widget = self.query_one("#tl-status", Static)
        widget.update(literal(text, "bold red" if error else "dim"))
        widget.display = bool(text)

    # -- the selected write --------------------------------------------------------------------

    def selected(self):
        if not self.is_mounted:
            return None
        lst = self.query_one("#tl-writes", OptionList)
        i = lst.highlighted
        return self.shown[i] if i is not None and 0 <= i < len(self.shown) else None

    @on(OptionList.OptionHighlighted, "#tl-writes")
    def show_detail(self) -> None:
        w = self.selected()
        if is_refusal(w):
            source = next((s for r, s in self.refused if r is w), None)
            self.query_one("#tl-diff", Static).update(refusal_detail(w, source))
        else:
            self.query_one("#tl-diff", Static).update(write_detail(w) if w is not None else Text(""))
        self.refresh_bindings()

    def why_not(self, action: str) -> str | None:
        if action == "rollback":
            w = self.selected()
            if w is None:
                return "Roll back: no write selected"
            if is_refusal(w):
                return "Roll back: the tool refused this call, so it wrote nothing"
            if w.by == "unknown" or w.id.startswith("x"):
                return "Roll back: a change seen only in the files can't be rolled back; edit the entry"
            if not w.changes:
                return "Roll back: this write changed nothing"
            return None
        if action == "undo":
            return None if self.app.curator.history.undoable() is not None else "Undo: hmc has written nothing to undo"
        return None

    # -- actions -------------------------------------------------------------------------------

    def action_back(self) -> None:
        self.app.pop_screen()

    @work(exclusive=True, group="timeline-write")
    async def action_undo(self) -> None:
        await self.app.undo()

    @work(exclusive=True, group="timeline-write")
    async def action_rollback(self) -> None:
        from core.timeline import RollbackConflict, TimelineError
        from tui.screens.dialogs import ConfirmDialog

        w, timeline = self.selected(), self.timeline
        if w is None or timeline is None or is_refusal(w):
            return
        try:
            await asyncio.to_thread(timeline.rollback_plan, w.id)
        except RollbackConflict as exc:
            await self.conflict(w, exc)
            return
        except StoreError as exc:  # TimelineError included: nothing to roll back, an unreadable file
            self.notify(str(exc), title="Nothing rolled back", severity="warning", timeout=8, markup=False)
            return
        store = self.app.curator.stores[w.target]
        body = Text("Roll back this write to ")
        body.append(FILE_NAMES[w.target], style="bold")
        body.append(f" ({w.action}, {self.app.ago(w.timestamp)}, by ")
        from tui.widgets.write_view import who_text

        body.append_text(literal(who_text(w)))
        body.append(")? It will change:\n\n")
        body.append_text(change_lines(w.changes, undo=True))
        body.append("\n\nThe rollback is hmc's own write: the limit and the scan apply, and u undoes it.", style="dim")
        if not await self.app.push_screen_wait(ConfirmDialog("Roll back?", body, yes="Roll back", danger=True)):
            return
        if not await self.app.confirm_rules("memory"):  # a rollback is an edit under hmc's rules
            return
        force = False
        while True:
            try:
                result = await asyncio.to_thread(timeline.rollback, w.id, force)
                break
            except ScanRefused as exc:
                from tui.screens.dialogs import scan_body

                if force or not await self.app.push_screen_wait(ConfirmDialog(
                        "Write despite the security scan?", scan_body(exc.findings), yes="Write anyway", danger=True)):
                    self.notify("Nothing was written.", title="Cancelled", markup=False)
                    return
                force = True
            except RollbackConflict as exc:
                await self.conflict(w, exc)
                return
            except (TimelineError, StoreError) as exc:
                self.notify(store.for_person(exc, see="memory mode (1)"), title=f"{store.name}: nothing written",
                            severity="error", timeout=10, markup=False)
                return
        self.app.stores_written(w.target)
        self.notify(f"Rolled back {w.action} of {self.app.ago(w.timestamp)}.\n{store.name}: {result.label}"
                    " · u undoes it", title="Rolled back", markup=False)

    async def conflict(self, w, exc) -> None:
        """The entries the write touched changed since: say how, and offer the edit dialog."""
        from tui.screens.dialogs import ChoiceDialog, EditEntryDialog

        body = Text("The entries this write touched have changed since, so rolling it back would overwrite "
                    "that later change. Nothing was written.\n\n")
        for problem in exc.problems:
            body.append("• ")
            body.append_text(literal(problem))
            body.append("\n")
        store = self.app.curator.stores[w.target]
        entries = list(store.read().entries)
        wanted = [old for old, new in w.changes if old is not None]  # what the rollback would put back
        gone = [new for old, new in w.changes if new is not None and new not in entries]
        near = difflib.get_close_matches(gone[0], entries, n=1, cutoff=0.4) if gone else []
        if near:
            body.append("\nEdit the entry that stands there now, and make the change yourself.", style="dim")
        else:
            body.append("\nAdd the entry yourself if you still want it back.", style="dim")
        choice = await self.app.push_screen_wait(ChoiceDialog(
            "Can't roll back", body, [("edit", "Edit the entry" if near else "Add an entry"), ("cancel", "Cancel")],
            default="edit"))
        if choice != "edit":
            return
        original = near[0] if near else None
        initial = near[0] if near else (wanted[0] if wanted else "")
        result = await self.app.push_screen_wait(EditEntryDialog(self.app.curator, w.target, original, initial=initial))
        if result is None:
            return
        if original is None:
            ops = [Op("add", content=result.text)]
        elif result.text == original:
            self.notify("No change.", markup=False)
            return
        else:
            ops = [Op("replace", content=result.text, old_text=original, matched_entry=original)]
        await self.app.write(result.target, ops, force=result.force)
