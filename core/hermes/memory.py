"""MEMORY.md / USER.md as a Hermes release reads, checks and edits them (the pure half, no files).

Measured against the releases (HERMES-FORMATS.md §0 and §2):
- reading: UTF-8 with universal newlines (CRLF and CR read as LF), split on "\\n§\\n", strip, drop
  empty pieces, drop exact duplicates. A BOM is not stripped: it stays at the start of entry 1.
  A `§` line with spaces around it is not a separator.
- drift (0.15+): the stripped text must equal the join of its stripped pieces (duplicates and CRLF
  are fine; whitespace around an entry or an empty piece is not), and no entry may be longer than
  the whole limit. Checked before replace, remove and batch; before add only up to 0.17.
- matching: plain, case-sensitive substring; several distinct matches are refused; identical
  duplicates take the first. The whole matched entry is replaced.
- limits: add and replace are refused when the joined result exceeds the limit; remove never is;
  a batch is checked on its final state only.
The messages are the release's own, word for word.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Sequence

from core.hermes import scan as hermes_scan
from core.hermes.release import NEWEST

if TYPE_CHECKING:  # pragma: no cover
    from core.hermes.release import Release

DELIMITER = "\n§\n"
BOM = "\ufeff"
TARGETS = ("memory", "user")
FILE_NAMES = {"memory": "MEMORY.md", "user": "USER.md"}
TITLES = {"memory": "MEMORY (your personal notes)", "user": "USER PROFILE (who the user is)"}
RULE = "═" * 46
PREVIEW = 80


# ---------------------------------------------------------------------------------------------
# Errors (the store re-exports them)


class StoreError(Exception):
    """A write was refused or failed; the message is for a person. Nothing was written."""


class OpError(StoreError):
    """An operation can't apply to the current entries (Hermes's own refusal, in its words)."""

    kind = "op"

    def __init__(self, message: str, kind: str | None = None, current_entries: Sequence[str] = (),
                 matches: Sequence[str] = ()):
        super().__init__(message)
        if kind:
            self.kind = kind
        self.current_entries = list(current_entries)
        self.matches = list(matches)


class Conflict(OpError):
    """The entry an edit (or a pinned pending write) was made against is no longer there."""

    kind = "pin"

    def __init__(self, message: str, expected: str, current: Sequence[str]):
        super().__init__(message, current_entries=current)
        self.expected = expected
        self.current = list(current)


class EmptiesStore(OpError):
    """A batch would remove every entry. Hermes allows it; hmc asks first."""

    kind = "empties"


class DriftError(StoreError):
    """The file on disk doesn't round-trip; the release refuses to edit it until it is repaired."""


# ---------------------------------------------------------------------------------------------
# Reading


def decode(data: bytes) -> str:
    """The text a release reads: strict UTF-8 (raises UnicodeDecodeError), universal newlines."""
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def parse(text: str) -> list[str]:
    """The entries a release loads from this text (already newline-translated)."""
    if not text.strip():
        return []
    return list(dict.fromkeys(p.strip() for p in text.split(DELIMITER) if p.strip()))


def serialize(entries: Iterable[str]) -> str:
    """The bytes-to-be a release writes: entries joined by the delimiter, no trailing newline."""
    return DELIMITER.join(entries)


def usage(entries: Sequence[str]) -> int:
    """Characters the store takes in the prompt: code points of the joined text."""
    if not entries:
        return 0
    return sum(len(e) for e in entries) + len(DELIMITER) * (len(entries) - 1)


def percent(used: int, limit: int) -> int:
    if limit <= 0:
        return 0
    return min(100, int(used / limit * 100))


def usage_label(used: int, limit: int) -> str:
    """`67% — 1,474/2,200 chars`, as in the prompt and in every success result."""
    return f"{percent(used, limit)}% — {used:,}/{limit:,} chars"


def short_usage(used: int, limit: int) -> str:
    """`1,474/2,200`, as in the releases' error results."""
    return f"{used:,}/{limit:,}"


def drift(text: str, limit: int, release: "Release" = NEWEST) -> str | None:
    """Why this release would refuse to edit the file (it also saves a .bak), or None.

    `text` is the file as the release reads it (`decode`). Releases before 0.15 have no guard.
    """
    if not release.drift_guard or not text.strip():
        return None
    pieces = [p.strip() for p in text.split(DELIMITER)]
    parsed = [p for p in pieces if p]
    for number, entry in enumerate(parsed, 1):
        if len(entry) > limit:
            return f"entry {number} is {len(entry):,} chars, longer than the whole {limit:,}-char limit"
    stripped = text.strip()
    if stripped == serialize(parsed):
        return None
    if any(not p for p in stripped.split(DELIMITER)):
        return "an empty entry between two § separators"
    return "blank lines or spaces around an entry"


def drift_message(file_name: str, backup: str) -> str:
    """The release's refusal when it finds drift (it names the .bak it saved)."""
    return (f"Refusing to write {file_name}: file on disk has content that wouldn't round-trip through "
            "the memory tool (likely added by the patch tool, a shell append, a manual edit, or a "
            f"concurrent session). A snapshot was saved to {backup}. Resolve the drift first — either "
            "rewrite the file as a clean §-delimited list of entries, or move the extra content out — "
            "then retry. This guard exists to prevent silent data loss (issue #26045).")


def prompt_block(target: str, entries: Sequence[str], limit: int, release: "Release" = NEWEST) -> str:
    """The block the release injects for this store at session start ('' when it has no entries).

    From 0.15 an entry its scan flags is replaced by the `[BLOCKED: …]` notice, and the label counts
    the notices, not the originals. No release truncates the block or marks it over budget.
    """
    if not entries:
        return ""
    shown = [hermes_scan.blocked_notice(e, FILE_NAMES[target], release) or e for e in entries]
    label = usage_label(usage(shown), limit)
    return f"{RULE}\n{TITLES[target]} [{label}]\n{RULE}\n{serialize(shown)}"


def preview(text: str, width: int = PREVIEW) -> str:
    """One line for people (hmc's, not the release's)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def previews(entries: Sequence[str], width: int = 80) -> list[str]:
    """The release's previews of multiple matches: the first 80 chars and `...`."""
    return [e[:width] + ("..." if len(e) > width else "") for e in entries]


# ---------------------------------------------------------------------------------------------
# Operations


@dataclass(frozen=True)
class Op:
    action: str  # add | replace | remove
    content: str = ""  # add: the entry; replace: the whole new entry
    old_text: str = ""  # replace/remove: a substring that locates the entry
    matched_entry: str | None = None  # hmc's pin: the exact entry this op was made against


def locate(entries: Sequence[str], old_text: str, pin: str | None = None, release: "Release" = NEWEST,
           action: str = "replace", batch_pos: str | None = None) -> int:
    """Index of the entry an op targets: the pin when given (hmc), else the release's substring match."""
    if pin is not None:
        pin = pin.strip()
        if pin in entries:
            return entries.index(pin)
        raise Conflict(f"the entry changed since it was read: {preview(pin)!r}", pin, entries)
    old = old_text.strip()
    if not old:
        raise OpError(f"{batch_pos}: old_text is required." if batch_pos else "old_text cannot be empty.",
                      "empty", entries)
    matches = [i for i, e in enumerate(entries) if old in e]
    if not matches:
        if batch_pos:
            raise OpError(f"{batch_pos}: no entry matched '{old}'.", "no_match", entries)
        tail = (f" Check current_entries below and retry with the exact text of the entry you want to {action}."
                if release >= (0, 18) else "")
        raise OpError(f"No entry matched '{old}'.{tail}", "no_match", entries)
    if len({entries[i] for i in matches}) > 1:
        if batch_pos:
            raise OpError(f"{batch_pos}: '{old}' matched multiple distinct entries -- be more specific.",
                          "ambiguous", entries, previews([entries[i] for i in matches]))
        raise OpError(f"Multiple entries matched '{old}'. Be more specific.", "ambiguous", entries,
                      previews([entries[i] for i in matches]))
    return matches[0]


def apply_op(entries: Sequence[str], op: Op, release: "Release" = NEWEST,
             batch_pos: str | None = None) -> tuple[list[str], str]:
    """One op on a copy of the entries, the release's way; returns (entries after, its message).

    Limits are not checked here (see `plan`). `batch_pos` ("Operation 2 (replace)") switches to the
    release's batch wording, where an exact re-add is skipped without a message.
    """
    entries = list(entries)
    content = (op.content or "").strip()
    if op.action == "add":
        if not content:
            raise OpError(f"{batch_pos}: content is required." if batch_pos else "Content cannot be empty.",
                          "empty", entries)
        if content in entries:
            return entries, "Entry already exists (no duplicate added)."
        entries.append(content)
        return entries, "Entry added."
    if op.action == "replace":
        if batch_pos and not (op.old_text or "").strip() and op.matched_entry is None:
            raise OpError(f"{batch_pos}: old_text is required.", "empty", entries)
        if not content:
            raise OpError(f"{batch_pos}: content is required (use action='remove' to delete)." if batch_pos
                          else "new_content cannot be empty. Use 'remove' to delete entries.", "empty", entries)
        index = locate(entries, op.old_text or (op.matched_entry or ""), op.matched_entry, release,
                       "replace", batch_pos)
        entries[index] = content  # a replace can repeat another entry; the next load drops the copy
        return entries, "Entry replaced."
    if op.action == "remove":
        index = locate(entries, op.old_text or (op.matched_entry or ""), op.matched_entry, release,
                       "remove", batch_pos)
        entries.pop(index)
        return entries, "Entry removed."
    if batch_pos:
        raise OpError(f"{batch_pos}: unknown action. Use add, replace, or remove.", "unknown", entries)
    raise OpError(f"Unknown action '{op.action}'. Use: add, replace, remove", "unknown", entries)


def is_batch(ops: Sequence[Op], batch: bool | None = None) -> bool:
    """A batch is a call with `operations` (even of one op); without that flag, several ops are."""
    return len(ops) > 1 if batch is None else batch


def precheck(ops: Sequence[Op], batch: bool | None = None) -> None:
    """The refusals a release makes before it takes the file lock, so before its drift guard, in
    its order: an empty operations list; for a single call, empty text and an unknown action. (A
    batch checks its operations later, under the lock.) Raises OpError in the release's words."""
    if not ops:
        raise OpError("operations list is empty.", "empty")
    if is_batch(ops, batch):
        return
    op = ops[0]
    has_old = bool((op.old_text or "").strip()) or op.matched_entry is not None
    if op.action == "add":
        if not (op.content or "").strip():
            raise OpError("Content cannot be empty.", "empty")
    elif op.action in ("replace", "remove"):
        if not has_old:
            raise OpError("old_text cannot be empty.", "empty")
        if op.action == "replace" and not (op.content or "").strip():
            raise OpError("new_content cannot be empty. Use 'remove' to delete entries.", "empty")
    else:
        raise OpError(f"Unknown action '{op.action}'. Use: add, replace, remove", "unknown")


@dataclass(frozen=True)
class Plan:
    before: tuple[str, ...]
    after: tuple[str, ...]
    messages: tuple[str, ...]

    @property
    def changed(self) -> bool:
        return self.before != self.after


def plan(entries: Sequence[str], ops: Sequence[Op], limit: int, label: str = "Memory",
         release: "Release" = NEWEST, *, person: bool = False, allow_empty: bool = False,
         batch: bool | None = None) -> Plan:
    """The result of ops on a copy, all or nothing, with the release's limit rules and messages.

    One op is a single tool call; several (or `batch=True`) are a batch, checked on the final state.
    `person=True` is hmc's own edit: a change that shrinks an over-full store is allowed (the release
    would refuse it). A batch that would empty a non-empty store raises EmptiesStore unless
    `allow_empty` (the release allows it; hmc asks first). `label` is kept for callers; the releases
    say "Memory" for both files.
    """
    del label
    if not ops:
        raise OpError("operations list is empty.", "empty")
    entries = list(entries)
    before_used = usage(entries)
    if not is_batch(ops, batch):
        op = ops[0]
        after, message = apply_op(entries, op, release)
        after_used = usage(after)
        shrinks = person and after_used <= before_used
        if op.action == "add" and after != entries and after_used > limit:
            raise OpError(_add_over(before_used, limit, len(op.content.strip()), release), "limit", entries)
        if op.action == "replace" and after_used > limit and not shrinks:
            raise OpError(_replace_over(after_used, limit, release), "limit", entries)
        return Plan(tuple(entries), tuple(after), (message,))
    current = list(entries)
    for i, op in enumerate(ops):
        pos = f"Operation {i + 1} ({op.action or 'unknown'})"
        try:
            current, _ = apply_op(current, op, release, batch_pos=pos)
        except Conflict:
            raise
        except OpError as exc:
            raise OpError(f"{exc} No operations were applied (batch is all-or-nothing).", exc.kind,
                          entries, exc.matches) from None
    after_used = usage(current)
    if after_used > limit and not (person and after_used <= before_used):
        raise OpError(
            f"After applying all {len(ops)} operations, memory would be at {after_used:,}/{limit:,} chars "
            "-- over the limit. Remove or shorten more entries in the same batch (see current_entries "
            "below), then retry.", "limit", entries)
    if entries and not current and not allow_empty:
        raise EmptiesStore("This batch would remove every entry and leave the file empty; hmc asks "
                           "before doing that (confirm, or use --force).", current_entries=entries)
    return Plan(tuple(entries), tuple(current), (f"Applied {len(ops)} operation(s).",))


def _add_over(current: int, limit: int, size: int, release: "Release") -> str:
    head = (f"Memory at {current:,}/{limit:,} chars. Adding this entry ({size} chars) would exceed the limit. ")
    if release < (0, 17):
        return head + "Replace or remove existing entries first."
    return head + ("Consolidate now: use 'replace' to merge overlapping entries into shorter ones or "
                   "'remove' stale or less important entries (see current_entries below), then retry "
                   "this add — all in this turn.")


def _replace_over(total: int, limit: int, release: "Release") -> str:
    head = f"Replacement would put memory at {total:,}/{limit:,} chars. "
    if release < (0, 17):
        return head + "Shorten the new content or remove other entries first."
    return head + ("Shorten the new content, or 'remove' other stale or less important entries to make "
                   "room (see current_entries below), then retry — all in this turn.")
