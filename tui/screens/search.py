"""Search mode: type to search past sessions, open a hit, read around it, keep what matters.

Every database call runs in a thread worker (its own read-only connection); each new query
cancels the last (SQLite is interrupted through a progress handler). The transcript is a
window around the hit, extended as the person scrolls, never the whole session: that side of
the screen is tui/screens/search_transcript.py.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message as TextualMessage
from textual.timer import Timer
from textual.widgets import Checkbox, ContentSwitcher, Input, OptionList, Select, Static
from textual.worker import get_current_worker

from core.store.memory import Op
from core.timefmt import short_date
from core.sessions.search import (
    HIDDEN_SOURCES, ROLES, Hit, QueryError, SearchCancelled, SearchResult, SessionInfo, SessionsError, parse_day,
    session_link,
)
from tui.literal import UNSAFE, visible
from tui.screens.base import ModeScreen
from tui.screens.dialogs import EditEntryDialog
from tui.screens.search_transcript import TranscriptSide
from tui.widgets.footer import KeyFooter
from tui.widgets.toggle import Toggle
from tui.widgets.header import HmcHeader
from tui.widgets.results import ResultsList, hits_status
from tui.widgets.transcript import Transcript

PAGE = 50
DEBOUNCE = 0.15
SLOW = 0.3  # show the loading indicator for searches slower than this
NARROW = 130  # below this many columns the filter row (127 columns wide) takes two lines
PROMOTE_CHARS = 4_000  # text offered to the edit dialog when promoting a long message
MAX_QUERY = 2_048  # as core's query parser: a longer query is explained, and the text kept


# ── messages from workers ────────────────────────────────────────────────────

@dataclass
class _Loaded(TextualMessage):
    token: int


@dataclass
class HitsLoaded(_Loaded):
    result: SearchResult
    elapsed: float
    append: bool
    suggestions: tuple = ()  # what the index knows near a query that found little (core.sessions.suggest)
    pruned: str | None = None  # few hits: the sessions Hermes pruned, said (core.snapshots.pruning)


@dataclass
class SessionsLoaded(_Loaded):
    sessions: list[SessionInfo]
    offset: int
    has_more: bool
    append: bool


@dataclass
class SearchFailed(_Loaded):
    message: str
    kind: str


class SearchScreen(TranscriptSide, ModeScreen):
    MODE = "search"
    AREA = "search"
    HELP = """\
## Search
Type to search every past session in state.db. Plain words must all appear; **"a phrase"**,
**OR**, **NOT** (upper case), **prefix\\*** and **( )** work. CJK and emoji are found too.
With an empty query the list shows recent sessions.

**↓**/**Enter** from the box go to the results · **Enter** opens a hit at the exact message ·
**n**/**N** next/previous match in that session · **e** expands a tool call or output ·
**ctrl+o** searches every profile (when there are several) · **c** copies the session link · **m** promotes the message to MEMORY.md or USER.md ·
**l** shows what the session knew: the memory it loaded when it started, and what changed since ·
**Esc** in the box moves to the results, where **1**-**5** switch modes and **q** quits (Esc there
stays there: **/** goes back to the box) ·
**Esc** in a transcript goes back to the results (the selection kept), or to memory mode when
it was opened by memory mode's **o** (to the entry's history when opened from there) · **/** jumps to
the search box · **ctrl+y** searches the first suggestion under a search that found little.
"""
    BINDINGS = [
        Binding("escape", "leave_query", "Leave box", id="search.leave",
                tooltip="Leave the search box for the results list, where 1-5 switch modes and q quits"),
        Binding("escape", "back", "Back", id="search.back",
                tooltip="Transcript: back to the results (selection kept), or to memory mode after its o"),
        Binding("slash", "focus_query", "Search box", id="search.box", show=False, priority=True,
                tooltip="Jump to the search box (what you type right behind / goes into it)"),
        Binding("down", "to_results", "Results", id="search.results", show=False,
                tooltip="From the search box to the results"),
        Binding("n", "hit(1)", "Next match", id="search.next", tooltip="Next match in this session"),
        Binding("N", "hit(-1)", "Prev match", id="search.prev", tooltip="Previous match in this session"),
        Binding("e", "expand", "Expand", id="search.expand", tooltip="Expand or collapse a tool call or its output"),
        Binding("c", "copy_link", "Copy link", id="search.copy",
                tooltip="Copy @session:<profile>/<id> for the selected session"),
        Binding("m", "promote", "To memory", id="search.promote",
                tooltip="Promote the message (or an edited part of it) to MEMORY.md or USER.md"),
        Binding("w", "why", "Why not in memory", id="search.why",
                tooltip="Why isn't this in memory? Every cause checked for the message's words (as hmc why)"),
        Binding("l", "loaded", "What it knew", id="search.loaded",
                tooltip="The memory this session loaded when it started, and what changed in the files since"),
        Binding("ctrl+y", "use_suggestion", "Use suggestion", id="search.suggestion", show=False,
                tooltip="Search what the index knows instead: the first suggestion under a query that found little"),
        Binding("ctrl+r", "clear_filters", "Clear filters", id="search.clear",
                tooltip="Reset source, role, since, until and hidden sources; the sort stays (works in the search box too)"),
        Binding("ctrl+o", "all_profiles", "Search all profiles", id="search.all_profiles", show=False,
                tooltip="Search every profile's state.db (each hit says its profile), or only this one's; "
                        "the 'all profiles' switch (works in the search box too)"),
    ]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._token = 0
        self._debounce: Timer | None = None
        self._slow: Timer | None = None
        self._started = 0.0
        self.result: SearchResult | None = None
        self.has_more = False
        self.view = "results"
        self.session_info: SessionInfo | None = None
        self._search_args: tuple = ()
        self._last_ran: tuple | None = None
        self.suggestions: tuple = ()  # near spellings and prefixes for the last query (few hits)
        self.from_memory = False  # the open transcript came from memory mode's `o`
        self.back_to_history: tuple[str, str] | None = None  # ... from an entry's history (target, entry)
        self.session_profile: str | None = None  # the profile whose state.db the open transcript is from
        self._dbs: dict[str, object] = {}
        self._ahead: object = None  # built ahead of its first visit: state.db's token then

    # -- layout ------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield HmcHeader()
        with Vertical(id="search-top"):
            yield Input(placeholder='Search past sessions — words, "a phrase", OR, NOT, prefix*',
                        id="search-query", select_on_focus=False)
            with Horizontal(id="search-filters"):
                yield Select([], prompt="any source", id="filter-source", compact=True)
                yield Select([(r, r) for r in ROLES], prompt="any role", id="filter-role", compact=True)
                yield Input(placeholder="since date or 7d", id="filter-since", compact=True,
                            tooltip="Only messages on or after this day: YYYY-MM-DD, or 7d / 2w / 3m ago")
                yield Input(placeholder="until date or 1d", id="filter-until", compact=True,
                            tooltip="Only messages up to and including this day: YYYY-MM-DD, or 1d / 2w / 3m ago")
                yield Select([("by relevance", "relevance"), ("newest first", "newest"), ("oldest first", "oldest")],
                             value="relevance", allow_blank=False, id="filter-sort", compact=True)
                yield Toggle("include hidden sources", id="filter-hidden", compact=True,
                               tooltip="Include kanban, subagent and tool sessions (hidden by default, as in Hermes)")
                yield Toggle("all profiles", id="filter-profiles", compact=True,
                               tooltip="Search every profile's state.db; each hit says its profile")
        yield Static("", id="search-status", markup=False)
        with ContentSwitcher(initial="search-results", id="search-views"):
            yield ResultsList(id="search-results")
            with Vertical(id="transcript-view"):
                yield Static("", id="transcript-title", markup=False)
                yield Transcript(id="search-transcript")
        yield KeyFooter()

    def on_mount(self) -> None:
        self._curator = self.app.curator
        self.app.header_changed.subscribe(self, self._profile_maybe_changed)
        self.query_one("#search-query", Input).focus()
        self.show_profiles_switch()
        self.load_sources()
        self.start_search()

    def prebuilt(self) -> None:
        self._ahead = self._db_token()

    def on_screen_resume(self) -> None:
        """The first visit of a screen built ahead (tui.modes.prebuild) lists state.db as it is now.
        The query box's cursor shows in the visit's frame and blinks from then on (its blink went
        on off screen: its next turn could have been a moment after that frame)."""
        restart = getattr(self.query_one("#search-query", Input), "_restart_blink", None)  # Textual 8.2.8
        if restart is not None:
            restart()
        ahead, self._ahead = self._ahead, None
        if ahead is not None and ahead != self._db_token():
            self._last_ran = None
            self.load_sources()
            self.start_search()

    def _db_token(self) -> tuple:
        """What changes when a session is written (an empty write-ahead log, which a reader makes and
        removes again, is no change)."""
        from core.sessions.db import file_stamp

        return file_stamp(self.db.path, empty_log_counts=False)

    def on_resize(self, event) -> None:
        self.fit_filters(event.size.width)

    def fit_filters(self, width: int) -> None:
        """Below NARROW columns the filter row becomes a 3×2 grid (3×3 with the all-profiles switch)
        instead of running off screen (screens.tcss: -filters-grid; not the app's -narrow, which
        Textual's breakpoints set and clear by the terminal's width alone)."""
        several = bool(self.query_one("#filter-profiles", Checkbox).display)
        narrow = width < NARROW + (18 if several else 0)
        if getattr(self, "_fitted", None) == (narrow, several):
            return  # as it is: no restyle, no extra layout
        self._fitted = (narrow, several)
        self.set_class(narrow, "-filters-grid")
        self.set_class(several, "-several-profiles")

    def _profile_maybe_changed(self, _=None) -> None:
        """Another profile (so another state.db) is being curated: start over on it. A transcript
        open from the other profile closes, and the keyboard goes to the query box, which the same
        query now searches the new profile with: the hidden transcript (or nothing) would keep it
        while the box showed the cursor, and a letter typed there would act as a shortcut."""
        if self.app.curator is self._curator:
            return
        self._curator = self.app.curator
        self._last_ran = None
        self.session_info = None
        self._dbs = {}
        self.show_profiles_switch()
        left_transcript = self.view == "transcript"
        if left_transcript:
            self.show_results()
        if left_transcript or self.focused is None:
            self.set_focus(self.query_one("#search-query", Input))
        self.load_sources()
        self.start_search()

    def focus_query(self) -> None:
        if self.view != "results":
            self.show_results()
        box = self.query_one("#search-query", Input)
        if self.focused is not box:  # focusing again repaints the box: a second frame after the visit's
            self.set_focus(box)  # now, not after the keys already waiting: typed right behind `/`
            # (a priority binding), they belong to the box, not the results

    def action_focus_query(self) -> None:
        self.let_text_boxes_type("/")
        self.focus_query()

    # -- state helpers -------------------------------------------------------------------------------
    @property
    def db(self):
        return self.app.curator.sessions

    def profiles(self) -> list[str]:
        from core.home import list_profiles

        return list_profiles(self.app.curator.home.base)

    def show_profiles_switch(self) -> None:
        """The all-profiles switch shows only where there is more than one profile."""
        box = self.query_one("#filter-profiles", Checkbox)
        box.display = len(self.profiles()) > 1
        if not box.display:
            box.value = False
        width = self.size.width or self.app.size.width  # a screen not laid out yet is the app's width
        if width:
            self.fit_filters(width)

    def db_for(self, profile: str | None):
        """The state.db of `profile` (None: the profile being curated)."""
        home = self.app.curator.home
        if profile is None or profile == home.profile:
            return self.db
        if profile not in self._dbs:
            from core.sessions.search import SessionDB

            root = home.base if profile == "default" else home.base / "profiles" / profile
            self._dbs[profile] = SessionDB(root / "state.db")
        return self._dbs[profile]

    @property
    def tdb(self):
        """The database of the open transcript."""
        return self.db_for(self.session_profile)

    @property
    def results(self) -> ResultsList:
        return self.query_one("#search-results", ResultsList)

    @property
    def transcript(self) -> Transcript:
        return self.query_one("#search-transcript", Transcript)

    def status(self, text: str | Text, kind: str = "") -> None:
        widget = self.query_one("#search-status", Static)
        widget.update(text)
        # an error or notice wraps (up to 3 lines), and so does a hint on a narrow terminal (2), rather
        # than being cut off
        widget.styles.height = "auto" if kind or self.app.size.width < 100 else 1
        widget.styles.max_height = 3 if kind else 2
        widget.set_class(kind == "error", "-error")
        widget.set_class(kind == "notice", "-notice")

    def filters(self) -> dict:
        source = self.query_one("#filter-source", Select).value
        role = self.query_one("#filter-role", Select).value
        sort = self.query_one("#filter-sort", Select).value
        today = self.app.curator.today
        since = parse_day(self.query_one("#filter-since", Input).value, today)
        until = parse_day(self.query_one("#filter-until", Input).value, today)
        return {
            "sources": None if source is Select.NULL else str(source),
            "roles": None if role is Select.NULL else str(role),
            "since": since,
            "until": until,
            "sort": str(sort) if sort is not Select.NULL else "relevance",
            "include_hidden": self.query_one("#filter-hidden", Checkbox).value,
            "all_profiles": bool(self.query_one("#filter-profiles", Checkbox).value
                                 and self.query_one("#filter-profiles", Checkbox).display),
        }

    # -- searching -----------------------------------------------------------------------------------
    @on(Input.Changed)
    def no_raw_controls(self, event: Input.Changed) -> None:
        """A pasted control character is shown (and searched) as its visible form, never painted raw."""
        if UNSAFE.search(event.value):
            position = event.input.cursor_position
            event.input.value = visible(event.value)
            event.input.cursor_position = position

    @on(Input.Changed, "#search-query")
    def query_changed(self) -> None:
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(DEBOUNCE, self.start_search)

    @on(Input.Submitted, "#search-query")
    def query_submitted(self) -> None:
        if self._debounce is not None:
            self._debounce.stop()
        self.start_search()
        self.action_to_results()

    @on(Input.Submitted, "#filter-since")
    @on(Input.Submitted, "#filter-until")
    @on(Select.Changed)
    @on(Checkbox.Changed)
    def filters_changed(self, event=None) -> None:
        if self.is_mounted:
            self.start_search()

    @on(Input.Blurred, "#filter-since")
    @on(Input.Blurred, "#filter-until")
    def date_left(self) -> None:
        self.start_search()

    @on(Input.Changed, "#filter-since")
    @on(Input.Changed, "#filter-until")
    def date_typed(self, event: Input.Changed) -> None:
        """A date is checked as it is typed: a bad one is flagged at once and the results go (they
        would be the results of another filter); a good one searches after the typing pause."""
        try:
            parse_day(event.value, self.app.curator.today)
        except QueryError as exc:
            if self._debounce is not None:
                self._debounce.stop()
            event.input.set_class(True, "-invalid")
            self._bad_filter(str(exc))
            return
        event.input.set_class(False, "-invalid")
        if self._debounce is not None:
            self._debounce.stop()
        self._debounce = self.set_timer(DEBOUNCE, self.start_search)

    def _bad_filter(self, message: str) -> None:
        """Say what is wrong and show no results (stale ones would answer another question)."""
        self._token += 1  # a search still running can't fill the list afterwards
        self._last_ran = None
        self._done_loading()
        self.result = None
        self.has_more = False
        self.results.show([], self.app.curator.now(), kind="hits")
        self.status(message, "error")
        self.refresh_bindings()

    def active_filters(self) -> list[str]:
        """The filters that narrow the search now, as a person would say them."""
        out = []
        source = self.query_one("#filter-source", Select).value
        role = self.query_one("#filter-role", Select).value
        if source is not Select.NULL:
            out.append(f"source {visible(source)}")
        if role is not Select.NULL:
            out.append(f"role {role}")
        for name in ("since", "until"):
            value = self.query_one(f"#filter-{name}", Input).value.strip()
            if value:
                out.append(f"{name} {visible(value)}")
        return out

    def action_clear_filters(self) -> None:
        """One key puts every filter back (source, role, dates, hidden sources; sort stays)."""
        with self.prevent(Select.Changed, Checkbox.Changed, Input.Changed):
            self.query_one("#filter-source", Select).clear()
            self.query_one("#filter-role", Select).clear()
            for name in ("since", "until"):
                box = self.query_one(f"#filter-{name}", Input)
                box.value = ""
                box.set_class(False, "-invalid")
            self.query_one("#filter-hidden", Checkbox).value = False
        self._last_ran = None
        focused = self.focused
        if focused is not None and (focused.id or "").startswith("filter-"):
            self.query_one("#search-query", Input).focus()  # the field it emptied: back to the query
        self.start_search()
        self.notify("Filters cleared.", timeout=2, markup=False)

    def start_search(self, *, offset: int = 0, append: bool = False) -> None:
        """Run the current query (or list sessions when it is empty) in a worker."""
        query = self.query_one("#search-query", Input).value
        if len(query) > MAX_QUERY:
            self._bad_filter(f"The query is {len(query):,} characters long; the most a search takes is "
                             f"{MAX_QUERY:,}. Your text is kept: shorten it to search.")
            return
        try:
            filters = self.filters()
        except QueryError as exc:
            self._bad_filter(str(exc))
            return
        key = (query.strip(), tuple(sorted(filters.items(), key=lambda kv: kv[0])), offset)
        if not append and key == self._last_ran:
            return
        self._last_ran = key
        self._token += 1
        self._started = time.perf_counter()
        if self._slow is not None:
            self._slow.stop()
        self._slow = self.set_timer(SLOW, self._show_loading)
        self.run_search(self._token, query, filters, offset, append)

    def _show_loading(self) -> None:
        self.results.loading = True

    def _done_loading(self) -> None:
        if self._slow is not None:
            self._slow.stop()
            self._slow = None
        self.results.loading = False

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def run_search(self, token: int, query: str, filters: dict, offset: int, append: bool) -> None:
        worker = get_current_worker()
        started = time.perf_counter()
        filters = dict(filters)
        all_profiles = filters.pop("all_profiles", False)
        try:
            if query.strip() and all_profiles:
                result = self.search_all_profiles(query, filters, offset, lambda: worker.is_cancelled)
                if not worker.is_cancelled:
                    self.post_message(HitsLoaded(token, result, time.perf_counter() - started, append))
                return
            if not query.strip():
                found = self.db.sessions(limit=PAGE + 1, offset=offset, sources=filters["sources"],
                                         include_hidden=filters["include_hidden"],
                                         should_stop=lambda: worker.is_cancelled)
                if not worker.is_cancelled:
                    self.post_message(SessionsLoaded(token, found[:PAGE], offset, len(found) > PAGE, append))
                return
            result = self.db.search(query, limit=PAGE, offset=offset, should_stop=lambda: worker.is_cancelled,
                                    **filters)
            elapsed = time.perf_counter() - started
            suggestions: tuple = ()
            from core.sessions.suggest import FEW_HITS, STEM_FEW_HITS, as_searched, hits_found, suggestions_for

            pruned = None
            found = hits_found(len(result.hits), result.has_more, result.total)
            if not append and found < STEM_FEW_HITS and not worker.is_cancelled:
                suggestions = tuple(as_searched(self.db, query, suggestions_for(self.db.path, query, hits=found), found,
                                                filters, should_stop=lambda: worker.is_cancelled))
            if not append and found < FEW_HITS and not worker.is_cancelled:
                pruned = self.app.curator.pruning().short(short_date)
            if not worker.is_cancelled:
                self.post_message(HitsLoaded(token, result, elapsed, append, suggestions, pruned))
        except SearchCancelled:
            return
        except QueryError as exc:
            self.post_message(SearchFailed(token, str(exc), "query"))
        except SessionsError as exc:
            self.post_message(SearchFailed(token, str(exc), getattr(exc, "kind", "database")))

    def search_all_profiles(self, query: str, filters: dict, offset: int, should_stop) -> SearchResult:
        """One page over every profile's state.db (core.sessions.profiles), as a SearchResult."""
        from core.sessions.profiles import search_profiles
        from core.sessions.query import parse_query
        from core.sessions.search import highlight_terms

        sort = filters.pop("sort", "relevance")
        dbs = {name: self.db_for(name) for name in self.profiles()}
        found = search_profiles(dbs, query, sort=sort, limit=PAGE, offset=offset, should_stop=should_stop, **filters)
        notes = [f"{name}: {why}" for name, why in found.problems]
        if found.missing:
            notes.append("no state.db in " + ", ".join(found.missing))
        return SearchResult(query=query, hits=found.hits, offset=offset, limit=PAGE, has_more=found.has_more,
                            route=f"profiles:{len(found.searched)}",
                            notice=visible("; ".join(notes)) if notes else None,
                            terms=highlight_terms(parse_query(query), "fts"), total=found.total,
                            total_capped=found.total_capped)

    def on_hits_loaded(self, message: HitsLoaded) -> None:
        if message.token != self._token:
            return
        self._done_loading()
        result = message.result
        self.result = result
        self.has_more = result.has_more
        now = self.app.curator.now()
        self.results.show(result.hits, now, kind="hits", append=message.append)
        count = self.results.hit_count
        if not message.append:
            self.suggestions = message.suggestions
        line = hits_status(result, count, len(self.results.items), self.active_filters(), message.elapsed,
                           self.suggestions, message.pruned if not message.append else None)
        if result.notice or self.suggestions or message.pruned:
            self.status((Text(result.notice + "  ") if result.notice else Text()) + line, "notice")
        else:
            self.status(line)
        self.refresh_bindings()

    def action_use_suggestion(self) -> None:
        """Search the first suggestion instead (the person's choice: never a silent rewrite)."""
        from core.sessions.suggest import suggested_query

        if not self.suggestions:
            return
        box = self.query_one("#search-query", Input)
        box.value = suggested_query(box.value, self.suggestions[0])
        box.focus()

    def on_sessions_loaded(self, message: SessionsLoaded) -> None:
        if message.token != self._token:
            return
        self._done_loading()
        self.result = None
        self.has_more = message.has_more
        self.results.show(message.sessions, self.app.curator.now(), kind="sessions", append=message.append)
        count = len(self.results.items)
        if count:
            self.status(Text(f"Recent sessions ({count}{'+' if message.has_more else ''}) — type to search them all. "
                             "Enter reads one; c copies its link."))
        else:
            self.status("No sessions in state.db yet.")
        self.refresh_bindings()

    def on_search_failed(self, message: SearchFailed) -> None:
        if message.token != self._token:
            return
        self._done_loading()
        self.results.show([], self.app.curator.now(), kind="hits")  # no stale results under an error
        self.result = None
        self.has_more = False
        self.status(message.message, "error")
        self.refresh_bindings()

    @work(thread=True, group="search-sources", exit_on_error=False)
    def load_sources(self) -> None:
        try:
            sources = self.db.sources()
        except SessionsError:
            return
        self.app.call_from_thread(self._set_sources, sources)

    def _set_sources(self, sources: list[tuple[str, int]]) -> None:
        options = []
        for name, count in sources:
            label = f"{name} ({count:,})" + (" hidden" if name in HIDDEN_SOURCES else "")
            options.append((label, name))
        self.query_one("#filter-source", Select).set_options(options)

    # -- results list ----------------------------------------------------------------------------------
    @on(OptionList.OptionHighlighted, "#search-results")
    def result_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        results = self.results
        if self.has_more and event.option_index >= len(results.items) - 5:
            self.has_more = False  # one page request at a time
            self.start_search(offset=results.hit_count, append=True)
        self.refresh_bindings()

    @on(OptionList.OptionSelected, "#search-results")
    def result_selected(self, event: OptionList.OptionSelected) -> None:
        item = self.results.selected_item()
        if isinstance(item, Hit):
            self.open_at(item.session_id, item.message_id, profile=item.profile)
        elif isinstance(item, SessionInfo):
            self.open_at(item.id, None)

    def action_to_results(self) -> None:
        if self.view == "results" and self.results.items:
            self.results.focus()

    # -- transcript list events (Textual's @on needs them on the screen class; the rest of the
    # transcript side is TranscriptSide, tui/screens/search_transcript.py) ----------------------------
    @on(OptionList.OptionHighlighted, "#search-transcript")
    def transcript_moved(self) -> None:
        self.update_transcript_title()
        self.refresh_bindings()

    @on(OptionList.OptionSelected, "#search-transcript")
    def transcript_enter(self) -> None:
        self.action_expand()

    # -- actions ---------------------------------------------------------------------------------------
    def hidden(self, action: str) -> bool:
        """Escape leaves a text box (the query, since, until) for the results, or goes back from a
        transcript; on the results list it does nothing (it never moves into a text box: a mode key
        typed after it would land in the query). ↓ to the results only from the query box. A transcript
        opened from memory mode (an entry's origin or history) was opened at a call, not from the
        search: n/N (no matches to step through) and ^r (the search's filters) are not offered there,
        nor, while no session is open in it (origin not found), the keys that act on a session."""
        in_transcript = self.view == "transcript"
        focused = self.focused
        in_box = isinstance(focused, Input) and not in_transcript
        in_query = in_box and focused.id == "search-query"
        if action == "leave_query":
            return not in_box
        if action == "back":
            return not in_transcript
        if action == "to_results":
            return not (in_query and bool(self.results.items))
        if in_transcript and self.from_memory:
            if action == "hit":
                return not self.transcript.hit_ids
            if action == "clear_filters":
                return True
            if action in ("expand", "copy_link", "promote", "why", "loaded"):
                return self.session_info is None
        return False

    def why_not(self, action: str) -> str | None:
        if not self.is_mounted:
            return None
        in_transcript = self.view == "transcript"
        if action == "use_suggestion":
            return None if self.suggestions and not in_transcript else "Use suggestion: none for this search"
        if action == "hit":
            if not in_transcript:
                return "Next/previous match: open a hit first (Enter)"
            return None if self.transcript.hit_ids else "Next/previous match: this session has no match marked"
        if action == "expand":
            m = self.transcript.current() if in_transcript else None
            if m is None or not (m.role == "tool" or bool(m.tool_calls)):
                return "Expand: only a tool call or a tool's output folds (open a session first)"
            return None
        if action == "copy_link":
            if in_transcript:
                return None if self.session_info is not None else "Copy link: no session is open"
            return None if self.results.selected_item() is not None else "Copy link: no session or hit is selected"
        if action == "promote":
            if in_transcript:
                m = self.transcript.current()
                return None if (m is not None and m.text.strip()) else "To memory: this message has no text"
            return None if isinstance(self.results.selected_item(), Hit) else "To memory: select a hit first"
        if action == "why":
            if in_transcript:
                m = self.transcript.current()
                return None if (m is not None and m.text.strip()) else "Why not in memory: this message has no text"
            return None if isinstance(self.results.selected_item(), Hit) else "Why not in memory: select a hit first"
        if action == "loaded":
            return None if self._selected_session() is not None else "What it knew: select a session or a hit first"
        if action == "clear_filters":
            return None if self.active_filters() or self._hidden_on() else "Clear filters: no filter is set"
        if action == "all_profiles" and len(self.profiles()) < 2:
            from core.home import tilde

            return f"Search all profiles: {tilde(self.app.curator.home.base)} has only the default profile"
        return None

    def action_all_profiles(self) -> None:
        """Turn the all-profiles switch on or off (the search runs again, as for any filter)."""
        box = self.query_one("#filter-profiles", Checkbox)
        box.value = not box.value
        self.notify(f"Searching {'every profile' if box.value else 'this profile only'}", timeout=3,
                    markup=False)

    def _hidden_on(self) -> bool:
        return bool(self.query_one("#filter-hidden", Checkbox).value)

    def action_leave_query(self) -> None:
        """Escape in the search box: hand the keyboard to the results list (1-5 and q work there)."""
        self.results.focus()
        if not self.results.items:
            self.notify("Left the search box: / types again, 1-5 switch modes, q quits.", timeout=4, markup=False)

    def action_back(self) -> None:
        if self.view == "transcript":
            if self.from_memory:
                history, self.back_to_history = self.back_to_history, None
                self.show_results()
                if history is not None:  # opened from an entry's history: back there
                    self.app.show_entry_history(*history)
                else:
                    self.app.switch_mode("memory")
                return
            self.show_results()
            self.results.focus()


    def _roles(self) -> str | None:
        role = self.query_one("#filter-role", Select).value
        return None if role is Select.NULL else str(role)

    def _selected_session(self) -> str | None:
        if self.view == "transcript":
            return self.session_info.id if self.session_info else None
        item = self.results.selected_item()
        if isinstance(item, Hit):
            return item.session_id
        if isinstance(item, SessionInfo):
            return item.id
        return None

    def action_copy_link(self) -> None:
        sid = self._selected_session()
        if sid is None:
            return
        item = self.results.selected_item() if self.view == "results" else None
        profile = (item.profile if isinstance(item, Hit) else None) if self.view == "results" else self.session_profile
        link = session_link(profile or self.app.curator.home.profile, sid)
        self.app.copy_to_clipboard(link)
        self.notify(f"Copied {link}", title="Session link", markup=False)

    @work(exclusive=True, group="search-loaded")
    async def action_loaded(self) -> None:
        """Show what the selected session loaded (read off the UI thread)."""
        from core import timefmt
        from core.snapshots.compare import diff_now, report
        from tui.screens.loaded_memory import loaded_memory_dialog

        sid = self._selected_session()
        if sid is None:
            return
        curator = self.app.curator
        try:
            session = await asyncio.to_thread(curator.session_load, sid)
        except SessionsError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        if session is None:
            self.notify("That session is in another profile's state.db: switch to it to see what it knew.",
                        markup=False)
            return
        diffs = await asyncio.to_thread(lambda: diff_now(session, curator.now_entries()))
        self.app.push_screen(loaded_memory_dialog(session, report(session, diffs),
                                                  timefmt.local_time(session.started_at)))

    @work(exclusive=True, group="search-why")
    async def action_why(self) -> None:
        """The selected hit's or transcript message's words, traced as `hmc why` (its first sentences)."""
        from tui.screens.why import fact_of

        m = await self._selected_message()
        if m is None:
            return
        self.app.action_why(fact_of(m.text))

    async def _selected_message(self):
        """The message under the cursor: the transcript's, or the selected hit's (read off the UI thread)."""
        if self.view == "transcript":
            return self.transcript.current()
        item = self.results.selected_item()
        if not isinstance(item, Hit):
            return None
        try:
            return await asyncio.to_thread(self.db_for(item.profile).message, item.message_id)
        except SessionsError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return None

    @work(exclusive=True, group="search-promote")
    async def action_promote(self) -> None:
        m = await self._selected_message()
        if m is None:
            return
        text = m.text.strip()
        if len(text) > PROMOTE_CHARS:
            text = text[:PROMOTE_CHARS].rstrip() + "…"
        dialog = EditEntryDialog(self.app.curator, "memory", None, initial=text,
                                 title="Promote to memory", choose_target=True)
        result = await self.app.push_screen_wait(dialog)
        if result is None:
            return
        await self.app.write(result.target, [Op("add", content=result.text)], action="promote")

