"""One entry's history (memory mode's `i`): its earlier texts, newest first, each with the diff the
write made and who made it; Enter opens the session at the call (search mode). Escape goes back."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from core import timefmt
from core.store.memory import FILE_NAMES, StoreError
from tui.literal import literal
from tui.screens.base import ModeScreen
from tui.widgets.footer import KeyFooter
from tui.widgets.header import HmcHeader
from tui.widgets.write_view import OneLine, change_lines, masked, who_text
from tui.widgets.lists import HmcList
from tui.widgets.work_progress import WorkProgress


class EntryHistoryScreen(ModeScreen):
    MODE = "entry history"
    AREA = "history"
    HELP = """\
## An entry's history
Every text the entry has had, newest first: the write that made each one (the agent's memory tool
call, hmc, or a change outside both), with what it changed. **Enter** opens the session at the call
(search mode; Esc there comes back to memory mode); **o** does the same. **Esc** goes back.
"""
    BINDINGS = [
        Binding("o", "open_session", "Open session", id="entry_history.open",
                tooltip="Open the session at the memory tool call that wrote this text (Enter too)"),
        Binding("escape", "back", "Back", id="entry_history.back", tooltip="Back to memory mode"),
    ]
    DEFAULT_CSS = """
    EntryHistoryScreen #eh-entry { height: auto; max-height: 6; padding: 0 1; border-bottom: solid $panel-lighten-2; }
    EntryHistoryScreen #eh-status { height: auto; padding: 0 1; }
    EntryHistoryScreen #eh-body { height: 1fr; }
    EntryHistoryScreen #eh-list { width: 2fr; height: 1fr; border: none; }
    EntryHistoryScreen #eh-diff-box { width: 3fr; height: 1fr; border-left: solid $panel-lighten-2; padding: 0 1; }
    EntryHistoryScreen.-narrow #eh-body { layout: vertical; }
    EntryHistoryScreen.-narrow #eh-list { width: 1fr; }
    EntryHistoryScreen.-narrow #eh-diff-box { width: 1fr; border-left: none; border-top: solid $panel-lighten-2; }
    """

    def __init__(self, target: str, entry: str) -> None:
        super().__init__()
        self.target, self.entry = target, entry
        self.revisions: list = []
        self.loaded = False

    def compose(self) -> ComposeResult:
        yield HmcHeader()
        heading = Text(f"History of an entry in {FILE_NAMES[self.target]}\n", style="bold")
        heading.append_text(literal(self.entry))
        yield Static(heading, id="eh-entry", markup=False)
        yield Static(Text("Loading…", style="dim"), id="eh-status", markup=False)
        with Horizontal(id="eh-body"):
            yield HmcList(id="eh-list")
            with VerticalScroll(id="eh-diff-box"):
                yield Static("", id="eh-diff", markup=False)
        yield WorkProgress(self.app.long_work)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#eh-list", OptionList).focus()
        self.load()

    @work(thread=True, exclusive=True, group="entry-history", exit_on_error=False)
    def load(self) -> None:
        from core.sessions.db import SessionsError
        from core.timeline import build_timeline
        from core.timeline.view import entry_history

        try:
            with self.app.long_work("rebuilding the memory history") as progress:
                timeline = build_timeline(self.app.curator, progress=progress, verified=True)
        except (SessionsError, StoreError, OSError) as exc:
            self.app.call_from_thread(self._status, f"Can't read the agent's history: {exc}", True)
            return
        revisions = entry_history(timeline, self.target, self.entry)
        from core.review.facts import refusals_about

        texts = [self.entry, *(rev.before for rev in revisions if rev.before)]
        self.refused = refusals_about(timeline.refused, self.target, texts)
        self.app.call_from_thread(self._loaded, revisions)

    def refused_note(self) -> str:
        """The calls the tool refused about this entry, newest last (`hmc log --refused` lists them all)."""
        refused = getattr(self, "refused", [])
        if not refused:
            return ""
        r = refused[-1]
        when = timefmt.local_time(r.call.timestamp) or "?"
        more = f" (and {len(refused) - 1} earlier)" if len(refused) > 1 else ""
        return f"\nThe tool refused a {r.call.action} of it on {when}{more}: {masked(r.said)}"

    def _status(self, text: str, error: bool = False) -> None:
        self.query_one("#eh-status", Static).update(literal(text, "bold red" if error else "dim"))

    def _loaded(self, revisions) -> None:
        from core.timeline.view import who

        self.revisions, self.loaded = revisions, True
        lst = self.query_one("#eh-list", OptionList)
        lst.clear_options()
        for i, rev in enumerate(revisions):
            w = rev.write
            verb = "added" if rev.before is None else ("unrecorded" if w.by == "unknown" else "changed")
            row = Text(f"{timefmt.local_time(w.timestamp)}  {verb:<9} ")
            row.append_text(literal(masked(who(w)), "bold" if w.by == "agent" else "dim"))
            if w.session_id:
                row.append("  ↗", style="dim")
            lst.add_option(Option(OneLine(row), id=f"r{i}"))
        n = len(revisions)
        if not n:
            self._status("No recorded write made this text: it was typed by hand, or written before the history "
                         "began.")
        else:
            self._status(f"{n} text{'s' if n != 1 else ''}, newest first · Enter opens the session that wrote it"
                         + self.refused_note())
            lst.highlighted = 0
        self.show_detail()

    def selected(self):
        if not self.is_mounted:
            return None
        i = self.query_one("#eh-list", OptionList).highlighted
        return self.revisions[i] if i is not None and 0 <= i < len(self.revisions) else None

    @on(OptionList.OptionHighlighted, "#eh-list")
    def show_detail(self) -> None:
        rev = self.selected()
        out = Text()
        if rev is not None:
            w = rev.write
            out.append(f"{w.action} · {timefmt.local_time(w.timestamp)}\n", style="bold")
            out.append("by ")
            out.append_text(literal(who_text(w)))
            if w.session_id:
                out.append("\nsession ", style="dim")
                out.append_text(literal(masked(w.session_id), "dim"))
            out.append("\n\n")
            out.append_text(change_lines([(rev.before, rev.after)]))
        self.query_one("#eh-diff", Static).update(out)
        self.refresh_bindings()

    def why_not(self, action: str) -> str | None:
        if action == "open_session":
            rev = self.selected()
            if rev is None:
                return "Open session: no text selected"
            if not rev.write.session_id:
                return "Open session: " + ("hmc wrote this text (no session)" if rev.write.by == "hmc"
                                           else "no recorded call wrote this text")
        return None

    @on(OptionList.OptionSelected, "#eh-list")
    def selected_row(self) -> None:
        self.app.call_later(self.app.run_action, "open_session", self)

    def action_open_session(self) -> None:
        rev = self.selected()
        if rev is None or not rev.write.session_id:
            return
        self.app.pop_screen()
        self.app.open_session_at(rev.write.session_id, rev.write.message_id, history=(self.target, self.entry))

    def action_back(self) -> None:
        self.app.pop_screen()
