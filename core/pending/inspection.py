"""What approving a staged memory write would do now, without writing anything.

`inspect_ops` replays a record's operations (or a person's edited version) with the release's rules
on a snapshot of the store: the entries after, the entry-level diff, the scanner's findings, and
whether it can apply and why not (a reason kind from core.pending.records).
"""

from __future__ import annotations

import difflib
import hashlib
import re
from functools import lru_cache
from dataclasses import dataclass
from typing import Any, Sequence

from core.hermes.release import NEWEST, Release
from core.pending.records import (
    AMBIGUOUS, BROKEN, DESTRUCTIVE, DISABLED, DRIFT, EMPTIES_STORE, EMPTY, FORCIBLE, HERMES_SCAN, LIMIT, MALFORMED,
    NEVER_APPLIES, NO_MATCH, PIN_CHANGED, REFUSED, SCANNER, UNPINNED, UNREADABLE, UNWRITABLE, PendingRecord, printable,
    unpinned_reason,
)
from core.store.memory import (
    FILE_NAMES, Conflict, DriftError, Op, OpError, ScanRefused, Snapshot, apply_op, locate, plan, preview, serialize,
    usage, usage_label,
)


# ---------------------------------------------------------------------------------------------
# Inspection: what approving would do


@dataclass(frozen=True)
class EntryChange:
    kind: str  # kept | added | removed | replaced | patched (one span changed, the rest kept)
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


@lru_cache(maxsize=16384)
def kept(entry: str) -> EntryChange:
    """An entry left as it is: one object per entry, shared by every inspection that keeps it (each
    inspection lists every entry of its store; a queue of 40 records on a 1,000-entry store held
    40,000 of these)."""
    return EntryChange("kept", entry, entry)


def entry_changes(before: Sequence[str], after: Sequence[str], pairs: dict[str, str] | None = None,
                  patched: set[str] | frozenset[str] = frozenset()) -> list[EntryChange]:
    """Entry-level diff; `pairs` (old entry → new entry, from the replace and patch ops) pairs
    replacements; the old entries in `patched` had one span patched (the rest kept)."""
    pairs = dict(pairs or {})
    out: list[EntryChange] = []
    matcher = difflib.SequenceMatcher(a=list(before), b=list(after), autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        olds, news = list(before[i1:i2]), list(after[j1:j2])
        if tag == "equal":
            out.extend(map(kept, olds))
            continue
        paired: list[EntryChange] = []
        for old in list(olds):
            new = pairs.get(old)
            if new is not None and new in news:
                paired.append(EntryChange("patched" if old in patched else "replaced", old, new))
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
          "empties": EMPTIES_STORE, "limit": LIMIT, "unknown": MALFORMED, "unwritable": UNWRITABLE}


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
    if "disabled in config.yaml" in text or "writes are disabled in memory config" in text:
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
    from core.scan import quick  # (a text a command-line run before found clean: no scanner loaded)

    return tuple(quick.scan(text, release))


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
    if not findings:
        return []
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
                      before=before, after=before, changes=tuple(map(kept, before)),
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
        return Inspection(**base, after=tuple(after), changes=tuple(changes) or tuple(map(kept, before)),
                          scanned=tuple(scanned), can_apply=kind is None, reason=reason, reason_kind=kind,
                          already_in_memory=already, warnings=tuple(record.notes) + tuple(warnings),
                          matched=tuple(matched))

    if record.broken:
        return verdict(BROKEN, f"{record.file}: {record.broken}")
    if record.problem or target is None:
        return verdict(record.problem_kind if record.problem else MALFORMED,
                       record.problem or "malformed record: no target")
    scanned = tuple(Scanned(op.content.strip(), _scan(op.content.strip(), release))
                    for op in ops if op.action in ("add", "replace", "patch") and op.content.strip())
    warnings: list[str] = []
    # Walk the ops as Hermes would, remembering which entry each destructive op selects.
    current, matched, pairs, spans = list(before), [], {}, set()
    # 0.22 refuses a destructive record staged without a pin before it looks at anything else
    unpinned = release.pins and not person and any(op.action in DESTRUCTIVE and op.matched_entry is None for op in ops)
    try:
        for op in ops:
            chosen = None
            if op.action in DESTRUCTIVE:
                idx = locate(current, op.old_text or (op.matched_entry or ""), op.matched_entry, release, op.action,
                             person=person)
                chosen = current[idx]
                if op.matched_entry is None and not release.pins:  # on 0.22 the refusal says it
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
            current, _ = apply_op(current, op, release, person=person)
            if op.action == "patch":
                pairs[chosen] = current[idx]
                spans.add(chosen)
    except OpError as exc:
        if unpinned:
            return verdict(UNPINNED, unpinned_reason(release.name), scanned=scanned, warnings=warnings)
        kind = _classify(exc)
        message = _pin_message(exc) if isinstance(exc, Conflict) else str(exc)
        return verdict(kind, message, scanned=scanned, warnings=warnings)
    after = tuple(current)
    changes = entry_changes(before, after, pairs, spans)
    adds = [op.content.strip() for op in ops if op.action == "add"]
    # (said once, by whoever shows the record's status: `already` is its own verdict, not a warning)
    already = bool(adds) and all(a in before for a in adds) and after == before
    for old, new in pairs.items():
        if new in before and new != old:
            warnings.append(f"the new text is already another entry, so {preview(old, 40)!r} just goes (no duplicate is kept)")
    ok = dict(after=after, changes=changes, scanned=scanned, warnings=warnings, matched=matched, already=already)
    if unpinned:
        return verdict(UNPINNED, unpinned_reason(release.name), **ok)
    # Store-level refusals first (they stop any write), then the verdict of Hermes's plan.
    if not enabled and release.boolean_store_flags:
        return verdict(DISABLED, f"Built-in {file} writes are disabled in memory config.", **ok)
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
             batch=batch, file_name=file)
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
# Inspections kept from one show to the next


class InspectionMemo:
    """Each record's inspection, kept until what it depends on changes: the record (its contents:
    a rewritten file is a new record) and its store as the inspection reads it (the entries, and
    whether the file can be written at all), plus the rules it is inspected by (limit, enabled,
    release, drift, batch). The pending screen shows the queue again after every change to any
    file; a new record then costs one inspection, a change to MEMORY.md the records that write it.

    Bounded: `keep_only` (called by `inspect_all` after a full pass) drops what the pass didn't
    use, and single look-ups beyond `MAX` drop the oldest, so the memo is never larger than one
    queue's worth of inspections, however long hmc runs beside a busy agent."""

    MAX = 4096

    def __init__(self) -> None:
        self._kept: dict[tuple, Inspection] = {}
        self._used: set[tuple] | None = None

    def __len__(self) -> int:
        return len(self._kept)

    @staticmethod
    def key(record: PendingRecord, ops: Sequence[Op], target: str | None, snap: Snapshot | None, limit: int,
            enabled: bool, drift_ok: bool, release: "Release | None", person: bool,
            batch: bool | None) -> tuple | None:
        """What an inspection depends on (None: not kept, e.g. a record that can't be hashed)."""
        store = None if snap is None else (snap.target, snap.entries, snap.exists, snap.error, snap.drift, snap.symlink)
        key = (record, tuple(ops), target, store, limit, enabled, drift_ok,
               None if release is None else release.name, person, batch)
        try:
            hash(key)
        except TypeError:
            return None
        return key

    def inspect(self, record: PendingRecord, ops: Sequence[Op], target: str | None, snap: Snapshot | None,
                limit: int, enabled: bool, drift_ok: bool = False, release: "Release | None" = None,
                person: bool = False, batch: bool | None = None) -> Inspection:
        """`inspect_ops` with the same arguments, from the memo when nothing it depends on changed."""
        key = self.key(record, ops, target, snap, limit, enabled, drift_ok, release, person, batch)
        if key is not None:
            if self._used is not None:
                self._used.add(key)
            kept = self._kept.get(key)
            if kept is not None:
                return kept
        made = inspect_ops(record, ops, target, snap, limit, enabled, drift_ok, release, person=person, batch=batch)
        if key is not None:
            if len(self._kept) >= self.MAX:
                del self._kept[next(iter(self._kept))]
            self._kept[key] = made
        return made

    def pass_begins(self) -> None:
        """A full pass over the queue starts: what it doesn't use is dropped at `pass_ends`."""
        self._used = set()

    def pass_ends(self) -> None:
        used, self._used = self._used, None
        if used is not None:
            self._kept = {k: v for k, v in self._kept.items() if k in used}
