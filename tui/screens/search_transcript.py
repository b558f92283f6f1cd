"""Search mode's transcript side: a session opened at a message, read around it and extended as
the person scrolls (never the whole session), its matches stepped through, and memory mode's `o`
(the session where an entry was written).

`TranscriptSide` is a part of `SearchScreen` (tui/screens/search.py), which composes the widgets and
wires the lists' events; the worker messages it posts are defined here.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.message import Message as TextualMessage
from textual.widgets import ContentSwitcher, Input, Static

from core import timefmt
from core.sessions.query import Term
from core.sessions.search import (
    DatabaseError, Message, NotFoundError, QueryError, SessionInfo, SessionsError, Window, session_link,
)
from core.sessions.snippets import one_line
from tui.literal import literal, masked, visible
from tui.widgets.transcript import Transcript
from core.plural import counted

WINDOW = 15  # messages each side of a hit when a transcript opens
CHUNK = 30  # messages fetched when scrolling past the loaded window


@dataclass
class TranscriptLoaded(TextualMessage):
    info: SessionInfo
    window: Window
    terms: tuple[Term, ...]
    hit_ids: list[int]
    note: str | None = None
    expanded: tuple[int, ...] = ()


@dataclass
class MoreLoaded(TextualMessage):
    session_id: str
    direction: str
    messages: list[Message]
    has_more: bool


@dataclass
class OriginMissing(TextualMessage):
    entry: str
    why: str


def preview_line(text: str, width: int = 200) -> str:
    from core.scan.mask import clip  # never cut inside a secret: the line is masked later

    one = " ".join(text.split())
    return one if len(one) <= width else clip(one, width - 1)


@dataclass
class Notice(TextualMessage):
    text: str
    severity: str = "information"
    title: str = ""


class TranscriptSide:
    """The transcript half of SearchScreen: opening, extending, stepping, and memory mode's `o`."""

    # -- transcript --------------------------------------------------------------------------------------
    def open_at(self, session_id: str, message_id: int | None, *, terms: tuple[Term, ...] | None = None,
                profile: str | None = None) -> None:
        """Show a session's transcript centred on a message (the start of the session when None);
        `profile` names another profile's state.db (a hit of an all-profiles search)."""
        query = self.query_one("#search-query", Input).value if terms is None else ""
        self.from_memory = False
        self.back_to_history = None
        self.session_profile = profile
        use_terms = (self.result.terms if self.result else ()) if terms is None else terms
        self.show_transcript()
        self.query_one("#transcript-title", Static).update(Text("Opening…", style="dim"))
        self.load_transcript(session_id, message_id, query, use_terms, None)

    @work(thread=True, exclusive=True, group="transcript", exit_on_error=False)
    def load_transcript(self, session_id: str, message_id: int | None, query: str, terms: tuple[Term, ...],
                        note: str | None, hits: list[int] | None = None) -> None:
        try:
            info = self.tdb.session(session_id)
            if message_id is None:
                window = self.tdb.window(session_id, None, before=0, after=2 * WINDOW)
            else:
                window = self.tdb.window(session_id, message_id, before=WINDOW, after=WINDOW)
            if hits is None:
                hits = []
                if query.strip():
                    try:
                        hits = self.tdb.hit_ids(session_id, query, roles=self._roles())
                    except QueryError:
                        hits = []
        except (NotFoundError, DatabaseError) as exc:
            self.post_message(Notice(str(exc), "error", "Can't open the session"))
            return
        self.post_message(TranscriptLoaded(info, window, terms, hits, note))

    def on_transcript_loaded(self, message: TranscriptLoaded) -> None:
        self.session_info = message.info
        self.show_transcript()
        transcript = self.transcript
        hit_ids = message.hit_ids
        if message.window.anchor_id is not None and not hit_ids and message.terms:
            hit_ids = [message.window.anchor_id]
        transcript.load(message.window, message.terms, hit_ids, message.expanded)
        transcript.focus()
        self.update_transcript_title()
        if message.note:
            self.notify(message.note, title="Origin", markup=False)
        self.refresh_bindings()

    def update_transcript_title(self) -> None:
        info = self.session_info
        if info is None:
            return
        transcript = self.transcript
        line = Text()
        line.append_text(literal(one_line(masked(info.title)), "bold"))
        line.append("  ")
        line.append(visible(masked(info.source or "?")), style="cyan")
        if info.started_at:
            line.append(f"  {timefmt.local_time(info.started_at)}", style="dim")
        if info.message_count is not None:
            line.append(f"  ·  {counted(info.message_count, 'message')}", style="dim")
        line.append(f"  ·  {visible(session_link(self.session_profile or self.app.curator.home.profile, info.id))}",
                    style="dim")
        position = transcript.hit_position()
        back = ("Esc back to the entry's history" if self.back_to_history
                else "Esc back to memory" if self.from_memory else "Esc back to the results")
        if position:
            at, total = position
            label = f"match {at} of {total}" if at else f"{total} match{'es' if total != 1 else ''} below"
            line.append("\n" + label, style="bold yellow")
            line.append(f"  ·  n/N next/previous  ·  e expand  ·  m to memory  ·  {back}", style="dim")
        else:
            line.append(f"\ne expand  ·  m to memory  ·  c copy link  ·  {back}", style="dim")
        self.query_one("#transcript-title", Static).update(line)

    def show_transcript(self) -> None:
        self.view = "transcript"
        self.query_one("#search-views", ContentSwitcher).current = "transcript-view"
        self.query_one("#search-status", Static).display = False  # the results' status is not the transcript's
        self.refresh_bindings()

    def show_results(self) -> None:
        self.from_memory = False
        self.back_to_history = None
        self.view = "results"
        self.query_one("#search-views", ContentSwitcher).current = "search-results"
        self.query_one("#search-status", Static).display = True
        self.refresh_bindings()

    def on_transcript_need_more(self, message: Transcript.NeedMore) -> None:
        t = message.transcript
        if not t.messages or t.session_id is None:
            return
        pivot = t.messages[0].id if message.direction == "before" else t.messages[-1].id
        self.load_more(t.session_id, message.direction, pivot)

    @work(thread=True, group="transcript-more", exit_on_error=False)
    def load_more(self, session_id: str, direction: str, pivot: int) -> None:
        try:
            if direction == "before":
                messages, more = self.tdb.older(session_id, pivot, CHUNK)
            else:
                messages, more = self.tdb.newer(session_id, pivot, CHUNK)
        except SessionsError as exc:
            self.post_message(Notice(str(exc), "error"))
            return
        self.post_message(MoreLoaded(session_id, direction, messages, more))

    def on_more_loaded(self, message: MoreLoaded) -> None:
        t = self.transcript
        if t.session_id != message.session_id:
            return
        if message.direction == "before":
            t.prepend(message.messages, message.has_more)
        else:
            t.append(message.messages, message.has_more)

    def on_notice(self, message: Notice) -> None:
        self.notify(message.text, title=message.title, severity=message.severity, timeout=8, markup=False)
        if message.severity == "error" and self.view == "transcript" and not self.transcript.messages:
            self.show_results()

    def action_hit(self, step: int) -> None:
        t = self.transcript
        target = t.next_hit(step > 0)
        if target is None:
            self.notify("No more matches in this direction.", timeout=2, markup=False)
            return
        if not t.go_to(target):
            # beyond the loaded window: load a fresh window around it, keeping the session's matches
            self.load_transcript(t.session_id, target, "", t.terms, None, list(t.hit_ids))
        self.update_transcript_title()

    def action_expand(self) -> None:
        if self.transcript.toggle_expanded():
            self.transcript.call_after_refresh(self.transcript.center_highlight)

    # -- provenance (memory mode's `o`) -----------------------------------------------------------------
    @classmethod
    def open_provenance(cls, app, entry: str, target: str | None = None, timeline=None) -> None:
        """Switch to search mode and open the session where *entry* was written (or say why not),
        as the timeline's blame says (`timeline`: one already built for this profile)."""
        app.switch_mode("search")

        def go() -> None:
            screen = app.screen
            if isinstance(screen, cls):
                screen.provenance(entry, target, timeline)

        app.call_after_refresh(go)

    def provenance(self, entry: str, target: str | None = None, timeline=None) -> None:
        self.from_memory = True
        self.session_profile = None
        self.session_info = None
        self.show_transcript()
        self.transcript.clear_messages()  # never an unrelated session under the search
        self.transcript.focus()  # Esc goes back to memory, 1-5 switch modes (the box doesn't take them)
        self.query_one("#transcript-title", Static).update(Text("Looking for where this entry was written…", style="dim"))
        self.find_origin(entry, target, timeline)

    def on_origin_missing(self, message: "OriginMissing") -> None:
        """No memory tool call wrote the entry: say so in the view itself, with nothing else in it."""
        if not self.from_memory:
            return
        self.session_info = None
        self.transcript.clear_messages()
        line = Text()
        line.append("Origin not found\n", style="bold yellow")
        line.append(message.why + "\n\n")
        line.append_text(literal(preview_line(message.entry), "italic"))
        line.append("\n\nEsc back to memory", style="dim")
        self.query_one("#transcript-title", Static).update(line)
        self.refresh_bindings()

    @work(thread=True, exclusive=True, group="transcript", exit_on_error=False)
    def find_origin(self, entry: str, target: str | None = None, timeline=None) -> None:
        from core.timeline import build_timeline
        from core.timeline.view import origin_of

        curator = self.app.curator
        try:
            origin = None
            if timeline is not None and timeline.curator is curator:  # memory mode's: right unless it is behind
                origin = origin_of(timeline, entry, target, curator.now())
            if origin is None or origin.write is None:
                origin = origin_of(build_timeline(curator, verified=True), entry, target, curator.now())
        except SessionsError as exc:
            self.post_message(Notice(str(exc), "error", "Origin"))
            return
        w = origin.write
        if w is None:
            self.post_message(OriginMissing(entry, origin.why or ""))
            return
        try:
            info = self.db.session(w.session_id)
            window = self.db.window(w.session_id, w.message_id, before=WINDOW, after=WINDOW)
        except SessionsError as exc:
            self.post_message(Notice(str(exc), "error", "Origin"))
            return
        note = f"Written by a memory tool call on {timefmt.local_time(w.timestamp)} ({w.source})."
        # the call itself is the match: show its arguments (the entry as written), highlight nothing else
        self.post_message(TranscriptLoaded(info, window, (), [w.message_id], note, (w.message_id,)))
