"""The skeleton both tabs of pending mode fill in: one queue of staged writes on one screen.

The screen is a queue bar (the tabs, the counts, write approval on or off), a column header, the
list of staged writes, a detail pane and the footer. The keys every queue has live here: approve
(asking first past a scanner hit), raw, reveal, write approval on/off, and what greys each of
them. tui/screens/pending.py (memory writes) and tui/screens/pending_skills.py (skill writes) say
what a row, the detail pane, the counts and each verdict look like, and what their other keys do.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any, Callable

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from core.home import tilde
from core.pending.config_edit import ConfigEditError, set_write_approval
from tui.screens.base import ModeScreen
from tui.screens.dialogs import ConfirmDialog, TextDialog
from tui.widgets.filter_bar import FilterBar
from tui.widgets.footer import KeyFooter
from tui.widgets.header import HmcHeader
from tui.widgets.lists import HmcList
from tui.widgets.queue_tabs import QueueBar, queue_tabs


def short_ago(text: str) -> str:
    """'2 weeks ago' → '2w', 'just now' → 'now', 'in 3 days' → '+3d'."""
    if text == "just now":
        return "now"
    future = text.startswith("in ")
    parts = text.removeprefix("in ").split()
    if len(parts) < 2:
        return text
    unit = {"minute": "m", "minutes": "m", "hour": "h", "hours": "h", "day": "d", "days": "d", "week": "w",
            "weeks": "w", "month": "mo", "months": "mo", "year": "y", "years": "y"}.get(parts[1], parts[1][:1])
    return ("+" if future else "") + parts[0] + unit


def approval_question(subsystem: str, on: bool) -> tuple[str, Text]:
    """The title and text of the question before write approval of `subsystem` (memory, skills) is toggled."""
    label = "Write approval" if subsystem == "memory" else "Skill write approval"
    writes = "memory writes" if subsystem == "memory" else "skill writes"
    if on:
        what = ("every memory write" if subsystem == "memory"
                else "every skill write (create, edit, patch, delete, supporting files)")
        change = f"Hermes will stage {what} here for you to approve instead of applying it."
    else:
        change = f"Hermes will apply {writes} at once, including those from its background review."
    body = Text(f"Turn {label.lower()} {'on' if on else 'off'}? {change}\n\n"
                f"Only the {subsystem}.write_approval line of config.yaml changes.")
    return f"{label} {'on' if on else 'off'}", body


@dataclass(frozen=True)
class Queue:
    """What tells one queue's screen from the other's: its widgets' ids, its tab, its words."""

    prefix: str  # the widgets' ids: #<prefix>-bar, -columns, -list, -detail
    option: str  # the list options' ids: <option>-<n>
    tab: str  # the queue tab that is selected (tui.widgets.queue_tabs)
    subsystem: str  # the config.yaml section whose write_approval line `w` changes
    approval: str  # what the bar and the toast call write approval
    nothing: str  # why a key can't apply when the queue is empty
    not_selected: str  # … and when no row is highlighted
    all_can_apply: str  # why clear invalid can't apply


# The keys every queue has: action -> (key, footer label, binding id after the area's prefix).
QUEUE_KEYS = {
    "approve": ("y", "Approve", "approve"), "reject": ("n", "Reject", "reject"), "edit": ("e", "Edit", "edit"),
    "approve_all": ("A", "Approve all", "approve_all"), "reject_all": ("R", "Reject all", "reject_all"),
    "reject_invalid": ("x", "Clear invalid", "reject_invalid"), "raw": ("p", "Raw", "raw"),
    "reveal": ("v", "Reveal", "reveal"), "toggle_approval": ("w", "Approval", "write_approval"),
}


def queue_bindings(area: str, tooltips: dict[str, str], *, browse: Binding, undo: Binding,
                   other: Binding) -> list[Binding]:
    """A queue screen's BINDINGS: the keys every queue has (ids `<area>.<name>`, this queue's
    tooltips) and its own three, in the footer's order: approve, reject, edit, approve all, `other`
    (the other queue), write approval, reject all, clear invalid, `browse` (a way around the
    record), raw, reveal, `undo`, and / (filter)."""

    def key(action: str) -> Binding:
        letter, label, name = QUEUE_KEYS[action]
        return Binding(letter, action, label, id=f"{area}.{name}", tooltip=tooltips[action])

    first = [key(a) for a in ("approve", "reject", "edit", "approve_all", "reject_all", "reject_invalid")]
    find = Binding("slash", "filter", "Filter the queue" if area == "pending" else "Filter skill writes",
                   id=f"{area}.filter", show=False, priority=True,
                   tooltip="Filter the list as you type (Esc clears); approve all and reject all still mean the whole queue")
    # the footer drops keys from the end when the line is short: the other queue and write approval
    # come before the rarer ones, so at 80 columns s and w still show
    approve, reject, edit, approve_all, reject_all, reject_invalid = first
    return [approve, reject, edit, approve_all, other, key("toggle_approval"), reject_all, reject_invalid,
            browse, key("raw"), key("reveal"), undo, find]


class QueueScreen(ModeScreen):
    """One queue of staged writes. Subclasses set QUEUE and BINDINGS and fill in the hooks below
    (`compose_detail`, `list_lines`, `describe_queue`, `show_detail`, `approve`, …); `rows` is
    theirs, `row_ins` finds the inspection in a row."""

    MODE = "pending"
    AREA = "pending"
    QUEUE = Queue("", "", "", "", "", "", "", "")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.rows: list[Any] = []
        self.shown_rows: list[int] = []  # the rows the list shows (a filter hides the others)
        self.reveal = False
        self.loaded = True  # False while the first read of the queue is still running
        self.write_approval = False
        self.problem: str | None = None  # why the queue folder can't be read, for the bar

    def compose(self) -> ComposeResult:
        yield HmcHeader()
        yield QueueBar(id=f"{self.QUEUE.prefix}-bar")
        yield Static("", id=f"{self.QUEUE.prefix}-columns", markup=False)
        yield FilterBar(id=f"{self.QUEUE.prefix}-filter")
        yield HmcList(id=f"{self.QUEUE.prefix}-list")
        with VerticalScroll(id=f"{self.QUEUE.prefix}-detail"):
            yield from self.compose_detail()
        yield KeyFooter()

    def on_mount(self) -> None:
        for signal in self.reload_on():
            signal.subscribe(self, lambda _=None: self.reload())
        self.app.header_changed.subscribe(self, lambda _=None: self._fill_bar())
        self.reload()
        self.query_one(f"#{self.QUEUE.prefix}-list", OptionList).focus()

    def on_resize(self) -> None:
        self._fill_list()
        self._fill_bar()

    # -- what a subclass fills in --------------------------------------------------------------------

    def compose_detail(self) -> ComposeResult:
        """The detail pane's widgets."""
        yield from ()

    def reload_on(self) -> list:
        """The app's signals after which the queue is read again."""
        return [self.app.pending_changed]

    def reload(self, force: bool = False) -> None:
        """Read the queue again and show it (`force`: even when nothing seems to have changed)."""

    @staticmethod
    def row_ins(row: Any) -> Any:
        """The inspection a row shows."""
        return row

    def list_lines(self) -> tuple[Text, list[Text]]:
        """The column header and one line a row, for the list's width now."""
        return Text(), []

    def empty_note(self) -> str:
        """The list's only line when nothing waits."""
        return ""

    def how_writes_get_here(self) -> str:
        """What an empty queue means for a person: how writes come to be staged here, and how to change it."""
        what = "memory writes" if self.QUEUE.subsystem == "memory" else "skill writes"
        if self.write_approval:
            return (f"Write approval is on: Hermes stages the agent's {what} here, and they wait for you "
                    "(y approves, n rejects).")
        return (f"Write approval is off: Hermes applies the agent's {what} at once, so nothing is staged. "
                f"w turns it on ({self.QUEUE.subsystem}.write_approval in config.yaml).")

    def tab_counts(self, state: dict) -> tuple[int | None, int | None]:
        """(memory, skills) for the queue tabs, from the header's state."""
        return state.get("pending"), state.get("skills")

    def describe_queue(self, bar: Text, narrow: bool) -> None:
        """The counts in the bar, before "write approval on"."""

    def row_changed(self) -> None:
        """Another row is highlighted (before its detail is shown)."""

    def show_detail(self) -> None:
        """Show the highlighted row's detail (or what an empty queue means)."""

    def mask_for(self, ins: Any) -> Callable[[str], str]:
        """The masking of this record's secrets (none when revealed)."""
        return lambda text: text

    def raw_of(self, ins: Any) -> tuple[str, bool, Any]:
        """The record file's text, whether it is JSON to indent, and where the file is."""
        return "", False, ""

    def approval_now(self) -> bool:
        """Whether write approval is on now (`w` turns it the other way)."""
        return self.write_approval

    async def wait_ready(self) -> None:
        """Actions wait until the queue has been read."""

    async def approve(self, ins: Any, *, force: bool = False) -> bool:
        """Approve one record (with `force`: past a scanner hit the person confirmed)."""
        return False

    def can_approve(self, ins: Any) -> bool:
        return ins.can_apply or ins.forcible

    def never_applies(self, ins: Any) -> bool:
        """What `x` clears."""
        return False

    def why_not_edit(self, ins: Any) -> str | None:
        return None

    def why_not_all(self, action: str) -> str | None:
        """Approve all / reject all when something waits."""
        return None

    def why_not_more(self, action: str, ins: Any, none: str) -> str | None:
        """The subclass's other keys."""
        return None

    # -- data ------------------------------------------------------------------------------------------

    @property
    def current(self) -> Any:
        lst = self.query_one(f"#{self.QUEUE.prefix}-list", OptionList)
        if lst.highlighted is None or not (0 <= lst.highlighted < len(self.shown_rows)):
            return None
        n = self.shown_rows[lst.highlighted]
        return self.row_ins(self.rows[n]) if n < len(self.rows) else None  # rows just replaced: not shown yet

    def inspections(self) -> list[Any]:
        return [self.row_ins(row) for row in self.rows]

    # -- the list and the bar --------------------------------------------------------------------------

    def _fill_list(self) -> None:
        if not self.is_mounted:
            return
        lst = self.query_one(f"#{self.QUEUE.prefix}-list", OptionList)
        keep = self.current.id if self.current is not None else None
        old = lst.highlighted
        header, lines = self.list_lines()
        self.query_one(f"#{self.QUEUE.prefix}-columns", Static).update(header)
        lst.clear_options()
        self.shown_rows = [n for n, line in enumerate(lines) if self.matches_filter(line.plain, self.row_text(self.rows[n]))]
        if not self.rows:
            self.shown_rows = []
            lst.add_option(Option(Text(" " + self.empty_note(), style="dim"), id="empty", disabled=True))
            return
        if not self.shown_rows:
            lst.add_option(Option(Text(f" None of the {len(self.rows)} staged writes matches the filter "
                                       "(/ then Esc clears it).", style="dim"), id="empty", disabled=True))
            return
        from tui.widgets.filter_match import highlight

        words = self.filter_words()  # what the filter matched, shown in each row it keeps
        lst.add_options([Option(highlight(lines[n], words), id=f"{self.QUEUE.option}-{n}") for n in self.shown_rows])
        self.highlight_record(keep, min(old or 0, len(self.shown_rows) - 1))

    def hidden_by_filter(self) -> str:
        """What the detail pane says when the filter hides every staged write ("" otherwise: the
        queue is empty, or something is shown)."""
        if not self.rows or self.shown_rows:
            return ""
        n = len(self.rows)
        return (f"The filter hides all {n} staged writes of this queue." if n > 1 else
                "The filter hides the one staged write of this queue.") + \
            " Esc in the filter line (or / then Esc) clears it; approve all and reject all still mean the whole queue."

    def highlight_record(self, record_id: str | None, otherwise: int | None = None) -> None:
        """Put the cursor on the row of `record_id` if the list shows it (else on row `otherwise`)."""
        lst = self.query_one(f"#{self.QUEUE.prefix}-list", OptionList)
        ids = [self.row_ins(self.rows[n]).id for n in self.shown_rows]
        if record_id in ids:
            lst.highlighted = ids.index(record_id)
        elif otherwise is not None and ids:
            lst.highlighted = otherwise

    def said(self, ins: Any, message: object) -> str:
        """A refusal about record `ins` as a person reads it (the memory queue words the release's)."""
        return str(message)

    def row_text(self, row: Any) -> str:
        """More text a filter matches in a row than its line shows (the record's summary, its texts)."""
        return ""

    def apply_filter(self) -> None:
        self._fill_list()
        self._fill_bar()
        self.row_changed()
        self.show_detail()
        self.refresh_bindings()

    def filter_list(self) -> OptionList:
        return self.query_one(f"#{self.QUEUE.prefix}-list", OptionList)

    def _fill_bar(self) -> None:
        if not self.is_mounted:
            return
        narrow = self.app.size.width < 110
        bar, spans = queue_tabs(*self.tab_counts(self.app.header_state(quick=True)), self.QUEUE.tab)
        bar.append("  ")
        if self.rows and len(self.shown_rows) < len(self.rows):  # filtered: what the list shows, of how many
            bar.append(f"{len(self.shown_rows)} of {len(self.rows)} shown", style="bold cyan")
            bar.append(" · ")
        else:
            self.describe_queue(bar, narrow)
        bar.append("approval " if narrow else f"{self.QUEUE.approval} ")
        bar.append("on" if self.write_approval else "off", style="bold")
        bar.append(" (w)", style="dim")
        if self.problem:
            bar.append(f"  ✗ {self.problem}", style="bold red")
        self.query_one(f"#{self.QUEUE.prefix}-bar", QueueBar).show(bar, spans)

    @on(OptionList.OptionHighlighted)
    def highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_list.id != f"{self.QUEUE.prefix}-list":
            return
        self.row_changed()
        self.show_detail()
        self.refresh_bindings()

    @on(OptionList.OptionSelected)
    def selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id == f"{self.QUEUE.prefix}-list":
            self.query_one(f"#{self.QUEUE.prefix}-detail").focus()

    def _set(self, name: str, content: Text | str) -> None:
        """Update a detail line; an empty one takes no room."""
        widget = self.query_one(name, Static)
        widget.update(content)
        plain = content.plain if isinstance(content, Text) else content
        widget.display = bool(plain.strip())

    # -- what can apply now ------------------------------------------------------------------------

    def why_not(self, action: str) -> str | None:
        if not self.is_mounted or not self.loaded:
            return None  # the queue is being read: the action waits for it
        ins = self.current
        none = self.QUEUE.nothing if not self.rows else self.QUEUE.not_selected
        if action == "approve":
            if ins is None:
                return f"Approve: {none}"
            if not self.can_approve(ins):
                return f"Approve: {ins.reason or 'this write can not apply'}"
            return None
        if action == "reject":
            return None if ins is not None else f"Reject: {none}"
        if action == "edit":
            return f"Edit: {none}" if ins is None else self.why_not_edit(ins)
        if action in ("approve_all", "reject_all"):
            if not self.rows:
                return f"{'Approve' if action == 'approve_all' else 'Reject'} all: {none}"
            return self.why_not_all(action)
        if action == "reject_invalid":
            return None if any(self.never_applies(i) for i in self.inspections()) else self.QUEUE.all_can_apply
        if action == "raw":
            return None if ins is not None else f"Raw: {none}"
        if action == "reveal":
            if ins is None or not any(getattr(f, "secret", False) for f in ins.findings):
                return "Reveal: the scanner found no secret in this write"
            return None
        return self.why_not_more(action, ins, none)

    # -- after a change ------------------------------------------------------------------------------

    def changed(self, target: str | None = None) -> None:
        """Tell the app (header count, other screens) and re-render here."""
        if target:
            self.app.stores_written(target)
        written = getattr(self.app, "pending_written", None)
        if written is not None:
            written()
        else:
            self.app.poll()
        self.reload(force=True)

    # -- the keys every queue has ------------------------------------------------------------------------

    async def _confirm_scan(self, findings) -> bool:
        from tui.screens.dialogs import scan_body

        return bool(await self.app.push_screen_wait(ConfirmDialog(
            "Write despite the security scan?", scan_body(list(findings)), yes="Write anyway", danger=True)))

    @work(exclusive=True, group="queue-write")
    async def action_approve(self) -> None:
        await self.wait_ready()
        ins = self.current
        if ins is None:
            return
        if not (ins.can_apply or ins.forcible):
            self.notify(self.said(ins, ins.reason or "This write can't apply."), title="Can't approve",
                        severity="warning", markup=False)
            return
        force = False
        if ins.forcible:
            force = await self._confirm_scan(ins.findings)
            if not force:
                return
        await self.approve(ins, force=force)

    def action_raw(self) -> None:
        ins = self.current
        if ins is None:
            return
        text, indent, path = self.raw_of(ins)
        if indent:
            try:
                text = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
            except ValueError:
                pass
        note = tilde(path) + ("" if self.reveal else " · secrets masked (v reveals)")
        self.app.push_screen(TextDialog(f"Raw record — {ins.record.file}", self.mask_for(ins)(text) or "(empty file)",
                                        note=note))

    def action_reveal(self) -> None:
        self.reveal = not self.reveal
        self.show_detail()
        self.notify("Secrets shown." if self.reveal else "Secrets masked.", markup=False)

    @work(exclusive=True, group="queue-write")
    async def action_toggle_approval(self) -> None:
        await self.wait_ready()
        path = self.app.curator.home.config_path
        on = not self.approval_now()
        title, body = approval_question(self.QUEUE.subsystem, on)
        if not await self.app.push_screen_wait(ConfirmDialog(title, body, yes=f"Turn {'on' if on else 'off'}")):
            return
        try:
            edit = await asyncio.to_thread(set_write_approval, path, on, self.QUEUE.subsystem)
        except ConfigEditError as exc:
            self.notify(str(exc), title="config.yaml unchanged", severity="error", timeout=10, markup=False)
            return
        self.reload(force=True)
        where = "created config.yaml" if edit.created else f"config.yaml line {edit.line}"
        label = self.QUEUE.approval[:1].upper() + self.QUEUE.approval[1:]
        self.notify(f"{label} is {'on' if on else 'off'} ({where}). Hermes picks it up the next time "
                    "it loads config.yaml.", title=label, markup=False)
