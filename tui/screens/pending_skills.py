"""Pending mode, skills tab: the skill writes Hermes staged in pending/skills/, what approving each
would do to skills/ (files, highlighted diffs, SKILL.md frontmatter before and after, sizes, the
scan), and approve / edit / reject.

Every verdict, plan and write is core.pending.skills.SkillQueue's; this screen only renders and
asks. Reading the queue and building a long diff run in worker threads, so a 100 KB SKILL.md
never holds the keys back. Everything shown from a record or a skill file is masked (secrets),
made visible (controls, bidi overrides) and never read as markup.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich.text import Text
from textual import work
from textual.worker import get_current_worker
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from core import timefmt
from core.home import tilde
from core.store.atomic import read_regular
from core.pending.skill_records import op_label
from core.pending.skills import (MAX_RECORD_BYTES, BROKEN, GUARDED, SCANNER, FileChange, SkillApproveRefused,
                                 SkillInspection,
                                 SkillPendingError, SkillUndoRefused)
from core.scan.mask import Masker
from tui.literal import literal, visible
from tui.screens.dialogs import ConfirmDialog
from tui.screens.queue import Queue, QueueScreen, queue_bindings, short_ago
from tui.screens.skill_edit import EDITABLE, SkillEditDialog
from tui.widgets.skill_diff import SkillDiff, build
from core.plural import counted

STATUS = {
    "broken": "✗ broken file", "malformed": "✗ malformed", "missing": "✗ missing", "exists": "✗ exists",
    "no-match": "✗ no match", "ambiguous": "✗ ambiguous", "invalid": "✗ invalid", "too-large": "✗ too large",
    "escapes": "✗ path escapes", "unreadable": "✗ unreadable", "pinned": "✗ pinned", "scanner": "⚠ scanner hit",
    "guarded": "✗ Hermes guard", "needs-hermes": "✗ needs Hermes",
}


# the status column's width: its longest possible word, whatever the queue holds (it jumped when a
# record with a long status came or went)
STATUS_WIDTH = max(len(w) for w in [*STATUS.values(), "✓ ready", "✗ can't apply"])


def status_of(ins: SkillInspection) -> tuple[str, str]:
    if ins.can_apply:
        return "✓ ready", "green"
    return STATUS.get(ins.kind or "", "✗ can't apply"), "yellow" if ins.forcible else "red"


def masker(ins: SkillInspection, reveal: bool) -> Masker:
    r = ins.record
    return Masker(reveal, [r.summary, r.payload, *[t for c in ins.changes for t in (c.before, c.after)]])


def proposed(ins: SkillInspection) -> FileChange | None:
    """For a record that can't apply (no plan): the text it asks to write, to show what it is."""
    p = ins.record.payload or {}
    name = p.get("name") if isinstance(p.get("name"), str) else "?"
    if ins.record.action == "patch" and isinstance(p.get("old_string"), str) and isinstance(p.get("new_string"), str):
        where = p.get("file_path") if isinstance(p.get("file_path"), str) and p.get("file_path") else "SKILL.md"
        return FileChange(f"{name}/{where} (the patch asks)", "change", p["old_string"], p["new_string"])
    key = EDITABLE.get(ins.record.action)
    text = p.get(key) if key else None
    if isinstance(text, str):
        where = p.get("file_path") if key == "file_content" and isinstance(p.get("file_path"), str) else "SKILL.md"
        return FileChange(f"{name}/{where}", "create", None, text)
    return None


@dataclass
class Row:
    ins: SkillInspection
    age: str
    name: str  # masked, visible
    summary: str  # masked, visible, one line


@dataclass
class Detail:
    """The detail pane's texts for one record and file, built off the UI thread."""
    key: tuple
    title: Text
    summary: Text
    status: Text
    status_class: str
    facts: Text
    files: Text
    findings: Text
    diff: Text
    raw: Text = field(default_factory=Text)


class SkillsPendingScreen(QueueScreen):
    # MODE (the header's Pending tab) and AREA are QueueScreen's: this is pending mode's second queue
    QUEUE = Queue("skills", "s", "skills", "skills", "skill write approval", "no skill write waits for approval",
                  "no skill write is selected",
                  "Clear invalid: no staged skill write is invalid (each can apply, or waits for you or for Hermes)")
    HELP = """\
## Pending — skill writes
The skill writes Hermes staged for approval (`pending/skills/`, `skills.write_approval: true`), oldest
first. The lower pane shows what approving the highlighted one would do under `skills/`: every file it
creates, changes or deletes, with the diff of one (**f** shows the next), SKILL.md's name and
description before and after, sizes, the security scan, and why a write can't apply.
**y** approve · **n** reject · **u** undo the newest approval (hmc's journal puts the files back) or
rejection (while hmc runs) · **e** edit the proposed text, then
approve · **A** approve all (asks, with the counts; never past a scan hit) · **R** reject all · **x** clear
those that can never apply (scanner hits, and writes Hermes may still apply, stay) · **p** the raw record · **v** reveal
secrets · **w** skill write approval on/off in config.yaml · **m** the memory queue.
"""
    BINDINGS = queue_bindings("pending.skills", {
        "approve": "Apply the highlighted skill write as Hermes would, then clear it",
        "reject": "Delete the highlighted skill write (u brings it back while hmc runs)",
        "edit": "Change the proposed SKILL.md, file or replacement, then approve it",
        "approve_all": "Approve every skill write that can apply, oldest first; the rest stay with their reasons",
        "reject_all": "Delete every staged skill write (asks first)",
        "reject_invalid": "Reject the skill writes that can never apply; scanner hits and writes Hermes may still apply stay",
        "raw": "The record file exactly as Hermes wrote it",
        "reveal": "Show or mask the secrets found",
        "toggle_approval": "Turn skill write approval on or off (only the skills.write_approval line changes)",
    }, browse=Binding("f", "next_file", "File", id="pending.skills.file", tooltip="Show the diff of the next file"),
        undo=Binding("u", "undo", "Undo", id="pending.skills.undo",
                     tooltip="Undo the newest skill approval (its files put back) or bring back the last rejected write"),
        other=Binding("m", "memory_queue", "Memory", id="pending.skills.memory", tooltip="The memory writes queue"))
    DEFAULT_CSS = """
    SkillsPendingScreen #skills-bar { height: 1; padding: 0 1; background: $boost; }
    SkillsPendingScreen #skills-columns { height: 1; padding: 0 1; color: $text-muted; text-style: bold; }
    SkillsPendingScreen #skills-list { height: auto; min-height: 3; max-height: 12; border: none; padding: 0; }
    SkillsPendingScreen #skills-detail { height: 1fr; border: round $panel-lighten-2; padding: 0 1; }
    SkillsPendingScreen #skills-detail:focus-within { border: round $accent; }
    SkillsPendingScreen .detail-gap { margin-top: 1; }
    SkillsPendingScreen #skill-status.-ok { color: $text-success; }
    SkillsPendingScreen #skill-status.-bad { color: $text-error; text-style: bold; }
    SkillsPendingScreen #skill-status.-warn { color: $text-warning; text-style: bold; }
    SkillsPendingScreen #skill-findings { color: $text-warning; }
    SkillsPendingScreen #skill-raw { color: $text-muted; }
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.rows: list[Row] = []
        self.loaded = False
        self.file_index = 0
        self.guard: str | None = None
        self.rejected: list[tuple[str, Path, bytes, float]] = []  # (id, path, bytes, when) for u, newest last
        self.undoable = None  # the approval u would undo (SkillQueue.undoable()), read with the queue
        self._detail_key: tuple | None = None

    def compose_detail(self) -> ComposeResult:
        yield Static("", id="skill-title", markup=False)
        yield Static("", id="skill-summary", markup=False)
        yield Static("", id="skill-status", markup=False, classes="detail-gap")
        yield Static("", id="skill-facts", markup=False, classes="detail-gap")
        yield Static("", id="skill-files", markup=False, classes="detail-gap")
        yield Static("", id="skill-findings", markup=False, classes="detail-gap")
        yield SkillDiff(id="skill-diff", classes="detail-gap")
        yield Static("", id="skill-raw", markup=False, classes="detail-gap")

    def on_mount(self) -> None:  # before QueueScreen.on_mount (Textual calls both), which reads the queue
        self.ready = asyncio.Event()  # set once the queue has been read (actions wait for it)

    def on_screen_resume(self) -> None:
        self.reload()

    # -- data ------------------------------------------------------------------------------------

    @property
    def queue(self):
        return self.app.curator.pending_skills

    @staticmethod
    def row_ins(row: Row) -> SkillInspection:
        return row.ins

    def row_text(self, row: Row) -> str:
        """A filter also finds a record by its skill, summary and origin (secrets stay masked)."""
        r = row.ins.record
        return self.mask_for(row.ins)("\n".join(t for t in (r.name, r.summary, r.action, r.origin) if t))

    async def wait_ready(self) -> None:
        await self.ready.wait()

    def reload(self, force: bool = False) -> None:
        """Read the queue again, in a thread (always: `force` changes nothing here)."""
        self.run_worker(self._load, thread=True, exclusive=True, group="skills-load", exit_on_error=False)

    def _load(self) -> None:
        worker = get_current_worker()
        queue = self.queue
        now = self.app.curator.now()
        rows, problem = [], None
        try:
            queue.recover_claims()
            with queue.reading():  # one walk of skills/, one read of config.yaml
                inspections = [queue.inspect(record) for record in queue.list()]
            for ins in inspections:
                record = ins.record
                mask = masker(ins, False)
                rows.append(Row(ins, timefmt.ago(record.created_at, now) if record.created_at else "?",
                                visible(mask(record.name or "?")), visible(" ".join(mask(record.summary).split()))))
        except (OSError, SkillPendingError) as exc:
            problem = f"pending/skills can't be read: {exc}"
        approval, guard = queue.write_approval(), queue.guard_reason()
        try:
            undoable = queue.undoable()
        except (OSError, SkillPendingError, SkillUndoRefused):
            undoable = None
        self.app.call_from_thread(self._loaded, rows, approval, guard, problem, undoable, worker)

    def _loaded(self, rows: list[Row], approval: bool, guard: str | None, problem: str | None,
                undoable=None, worker=None) -> None:
        if worker is not None and worker.is_cancelled:
            return  # a thread can't be stopped: a load a newer one replaced (after a write) reports late, stale
        self.rows, self.write_approval, self.guard, self.problem = rows, approval, guard, problem
        self.undoable = undoable
        self.loaded = True
        self.ready.set()
        self._detail_key = None
        self._fill_list()
        self._fill_bar()
        self.show_detail()
        self.refresh_bindings()

    # -- the list ----------------------------------------------------------------------------------

    def _widths(self) -> tuple[int, int, int, int, int, bool]:
        """(id, age, action, name, status) widths and whether the age is short, for the list width."""
        width = max(40, (self.query_one("#skills-list").size.width or self.app.size.width) - 3)
        status = STATUS_WIDTH + 2
        name = min(max([len(r.name) for r in self.rows] + [6]) + 2, 26)
        short = width < 110
        age = 5 if short else 15
        fixed = 10 + age + 12 + name + status
        if width - fixed < 20:
            name = max(12, name - (20 - (width - fixed)))
        return 10, age, 12, name, status, short

    def list_lines(self) -> tuple[Text, list[Text]]:
        w_id, w_age, w_action, w_name, w_status, short = self._widths()
        width = max(40, (self.query_one("#skills-list").size.width or self.app.size.width) - 3)
        header = Text(f"{'id':<{w_id}}{'age' if short else 'staged':<{w_age}}{'action':<{w_action}}{'skill':<{w_name}}"
                      f"{'status':<{w_status}}summary")
        lines = []
        for row in self.rows:
            r = row.ins.record
            line = Text(" ", no_wrap=True, overflow="ellipsis")
            line.append(f"{visible(r.id)[:w_id - 1]:<{w_id}}", style="bold")
            line.append(f"{short_ago(row.age) if short else row.age:<{w_age}}")
            line.append(f"{visible(r.action or '—')[:w_action - 1]:<{w_action}}")
            name = row.name if len(row.name) < w_name else cut_middle(row.name, w_name - 1)
            line.append(f"{name:<{w_name}}")
            text, style = status_of(row.ins)
            line.append(f"{text:<{w_status}}", style=style)
            if r.auto:
                line.append("auto ", style="magenta")
            line.append(row.summary)
            line.truncate(width + 1, overflow="ellipsis")
            lines.append(line)
        return header, lines

    def empty_note(self) -> str:
        return ("Reading pending/skills/…" if not self.loaded
                else "No skill writes wait for approval. " + self.how_writes_get_here())

    def tab_counts(self, state: dict) -> tuple[int | None, int | None]:
        return state.get("pending"), len(self.rows) if self.loaded else state.get("skills")

    def describe_queue(self, bar: Text, narrow: bool) -> None:
        if self.rows:
            oldest = min((r.ins.record.created_at for r in self.rows if r.ins.record.created_at), default=0)
            if oldest and not narrow:
                bar.append(f"oldest {timefmt.ago(oldest, self.app.curator.now())} · ")
            bad = sum(1 for r in self.rows if not r.ins.can_apply)
            if bad:
                bar.append(f"{bad} can't apply · ", style="yellow")

    def row_changed(self) -> None:
        self.file_index = 0

    # -- the detail pane ---------------------------------------------------------------------------

    def show_detail(self) -> None:
        if not self.is_mounted:
            return
        ins = self.current
        if ins is None:
            self._detail_key = None  # the pane no longer shows a record: coming back to one rebuilds it
            self._apply(self._empty_detail())
            return
        key = (ins.id, ins.record.created_at, self.file_index, self.reveal, id(ins))
        if key == self._detail_key:
            return
        self._detail_key = key
        now = self.app.curator.now()
        self.run_worker(lambda: self._build_detail(ins, key, now), thread=True, exclusive=True,
                        group="skills-detail", exit_on_error=False)

    def _empty_detail(self) -> Detail:
        on_off = "on" if self.write_approval else "off"
        summary = Text(f"Skill write approval is {on_off}. With it on, Hermes stages every skill write "
                       "(create, edit, patch, delete, supporting files) in pending/skills/ instead of applying "
                       "it, and they wait here for you. w turns it " + ("off." if self.write_approval else "on."))
        if self.guard:
            summary.append("\n\n")
            summary.append_text(literal(self.guard, "yellow"))
        hidden = self.hidden_by_filter()
        if hidden:
            summary = Text(hidden)
        title = Text("Reading the skills queue…" if not self.loaded else
                     "Nothing matches the filter" if hidden else "No staged skill writes", style="bold")
        return Detail(("empty",), title, summary, Text(), "", Text(), Text(), Text(), Text())

    def _build_detail(self, ins: SkillInspection, key: tuple, now: float) -> None:
        detail = self.detail_for(ins, key, now)
        self.app.call_from_thread(self._apply, detail)

    def detail_for(self, ins: SkillInspection, key: tuple, now: float) -> Detail:
        r = ins.record
        mask = masker(ins, self.reveal)

        def shown(text: object, style: str = "") -> Text:
            return literal(mask(text), style)

        title = literal(r.id if not r.broken else r.file, "bold")
        if r.broken:
            title.append(" · broken record file", style="bold")
        else:
            title.append(" · ", style="bold")
            title.append_text(shown(f"{r.action or '?'} {r.name or '?'}", "bold"))
        if r.created_at:
            title.append(f" · staged {timefmt.ago(r.created_at, now)} ({timefmt.local_time(r.created_at)})")
        if r.auto:
            title.append("  [auto] background review", style="magenta")
        summary = Text() if r.broken else shown(" ".join(r.summary.split()))
        if ins.can_apply:
            status, cls = Text("✓ Can apply: y approves exactly the change below."), "-ok"
        elif ins.forcible:
            status, cls = Text("⚠ Needs confirmation: ") + shown(ins.reason or "") + Text(" (y asks first)."), "-warn"
        elif ins.kind == BROKEN:
            status = Text("✗ Can't read this file as a record: ") + shown(r.broken or ins.reason or "")
            status.append(" (n rejects it).")
            cls = "-bad"
        else:
            status, cls = Text("✗ Can't apply: ") + shown(ins.reason or ""), "-bad"
            if ins.never_applies:
                status.append(" (n rejects it; x clears every write that can never apply).")
            elif ins.kind != GUARDED:
                status.append(" (n rejects it; x keeps it, for Hermes).")
        facts = Text()
        if ins.skill_dir:
            facts.append("folder  ", style="bold")
            facts.append_text(shown(ins.skill_dir + "/"))
        b, a = ins.frontmatter_before, ins.frontmatter_after
        sides = (("before", b), ("after ", a)) if ins.changes else (("now   ", b),) if b is not None else ()
        if b is not None or a is not None:
            for label, fm in sides:
                facts.append(f"\nSKILL.md {label}  " if facts else f"SKILL.md {label}  ", style="bold")
                if fm is None:
                    facts.append("(none)", style="dim")
                else:
                    facts.append("name ", style="dim")
                    facts.append_text(shown(fm.name or "?"))
                    facts.append(" · description ", style="dim")
                    facts.append_text(shown(fm.description or "?"))
        changes = list(ins.changes)
        files = Text()
        shown_change: FileChange | None = None
        ops = ins.operations() if r.action == "batch" else []
        labels = [op_label(i, len(ops), a, n, fp) for i, a, n, fp, done in ops for _c in done]
        if ops:  # a batch: its ops, all applied or none
            files.append(f"{counted(len(ops), 'operation')}, applied all or none:\n", style="bold")
            for i, a, n, fp, _done in ops:
                files.append_text(shown(op_label(i, len(ops), a, n, fp) + "\n", "dim"))
        if changes:
            index = self.file_index % len(changes)
            shown_change = changes[index]
            files.append(f"{len(changes)} file{'s' if len(changes) != 1 else ''} under skills/"
                         + (" (f: next)" if len(changes) > 1 else "") + "\n", style="bold")
            for n, c in enumerate(changes):
                mark = "▶ " if n == index else "  "
                files.append(mark, style="bold")
                files.append(f"{c.kind:<7} ", style={"create": "green", "delete": "red"}.get(c.kind, "yellow"))
                files.append_text(shown(c.path))
                if n < len(labels):
                    files.append_text(shown(f"  ({labels[n].split(':')[0]})", "dim"))
                files.append(f"  {_size(c.size_before)} → {_size(c.size_after)}", style="dim")
                if n < len(changes) - 1:
                    files.append("\n")
        elif not r.broken:
            shown_change = proposed(ins)
            if shown_change is not None:
                files.append("What the record asks (nothing under skills/ would change):", style="bold")
        findings = Text()
        for f in ins.findings:
            findings.append("\n" if findings else "Security scan of the text this write adds:\n")
            findings.append(f"  {f.severity.upper():<8} ", style="bold")
            findings.append_text(shown(f"{f.rule}: {f.detail}" if not str(f.detail).startswith(f.rule) else f.detail))
            if getattr(f, "secret", False) and not self.reveal:
                findings.append("  (v reveals)", style="dim")
        diff = build(shown_change, mask) if shown_change is not None else Text()
        raw = Text()
        if r.broken:
            try:
                data = read_regular(r.path, 2000, follow_symlinks=False, head=True).decode("utf-8", "replace")
            except OSError as exc:
                data = f"(can't be read: {exc.strerror or exc})"
            raw.append(f"{r.file} as it is on disk:\n", style="bold")
            raw.append_text(shown(data or "(empty)"))
        return Detail(key, title, summary, status, cls, facts, files, findings, diff, raw)

    def _apply(self, d: Detail) -> None:
        if not self.is_mounted or (d.key != ("empty",) and d.key != self._detail_key):
            return  # a later selection won
        self._set("#skill-title", d.title)
        self._set("#skill-summary", d.summary)
        self._set("#skill-status", d.status)
        status = self.query_one("#skill-status", Static)
        for cls in ("-ok", "-bad", "-warn"):
            status.set_class(cls == d.status_class, cls)
        self._set("#skill-facts", d.facts)
        self._set("#skill-files", d.files)
        self._set("#skill-findings", d.findings)
        diff = self.query_one("#skill-diff", SkillDiff)
        diff.show(d.diff)
        diff.display = bool(d.diff.plain)
        self._set("#skill-raw", d.raw)

    # -- what can apply now ------------------------------------------------------------------------

    def never_applies(self, ins: SkillInspection) -> bool:
        return ins.never_applies

    def why_not_edit(self, ins: SkillInspection) -> str | None:
        if ins.record.broken or ins.record.action not in EDITABLE:
            return "Edit: only a create, edit, patch or write_file has text to edit"
        if ins.kind == GUARDED:
            return f"Edit: {ins.reason}"
        return None

    def why_not_all(self, action: str) -> str | None:
        if action == "approve_all" and self.guard:
            return f"Approve all: {self.guard}"
        return None

    def why_not_more(self, action: str, ins: SkillInspection | None, none: str) -> str | None:
        if action == "next_file":
            if ins is None or len(ins.changes) < 2:
                return "File: this write changes one file at most"
            return None
        if action == "undo":
            if self.rejected or self.undoable is not None:
                return None
            return "Undo: hmc has approved no skill write here to undo, and none was rejected since hmc started"
        return None

    # -- actions ---------------------------------------------------------------------------------------

    def action_memory_queue(self) -> None:
        self.app.switch_mode("pending")

    def action_next_file(self) -> None:
        self.file_index += 1
        self.show_detail()

    def mask_for(self, ins: SkillInspection):
        return masker(ins, self.reveal)

    def raw_of(self, ins: SkillInspection):
        r = ins.record
        try:
            text = read_regular(r.path, MAX_RECORD_BYTES, follow_symlinks=False, head=True).decode("utf-8", "replace")
        except OSError as exc:
            text = f"(can't be read: {exc.strerror or exc})"
        return text, not r.broken, r.path

    async def approve(self, ins: SkillInspection, content: str | None = None, force: bool = False) -> bool:
        try:
            done = await asyncio.to_thread(self.queue.approve, ins.id, force=force, content=content)
        except SkillApproveRefused as exc:
            if exc.kind == SCANNER and not force:
                found = self.queue.inspect(ins.record, None if content is None else {
                    **(ins.record.payload or {}), EDITABLE[ins.record.action]: content}).findings
                if await self._confirm_scan(found):
                    return await self.approve(ins, content, force=True)
                self.notify("Nothing was written.", title="Cancelled", markup=False)
            else:
                self.notify(str(exc), title=f"Kept {ins.id}: not approved", severity="error", timeout=10,
                            markup=False)
            self.changed()
            return False
        except (SkillPendingError, OSError) as exc:
            self.notify(str(exc), title="Not approved", severity="error", timeout=10, markup=False)
            self.changed()
            return False
        self.changed()
        what = ", ".join(f"{c.kind} {c.path}" for c in done.changes) or "nothing to change"
        undo = "u undoes it" if getattr(done, "undo_note", None) is None else f"can't be undone: {done.undo_note}"
        self.notify(f"{what}\nunder {tilde(self.queue.skills)} · {undo}", title=f"Approved {ins.id}"
                    + (" (edited)" if content is not None else ""), markup=False)
        return True

    @work(exclusive=True, group="queue-write")
    async def action_edit(self) -> None:
        await self.ready.wait()
        ins = self.current
        if ins is None or ins.record.broken or ins.record.action not in EDITABLE:
            return
        r = ins.record
        what = {"content": "SKILL.md", "file_content": (r.payload or {}).get("file_path") or "the file",
                "new_string": "the patch's replacement"}[EDITABLE[r.action]]
        title = f"Edit {visible(what)}, then approve {r.id} ({r.action} {visible(r.name)})"
        text = await self.app.push_screen_wait(SkillEditDialog(self.queue, r, title=title))
        if text is None:
            return
        await self.approve(ins, content=text)

    @work(exclusive=True, group="queue-write")
    async def action_reject(self) -> None:
        await self.ready.wait()
        ins = self.current
        if ins is None:
            return
        r = ins.record
        try:
            data = await asyncio.to_thread(read_regular, r.path, MAX_RECORD_BYTES, follow_symlinks=False)
        except OSError:
            data = None
        try:
            await asyncio.to_thread(self.queue.reject, r.id)
        except (SkillPendingError, OSError) as exc:
            self.notify(str(exc), title="Not rejected", severity="error", markup=False)
            self.changed()
            return
        if data is not None:
            self.rejected.append((r.id, r.path, data, time.time()))
        self.changed()
        self.notify(f"Rejected {r.id}: nothing was written under skills/. u brings it back.", title="Rejected",
                    markup=False)

    @work(exclusive=True, group="queue-write")
    async def action_undo(self) -> None:
        """The newest of: hmc's last skill approval here (undone from its journal), the last rejection."""
        await self.ready.wait()
        approval = self.undoable
        if approval is not None and (not self.rejected or approval.ts >= self.rejected[-1][3]):
            await self.undo_approval(approval)
            return
        if not self.rejected:
            return
        rid, path, data, _when = self.rejected[-1]
        try:
            await asyncio.to_thread(restore_record, path, data)
        except (OSError, FileExistsError) as exc:
            self.notify(str(exc), title="Nothing brought back", severity="warning", markup=False)
            return
        self.rejected.pop()
        self.changed()
        self.notify(f"{rid} is back in the queue.", title="Unrejected", markup=False)

    async def undo_approval(self, approval) -> None:
        files = "\n".join(f"  {what:<9}{visible(path)}" for path, what in approval.files[:8])
        body = literal(f"Undo {approval.detail}, approved {timefmt.ago(approval.ts, self.app.curator.now())}?\n\n"
                       f"{files}\n\nOnly if every file still holds what the approval wrote. The staged record "
                       "is not brought back.")
        if not await self.app.push_screen_wait(ConfirmDialog("Undo skill approval", body, yes="Undo")):
            return
        try:
            done = await asyncio.to_thread(self.queue.undo)
        except SkillUndoRefused as exc:
            self.notify(str(exc), title="Undo refused", severity="error", timeout=10, markup=False)
            self.changed()
            return
        self.changed()
        self.notify(f"Undid {done.detail}.", title="Undo", markup=False)

    @work(exclusive=True, group="queue-write")
    async def action_approve_all(self) -> None:
        await self.ready.wait()
        if not self.rows or self.guard:
            return
        ok, bad = await asyncio.to_thread(self.queue.simulate_all)
        n = ok + bad
        body = Text(f"Approve all {n} staged skill write{'s' if n != 1 else ''}, oldest first?\n\n")
        body.append(f"  {ok} will be written under skills/\n", style="green")
        if bad:
            scan = sum(1 for r in self.rows if r.ins.kind == SCANNER)
            body.append(f"  {bad} can't apply (in order) and stay pending with their reasons\n", style="red")
            if scan:
                body.append(f"  (of those, {scan} flagged by the security scan: approve all never writes "
                            "past a scan hit; y asks for each)\n", style="yellow")
        body.append("\nEach write is checked again as it is applied; a failure keeps that record.")
        if not await self.app.push_screen_wait(ConfirmDialog("Approve all skill writes", body, yes="Approve all")):
            return
        done, failed = await asyncio.to_thread(self.queue.approve_all)
        self.changed()
        text = f"Applied {len(done)}"
        if failed:
            text += f"; kept {len(failed)} that can't apply (x clears those)"
        self.notify(text + ".", title="Approve all skill writes", severity="warning" if failed else "information",
                    timeout=10, markup=False)

    async def _reject_many(self, targets: list[SkillInspection], title: str) -> None:
        done, failed = 0, 0
        for ins in targets:
            try:
                data = read_regular(ins.record.path, MAX_RECORD_BYTES, follow_symlinks=False)
            except OSError:
                data = None
            try:
                await asyncio.to_thread(self.queue.reject, ins.id)
            except (SkillPendingError, OSError):
                failed += 1
                continue
            done += 1
            if data is not None:
                self.rejected.append((ins.id, ins.record.path, data, time.time()))
        self.changed()
        self.notify(f"Rejected {done}." + (f" {failed} could not be removed." if failed else ""), title=title,
                    markup=False)

    @work(exclusive=True, group="queue-write")
    async def action_reject_all(self) -> None:
        await self.ready.wait()
        n = len(self.rows)
        if not n:
            return
        body = Text(f"Reject all {n} staged skill write{'s' if n != 1 else ''}? Nothing is written under skills/.\n\n"
                    "u brings back the last one rejected while hmc runs.")
        if not await self.app.push_screen_wait(ConfirmDialog("Reject all skill writes", body, yes=f"Reject {n}",
                                                             danger=True)):
            return
        await self._reject_many([r.ins for r in self.rows], "Reject all")

    @work(exclusive=True, group="queue-write")
    async def action_reject_invalid(self) -> None:
        await self.ready.wait()
        bad = [r.ins for r in self.rows if r.ins.never_applies]
        if not bad:
            return
        body = Text(f"Reject the {len(bad)} staged skill write{'s' if len(bad) != 1 else ''} that can never apply?\n\n")
        for ins in bad[:8]:
            body.append(f"  {visible(ins.id)}  ", style="bold")
            reason = masker(ins, False)(ins.reason or "")
            body.append_text(literal(reason[:70] + ("…" if len(reason) > 70 else ""), "dim"))
            body.append("\n")
        if len(bad) > 8:
            body.append(f"  … and {len(bad) - 8} more\n", style="dim")
        body.append("\nKept: scanner hits (your decision) and writes Hermes may still apply (its fuzzy patch "
                    "matcher, its skills guard: approve those in Hermes).\n")
        body.append("u brings back the last one rejected.", style="dim")
        if not await self.app.push_screen_wait(ConfirmDialog("Clear invalid skill writes", body, yes="Reject them",
                                                             danger=True)):
            return
        await self._reject_many(bad, "Cleared")


def _size(n: int | None) -> str:
    return "—" if n is None else f"{n:,} B"


def restore_record(path: Path, data: bytes) -> None:
    """Put a rejected record back exactly as it was; never over a record staged meanwhile."""
    import os

    from core.store.atomic import atomic_write

    if os.path.lexists(path):
        raise FileExistsError(f"{path.name} exists again (staged meanwhile?): nothing brought back")
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, data, prefix=f".{path.name}.tmp.", suffix="")


def cut_middle(name: str, width: int) -> str:
    """`name` in `width` cells, cut in the middle ("paylan…-debug"): skills often share a prefix
    (paylane-webhook-debug, paylane-webhook-replay), and their ends tell them apart."""
    if len(name) <= width:
        return name
    head = (width - 1) // 2
    return name[:head] + "…" + name[len(name) - (width - 1 - head):]
