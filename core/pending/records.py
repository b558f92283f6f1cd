"""A staged memory write as hmc reads it (`<home>/pending/memory/<id>.json`, HERMES-FORMATS.md §4).

`parse_record` turns a file's bytes into a `PendingRecord`; it never raises: a file that can't be
read as a record is one with a reason (`broken`), a payload that can't be replayed one with a
`problem`. The reason kinds an inspection or an approval names, and the queue's errors, live here
too, below everything that uses them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from core import timefmt
from core.store.atomic import write_refused
from core.store.memory import TARGETS, Op, preview

ID_RE = re.compile(r"[0-9a-f]{8}")
# hmc's limits on one record. Hermes stages a few hundred bytes and nests 4 levels (record, payload,
# operations, operation); a record beyond these is named as such, never parsed or inspected at length.
MAX_RECORD_BYTES = 1 << 20
MAX_DEPTH = 32  # JSON nesting levels
MAX_OPS = 1_000  # operations in one batch: more can never fit a store anyway (each add costs >= 4 chars)
DESTRUCTIVE = ("replace", "remove", "patch")
ACTIONS = ("add", "replace", "remove", "patch", "batch")

# Why a record can't apply (Inspection.reason_kind / ApproveRefused.kind)
BROKEN = "broken"  # the file can't be read as a record
MALFORMED = "malformed"  # a record, but its payload makes no sense
DISABLED = "disabled"  # target disabled in config.yaml
UNREADABLE = "unreadable"  # the target file can't be read/decoded, or is a symlink
DRIFT = "drift"  # the target file drifted; Hermes would refuse too
PIN_CHANGED = "pin-changed"  # the pinned entry is no longer there
NO_MATCH = "no-match"
AMBIGUOUS = "ambiguous"
EMPTY = "empty"  # empty content / old_text
EMPTIES_STORE = "empties-store"  # a batch that would empty a non-empty store
LIMIT = "limit"
SCANNER = "scanner"  # forcible: the person may confirm (hmc's wider scan)
HERMES_SCAN = "hermes-scan"  # the release's own scan refuses the text: Hermes won't write it either
CHANGED = "changed"  # the record changed since it was inspected
REFUSED = "refused"  # anything else the store refused
UNWRITABLE = "unwritable"  # the OS refused to write the home (read-only, no permission, full)
TOO_LARGE = "too-large"  # a record beyond hmc's limits (MAX_OPS operations)
UNPINNED = "unpinned"  # 0.22+: a replace/remove/patch staged without a pin; the release won't approve it

# What both interfaces call each reason (the TUI's status column, `hmc pending list`): one wording,
# from here. A record Hermes's own scan refuses is "Hermes blocks" everywhere (not "hermes-scan").
REASON_WORDS = {
    BROKEN: "broken file", MALFORMED: "malformed", DISABLED: "target off", UNREADABLE: "unreadable",
    DRIFT: "file drifted", PIN_CHANGED: "entry changed", NO_MATCH: "no match", AMBIGUOUS: "ambiguous",
    EMPTY: "empty text", EMPTIES_STORE: "empties file", LIMIT: "over limit", SCANNER: "scanner hit",
    CHANGED: "changed", REFUSED: "refused", HERMES_SCAN: "Hermes blocks", TOO_LARGE: "too large",
    UNPINNED: "unpinned",
}


def reason_label(kind: str | None) -> str:
    """`✗ over limit`, `⚠ scanner hit` (the one reason a person may confirm past)."""
    return ("⚠ " if kind == SCANNER else "✗ ") + REASON_WORDS.get(kind or "", kind or "can't apply")


# The reasons no later change to memory can cure: `reject_invalid` clears these and only these.
# Not limit (memory may shrink), disabled (config can change), drift/unreadable (a repair fixes the
# file), scanner and empties-store (a person decides: Hermes would write them), refused/changed
# (unknown or transient).
NEVER_APPLIES = frozenset({BROKEN, MALFORMED, TOO_LARGE, PIN_CHANGED, NO_MATCH, AMBIGUOUS, EMPTY, HERMES_SCAN,
                           UNPINNED})


def unpinned_reason(release_name: str) -> str:
    """Why a release that pins (0.22+) won't approve a destructive record staged without a pin."""
    return (f"staged by an older Hermes without a pin to the entry it meant, so Hermes {release_name} refuses to "
            "approve it (it can't tell which entry the agent saw); re-stage it, or edit it here (e), which "
            "pins it to the entry you see")
# What a person may confirm past (approve with force): hmc asks where Hermes would just write.
FORCIBLE = frozenset({SCANNER, EMPTIES_STORE})


class PendingError(Exception):
    """Unknown or invalid id, or a queue folder that can't be read."""


class PendingUnwritable(PendingError):
    """The OS refused to claim or write a record (core.store.atomic.write_refused): exit 2."""

    kind = UNWRITABLE


class ApproveRefused(PendingError):
    """Approving was refused; the record stays pending. `kind` is one of the reason constants."""

    def __init__(self, record_id: str, kind: str, message: str, findings: Sequence[object] = ()):
        super().__init__(message)
        self.id = record_id
        self.kind = kind
        self.findings = list(findings)

    @property
    def forcible(self) -> bool:
        return self.kind in FORCIBLE



# ---------------------------------------------------------------------------------------------
# Records


@dataclass(frozen=True)
class PendingRecord:
    id: str  # the file stem (the id Hermes approves by)
    path: Path
    created_at: float  # `created_at`, or the file's mtime when missing
    action: str = ""
    target: str | None = None
    summary: str = ""
    origin: str = ""
    ops: tuple[Op, ...] = ()
    broken: str | None = None  # the file can't be read as a record (unreadable, bad JSON, …)
    problem: str | None = None  # a record whose payload can't be replayed (malformed)
    raw: str = ""  # the file text as read (for the raw view)
    payload: Any = field(default=None, compare=False)
    stamp: tuple[int, int] = (0, 0)  # (mtime_ns, size)
    dated: bool = False  # True when the record carries `created_at` (else the time is the file's mtime)
    problem_kind: str = MALFORMED  # the reason kind of `problem` (MALFORMED or TOO_LARGE)
    notes: tuple[str, ...] = ()  # things a person should know that don't stop it (a bad created_at)
    op_count: int = 0  # operations the record stages (a batch over MAX_OPS keeps only the first ops)

    @property
    def file(self) -> str:
        """The file name, printable (a name that isn't UTF-8 shows U+FFFD where its bad bytes are)."""
        return printable(self.path.name)

    @property
    def valid_id(self) -> bool:
        return ID_RE.fullmatch(self.id) is not None

    @property
    def auto(self) -> bool:
        """Staged by Hermes's background review (Hermes shows `[auto]`)."""
        return self.origin == "background_review"

    @property
    def usable(self) -> bool:
        return self.broken is None and self.problem is None

    @property
    def unpinned(self) -> bool:
        """A replace/remove/patch without a `matched_entry` pin (an older Hermes staged it)."""
        return any(op.action in DESTRUCTIVE and op.matched_entry is None for op in self.ops)

    @property
    def title(self) -> str:
        """One line for a list: the summary Hermes wrote, or one built from the ops."""
        if self.broken:
            return f"{self.file}: {self.broken}"
        return " ".join(self.summary.split()) or describe(self.ops, self.target, self.op_count)

    @property
    def full_title(self) -> str:
        """The title without Hermes's cut: Hermes stores `<what>: <detail>` with the detail cut at
        SUMMARY_DETAIL characters (mid-word); for a single op, the detail in full, in Hermes's words."""
        title = self.title
        head, sep, detail = self.summary.partition(": ")
        if self.broken or not sep or len(detail) < SUMMARY_DETAIL or len(self.ops) != 1:
            return title
        full = summary_detail(self.ops[0])
        if full is None or not " ".join(full.split()).startswith(" ".join(detail.split())):
            return title
        return " ".join(f"{head}: {full}".split())


# Hermes's staged-write summary: f"{what}: {detail[:120]}", the detail per action (tools/memory_tool.py)
SUMMARY_DETAIL = 120


def summary_detail(op: Op) -> str | None:
    """The detail Hermes writes in a staged record's summary for `op`, uncut (None: not one it stages)."""
    content, old = op.content or "", op.old_text or ""
    return {"add": content, "remove": old,
            "replace": f"entry matching: {old}\nwhole entry becomes: {content}",
            "patch": f"entry matching: {old}\nspan '{old}' becomes: {content} (rest of the entry is kept)",
            }.get(op.action)


def describe(ops: Sequence[Op], target: str | None, total: int | None = None) -> str:
    """One line for the ops: each described up to DESCRIBED, then how many more."""
    where = "user profile" if target == "user" else "memory"
    parts = []
    total = max(total or 0, len(ops))
    if total > DESCRIBED:
        return "; ".join([describe(ops[:DESCRIBED], target), f"… and {total - DESCRIBED:,} more operations"])
    for op in ops:
        if op.action == "add":
            parts.append(f"add to {where}: {preview(op.content, 120)}")
        elif op.action == "replace":
            parts.append(f"replace in {where}: {preview(op.matched_entry or op.old_text, 60)} → {preview(op.content, 60)}")
        else:
            parts.append(f"remove from {where}: {preview(op.matched_entry or op.old_text, 120)}")
    return "; ".join(parts) or "(no operations)"


DESCRIBED = 5  # ops spelled out in a record's one-line title


_SURROGATE = re.compile("[\ud800-\udfff]")


def printable(text: str) -> str:
    """`text` with every lone surrogate (from a JSON `\\ud800` escape or a file name that isn't
    UTF-8) as U+FFFD: text any output, UTF-8 or JSON, can carry."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


def why(exc: OSError) -> str:
    """An OS error's reason, lowercase and printable."""
    return printable((exc.strerror or str(exc)).lower())


def cannot_take(rid: str, exc: OSError) -> PendingError:
    """The OS refused to claim record `rid` (core/pending/claims.py)."""
    error = PendingUnwritable if write_refused(exc) else PendingError
    return error(f"can't take pending write {rid} ({why(exc)}); nothing was done")


def _printable_obj(obj: Any) -> Any:
    """A copy of parsed JSON (already depth-checked) with printable strings, for showing."""
    if isinstance(obj, str):
        return printable(obj)
    if isinstance(obj, dict):
        return {printable(str(k)): _printable_obj(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_printable_obj(v) for v in obj]
    if isinstance(obj, float) and obj != obj:
        return None  # NaN: no JSON writer may print it
    if isinstance(obj, float) and obj in (float("inf"), float("-inf")):
        return None
    return obj


class _Malformed(Exception):
    pass


def _text(obj: dict, key: str, where: str) -> str:
    value = obj.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _Malformed(f"{where}{key} is {type(value).__name__}, not text")
    bad = _SURROGATE.search(value)
    if bad:
        raise _Malformed(f"{where}{key} holds a lone surrogate (U+{ord(bad.group(0)):04X}), which no UTF-8 file "
                         "can hold: Hermes can't write it either")
    return value


def _op(obj: Any, where: str) -> Op:
    if not isinstance(obj, dict):
        raise _Malformed(f"{where or 'the payload'} is not an object")
    action = obj.get("action")
    if action not in ("add", "replace", "remove", "patch"):
        raise _Malformed(f"{where}action {_shown(action)} is not add, replace, remove or patch "
                         "(a newer Hermes's record? hmc keeps it and applies nothing)")
    content = _text(obj, "content", where) or _text(obj, "new_text", where)
    pin = obj.get("matched_entry")
    if pin is not None and not isinstance(pin, str):
        raise _Malformed(f"{where}matched_entry is {type(pin).__name__}, not text")
    pin = _text(obj, "matched_entry", where) or None
    if action == "add":
        return Op("add", content=content)
    return Op(action, content=content if action in ("replace", "patch") else "",
              old_text=_text(obj, "old_text", where), matched_entry=pin if pin and pin.strip() else None)


def _shown(value: Any) -> str:
    """A short, printable picture of any JSON value for a reason text (never a repr of a big object)."""
    if isinstance(value, str):
        return repr(preview(printable(value), 40))
    if value is None or isinstance(value, (bool, int, float)):
        try:
            return repr(value) if not isinstance(value, int) or abs(value) < 10 ** 30 else "a huge number"
        except ValueError:
            return "a huge number"
    return f"a JSON {'object' if isinstance(value, dict) else 'list' if isinstance(value, list) else type(value).__name__}"


def _depth_over(obj: Any, limit: int) -> bool:
    """True when parsed JSON nests deeper than `limit` (iterative: no recursion to run out of)."""
    stack = [(obj, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _json(text: str) -> tuple[Any, str | None]:
    """Parse JSON, or say why not (never raises: deep nesting, huge numbers and any other failure
    become a reason)."""
    try:
        obj = json.loads(text)
    except RecursionError:
        return None, f"nested too deeply to read (over {MAX_DEPTH} levels)"
    except json.JSONDecodeError as exc:
        where = f" at line {exc.lineno}, column {exc.colno}"
        cut = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
        return None, ("JSON cut short (half-written?)" if cut else "not valid JSON") + where
    except ValueError as exc:  # e.g. an integer too long to convert
        return None, f"not valid JSON ({printable(str(exc)).split(';')[0][:120]})"
    if _depth_over(obj, MAX_DEPTH):
        return None, f"nested too deeply to read (over {MAX_DEPTH} levels)"
    return obj, None


def _time_note(value: Any) -> str:
    return (f"created_at is {_shown(value)}, not a time hmc can show; the file's modification time is "
            "used to order it")


def parse_record(data: bytes, path: Path, stamp: tuple[int, int] = (0, 0), mtime: float = 0.0) -> PendingRecord:
    """One record from the file's bytes. Never raises: any problem becomes `broken` / `problem`
    for this record alone (a last-resort catch names an unexpected failure as broken too)."""
    name = printable(path.name)
    rid = name[:-5] if name.endswith(".json") else name
    mtime = timefmt.valid(mtime) or 0.0
    base: dict[str, Any] = dict(id=rid, path=path, created_at=mtime, stamp=stamp)
    try:
        return _parse_record(data, rid, base)
    except (RecursionError, MemoryError) as exc:
        return PendingRecord(**base, broken=f"too complex to read ({type(exc).__name__})")
    except Exception as exc:  # noqa: BLE001 - one record's failure must never stop the queue
        return PendingRecord(**base, broken=f"can't be read as a record ({type(exc).__name__})")


def _parse_record(data: bytes, rid: str, base: dict[str, Any]) -> PendingRecord:
    if len(data) > MAX_RECORD_BYTES:
        return PendingRecord(**base, broken=f"too large for a pending record ({len(data):,} bytes; "
                                             f"hmc reads up to {MAX_RECORD_BYTES:,})")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return PendingRecord(**base, broken=f"not UTF-8 text (bad byte at offset {exc.start:,})")
    if text.startswith("\ufeff"):
        text = text[1:]
    base["raw"] = text
    if not text.strip():
        return PendingRecord(**base, broken="empty file (half-written?)")
    obj, why = _json(text)
    if why is not None:
        return PendingRecord(**base, broken=why)
    if not isinstance(obj, dict):
        return PendingRecord(**base, broken=f"not a pending record (a JSON {type(obj).__name__}, not an object)")
    notes: list[str] = []
    if "created_at" in obj:
        created = timefmt.valid(obj.get("created_at"))
        if created is None:
            notes.append(_time_note(obj.get("created_at")))
        else:
            base["created_at"] = created
            base["dated"] = True
    payload = obj.get("payload")
    summary = printable(obj["summary"]) if isinstance(obj.get("summary"), str) else ""
    origin = printable(obj["origin"]) if isinstance(obj.get("origin"), str) else ""
    fields = dict(base, summary=summary, origin=origin, payload=_printable_obj(payload), notes=tuple(notes))
    if not ID_RE.fullmatch(rid):
        return PendingRecord(**fields, broken="the file name is not a pending id (8 lowercase hex characters)")
    try:
        subsystem = obj.get("subsystem", "memory")
        if subsystem not in (None, "memory"):
            raise _Malformed(f"subsystem {_shown(subsystem)} is not a memory write")
        if not isinstance(payload, dict):
            raise _Malformed("no payload object")
        action = payload.get("action") or obj.get("action")
        fields["action"] = printable(action) if isinstance(action, str) else ""
        target = payload.get("target")
        if target not in TARGETS:
            raise _Malformed(f"target {_shown(target)} is not memory or user")
        fields["target"] = target
        if action == "batch":
            items = payload.get("operations")
            if not isinstance(items, list) or not items:
                raise _Malformed("a batch with no operations")
            fields["op_count"] = len(items)
            if len(items) > MAX_OPS:
                ops = tuple(_op(item, f"operation {n}: ") for n, item in enumerate(items[:DESCRIBED], 1))
                return PendingRecord(
                    **dict(fields, ops=ops), problem_kind=TOO_LARGE,
                    problem=f"over hmc's limits: a batch of {len(items):,} operations (hmc inspects up to "
                            f"{MAX_OPS:,} per record); reject it, or ask the agent to split it")
            ops = tuple(_op(item, f"operation {n}: ") for n, item in enumerate(items, 1))
        elif action in ("add", "replace", "remove", "patch"):
            fields["op_count"] = 1
            ops = (_op(payload, ""),)
        else:
            raise _Malformed(f"action {_shown(action)} is not add, replace, remove, patch or batch "
                             "(a newer Hermes's record? hmc keeps it and applies nothing)")
    except _Malformed as exc:
        return PendingRecord(**dict(fields, op_count=0), problem=f"malformed record: {exc}")
    return PendingRecord(**fields, ops=ops)


AUTO_MARK = "[auto]"  # in an approval's journal action or detail: the records the background review staged


def approved_by(record: Any) -> tuple[str, ...]:
    """The ids of the pending records a journal record (core.store.journal.Record) wrote: one for
    an approval, each of an approve-all's for its group write, none for any other write."""
    words = record.action.split()
    if words[:2] == ["approve", "all"] and record.detail.startswith("approved "):
        ids = record.detail.split()[1:]
        return tuple(ids[:ids.index(AUTO_MARK)] if AUTO_MARK in ids else ids)
    if len(words) >= 2 and words[0] == "approve" and ID_RE.fullmatch(words[1]):
        return (words[1],)
    return ()


def auto_approved_by(record: Any) -> frozenset[str]:
    """Which of `approved_by(record)` the background review staged (Hermes marks them [auto]): an
    approval's action ends with the mark, an approve-all's detail lists them after it."""
    words = record.action.split()
    if words[:2] == ["approve", "all"] and record.detail.startswith("approved "):
        ids = record.detail.split()[1:]
        return frozenset(ids[ids.index(AUTO_MARK) + 1:]) if AUTO_MARK in ids else frozenset()
    if AUTO_MARK in words:
        return frozenset(approved_by(record))
    return frozenset()
