"""Pending mode: the staged writes, what approving each one would do, and approve / edit / reject."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Sequence

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, OptionList, Static

from core import timefmt
from core.pending.config_edit import read_write_approval
from core.store.memory import FILE_NAMES, Op, preview
from core.pending.queue import ApproveRefused, Inspection, PendingError, inspect_ops
from core.pending.records import HERMES_SCAN, REASON_WORDS, reason_label
from core.scan.mask import finding_detail
from tui.literal import literal, visible_controls
from tui.screens.dialogs import ApproveEditDialog, ConfirmDialog
from tui.screens.queue import Queue, QueueScreen, queue_bindings, short_ago
from tui.widgets.diff import EntryDiff
from tui.widgets.gauge import CapacityGauge

# Narrow lists: the same words, shorter
SHORT = {"scanner hit": "scan", "over limit": "limit", "unpinned": "no pin", "target off": "off",
         "Hermes blocks": "blocked", "too large": "large", "broken file": "broken", "can't apply": "refused",
         "file drifted": "drifted", "entry changed": "changed", "empties file": "empties", "empty text": "empty"}


def status_parts(ins: Inspection) -> tuple[str, str | None, str]:
    """(mark and main reason, the other reason or None, style) for the list's status column.
    A scanner hit that something else also blocks names both: the reason that can never be
    cured first, otherwise the scanner hit (the decision waiting for a person)."""
    if ins.already_in_memory:
        return "✓ in memory", None, "cyan"
    if ins.can_apply:
        return ("✓ ready", "unpinned", "yellow") if ins.unpinned_ok else ("✓ ready", None, "green")
    main = reason_label(ins.reason_kind)
    if ins.forcible:
        return main, None, "yellow"
    if ins.reason_kind == "hermes-scan":  # the scan is the reason itself: said once
        return main, None, "red"
    if ins.scanner_hit:
        other = main[2:]
        return ("✗ scanner hit", other, "red") if not ins.never_applies and ins.reason_kind not in (
            "broken", "malformed") else (main, "scanner hit", "red")
    return main, None, "red"


def _shorter(label: str) -> str:
    mark, word = label[:2], label[2:]
    return mark + SHORT.get(word, word)


def compose_label(main: str, other: str | None, short: bool) -> str:
    """A status's text: two reasons in the short words (`✗ scan · limit`), so that no label is wider
    than the column (STATUS_WIDTHS); in a narrow list only the main one (the detail names both)."""
    if short:
        return _shorter(main)
    return f"{_shorter(main)} · {SHORT.get(other, other)}" if other else main


def status_label(ins: Inspection, short: bool = False) -> tuple[str, str]:
    """(text, style) for the list's status column, e.g. "✗ Hermes blocks", "✗ scan · limit"."""
    main, other, style = status_parts(ins)
    return compose_label(main, other, short), style


def _status_widths() -> tuple[int, int]:
    """The status column's widths (full words, short words): the longest label status_parts can
    make, whatever the queue holds, so the column never changes width when a record with a long
    status comes or goes (the columns jumped)."""
    parts: list[tuple[str, str | None]] = [("✓ in memory", None), ("✓ ready", "unpinned"), ("✓ ready", None),
                                           (reason_label(None), None)]
    for kind, word in REASON_WORDS.items():
        parts += [(reason_label(kind), None), ("✗ scanner hit", word), (reason_label(kind), "scanner hit")]
    return tuple(max(len(compose_label(m, o, short)) for m, o in parts) for short in (False, True))  # type: ignore


STATUS_WIDTHS = _status_widths()


@dataclass(frozen=True)
class Columns:
    """The list's column widths for one width: less important columns give way first so the
    summary keeps room (ages and file names shorten, then the status words). The status column is
    as wide as its longest possible label (STATUS_WIDTHS), whatever the queue holds. A record the
    background review staged is marked `auto` before its summary (there is no `by` column: the
    origin is one of two, and a column blank on most rows took the summary's room)."""

    width: int
    short_age: bool = False
    short_file: bool = False
    short_status: bool = False
    status: int = 17

    ID, AGE, AGE_SHORT, FILE, FILE_SHORT, ACTION = 10, 15, 5, 10, 7, 8
    MIN_SUMMARY = 30

    @classmethod
    def fit(cls, width: int, status_full: int, status_short: int) -> "Columns":
        steps = [dict(), dict(short_age=True), dict(short_age=True, short_file=True),
                 dict(short_age=True, short_file=True, short_status=True)]
        for flags in steps:
            gap = 1 if flags.get("short_status") else 2
            cols = cls(width, status=(status_short if flags.get("short_status") else status_full) + gap, **flags)
            if cols.summary >= cls.MIN_SUMMARY:
                return cols
        return cols

    @property
    def age(self) -> int:
        return self.AGE_SHORT if self.short_age else self.AGE

    @property
    def file(self) -> int:
        return self.FILE_SHORT if self.short_file else self.FILE

    @property
    def fixed(self) -> int:
        return self.ID + self.age + self.file + self.ACTION + self.status

    @property
    def summary(self) -> int:
        return self.width - self.fixed

    def header(self) -> Text:
        out = f"{'id':<{self.ID}}{'age' if self.short_age else 'staged':<{self.age}}"
        return Text(out + f"{'file':<{self.file}}{'action':<{self.ACTION}}{'status':<{self.status}}summary")


def secret_masker(ins: Inspection | None, reveal: bool):
    """A function masking every secret the scanner found in this record's new texts."""
    if ins is None or reveal:
        return lambda text: text
    found = sorted({s.text[f.start:f.end] for s in ins.scanned for f in s.findings if getattr(f, "secret", False)},
                   key=len, reverse=True)
    if not found:
        return lambda text: text
    from core.scan import scanner

    pairs = [(s, scanner.mask(s)) for s in found if s]

    def mask(text: str) -> str:
        for secret, shown in pairs:
            text = text.replace(secret, shown)
        return text

    return mask


def ordered(inspections: Sequence[Inspection], groups: dict[str, list[str]]) -> list[tuple[Inspection, str | None]]:
    """Oldest first, with records staging the same change right under the first one: (ins, same-as id)."""
    by_id = {i.id: i for i in inspections}
    first_of: dict[str, str] = {}
    for ids in groups.values():
        for rid in ids[1:]:
            first_of[rid] = ids[0]
    out: list[tuple[Inspection, str | None]] = []
    for ins in inspections:
        if ins.id in first_of:
            continue
        out.append((ins, None))
        for ids in groups.values():
            if ids[0] == ins.id:
                out.extend((by_id[rid], ins.id) for rid in ids[1:])
    return out


def order_key(ins: Inspection) -> tuple:
    """The order approve all applies records in (the queue lists them oldest first)."""
    return (ins.record.created_at, ins.record.path.name)


def simulate(curator, inspections: Sequence[Inspection]) -> dict[str, int]:
    """Counts for approve all: each record inspected on the entries the ones before it leave.

    Uses the queue's own verdict (`inspect_ops`) on copies of the stores' snapshots, with the pins
    approving from the TUI adds (the entries the person saw); nothing is written."""
    from dataclasses import replace

    snaps = {t: s.last for t, s in curator.stores.items()}
    counts = {"all": len(inspections), "apply": 0, "already": 0, "scanner": 0, "cannot": 0, "later": 0}
    for seen in inspections:
        record = seen.record
        target = seen.target
        if not record.usable or target not in snaps:
            counts["cannot"] += 1
            continue
        ops = tuple(replace(op, matched_entry=m) if op.action in ("replace", "remove") and op.matched_entry is None and m
                    else op for op, m in zip(record.ops, seen.matched or (None,) * len(record.ops)))
        store = curator.stores[target]
        now = inspect_ops(record, ops, target, snaps[target], store.limit, store.enabled)
        if now.forcible:
            counts["scanner"] += 1  # approve all never writes past a scanner hit
        elif not now.can_apply:
            counts["later" if seen.can_apply else "cannot"] += 1
        elif now.already_in_memory:
            counts["already"] += 1
        else:
            counts["apply"] += 1
            snaps[target] = replace(snaps[target], entries=tuple(now.after))
    return counts


class PendingScreen(QueueScreen):
    QUEUE = Queue("pending", "r", "pending", "memory", "write approval", "nothing waits for approval",
                  "no staged write is selected", "Clear invalid: every staged write could still apply")
    HELP = """\
## Pending
The writes Hermes staged for approval (`pending/memory/`), oldest first. The lower pane shows what
approving the highlighted one would do to the file: the whole entry a replace overwrites, usage now
and after, scanner findings, and why a record can't apply. `auto` before a summary: Hermes's
background review staged it (Hermes shows `[auto]`).
**y** approve · **n** reject (**u** brings it back) · **e** edit the text, then approve · **A** approve
all · **R** reject all · **x** clear those that can never apply (broken, malformed, entry changed, no
or several matches, empty text, empties the file; scanner hits, over-limit writes, a disabled target or
a drifted file stay) · **o** open the file in memory mode · **p** the raw record · **v** reveal secrets ·
**w** write approval on/off in config.yaml · **s** the skill writes queue (its own tab).
"""
    # Short descriptions and a compact footer: every key fits at 120 columns; the tooltips (and
    # the ? help) say the rest.
    BINDINGS = queue_bindings("pending", {
        "approve": "Apply the highlighted write through Hermes's checks, then clear it",
        "reject": "Delete the highlighted write (u brings it back)",
        "edit": "Change the proposed text (or file), then approve it",
        "approve_all": "Approve all: apply every write that can apply; the rest stay with their reasons",
        "reject_all": "Reject all: delete every staged write (asks first)",
        "reject_invalid": "Clear invalid: reject the writes that can never apply (broken, malformed, entry changed, "
                          "no match, ambiguous, empty, empties the file); scanner hits and over-limit writes stay",
        "raw": "The record file exactly as Hermes wrote it",
        "reveal": "Show or mask the secrets the scanner found",
        "toggle_approval": "Turn write approval on or off in config.yaml (only the memory.write_approval line changes)",
    }, browse=Binding("o", "open_store", "Open", id="pending.open", tooltip="Open the target file in memory mode"),
        undo=Binding("u", "undo_reject", "Unreject", id="pending.undo_reject", tooltip="Bring back the last rejected write"),
        other=Binding("s", "skills_queue", "Skills", id="pending.skills", tooltip="The skill writes queue (pending/skills/)"))

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.rows: list[tuple[Inspection, str | None]] = []
        self._key: object = None

    def compose_detail(self) -> ComposeResult:
        yield Static("", id="detail-title", markup=False)
        yield Static("", id="detail-summary", markup=False)
        yield Static("", id="detail-status", markup=False, classes="detail-gap")
        yield Static("", id="detail-warnings", markup=False)
        with Vertical(id="detail-gauges", classes="detail-gap"):
            with Horizontal(classes="gauge-row"):
                yield Label("", id="gauge-now-label")
                yield CapacityGauge(id="gauge-now")
            with Horizontal(classes="gauge-row"):
                yield Label("", id="gauge-after-label")
                yield CapacityGauge(id="gauge-after")
        yield EntryDiff(id="detail-diff", classes="detail-gap")
        yield Static("", id="detail-findings", markup=False, classes="detail-gap")
        yield Static("", id="detail-raw", markup=False, classes="detail-gap")

    def _layout(self) -> Columns:
        """Column widths for the list's current width (rows start one cell in, like the header)."""
        lst = self.query_one("#pending-list", OptionList)
        width = max(40, (lst.size.width or self.app.size.width) - 3)
        return Columns.fit(width, *STATUS_WIDTHS)

    def reload_on(self) -> list:
        return [self.app.pending_changed, self.app.memory_changed]

    def on_screen_resume(self) -> None:
        """Shown (built ahead, or again): the queue as it is now, before the frame (the file poll
        may not have seen a change yet); nothing is read again when nothing changed."""
        self.reload()

    # -- data ------------------------------------------------------------------------------------

    @property
    def queue(self):
        return self.app.curator.pending

    @staticmethod
    def row_ins(row: tuple[Inspection, str | None]) -> Inspection:
        return row[0]

    def said(self, ins: Inspection, message: object) -> str:
        """The release's refusal said for a person, about the record's file as it is now."""
        store = self.app.curator.stores.get(ins.target) if ins.target else None
        return store.for_person(message, see="memory mode (1)") if store is not None else str(message)

    def row_text(self, row: tuple[Inspection, str | None]) -> str:
        """A filter also finds a record by its texts (as shown: secrets stay masked)."""
        ins = row[0]
        r = ins.record
        texts = [r.summary, r.origin] + [t for op in r.ops for t in (op.content, op.old_text) if t]
        return self.mask_for(ins)("\n".join(t for t in texts if t))

    def reload(self, force: bool = False) -> None:
        """Re-read the queue and both stores (cheap when nothing changed), keeping the highlight."""
        curator = self.app.curator
        try:
            key = (id(curator), self.queue.token(), tuple(s.token() for s in curator.stores.values()))
        except PendingError:
            key = None
        if key == self._key and key is not None and not force:
            return
        self._key = key
        try:
            records = self.queue.list()
            inspections = self.queue.inspect_all(records)
            problem = None
        except PendingError as exc:
            inspections, problem = [], str(exc)
        self.write_approval = read_write_approval(curator.home.config_path)
        self.rows = ordered(inspections, self.queue.groups(inspections))
        self.problem = problem
        self._fill_list()
        self._fill_bar()
        self.show_detail()
        self.refresh_bindings()

    def list_lines(self) -> tuple[Text, list[Text]]:
        cols = self._layout()
        lines = []
        for ins, same in self.rows:
            row = self._row(ins, same, cols)
            row.truncate(cols.width + 1, overflow="ellipsis")
            lines.append(row)
        return cols.header(), lines

    def empty_note(self) -> str:
        return "Nothing waits for approval. " + self.how_writes_get_here()

    def _row(self, ins: Inspection, same_as: str | None, cols: Columns) -> Text:
        r = ins.record
        row = Text(" ", no_wrap=True, overflow="ellipsis")  # one cell in, like the header's padding
        shown_id = visible_controls(r.id if r.valid_id else r.file)
        if same_as:  # the whole id: it is what `hmc pending approve|reject ID` takes
            row.append("└", style="dim")
            row.append(f"{shown_id[:cols.ID - 2]:<{cols.ID - 1}}", style="dim")
        else:
            row.append(f"{shown_id[:cols.ID - 1]:<{cols.ID}}", style="bold")
        age = self.queue.age(r)
        row.append(f"{short_ago(age) if cols.short_age else age:<{cols.age}}")
        file = FILE_NAMES.get(r.target or "", "—")
        row.append(f"{file.removesuffix('.md') if cols.short_file else file:<{cols.file}}")
        action = visible_controls(r.action or "—")
        row.append(f"{action[:cols.ACTION - 1]:<{cols.ACTION}}")
        text, style = status_label(ins, short=cols.short_status)
        row.append(f"{text:<{cols.status}}", style=style)
        if r.auto:
            row.append("auto ", style="magenta")
        if same_as:
            row.append(f"same change as {same_as} · ", style="dim")
        row.append(visible_controls(" ".join(secret_masker(ins, False)(r.title).split())))
        return row

    def tab_counts(self, state: dict) -> tuple[int | None, int | None]:
        return len(self.rows), state.get("skills")

    def describe_queue(self, bar: Text, narrow: bool) -> None:
        n = len(self.rows)
        bar.append(f"{n} staged" + ("" if narrow else f" write{'s' if n != 1 else ''}"), style="bold")
        if n and not narrow:  # narrow: the rows' age column says it, and the approval state needs the room
            oldest = min(ins.record.created_at for ins, _ in self.rows)
            bar.append(f" · oldest {timefmt.ago(oldest, self.app.curator.now())}")
        if n:
            bad = sum(1 for ins, _ in self.rows if not ins.can_apply)
            if bad:
                bar.append(f" · {bad} can't apply" + ("" if narrow else " as staged"), style="yellow")
        bar.append(" · ")

    # -- the detail pane ---------------------------------------------------------------------------

    def show_detail(self) -> None:
        ins = self.current
        q = self.query_one
        gauges = q("#detail-gauges")
        if ins is None:
            approval = "on" if self.write_approval else "off"
            hidden = self.hidden_by_filter()
            self._set("#detail-title", Text("Nothing matches the filter" if hidden else "No staged writes",
                                            style="bold"))
            self._set("#detail-summary", Text(hidden or (
                f"Write approval is {approval}. With it on, Hermes stages every memory write in "
                "pending/memory/ instead of applying it, and they wait here for you. w turns it "
                + ("off." if self.write_approval else "on."))))
            for name in ("#detail-status", "#detail-warnings", "#detail-findings", "#detail-raw"):
                self._set(name, "")
            gauges.display = False
            q("#detail-diff", EntryDiff).show([])
            return
        r = ins.record
        mask = secret_masker(ins, self.reveal)
        title = Text()
        if r.broken:
            title.append_text(literal(r.file, "bold"))
            title.append(" · broken record file", style="bold")
        else:
            title.append_text(literal(r.id if r.valid_id else r.file, "bold"))
            title.append(f" · {visible_controls(r.action or '?')} in {ins.file or '?'}", style="bold")
        when = "staged" if r.dated else "file modified"
        title.append(f" · {when} {self.queue.age(r)} ({timefmt.local_time(r.created_at)})")
        if r.auto:
            title.append("  [auto] background review", style="magenta")
        self._set("#detail-title", title)
        # A broken file has no summary: its reason is the status line (said once).
        self._set("#detail-summary", "" if r.broken else literal(mask(r.full_title)))
        status = q("#detail-status", Static)
        for cls in ("-ok", "-bad", "-warn"):
            status.remove_class(cls)
        if ins.already_in_memory:
            self._set("#detail-status", Text("✓ Already in memory: approving writes nothing and clears the record."))
            status.add_class("-ok")
        elif ins.unpinned_ok:
            self._set("#detail-status", Text("⚠ Can apply, unpinned: the entry is found by its text, not a pin. "
                                             "y approves exactly the change below (the entry shown is pinned)."))
            status.add_class("-warn")
        elif ins.can_apply:
            self._set("#detail-status", Text("✓ Can apply: y approves exactly the change below."))
            status.add_class("-ok")
        elif ins.forcible:
            self._set("#detail-status", Text("⚠ Needs confirmation: ") + literal(mask(ins.reason or ""))
                      + Text(" (y asks first)."))
            status.add_class("-warn")
        elif r.broken:
            self._set("#detail-status", Text("✗ Can't read this file as a record: ") + literal(r.broken)
                      + Text(" (n rejects it; x clears every record that can never apply)."))
            status.add_class("-bad")
        else:
            reason = mask(self.said(ins, ins.reason or ""))
            also = ins.scanner_hit and ins.reason_kind != HERMES_SCAN  # (a Hermes block is the scan: said once)
            line = Text("✗ Can't apply: ") + literal(reason.rstrip(".") if also else reason)
            if also:
                line.append(". The security scan also flags the new text"
                            + ("." if ins.never_applies else "; y will ask you to confirm once it can apply."))
            elif not ins.never_applies:
                line.append(" (may apply later: x keeps it).")
            self._set("#detail-status", line)
            status.add_class("-bad")
        warnings = Text()
        for w in ins.warnings:
            if warnings:
                warnings.append("\n")
            warnings.append("⚠ ")
            warnings.append_text(literal(mask(w)))
        self._set("#detail-warnings", warnings)
        gauges.display = bool(ins.file)
        if ins.file:
            q("#gauge-now-label", Label).update(Text(f"{ins.file} now"))
            q("#gauge-after-label", Label).update(Text("after approving"))
            q("#gauge-now", CapacityGauge).update(ins.used_before, ins.limit)
            q("#gauge-after", CapacityGauge).update(ins.used_after, ins.limit)
        empty = "(nothing to show: the file can't be read as a record)" if r.broken else "(the store is empty)"
        q("#detail-diff", EntryDiff).show(ins.changes if ins.file else [], mask, empty)
        self._set("#detail-findings", self._findings(ins, mask))
        raw = Text()
        if r.broken:
            raw.append(f"{r.file} as it is on disk:\n", style="bold")
            from core.scan.mask import clip  # (not at start-up)
            raw.append_text(literal(mask(clip(r.raw, 2000)) or "(empty)"))
        self._set("#detail-raw", raw)

    def _findings(self, ins: Inspection, mask) -> Text:
        out = Text()
        for s in ins.scanned:
            for f in s.findings:
                out.append("\n" if out else "Security scan of the new text:\n")
                detail = str(f.detail)
                out.append(f"  {f.severity.upper():<8} " + ("" if detail.startswith(f.rule) else f"{f.rule}: "),
                           style="bold")
                out.append_text(literal(mask(finding_detail(f, s.text, self.reveal))))
                if getattr(f, "secret", False) and not self.reveal:
                    out.append("  (v reveals)", style="dim")
        return out

    def action_skills_queue(self) -> None:
        self.app.switch_mode("skills")

    # -- what can apply now ------------------------------------------------------------------------

    def can_approve(self, ins: Inspection) -> bool:
        return ins.record.usable and (ins.can_apply or ins.forcible)

    def never_applies(self, ins: Inspection) -> bool:
        return ins.never_applies

    def why_not_edit(self, ins: Inspection) -> str | None:
        if not (ins.record.usable and len(ins.record.ops) == 1
                and ins.record.ops[0].action in ("add", "replace", "patch")):
            return "Edit: only a single add, replace or patch has text to edit"
        return None

    def why_not_more(self, action: str, ins: Inspection | None, none: str) -> str | None:
        if action == "open_store":
            return None if (ins is not None and ins.target is not None) else f"Open: {none}"
        if action == "undo_reject":
            return None if self.queue.rejected() else "Unreject: nothing was rejected"
        return None

    # -- actions ---------------------------------------------------------------------------------------

    async def approve(self, ins: Inspection, *, edited=None, target: str | None = None, force: bool = False,
                      rules_confirmed: bool = False) -> bool:
        if not rules_confirmed and not await self.app.confirm_rules("approve"):  # never silently under rules shown to differ
            return False
        try:
            approval = await asyncio.to_thread(self.queue.approve, ins.id, edited=edited, target=target,
                                               force=force, seen=ins)
        except ApproveRefused as exc:
            if exc.forcible and not force and await self._confirm_scan(exc.findings):
                return await self.approve(ins, edited=edited, target=target, force=True, rules_confirmed=True)
            if not exc.forcible:
                self.notify(self.said(ins, exc), title=f"Kept {ins.id}: not approved", severity="error", timeout=10,
                            markup=False)
            self.reload(force=True)
            return False
        except PendingError as exc:
            self.notify(str(exc), title="Not approved", severity="error", timeout=10, markup=False)
            self.reload(force=True)
            return False
        self.changed(approval.target)
        store = self.app.curator.stores[approval.target]
        what = " ".join(approval.result.messages)
        self.notify(f"{what}\n{store.name}: {approval.result.label}", title=f"Approved {approval.id}", markup=False)
        return True

    @work(exclusive=True, group="queue-write")
    async def action_reject(self) -> None:
        ins = self.current
        if ins is None:
            return
        record = ins.record
        try:
            await asyncio.to_thread(self.queue.reject, record.id if record.valid_id else record.file)
        except PendingError as exc:
            self.notify(str(exc), title="Not rejected", severity="error", markup=False)
            self.reload(force=True)
            return
        self.changed()
        self.notify(f"Rejected {record.id}: nothing was written. u brings it back.", title="Rejected", markup=False)

    @work(exclusive=True, group="queue-write")
    async def action_undo_reject(self) -> None:
        try:
            rid = await asyncio.to_thread(self.queue.undo_reject)
        except (PendingError, OSError) as exc:
            self.notify(str(exc), title="Nothing brought back", severity="warning", markup=False)
            return
        self.changed()
        self.highlight_record(rid)
        self.notify(f"{rid} is back in the queue.", title="Unrejected", markup=False)

    @work(exclusive=True, group="queue-write")
    async def action_edit(self) -> None:
        ins = self.current
        if ins is None or not ins.record.usable or len(ins.record.ops) != 1:
            return
        op = ins.record.ops[0]
        if op.action not in ("add", "replace", "patch"):
            self.notify("Only an add, a replace or a patch has text to edit.", severity="warning", markup=False)
            return
        original = ins.matched[0] if op.action in ("replace", "patch") and ins.matched else None
        if op.action == "patch" and original is None:
            self.notify("The entry this patch changes is not in the file any more: nothing to edit.",
                        severity="warning", markup=False)
            return
        as_add = op.action == "add" or original is None
        title = f"Edit, then approve {ins.id}" + (" (as an add: the entry it replaced is gone)"
                                                   if op.action == "replace" and original is None else "")
        # a patch is edited as the whole entry it would leave (saved as hmc's own edit, pinned)
        initial = next((c.after for c in ins.changes if c.kind == "patched" and c.before == original),
                       None) if op.action == "patch" else None
        result = await self.app.push_screen_wait(ApproveEditDialog(
            self.app.curator, ins.target, original, initial=initial or op.content.strip(), title=title,
            choose_target=True,
        ))
        if result is None:
            return
        if as_add or result.target != ins.target:
            edited: object = [Op("add", content=result.text)]
        else:
            edited = [Op("replace", content=result.text, old_text=op.old_text, matched_entry=original)]
        await self.approve(ins, edited=edited, target=result.target if result.target != ins.target else None)

    def counts(self) -> dict[str, int]:
        """What approve all would do, by simulating the queue in order (nothing is written).

        Each record is inspected against the entries the records before it would leave (a copy),
        so a file that fills up as records apply is counted as it will be: the later records that
        no longer fit are counted as staying, not as written."""
        return simulate(self.app.curator, [ins for ins, _ in sorted(self.rows, key=lambda r: order_key(r[0]))])

    @work(exclusive=True, group="queue-write")
    async def action_approve_all(self) -> None:
        c = self.counts()
        if not c["all"]:
            return
        body = Text(f"Approve all {c['all']} staged write{'s' if c['all'] != 1 else ''}, oldest first?\n\n")
        body.append(f"  {c['apply']} will be written\n", style="green")
        if c["later"]:
            body.append(f"  {c['later']} can apply now but not after the ones before them (the file fills "
                        "up or their entry changes): they stay pending\n", style="yellow")
        if c["already"]:
            body.append(f"  {c['already']} already in memory: just cleared\n", style="cyan")
        if c["cannot"]:
            body.append(f"  {c['cannot']} can't apply and stay pending with their reasons\n", style="red")
        if c["scanner"]:
            body.append(f"  {c['scanner']} flagged by the security scan stay pending (approve each with y)\n",
                        style="yellow")
        body.append("\nEach write goes through Hermes's checks again as it is applied; a failure keeps that record.")
        if not await self.app.push_screen_wait(ConfirmDialog("Approve all", body, yes="Approve all")):
            return
        if not await self.app.confirm_rules("approve"):
            return
        seen = [ins for ins, _ in self.rows]
        report = await asyncio.to_thread(self.queue.approve_all, seen)
        for target in sorted({a.target for a in report.done}):
            self.app.stores_written(target)
        self.changed()
        written = sum(1 for a in report.done if a.changed)
        text = f"Applied {written}, cleared {len(report.done) - written} already in memory" if len(report.done) != written \
            else f"Applied {written}"
        if report.failed:
            text += f"; kept {len(report.failed)} that can't apply now (x clears those that never can)"
        if report.skipped:
            text += f"; {len(report.skipped)} staged meanwhile wait for you"
        self.notify(text + ".", title="Approve all", severity="warning" if report.failed else "information", timeout=10, markup=False)

    @work(exclusive=True, group="queue-write")
    async def action_reject_all(self) -> None:
        n = len(self.rows)
        if not n:
            return
        body = Text(f"Reject all {n} staged write{'s' if n != 1 else ''}? Nothing is written to memory.\n\n"
                    "hmc keeps a copy of each; u brings back the last one rejected.")
        if not await self.app.push_screen_wait(ConfirmDialog("Reject all", body, yes=f"Reject {n}", danger=True)):
            return
        report = await asyncio.to_thread(self.queue.reject_all, [ins.id for ins, _ in self.rows])
        self.changed()
        self.notify(f"Rejected {len(report.done)}." + (f" {len(report.failed)} could not be removed." if report.failed else ""),
                    title="Reject all", markup=False)

    @work(exclusive=True, group="queue-write")
    async def action_reject_invalid(self) -> None:
        bad = [ins for ins, _ in self.rows if ins.never_applies]
        if not bad:
            return
        body = Text(f"Reject the {len(bad)} staged write{'s' if len(bad) != 1 else ''} that can never apply?\n\n")
        for ins in bad[:8]:
            body.append(f"  {ins.id if ins.record.valid_id else ins.record.file}  ", style="bold")
            body.append_text(literal(preview(ins.reason or "", 70), "dim"))
            body.append("\n")
        if len(bad) > 8:
            body.append(f"  … and {len(bad) - 8} more\n", style="dim")
        kept = sum(1 for ins, _ in self.rows if not ins.can_apply and not ins.never_applies)
        body.append("\nNever applies: a broken, malformed or oversized record, a pinned entry that changed, no "
                    "or several matching entries, empty text, text Hermes's scan blocks, or a destructive "
                    "write staged without a pin.\n")
        body.append(f"Kept{f' ({kept})' if kept else ''}: scanner hits and a batch that would empty the "
                    "file (your decision), over the limit "
                    "(memory may shrink), a disabled target or a drifted file (a repair fixes it).\n")
        body.append("u brings back the last one rejected.", style="dim")
        if not await self.app.push_screen_wait(ConfirmDialog("Clear invalid writes", body, yes="Reject them", danger=True)):
            return
        report = await asyncio.to_thread(self.queue.reject_invalid, [ins.id for ins in bad])
        self.changed()
        self.notify(f"Rejected {len(report.done)} that can never apply.", title="Cleared", markup=False)

    def action_open_store(self) -> None:
        ins = self.current
        if ins is not None and ins.target:
            self.app.show_memory(ins.target)

    def mask_for(self, ins: Inspection):
        return secret_masker(ins, self.reveal)

    def raw_of(self, ins: Inspection):
        r = ins.record
        return r.raw, r.payload is not None and not r.broken, self.queue.folder / r.file

    def approval_now(self) -> bool:
        return read_write_approval(self.app.curator.home.config_path)
