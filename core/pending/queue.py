"""The write-approval queue: `<home>/pending/memory/<id>.json` (HERMES-FORMATS.md §4).

List the staged writes (oldest first; a broken file is a record with a reason, never a crash),
work out what approving one would do without writing anything (`inspect`), and approve or reject.

Approving replays the payload through the target `MemoryStore.apply` (lock, re-read, drift, limit
and scanner checks, atomic write, journal). The record is first *claimed* by renaming it to a
hidden name in the same folder: a rename succeeds for exactly one process, so two approvals (two
hmc windows, a CLI and the TUI) can never apply one record twice. On success the claimed file is
deleted; on any failure it is renamed back and stays pending with the reason.

Policy for destructive records without a `matched_entry` pin (staged by an older Hermes): hmc
applies them with Hermes's matching rules (equal first, then a unique substring) and says so in a
warning; when the approval comes from an inspection the person saw (`seen=`), the entry shown is
pinned, so what is written is exactly what was shown or nothing.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import stat
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Sequence

from core import timefmt
from core.hermes.release import NEWEST, Release
from core.pending import claims
from core.pending.claims import CLAIM_MARK, STALE_CLAIM_SECONDS  # noqa: F401  (re-exported)
from core.store.atomic import (
    PRIVATE_FILE, NotRegularFile, TooLarge, atomic_write, fsync_dir, read_regular,
)
from core.store.memory import (
    FILE_NAMES, TARGETS, Conflict, DriftError, Op, OpError, ScanRefused, Snapshot, StoreError,
    WriteResult, apply_op, locate, plan, preview, serialize, usage, usage_label,
)

if TYPE_CHECKING:  # pragma: no cover
    from core.store.journal import History
    from core.store.memory import MemoryStore

ID_RE = re.compile(r"[0-9a-f]{8}")
# hmc's limits on one record. Hermes stages a few hundred bytes and nests 4 levels (record, payload,
# operations, operation); a record beyond these is named as such, never parsed or inspected at length.
MAX_RECORD_BYTES = 1 << 20
MAX_DEPTH = 32  # JSON nesting levels
MAX_OPS = 1_000  # operations in one batch: more can never fit a store anyway (each add costs >= 4 chars)
DESTRUCTIVE = ("replace", "remove")
ACTIONS = ("add", "replace", "remove", "batch")

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
TOO_LARGE = "too-large"  # a record beyond hmc's limits (MAX_OPS operations)

# The reasons no later change to memory can cure: `reject_invalid` clears these and only these.
# Not limit (memory may shrink), disabled (config can change), drift/unreadable (a repair fixes the
# file), scanner and empties-store (a person decides: Hermes would write them), refused/changed
# (unknown or transient).
NEVER_APPLIES = frozenset({BROKEN, MALFORMED, TOO_LARGE, PIN_CHANGED, NO_MATCH, AMBIGUOUS, EMPTY, HERMES_SCAN})
# What a person may confirm past (approve with force): hmc asks where Hermes would just write.
FORCIBLE = frozenset({SCANNER, EMPTIES_STORE})


class PendingError(Exception):
    """Unknown or invalid id, or a queue folder that can't be read."""


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
        """A replace/remove without a `matched_entry` pin (an older Hermes staged it)."""
        return any(op.action in DESTRUCTIVE and op.matched_entry is None for op in self.ops)

    @property
    def title(self) -> str:
        """One line for a list: the summary Hermes wrote, or one built from the ops."""
        if self.broken:
            return f"{self.file}: {self.broken}"
        return " ".join(self.summary.split()) or describe(self.ops, self.target, self.op_count)


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
    if action not in ("add", "replace", "remove"):
        raise _Malformed(f"{where}action {_shown(action)} is not add, replace or remove")
    content = _text(obj, "content", where) or _text(obj, "new_text", where)
    pin = obj.get("matched_entry")
    if pin is not None and not isinstance(pin, str):
        raise _Malformed(f"{where}matched_entry is {type(pin).__name__}, not text")
    pin = _text(obj, "matched_entry", where) or None
    if action == "add":
        return Op("add", content=content)
    return Op(action, content=content if action == "replace" else "", old_text=_text(obj, "old_text", where),
              matched_entry=pin if pin and pin.strip() else None)


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
        elif action in ("add", "replace", "remove"):
            fields["op_count"] = 1
            ops = (_op(payload, ""),)
        else:
            raise _Malformed(f"action {_shown(action)} is not add, replace, remove or batch")
    except _Malformed as exc:
        return PendingRecord(**dict(fields, op_count=0), problem=f"malformed record: {exc}")
    return PendingRecord(**fields, ops=ops)


# ---------------------------------------------------------------------------------------------
# Inspection: what approving would do


@dataclass(frozen=True)
class EntryChange:
    kind: str  # kept | added | removed | replaced
    before: str | None = None
    after: str | None = None


@dataclass(frozen=True)
class Scanned:
    """Scanner findings on one new text the record would write."""

    text: str
    findings: tuple[Any, ...]


@dataclass(frozen=True)
class Inspection:
    record: PendingRecord
    target: str | None
    file: str
    limit: int
    before: tuple[str, ...]
    after: tuple[str, ...]
    changes: tuple[EntryChange, ...]
    scanned: tuple[Scanned, ...]
    can_apply: bool
    reason: str | None
    reason_kind: str | None
    already_in_memory: bool
    group: str | None
    warnings: tuple[str, ...] = ()
    matched: tuple[str | None, ...] = ()  # per op: the entry a replace/remove selects now

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def used_before(self) -> int:
        return usage(self.before)

    @property
    def used_after(self) -> int:
        return usage(self.after)

    @property
    def label_before(self) -> str:
        return usage_label(self.used_before, self.limit)

    @property
    def label_after(self) -> str:
        return usage_label(self.used_after, self.limit)

    @property
    def findings(self) -> list[Any]:
        return [f for s in self.scanned for f in s.findings]

    @property
    def forcible(self) -> bool:
        """Only hmc's own caution stands in the way (its wider scan, a batch emptying the file):
        the person may confirm and write it anyway, as Hermes would."""
        return self.reason_kind in FORCIBLE

    @property
    def changed(self) -> bool:
        return self.before != self.after

    @property
    def scanner_hit(self) -> bool:
        """The scanner flags a new text (blocking), whatever else stands in the way."""
        return self.reason_kind == SCANNER or bool(_blocking(self.findings))

    @property
    def never_applies(self) -> bool:
        """No later change to memory can make this record apply (see NEVER_APPLIES). A scanner hit
        of hmc's wider scan is never counted: it waits for a person's decision. One of the release's
        own scan is: Hermes refuses it on every approve."""
        return self.reason_kind in NEVER_APPLIES and (self.reason_kind == HERMES_SCAN or not self.scanner_hit)

    @property
    def unpinned_ok(self) -> bool:
        """Can apply, but a replace/remove finds its entry by text (no pin): check the diff."""
        return self.can_apply and not self.already_in_memory and self.record.unpinned

    def unified_diff(self, context: int = 2) -> list[str]:
        """A line diff of the target file (now → after approving)."""
        return list(difflib.unified_diff(
            serialize(self.before).split("\n"), serialize(self.after).split("\n"),
            fromfile=f"{self.file} (now)", tofile=f"{self.file} (after approving)", lineterm="", n=context,
        ))


def entry_changes(before: Sequence[str], after: Sequence[str], pairs: dict[str, str] | None = None) -> list[EntryChange]:
    """Entry-level diff; `pairs` (old entry → new entry, from the replace ops) pairs replacements."""
    pairs = dict(pairs or {})
    out: list[EntryChange] = []
    matcher = difflib.SequenceMatcher(a=list(before), b=list(after), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        olds, news = list(before[i1:i2]), list(after[j1:j2])
        if tag == "equal":
            out.extend(EntryChange("kept", e, e) for e in olds)
            continue
        paired: list[EntryChange] = []
        for old in list(olds):
            new = pairs.get(old)
            if new is not None and new in news:
                paired.append(EntryChange("replaced", old, new))
                olds.remove(old)
                news.remove(new)
        if not pairs:
            while olds and news and tag == "replace":
                paired.append(EntryChange("replaced", olds.pop(0), news.pop(0)))
        out.extend(paired)
        out.extend(EntryChange("removed", e, None) for e in olds)
        out.extend(EntryChange("added", None, e) for e in news)
    return out


_TOKEN = re.compile(r"\s+|\w+|[^\w\s]", re.UNICODE)


def inline_diff(old: str, new: str) -> list[tuple[str, str]]:
    """Word-level diff of a replaced entry: [("=", text), ("-", text), ("+", text)], in reading order."""
    a, b = _TOKEN.findall(old), _TOKEN.findall(new)
    out: list[tuple[str, str]] = []

    def push(tag: str, text: str) -> None:
        if not text:
            return
        if out and out[-1][0] == tag:
            out[-1] = (tag, out[-1][1] + text)
        else:
            out.append((tag, text))

    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            push("=", "".join(a[i1:i2]))
        else:
            push("-", "".join(a[i1:i2]))
            push("+", "".join(b[j1:j2]))
    return out


def group_key(record: PendingRecord) -> str | None:
    """Records staging the same change share a key (same target, actions and texts)."""
    if not record.usable or record.target is None:
        return None
    parts = [record.target]
    for op in record.ops:
        parts += [op.action, op.content.strip(), (op.matched_entry or op.old_text).strip()]
    return hashlib.sha1("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:12]


# The store's refusal kinds (OpError.kind) -> the queue's reason kinds
_KINDS = {"pin": PIN_CHANGED, "no_match": NO_MATCH, "ambiguous": AMBIGUOUS, "empty": EMPTY,
          "empties": EMPTIES_STORE, "limit": LIMIT, "unknown": MALFORMED}


def _classify(exc: Exception) -> str:
    if isinstance(exc, Conflict):
        return PIN_CHANGED
    if isinstance(exc, DriftError):
        return DRIFT
    if isinstance(exc, ScanRefused):
        return HERMES_SCAN if getattr(exc, "hermes", False) else SCANNER
    kind = _KINDS.get(getattr(exc, "kind", None) or "")
    if kind is not None:
        return kind
    text = str(exc)
    if text.startswith("No entry matched"):
        return NO_MATCH
    if text.startswith("Multiple entries matched"):
        return AMBIGUOUS
    if "cannot be empty" in text:
        return EMPTY
    if "would empty the store" in text:
        return EMPTIES_STORE
    if "over the limit" in text:
        return LIMIT
    if "disabled in config.yaml" in text:
        return DISABLED
    if any(w in text for w in ("not valid UTF-8", "can't be read", "symbolic link", "is a folder")):
        return UNREADABLE
    if text.startswith("unknown action"):
        return MALFORMED
    return REFUSED


def _pin_message(exc: Conflict) -> str:
    return (f"the entry changed since it was staged: {preview(exc.expected)!r} is no longer in the store "
            "(edited or removed since); reject this record or edit it")


_WORD = re.compile(r"\w{3,}", re.UNICODE)


def _truncation_warning(entry: str, old_text: str, new: str) -> str | None:
    """A replace whose old_text is only part of the entry overwrites the WHOLE entry. When the
    words around the match are missing from the new text, say what approving would drop."""
    old = old_text.strip()
    if not old or old == entry or old not in entry:
        return None
    have = {w.casefold() for w in _WORD.findall(new)}
    lost = []
    for part in entry.split(old):
        part = part.strip(" ,;.:-—")
        missing = [w for w in _WORD.findall(part) if w.casefold() not in have]
        if part and missing:
            lost.append((part, missing))
    words = sum(len(m) for _, m in lost)
    if words < 2:
        return None
    dropped = " … ".join(preview(p, 60) for p, _ in lost)
    return (f"the staged old_text matches only part of this entry; approving replaces the WHOLE entry "
            f"({len(entry):,} chars) with the new text ({len(new.strip()):,} chars) and drops: {dropped!r}")


def _scan(text: str, release: "Release | None" = None) -> tuple[Any, ...]:
    from core.scan import scanner

    return tuple(scanner.scan(text, release))


def _release_refusal(ops: Sequence[Op], release: "Release", batch: bool | None = None) -> str | None:
    """The release's scan refusal for a staged write, in its words (a batch names the operation)."""
    from core.hermes.scan import refusal

    is_batch = len(ops) > 1 if batch is None else batch
    for i, op in enumerate(ops):
        if op.action in ("add", "replace") and (op.content or "").strip():
            message = refusal(op.content if is_batch else op.content.strip(), release)
            if message:
                return f"Operation {i + 1}: {message}" if is_batch else message
    return None


def _is_batch(record: PendingRecord, edited: bool) -> bool | None:
    """A staged `operations` call is replayed as one, even with one operation (its wording, scan
    and drift rules); a person's edited version is hmc's own write (None: by the number of ops)."""
    return (record.action == "batch") if not edited else None


def _blocking(findings: Sequence[Any]) -> list[Any]:
    from core.scan import scanner

    return list(scanner.blocking(list(findings)))


def inspect_ops(record: PendingRecord, ops: Sequence[Op], target: str | None, snap: Snapshot | None,
                limit: int, enabled: bool, drift_ok: bool = False, release: "Release | None" = None,
                person: bool = False, batch: bool | None = None) -> Inspection:
    """What approving `ops` (the record's, or an edited version) on `target` would do now, by the
    rules of `release` (the newest by default). `drift_ok`: the store writes these ops through a
    drifted file (as 0.18+ does a single add). `person`: an edited version (hmc's own edit rules).
    `batch`: the record is a staged batch call, even of one operation.

    Never raises: a failure while inspecting one record (however hostile its content) makes that
    record's inspection broken, with the reason, and nothing else."""
    try:
        return _inspect_ops(record, ops, target, snap, limit, enabled, drift_ok, release or NEWEST, person, batch)
    except (RecursionError, MemoryError) as exc:
        why = f"too complex to inspect ({type(exc).__name__})"
    except Exception as exc:  # noqa: BLE001 - isolation: one record never stops the queue
        why = f"can't be inspected ({type(exc).__name__}: {preview(printable(str(exc)), 80)})"
    before = tuple(snap.entries) if snap is not None else ()
    return Inspection(record=record, target=target, file=FILE_NAMES.get(target or "", ""), limit=limit,
                      before=before, after=before, changes=tuple(EntryChange("kept", e, e) for e in before),
                      scanned=(), can_apply=False, reason=f"{record.file}: {why}", reason_kind=BROKEN,
                      already_in_memory=False, group=None, warnings=tuple(record.notes))


def _inspect_ops(record: PendingRecord, ops: Sequence[Op], target: str | None, snap: Snapshot | None,
                 limit: int, enabled: bool, drift_ok: bool, release: "Release", person: bool,
                 batch: bool | None) -> Inspection:
    file = FILE_NAMES.get(target or "", "")
    before = tuple(snap.entries) if snap is not None else ()
    base = dict(record=record, target=target, file=file, limit=limit, before=before, group=group_key(record))

    def verdict(kind: str | None, reason: str | None, after: Sequence[str] = before, changes=(), scanned=(),
                warnings=(), matched=(), already=False) -> Inspection:
        return Inspection(**base, after=tuple(after), changes=tuple(changes) or tuple(EntryChange("kept", e, e) for e in before),
                          scanned=tuple(scanned), can_apply=kind is None, reason=reason, reason_kind=kind,
                          already_in_memory=already, warnings=tuple(record.notes) + tuple(warnings),
                          matched=tuple(matched))

    if record.broken:
        return verdict(BROKEN, f"{record.file}: {record.broken}")
    if record.problem or target is None:
        return verdict(record.problem_kind if record.problem else MALFORMED,
                       record.problem or "malformed record: no target")
    scanned = tuple(Scanned(op.content.strip(), _scan(op.content.strip(), release))
                    for op in ops if op.action in ("add", "replace") and op.content.strip())
    warnings: list[str] = []
    # Walk the ops as Hermes would, remembering which entry each destructive op selects.
    current, matched, pairs = list(before), [], {}
    try:
        for op in ops:
            chosen = None
            if op.action in DESTRUCTIVE:
                idx = locate(current, op.old_text or (op.matched_entry or ""), op.matched_entry, release, op.action)
                chosen = current[idx]
                if op.matched_entry is None:
                    warnings.append(
                        f"staged without a pin (older Hermes): {op.action} finds the entry by its text "
                        f"{preview(op.old_text, 60)!r} now, not the one the agent saw; check the diff"
                    )
                if op.action == "replace":
                    pairs[chosen] = op.content.strip()
                    warn = _truncation_warning(chosen, op.old_text, op.content)
                    if warn:
                        warnings.append(warn)
            matched.append(chosen)
            current, _ = apply_op(current, op, release)
    except OpError as exc:
        kind = _classify(exc)
        message = _pin_message(exc) if isinstance(exc, Conflict) else str(exc)
        return verdict(kind, message, scanned=scanned, warnings=warnings)
    after = tuple(current)
    changes = entry_changes(before, after, pairs)
    adds = [op.content.strip() for op in ops if op.action == "add"]
    already = bool(adds) and all(a in before for a in adds) and after == before
    if already:
        warnings.append("already in memory: approving writes nothing and clears the record")
    for old, new in pairs.items():
        if new in before and new != old:
            warnings.append(f"the new text is already another entry, so {preview(old, 40)!r} just goes (no duplicate is kept)")
    ok = dict(after=after, changes=changes, scanned=scanned, warnings=warnings, matched=matched, already=already)
    # Store-level refusals first (they stop any write), then the verdict of Hermes's plan.
    if not enabled:
        key = "memory_enabled" if target == "memory" else "user_profile_enabled"
        return verdict(DISABLED, f"{'Memory' if target == 'memory' else 'User profile'} is disabled in config.yaml "
                       f"(memory.{key}: false); writes are refused", **ok)
    if snap is None or snap.error:
        return verdict(UNREADABLE, (snap.error if snap else f"{file} can't be read") + "; nothing can be written", **ok)
    if snap.symlink:
        return verdict(UNREADABLE, f"{file} is a symbolic link; hmc won't replace it with a file", **ok)
    if snap.drift and not drift_ok:
        return verdict(DRIFT, f"{file} has drifted from the form Hermes writes ({snap.drift}); repair it in "
                       "memory mode first (Hermes refuses to edit it too)", **ok)
    if not person:
        refusal = _release_refusal(ops, release, batch)
        if refusal:
            return verdict(HERMES_SCAN, f"Hermes's own scan refuses it: {refusal}", **ok)
    try:
        plan(before, ops, limit, "Memory" if target == "memory" else "User profile", release, person=person,
             batch=batch)
    except OpError as exc:
        kind = _classify(exc)
        message = str(exc).split("\n", 1)[0] if kind == LIMIT else str(exc)
        return verdict(kind, message, **ok)
    blocking = _blocking([f for s in scanned for f in s.findings])
    if blocking:
        first = blocking[0]
        detail = first.detail if str(first.detail).startswith(first.rule) else f"{first.rule}: {first.detail}"
        return verdict(SCANNER, f"the security scan flagged the new text ({detail}); "
                       "it is written only if you confirm", **ok)
    return verdict(None, None, **ok)


# ---------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True)
class Approval:
    id: str
    target: str
    result: WriteResult
    edited: bool = False
    warnings: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return self.result.changed


@dataclass(frozen=True)
class Failure:
    id: str
    kind: str
    reason: str


@dataclass(frozen=True)
class Report:
    """What `approve_all` / `reject_all` did: each success, each failure (the record kept)."""

    done: tuple[Any, ...] = ()  # Approval (approve) or record ids (reject)
    failed: tuple[Failure, ...] = ()
    skipped: tuple[str, ...] = ()  # staged after the person looked: left for them

    @property
    def ok(self) -> bool:
        return not self.failed


# ---------------------------------------------------------------------------------------------
# The queue


class PendingQueue:
    """The staged memory writes of one Hermes home (profile folder)."""

    def __init__(self, folder: Path, stores: dict[str, "MemoryStore"], history: "History | None",
                 now: Callable[[], float]):
        self.folder = folder
        self.stores = stores  # the caller's dict: a store it replaces is seen here too
        self.history = history
        self.now = now
        self._cache: dict[str, tuple[tuple[int, int], PendingRecord]] = {}

    # -- reading -------------------------------------------------------------------------------

    def _names(self) -> list[os.DirEntry]:
        try:
            with os.scandir(self.folder) as it:
                return [e for e in it if e.name.endswith(".json") and not e.name.startswith(".")]
        except FileNotFoundError:
            return []
        except NotADirectoryError:
            raise PendingError(f"{self.folder} is not a folder") from None
        except OSError as exc:
            raise PendingError(f"can't list {self.folder}: {exc.strerror or exc}") from None

    def token(self) -> tuple:
        """Changes whenever a record is added, removed or rewritten (names, mtimes, sizes)."""
        out = []
        for entry in self._names():
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            out.append((entry.name, st.st_mtime_ns, st.st_size))
        return tuple(sorted(out))

    def count(self) -> int:
        """How many records wait (cheap: a directory listing, no parsing)."""
        return len(self._names())

    def list(self) -> list[PendingRecord]:
        """Every record, oldest first. Unreadable files come back as broken records: one record's
        failure, whatever it is, never stops the listing."""
        self.recover_claims()
        records = []
        seen = set()
        for entry in self._names():
            seen.add(entry.name)
            records.append(self._load(Path(entry.path)))
        for name in list(self._cache):
            if name not in seen:
                del self._cache[name]
        records.sort(key=_order)
        return records

    def _load(self, path: Path) -> PendingRecord:
        try:
            st = os.lstat(path)
        except OSError as exc:
            return PendingRecord(id=printable(path.stem), path=path, created_at=0.0,
                                 broken=f"can't be read ({_why(exc)})")
        stamp = (st.st_mtime_ns, st.st_size)
        hit = self._cache.get(path.name)
        if hit and hit[0] == stamp:
            return hit[1]
        record = self._read(path, stamp, st.st_mtime, st.st_size)
        self._cache[path.name] = (stamp, record)
        return record

    @staticmethod
    def _read(path: Path, stamp: tuple[int, int], mtime: float, size: int, name: str | None = None) -> PendingRecord:
        """One record file, opened only if it is a regular file (a FIFO, socket or device in its
        place never blocks) and only up to MAX_RECORD_BYTES. Never raises."""
        shown = path.with_name(name) if name else path

        def broken(why: str) -> PendingRecord:
            return PendingRecord(id=printable(shown.stem), path=shown, created_at=timefmt.valid(mtime) or 0.0,
                                 stamp=stamp, broken=why)

        if os.path.islink(path):
            return broken("a symbolic link, not a record file; hmc won't follow it")
        try:
            data = read_regular(path, MAX_RECORD_BYTES, follow_symlinks=False)
        except NotRegularFile as exc:
            return broken(f"a {exc.kind}, not a record file; hmc won't open it")
        except TooLarge as exc:
            return broken(f"too large for a pending record ({exc.size:,} bytes; hmc reads up to {MAX_RECORD_BYTES:,})")
        except OSError as exc:
            return broken(f"can't be read ({_why(exc)})")
        except Exception as exc:  # noqa: BLE001 - isolation
            return broken(f"can't be read ({type(exc).__name__})")
        return parse_record(data, shown, stamp, mtime)

    def get(self, record_id: str) -> PendingRecord:
        """The record with this id (or, for a broken file, this exact file name)."""
        self.recover_claims()
        path = self._path_for(record_id)
        try:
            os.lstat(path)
        except FileNotFoundError:
            raise self._unknown(record_id) from None
        except OSError as exc:
            raise PendingError(f"can't read pending write {printable(str(record_id))} ({_why(exc)})") from None
        return self._load(path)

    def oldest_age(self) -> float | None:
        """Seconds since the oldest record was staged (None when the queue is empty)."""
        records = self.list()
        if not records:
            return None
        return max(0.0, self.now() - records[0].created_at)

    def age(self, record: PendingRecord) -> str:
        return timefmt.ago(record.created_at, self.now())

    def _path_for(self, record_id: str) -> Path:
        """Validate the id before building any path from it. A broken file's exact name is accepted
        only when the folder listing contains it (so no path is ever built from free text)."""
        if not isinstance(record_id, str):
            raise PendingError("that is not a pending write id")
        rid = record_id.strip()
        if rid.endswith(".json") and ID_RE.fullmatch(rid[:-5]):
            rid = rid[:-5]
        if ID_RE.fullmatch(rid):
            return self.folder / f"{rid}.json"
        named = [Path(e.path) for e in self._names() if e.name == rid]
        # a name that isn't UTF-8 is listed with U+FFFD for its bad bytes: that form finds it too
        named = named or [Path(e.path) for e in self._names() if printable(e.name) == rid]
        if len(named) == 1:
            return named[0]
        raise PendingError(f"{preview(printable(rid), 60)!r} is not a pending write id "
                           "(8 lowercase hex characters, e.g. 3f2a9c1e)")

    def _unknown(self, record_id: str) -> PendingError:
        rid = printable(str(record_id).strip())
        holder = self._claim_holder(rid)
        if holder:
            return PendingError(f"pending write {rid} is being approved or rejected right now by {holder}")
        return PendingError(f"no pending write with id {rid} (already approved or rejected?)")

    # -- inspecting ----------------------------------------------------------------------------

    def inspect(self, record: PendingRecord | str, *, snapshot: Snapshot | None = None,
                edited: str | Sequence[Op] | None = None, target: str | None = None) -> Inspection:
        """What approving would do now (nothing is written). With `edited`/`target`, for that version."""
        if isinstance(record, str):
            record = self.get(record)
        ops, tgt = self._ops_for(record, edited, target) if record.usable else (record.ops, record.target)
        store = self.stores.get(tgt) if tgt else None
        if store is None:
            return inspect_ops(record, ops, tgt, None, 0, True)
        if snapshot is None or snapshot.target != tgt:
            snapshot = store.read()
        person = edited is not None or target is not None
        batch = _is_batch(record, person)
        drift_ok = getattr(store, "_drift_allowed", None)
        return inspect_ops(record, ops, tgt, snapshot, store.limit, store.enabled,
                           bool(drift_ok(ops, batch)) if callable(drift_ok) else False, store.release,
                           person=person, batch=batch)

    def inspect_all(self, records: Sequence[PendingRecord] | None = None) -> list[Inspection]:
        """Inspect many records, reading each target file once."""
        records = self.list() if records is None else records
        snaps = {t: s.read() for t, s in self.stores.items()}
        return [self.inspect(r, snapshot=snaps.get(r.target or "")) for r in records]

    @staticmethod
    def groups(inspections: Iterable[Inspection]) -> dict[str, list[str]]:
        """group key → ids of records staging the same change (only keys shared by 2+ records)."""
        out: dict[str, list[str]] = {}
        for ins in inspections:
            if ins.group:
                out.setdefault(ins.group, []).append(ins.id)
        return {k: v for k, v in out.items() if len(v) > 1}

    def _ops_for(self, record: PendingRecord, edited: str | Sequence[Op] | None,
                 target: str | None) -> tuple[tuple[Op, ...], str | None]:
        tgt = target or record.target
        if tgt not in TARGETS:
            raise PendingError(f"target {tgt!r} is not memory or user")
        if edited is None:
            ops = record.ops
        elif isinstance(edited, str):
            changeable = [i for i, op in enumerate(record.ops) if op.action in ("add", "replace")]
            if len(record.ops) != 1 or not changeable:
                raise PendingError("only a single add or replace can be edited as text; give the operations instead")
            ops = (replace(record.ops[0], content=edited),)
        else:
            ops = tuple(edited)
            if not ops or not all(isinstance(op, Op) for op in ops):
                raise PendingError("edited operations must be a non-empty list of Op")
        if tgt != record.target:
            # Pins and old_text name entries of the record's own target; moving a replace/remove is
            # meaningless, so a move is an add of the new text to the other store.
            if any(op.action != "add" for op in ops):
                if len(ops) == 1 and ops[0].action == "replace":
                    ops = (Op("add", content=ops[0].content),)
                else:
                    raise PendingError("only an add (or a replace, as an add of its new text) can move to the other store")
        return tuple(ops), tgt

    # -- claiming (exactly one process applies a record) ----------------------------------------

    def _claim(self, path: Path, record_id: str) -> Path:
        try:
            return claims.take(path)
        except FileNotFoundError:
            raise self._unknown(record_id) from None
        except OSError as exc:
            raise PendingError(f"can't take pending write {record_id} ({_why(exc)}); nothing was done") from None

    def _unclaim(self, claim: Path, path: Path) -> None:
        """Put a claimed record back — unless the journal says its write happened (then it's done)."""
        if self._outcome(claim.name) == "applied":
            claims.remove(claim)
            return
        try:
            os.rename(claim, path)
        except OSError:  # pragma: no cover - the folder vanished; recover_claims retries
            return
        fsync_dir(self.folder)

    @contextmanager
    def _claimed(self, record_id: str) -> Iterator[tuple[Path, Path, str]]:
        """Hold a record as (claimed file, record path, id): put back if the block fails, deleted if
        it succeeds. Journal records written meanwhile carry the claim's name, so that if this
        process dies between the store write and the deletion, recovery knows the write happened."""
        from core.store.journal import tagged

        self.recover_claims()
        path = self._path_for(record_id)
        rid = printable(path.name[:-5] if path.name.endswith(".json") else path.name)
        claim = self._claim(path, rid)
        try:
            with tagged(claim.name):
                yield claim, path, rid
        except BaseException:
            self._unclaim(claim, path)
            raise
        claims.remove(claim)
        self._cache.pop(path.name, None)

    def _outcome(self, claim_name: str) -> str:
        """What became of the write a claim was making: "applied" (the journal committed it, or a
        record in doubt whose text is in the file now) or "not applied" (no write, or aborted)."""
        history = self.history
        if history is None:
            return "not applied"
        try:
            state, rec = history.outcome(claim_name)
        except Exception:  # noqa: BLE001 - an unreadable journal knows nothing
            return "not applied"
        if state == "committed":
            return "applied"
        if state == "in-doubt" and rec is not None:
            store = self.stores.get(rec.target)
            if store is None or str(store.path) != rec.path:
                return "not applied"
            try:
                with store.locked():  # no writer of that file is mid-write: its text now is final
                    committed = history.resolve(rec.path, store.read().raw)
            except (StoreError, OSError):
                return "unknown"
            return "applied" if rec.id in committed else "not applied"
        return "not applied"

    def _claim_holder(self, rid: str) -> str | None:
        return claims.holder(self.folder, f"{rid}.json")

    def recover_claims(self) -> list[str]:
        """Settle the records claimed by an hmc that died mid-approval or mid-rejection (its pid is
        gone, or the claim is older than any approval takes): a claim whose write the journal
        shows happened is deleted (the record was applied), any other is put back. Returns the ids
        put back. Runs before every list, get, approve and reject."""
        back = []
        for claim in claims.stale_claims(self.folder, STALE_CLAIM_SECONDS):
            original = claim.original
            if not (original.endswith(".json") and ID_RE.fullmatch(original[:-5]) and claim.pid is not None):
                continue
            outcome = self._outcome(claim.name)
            if outcome == "applied":
                claims.remove(self.folder / claim.name)
                continue
            if outcome != "unknown" and claims.put_back(self.folder / claim.name, self.folder / original):
                back.append(original[:-5])
        return back

    # -- approving -----------------------------------------------------------------------------

    def approve(self, record_id: str, *, edited: str | Sequence[Op] | None = None, target: str | None = None,
                force: bool = False, seen: Inspection | None = None) -> Approval:
        """Apply the record through the target store and delete it; on any failure it stays pending.

        `edited` (new text, or ops) and `target` approve an edited version. `force` writes despite a
        scanner hit. `seen` is the inspection the person looked at: unpinned replace/remove ops are
        pinned to the entries it showed, and a record rewritten since is refused.
        """
        with self._claimed(record_id) as (claim, path, rid):
            return self._apply_claimed(claim, path, rid, edited, target, force, seen)

    def _apply_claimed(self, claim: Path, path: Path, rid: str, edited, target, force: bool,
                       seen: Inspection | None) -> Approval:
        st = os.lstat(claim)
        record = self._read(claim, (st.st_mtime_ns, st.st_size), st.st_mtime, st.st_size, name=path.name)
        if record.broken:
            raise ApproveRefused(rid, BROKEN, f"{record.file}: {record.broken}")
        if record.problem:
            raise ApproveRefused(rid, record.problem_kind, record.problem)
        if seen is not None and seen.record.raw != record.raw:
            raise ApproveRefused(rid, CHANGED, "the record changed since you looked at it; look again before approving")
        try:
            ops, tgt = self._ops_for(record, edited, target)
        except PendingError as exc:
            raise ApproveRefused(rid, MALFORMED, str(exc)) from None
        warnings: list[str] = []
        if seen is not None and edited is None and target is None:
            ops = tuple(replace(op, matched_entry=m) if op.action in DESTRUCTIVE and op.matched_entry is None and m
                        else op for op, m in zip(ops, seen.matched or (None,) * len(ops)))
        elif any(op.action in DESTRUCTIVE and op.matched_entry is None for op in ops):
            warnings.append("applied without a pin: the entry was found by its text, as older Hermes did")
        store = self.stores[tgt]
        action = f"approve {rid}" + (" (edited)" if edited is not None or target is not None else "")
        edited_by_person = edited is not None or target is not None
        try:
            # A staged write replays the release's rules exactly (its scan refuses outright, no
            # shrinking exception); hmc only asks more: its wider scan and a batch emptying the file
            # need `force`. An edited version is the person's own write.
            result = store.apply(list(ops), force=force, action=action, person=edited_by_person,
                                 batch=_is_batch(record, edited_by_person))
        except Conflict as exc:
            message = _pin_message(exc) if seen is None or record.ops == ops else \
                "the entry you saw changed since you looked (another writer); look again before approving"
            raise ApproveRefused(rid, PIN_CHANGED, message) from None
        except ScanRefused as exc:
            raise ApproveRefused(rid, _classify(exc), str(exc), exc.findings) from None
        except StoreError as exc:
            kind = _classify(exc)
            message = str(exc).split("\n", 1)[0] if kind == LIMIT else str(exc)
            raise ApproveRefused(rid, kind, message) from None
        return Approval(rid, tgt, result, edited is not None or target is not None, tuple(warnings))

    def approve_all(self, seen: Iterable[Inspection] | None = None) -> Report:
        """Approve every record, oldest first, going on past failures (they stay, with reasons).
        Never forces past a scanner hit. With `seen` (the inspections a person looked at), only
        those records are approved, each exactly as seen (see `approve`); any staged since are
        left for the person (`Report.skipped`)."""
        shown = {i.id: i for i in seen} if seen is not None else None
        done, failed, skipped = [], [], []
        for record in self.list():
            if shown is not None and record.id not in shown:
                skipped.append(record.id)
                continue
            if not record.usable:
                failed.append(Failure(record.id, BROKEN if record.broken else record.problem_kind,
                                      f"{record.file}: {record.broken}" if record.broken else str(record.problem)))
                continue
            try:
                done.append(self.approve(record.id, seen=shown.get(record.id) if shown else None))
            except ApproveRefused as exc:
                failed.append(Failure(record.id, exc.kind, str(exc)))
            except PendingError as exc:
                failed.append(Failure(record.id, REFUSED, str(exc)))
        return Report(tuple(done), tuple(failed), tuple(skipped))

    # -- rejecting -----------------------------------------------------------------------------

    def reject(self, record_id: str) -> PendingRecord:
        """Delete the record (a copy is kept in hmc's state folder). Returns what was rejected."""
        with self._claimed(record_id) as (claim, path, _):
            st = os.lstat(claim)
            if stat.S_ISDIR(st.st_mode):
                raise PendingError(f"{printable(path.name)} is a folder, not a record; hmc won't delete a folder")
            record = self._read(claim, (st.st_mtime_ns, st.st_size), st.st_mtime, st.st_size, name=path.name)
            if stat.S_ISREG(st.st_mode):  # a link, FIFO, socket or device goes without a copy
                self._archive(claim, path.name)
        return record

    def reject_all(self, ids: Iterable[str] | None = None) -> Report:
        """Reject every record (or only those in `ids`: what a person confirmed)."""
        wanted = set(ids) if ids is not None else None
        done, failed, skipped = [], [], []
        for record in self.list():
            if wanted is not None and record.id not in wanted:
                skipped.append(record.id)
                continue
            try:
                self.reject(record.id if record.valid_id else record.file)
                done.append(record.id)
            except PendingError as exc:
                failed.append(Failure(record.id, REFUSED, str(exc)))
        return Report(tuple(done), tuple(failed), tuple(skipped))

    def reject_invalid(self, ids: Iterable[str] | None = None) -> Report:
        """Reject every record that can never apply (`Inspection.never_applies`: broken, malformed,
        pin changed, no match, ambiguous, empty text, would empty the file), or only those of `ids`
        that still never can. Kept: scanner hits (a person decides), over the limit (memory may
        shrink), a disabled target, a drifted or unreadable file (a repair fixes it)."""
        wanted = set(ids) if ids is not None else None
        done, failed = [], []
        for ins in self.inspect_all():
            if not ins.never_applies or (wanted is not None and ins.id not in wanted):
                continue
            record = ins.record
            try:
                self.reject(record.id if record.valid_id else record.file)
                done.append(record.id)
            except PendingError as exc:
                failed.append(Failure(record.id, REFUSED, str(exc)))
        return Report(tuple(done), tuple(failed))

    # -- the rejected archive (undo a reject) ---------------------------------------------------

    @property
    def archive_dir(self) -> Path:
        history = self.history
        return (history.folder if history is not None else self.folder.parent) / "rejected"

    def _archive(self, claim: Path, name: str) -> None:
        """Keep a private copy (0600, in a 0700 folder: records may hold secrets); the record's own
        mode goes in the copy's name, to be given back by `undo_reject`."""
        from core.store.journal import private_state_folder

        folder = self.archive_dir
        try:
            private_state_folder(folder)
            stamp = f"{self.now():.6f}".replace(".", "")
            mode = _mode(claim)
            dest = folder / f"{stamp}-m{mode:03o}-{name}"
            atomic_write(dest, read_regular(claim, MAX_RECORD_BYTES, follow_symlinks=False), PRIVATE_FILE,
                         prefix=f".{dest.name}.")
        except TooLarge:
            return  # too large to be a record: rejected without a copy
        except OSError as exc:
            raise PendingError(f"can't keep a copy of the rejected record ({_why(exc)}); nothing was rejected") from None

    def rejected(self) -> list[Path]:
        """Archived rejected records, newest first."""
        try:
            return sorted((p for p in self.archive_dir.iterdir() if p.suffix == ".json" and not p.name.startswith(".")),
                          key=lambda p: p.name, reverse=True)
        except OSError:
            return []

    def undo_reject(self) -> str:
        """Put the most recently rejected record back in the queue, with its own mode. Returns its id."""
        for archived in self.rejected():
            rest = archived.name.split("-", 1)[-1]
            mode = None
            found = re.fullmatch(r"m([0-7]{3})-(.*)", rest)
            if found:
                mode, rest = int(found.group(1), 8), found.group(2)
            name = rest
            if not (name.endswith(".json") and ID_RE.fullmatch(name[:-5])):
                continue
            dest = self.folder / name
            if os.path.lexists(dest):
                raise PendingError(f"pending write {name[:-5]} is already back in the queue")
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                data = read_regular(archived, MAX_RECORD_BYTES, follow_symlinks=False)
                atomic_write(dest, data, mode if mode is not None else _mode(archived), prefix=f".{name}.restore-")
            except OSError as exc:
                raise PendingError(f"can't put the rejected record back ({_why(exc)})") from None
            claims.remove(archived)
            return name[:-5]
        raise PendingError("no rejected record to bring back")


def _order(record: PendingRecord) -> tuple[float, str]:
    """Oldest first, then by file name: a total order even for records with odd times."""
    return (record.created_at, record.path.name)


def _why(exc: OSError) -> str:
    return printable((exc.strerror or str(exc)).lower())


def _mode(path: Path) -> int:
    """A record's permission bits, kept when it is archived and put back."""
    return os.lstat(path).st_mode & 0o777


__all__ = [
    "PendingQueue", "PendingRecord", "Inspection", "EntryChange", "Scanned", "Approval", "Failure", "Report",
    "PendingError", "ApproveRefused", "NEVER_APPLIES", "parse_record", "inspect_ops", "entry_changes", "inline_diff",
    "group_key", "describe",
]
