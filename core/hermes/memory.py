"""MEMORY.md / USER.md as a Hermes release reads, checks and edits them (the pure half, no files).

Measured against the releases (HERMES-FORMATS.md §0 and §2):
- reading: UTF-8 with universal newlines (CRLF and CR read as LF), split on "\\n§\\n", strip, drop
  empty pieces, drop exact duplicates. Up to 0.19 a BOM is not stripped: it stays at the start of
  entry 1; from 0.20 the files are read as `utf-8-sig`. A `§` line with spaces around it is not a
  separator.
- drift (0.15 – 0.20): the stripped text must equal the join of its stripped pieces (duplicates and
  CRLF are fine; whitespace around an entry or an empty piece is not), and no entry may be longer
  than the whole limit. From 0.22 only the second rule holds. Checked before replace, remove, patch
  and batch; before add only up to 0.17.
- matching: up to 0.20 a plain, case-sensitive substring; several distinct matches are refused;
  identical duplicates take the first. From 0.22 an entry equal to old_text wins, then an exact
  substring, then a substring after folding quotes, dashes and whitespace (`fold`).
- replace swaps the whole matched entry; 0.22's `patch` swaps one span that must occur once, and
  0.22 refuses `replace` from the model (a staged replace still replays).
- limits: add, replace and patch are refused when the joined result exceeds the limit; remove never
  is; a batch is checked on its final state only (0.22: and may not empty a non-empty store).
The messages are the release's own, word for word.
"""

from __future__ import annotations

from dataclasses import dataclass
import re
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

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


class Unwritable(StoreError):
    """The OS refused the write (core.store.atomic.write_refused); nothing was written."""

    kind = "unwritable"


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


def decode(data: bytes, release: "Release" = NEWEST) -> str:
    """The text a release reads: strict UTF-8 (raises UnicodeDecodeError), universal newlines;
    from 0.20 a leading byte-order mark is dropped (`utf-8-sig`)."""
    return newlines(data.decode("utf-8-sig" if release.strips_bom else "utf-8"))


def newlines(text: str) -> str:
    """Universal newlines, as the releases read text: CRLF and CR become LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_failed_message(file_name: str) -> str:
    """0.20+: the refusal of every write to a store the release could not read or decode."""
    return (f"Refusing to write {file_name}: the file exists on disk but could not be read right now "
            "(temporarily locked by another program, a permission change, invalid/corrupt text encoding, "
            "or a filesystem error). Treating an unreadable file as empty and saving would wipe existing "
            "memory, so the write is refused. Nothing was changed — retry in a moment.")


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
    if not release.round_trip_drift:  # 0.22: layout (blank lines, empty pieces) is not drift
        return None
    stripped = text.strip()
    if stripped == serialize(parsed):
        return None
    if any(not p for p in stripped.split(DELIMITER)):
        return "an empty entry between two § separators"
    return "blank lines or spaces around an entry"


def drift_message(file_name: str, backup: str, release: "Release" = NEWEST) -> str:
    """The release's refusal when it finds drift (it names the .bak it saved)."""
    if not release.round_trip_drift:
        return (f"Refusing to write {file_name}: it holds an entry larger than the whole store's char limit, "
                "i.e. free-form text written without § delimiters (the patch tool, a shell append, a manual "
                f"edit). Rewriting it would lose that text. A snapshot was saved to {backup}. Resolve the drift "
                "first — either rewrite the file as a clean §-delimited list of entries, or move the extra "
                "content out — then retry. This guard exists to prevent silent data loss (issue #26045).")
    return (f"Refusing to write {file_name}: file on disk has content that wouldn't round-trip through "
            "the memory tool (likely added by the patch tool, a shell append, a manual edit, or a "
            f"concurrent session). A snapshot was saved to {backup}. Resolve the drift first — either "
            "rewrite the file as a clean §-delimited list of entries, or move the extra content out — "
            "then retry. This guard exists to prevent silent data loss (issue #26045).")


_SHOWN: dict[tuple, dict[str, str]] = {}  # (target, release) -> {entry: as shown} of its last call


def prompt_entries(target: str, entries: Sequence[str], release: "Release" = NEWEST) -> list[str]:
    """The entries as the release shows them in the prompt: a blocked one is its `[BLOCKED: …]` notice.
    Each entry's verdict is kept from one call to the next for the same store and release (a screen
    shows a store again after every change: of 15,000 entries, one is new), only for the entries of
    the last call (memory stays as large as one store)."""
    key = (target, release)
    last, now = _SHOWN.get(key, {}), {}
    out = []
    for e in entries:
        shown = now.get(e)
        if shown is None:
            shown = last.get(e)
            if shown is None:
                shown = hermes_scan.blocked_notice(e, FILE_NAMES[target], release) or e
            now[e] = shown
        out.append(shown)
    _SHOWN[key] = now
    return out


def prompt_block(target: str, entries: Sequence[str], limit: int, release: "Release" = NEWEST) -> str:
    """The block the release injects for this store at session start ('' when it has no entries).

    From 0.15 an entry its scan flags is replaced by the `[BLOCKED: …]` notice, and the label counts
    the notices, not the originals. No release truncates the block or marks it over budget.
    """
    if not entries:
        return ""
    shown = prompt_entries(target, entries, release)
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
    action: str  # add | replace | remove | patch (0.22)
    content: str = ""  # add: the entry; replace: the whole new entry; patch: the span's new text
    old_text: str = ""  # replace/remove: a substring that locates the entry; patch: the span
    matched_entry: str | None = None  # the pin: the exact entry this op was made against


ACTIONS = ("add", "replace", "remove", "patch")
DESTRUCTIVE = ("replace", "remove", "patch")
PATCH_DROP_HINT = ("To drop text inside an entry, patch a longer span that contains it; 'remove' deletes "
                   "the whole entry.")
REPLACE_REFUSED = ("'replace' is not available; use 'patch'. old_text is the exact span to change and content "
                   "is its new text; the rest of the entry is kept. To rewrite a whole entry, set old_text to "
                   "the whole entry. Nothing was written.")
MISSING_ACTION = ("Missing required parameter: provide 'action' (add/patch/remove) or 'operations' (batch "
                  "list). Got neither.")


class PatchScanRefused(OpError):
    """0.22 scans the entry a patch produces (under its lock); the release's words."""

    kind = "scan"


def op_from_call(call: dict, release: "Release" = NEWEST) -> Op:
    """One memory_tool call's (or batch operation's) arguments as an Op, the release's way:
    from 0.20 `new_text` stands in for a missing `content`."""
    content = call.get("content")
    if not content and release.new_text_alias:
        content = call.get("new_text")
    return Op(str(call.get("action") or ""), content=content if isinstance(content, str) else "",
              old_text=call.get("old_text") if isinstance(call.get("old_text"), str) else "",
              matched_entry=call.get("matched_entry") if isinstance(call.get("matched_entry"), str) else None)


# -- matching ---------------------------------------------------------------------------------

_FOLD = str.maketrans({**dict.fromkeys("\"`\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f", "'"),
                       **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-")})


def fold(text: str) -> str:
    """0.22's tolerant form for matching: a literal backslash-n is a space, every quote is `'`,
    every dash is `-`, whitespace runs are one space. No case folding."""
    return " ".join(str(text).replace("\\n", " ").translate(_FOLD).split())


def substring_matches(entries: Sequence[str], old: str, release: "Release" = NEWEST) -> list[int]:
    """Entries containing `old`; from 0.22, when none does byte for byte, those whose folded
    form contains the folded `old` (never for a needle of punctuation or spaces alone)."""
    exact = [i for i, e in enumerate(entries) if old in e]
    if exact or not release.exact_entry_first:
        return exact
    needle = fold(old)
    if not any(c.isalnum() for c in needle):
        return []
    return [i for i, e in enumerate(entries) if needle in fold(e)]


def matching(entries: Sequence[str], old: str, release: "Release" = NEWEST) -> list[int]:
    """The entries an old_text selects: from 0.22 an entry equal to it wins outright."""
    if release.exact_entry_first:
        equal = [i for i, e in enumerate(entries) if e == old]
        if equal:
            return equal
    return substring_matches(entries, old, release)


def closest_entries(entries: Sequence[str], old: str) -> list[str]:
    """0.22's `closest_entries` for a miss: up to three entries sharing ≥ 30% of old_text's words."""
    def words(text: str) -> set[str]:
        return set(re.findall(r"\w+", text.lower()))

    wanted = words(old)
    if not wanted:
        return []
    scored = sorted(((len(wanted & words(e)) / len(wanted), i) for i, e in enumerate(entries)),
                    key=lambda p: (-p[0], p[1]))
    return [entries[i] for score, i in scored[:3] if score >= 0.3]


def no_match_message(entries: Sequence[str], old: str, verb: str, release: "Release" = NEWEST) -> str:
    """The release's single-call refusal when old_text selects nothing."""
    if release.exact_entry_first:
        hint = (" old_text must come from ONE entry ('§' separates entries); use one op per entry."
                if "§" in old else "")
        tail = " (closest_entries below)." if closest_entries(entries, old) else "."
        return f"No entry matched '{old}'.{hint} Retry the {verb} with old_text copied verbatim from the intended entry{tail}"
    tail = (f" Check current_entries below and retry with the exact text of the entry you want to {verb}."
            if release >= (0, 18) else "")
    return f"No entry matched '{old}'.{tail}"


def stale_pin_message(entry: str) -> str:
    """0.22's refusal of a staged write whose pinned entry is gone (the record is kept)."""
    return (f"Entry changed since it was staged, so this write was not applied: '{entry}' is no longer in "
            "memory as reviewed. Recreate the change against the current entry or reject it; the pending "
            "record has been preserved.")


def locate(entries: Sequence[str], old_text: str, pin: str | None = None, release: "Release" = NEWEST,
           action: str = "replace", batch_pos: str | None = None, *, person: bool = True) -> int:
    """Index of the entry an op targets: the pin when given, else the release's match.

    A pin that no longer matches any entry is a Conflict, never a guess: hmc's words for a person's
    own edit, the release's for a staged write it replays (0.22). `action` names the verb in the
    release's messages; 0.22's patch passes its span unstripped.
    """
    if pin is not None:
        stripped_pin = pin if release.pins and not person else pin.strip()
        if stripped_pin in entries:
            return entries.index(stripped_pin)
        if release.pins and not person:
            message = stale_pin_message(pin)
            raise Conflict(f"{batch_pos}: {message}" if batch_pos else message, pin, entries)
        raise Conflict(f"the entry changed since it was read: {preview(pin)!r}", pin, entries)
    old = old_text if action == "patch" else old_text.strip()
    if not old.strip():
        raise OpError(f"{batch_pos}: old_text is required." if batch_pos else "old_text cannot be empty.",
                      "empty", entries)
    matches = matching(entries, old, release)
    if not matches:
        if batch_pos:
            if release.exact_entry_first:
                raise OpError(f"{batch_pos}: {no_match_message(entries, old, action, release)}", "no_match", ())
            raise OpError(f"{batch_pos}: no entry matched '{old}'.", "no_match", entries)
        raise OpError(no_match_message(entries, old, action, release), "no_match", entries)
    if len({entries[i] for i in matches}) > 1:
        if batch_pos:
            raise OpError(f"{batch_pos}: '{old}' matched multiple distinct entries -- be more specific.",
                          "ambiguous", entries, () if release.exact_entry_first else
                          previews([entries[i] for i in matches]))
        raise OpError(f"Multiple entries matched '{old}'. Be more specific.", "ambiguous", entries,
                      previews([entries[i] for i in substring_matches(entries, old, release)]))
    return matches[0]


# -- one operation ----------------------------------------------------------------------------


def span_count(text: str, span: str) -> int:
    """Occurrences of a span, overlapping ones included ('00' occurs twice in '1000')."""
    return sum(text.startswith(span, i) for i in range(len(text) - len(span) + 1))


def patch_entry(entry: str, span: str, new: str, release: "Release" = NEWEST, *, scan: bool = True) -> str:
    """0.22's patch of one entry: the span must occur once and the result must differ (and, with
    `scan`, pass the release's scan). Raises OpError in the release's words."""
    count = span_count(entry, span)
    if count > 1:
        raise OpError(f"'{span}' appears {count} times in the matched entry, and patch edits one span. "
                      "Include more surrounding text so old_text occurs once.", "ambiguous")
    patched = entry.replace(span, new, 1)
    if patched == entry:
        raise OpError(f"Patch is a no-op: '{span}' -> '{new}' leaves the entry unchanged.", "noop")
    if scan:
        refused = hermes_scan.refusal(patched, release)
        if refused:
            raise PatchScanRefused(refused)
    return patched


def apply_op(entries: Sequence[str], op: Op, release: "Release" = NEWEST,
             batch_pos: str | None = None, *, person: bool = True) -> tuple[list[str], str]:
    """One op on a copy of the entries, the release's way; returns (entries after, its message).

    Limits are not checked here (see `plan`). `batch_pos` ("Operation 2 (replace)") switches to the
    release's batch wording, where an exact re-add is skipped without a message.
    """
    entries = list(entries)
    new22 = release.exact_entry_first
    content = (op.content or "") if op.action == "patch" else (op.content or "").strip()
    if op.action == "add":
        if not content:
            raise OpError(f"{batch_pos}: content is required." if batch_pos else "Content cannot be empty.",
                          "empty", entries)
        if content in entries:
            return entries, "Entry already exists (no duplicate added)."
        entries.append(content)
        return entries, "Entry added."
    if op.action not in DESTRUCTIVE or (op.action == "patch" and not release.patch and not person):
        if batch_pos:
            verbs = "add, patch, or remove" if release.patch else "add, replace, or remove"
            raise OpError(f"{batch_pos}: unknown action. Use {verbs}.", "unknown", entries)
        raise OpError(f"Unknown action '{op.action}'. Use: add, replace, remove", "unknown", entries)
    if batch_pos and not (op.old_text or "").strip() and op.matched_entry is None:
        raise OpError(f"{batch_pos}: old_text is required.", "empty", entries)
    if op.action == "replace":
        if not content:
            if batch_pos and new22:
                raise OpError(f"{batch_pos}: content is required — set this operation object's own 'content' to "
                              "the COMPLETE new entry (or use action='remove' to delete).", "empty", entries)
            raise OpError(f"{batch_pos}: content is required (use action='remove' to delete)." if batch_pos
                          else "new_content cannot be empty. Use 'remove' to delete entries.", "empty", entries)
        index = locate(entries, op.old_text or (op.matched_entry or ""), op.matched_entry, release,
                       "replace", batch_pos, person=person)
        entries[index] = content  # a replace can repeat another entry; the next load drops the copy
        return entries, "Entry replaced."
    if op.action == "patch":
        if not content.strip():
            raise OpError(f"{batch_pos}: content is required — set this operation object's own 'content' to the "
                          f"new text for the old_text span. {PATCH_DROP_HINT}" if batch_pos
                          else f"new_text cannot be empty. {PATCH_DROP_HINT}", "empty", entries)
        if not (op.old_text or "").strip():
            raise OpError(f"{batch_pos}: old_text is required." if batch_pos else "old_text cannot be empty.",
                          "empty", entries)
        index = locate(entries, op.old_text, op.matched_entry, release, "patch", batch_pos, person=person)
        try:
            entries[index] = patch_entry(entries[index], op.old_text, content, release, scan=not person)
        except OpError as exc:
            text = f"{batch_pos}: {exc}" if batch_pos else str(exc)
            raise type(exc)(text, exc.kind, entries) from None
        return entries, "Entry patched."
    index = locate(entries, op.old_text or (op.matched_entry or ""), op.matched_entry, release,
                   "remove", batch_pos, person=person)
    entries.pop(index)
    return entries, "Entry removed."


def is_batch(ops: Sequence[Op], batch: bool | None = None) -> bool:
    """A batch is a call with `operations` (even of one op); without that flag, several ops are."""
    return len(ops) > 1 if batch is None else batch


def precheck(ops: Sequence[Op], batch: bool | None = None, release: "Release" = NEWEST, *,
             tool: bool = False, entries: Callable[[], Sequence[str]] | None = None, person: bool = False) -> None:
    """The refusals a release makes before it takes the file lock, so before its drift guard, in
    its order: an empty operations list; for a single call, empty text and an unknown action. (A
    batch checks its operations later, under the lock.) Raises OpError in the release's words.

    `tool=True` is the model's own memory_tool call (0.22 refuses `replace` there and checks its
    arguments first); otherwise a staged write replayed by approval. `entries` gives the loaded
    entries 0.22 lists when old_text is missing. `person`: hmc's own edit, which may patch on any
    release.
    """
    if release.patch:
        return _precheck_22(ops, batch, release, tool, entries)
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
    elif op.action == "patch" and person:  # hmc's own span edit, valid whichever release runs
        if not has_old:
            raise OpError("old_text cannot be empty.", "empty")
        if not (op.content or "").strip():
            raise OpError(f"new_text cannot be empty. {PATCH_DROP_HINT}", "empty")
    else:
        raise OpError(f"Unknown action '{op.action}'. Use: add, replace, remove", "unknown")


def _precheck_22(ops: Sequence[Op], batch: bool | None, release: "Release", tool: bool,
                 entries: Callable[[], Sequence[str]] | None) -> None:
    if not ops:
        raise OpError(MISSING_ACTION if tool else "operations list is empty.", "empty")
    if is_batch(ops, batch):
        if tool and any(op.action == "replace" for op in ops):
            raise OpError(REPLACE_REFUSED, "unknown")
        return
    op = ops[0]
    if tool:
        if not op.action:
            raise OpError(MISSING_ACTION, "unknown")
        if op.action == "replace":
            raise OpError(REPLACE_REFUSED, "unknown")
        if op.action not in ("add", "patch", "remove"):
            raise OpError(f"Unknown action '{op.action}'. Use: add, patch, remove", "unknown")
        if op.action == "add" and not op.content:
            raise OpError("Content is required for 'add' action.", "empty")
        if op.action in ("remove", "patch") and not op.old_text and op.matched_entry is None:
            current = list(entries()) if entries is not None else []
            raise OpError(f"'{op.action}' needs old_text -- a short unique substring of the entry to "
                          f"{op.action}. None was provided. Reissue the {op.action} with old_text set to part "
                          "of one of the current_entries below.", "empty", current)
        if op.action == "patch" and not op.content:
            raise OpError(f"content (the new text for the old_text span) is required for 'patch' action. "
                          f"{PATCH_DROP_HINT}", "empty")
    elif op.action not in ACTIONS:
        raise OpError(f"Unknown staged action '{op.action}'.", "unknown")
    has_old = bool((op.old_text or "").strip()) or op.matched_entry is not None
    if op.action == "add":
        if not (op.content or "").strip():
            raise OpError("Content cannot be empty.", "empty")
    elif op.action == "replace":
        if not has_old:
            raise OpError("old_text cannot be empty.", "empty")
        if not (op.content or "").strip():
            raise OpError("new_content cannot be empty. Use 'remove' to delete entries.", "empty")
    elif op.action == "patch":
        if not has_old:
            raise OpError("old_text cannot be empty.", "empty")
        if not (op.content or "").strip():
            raise OpError(f"new_text cannot be empty. {PATCH_DROP_HINT}", "empty")
    elif not has_old:
        raise OpError("old_text cannot be empty.", "empty")


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
         batch: bool | None = None, file_name: str = "MEMORY.md") -> Plan:
    """The result of ops on a copy, all or nothing, with the release's limit rules and messages.

    One op is a single tool call; several (or `batch=True`) are a batch, checked on the final state.
    `person=True` is hmc's own edit: a change that shrinks an over-full store is allowed (the release
    would refuse it). A batch that would empty a non-empty store raises EmptiesStore unless
    `allow_empty` (up to 0.20 the release allows it; hmc asks first); from 0.22 the release refuses
    it outright, and so does hmc when it replays a staged write. `label` is kept for callers; the
    releases say "Memory" for both files; `file_name` is for 0.22's refusal to empty a store.
    """
    del label
    if not ops:
        raise OpError("operations list is empty.", "empty")
    entries = list(entries)
    before_used = usage(entries)
    new22 = release.patch
    if not is_batch(ops, batch):
        op = ops[0]
        after, message = apply_op(entries, op, release, person=person)
        after_used = usage(after)
        shrinks = person and after_used <= before_used
        if op.action == "add" and after != entries and after_used > limit:
            raise OpError(_add_over(before_used, limit, len(op.content.strip()), release, after_used),
                          "limit", entries)
        if op.action in ("replace", "patch") and after_used > limit and not shrinks:
            raise OpError(_replace_over(after_used, limit, release, op.action), "limit", entries)
        return Plan(tuple(entries), tuple(after), (message,))
    current = list(entries)
    for i, op in enumerate(ops):
        pos = f"Operation {i + 1} ({op.action or 'unknown'})"
        try:
            current, _ = apply_op(current, op, release, batch_pos=pos, person=person)
        except Conflict as exc:
            if new22 and not person:
                raise Conflict(f"{exc} No operations were applied (batch is all-or-nothing).", exc.expected,
                               entries) from None
            raise
        except OpError as exc:
            raise type(exc)(f"{exc} No operations were applied (batch is all-or-nothing).", exc.kind,
                            () if new22 else entries, exc.matches) from None
    after_used = usage(current)
    if entries and not current and new22 and not person:
        raise OpError(f"Refusing to empty {file_name}: this batch would remove every entry from a previously "
                      "non-empty store. Keep at least one entry — merge overlapping entries into a shorter one "
                      "instead of removing the last one. To delete the final entry deliberately, use single "
                      "remove() calls. No operations were applied (batch is all-or-nothing).", "empties")
    if after_used > limit and not (person and after_used <= before_used):
        if new22:
            raise OpError(f"Applying all {len(ops)} operations would put memory at {after_used:,}/{limit:,} chars: "
                          f"free at least {after_used - limit:,} chars more. Add removes or shortening patches of "
                          "other stale entries to the same batch, then retry. No operations were applied (batch "
                          "is all-or-nothing).", "limit")
        raise OpError(
            f"After applying all {len(ops)} operations, memory would be at {after_used:,}/{limit:,} chars "
            "-- over the limit. Remove or shorten more entries in the same batch (see current_entries "
            "below), then retry.", "limit", entries)
    if entries and not current and not allow_empty:
        raise EmptiesStore("This batch would remove every entry and leave the file empty; hmc asks "
                           "before doing that (confirm, or use --force).", current_entries=entries)
    return Plan(tuple(entries), tuple(current), (f"Applied {len(ops)} operation(s).",))


def _add_over(current: int, limit: int, size: int, release: "Release", after: int = 0) -> str:
    if release.patch:
        over = after - limit
        return (f"Memory at {current:,}/{limit:,} chars; adding this entry ({size} chars) would exceed the limit "
                f"by {over:,} chars. Retry as ONE 'operations' batch that removes or shortens (patch) stale "
                f"entries from current_entries below to free at least {over:,} chars AND adds this entry — the "
                "limit is checked only on the batch result.")
    head = (f"Memory at {current:,}/{limit:,} chars. Adding this entry ({size} chars) would exceed the limit. ")
    if release < (0, 17):
        return head + "Replace or remove existing entries first."
    return head + ("Consolidate now: use 'replace' to merge overlapping entries into shorter ones or "
                   "'remove' stale or less important entries (see current_entries below), then retry "
                   "this add — all in this turn.")


def _replace_over(total: int, limit: int, release: "Release", action: str = "replace") -> str:
    if action == "patch":
        return (f"Patch would put memory at {total:,}/{limit:,} chars. Shorten the new text, or 'remove' other "
                "stale or less important entries to make room (see current_entries below), then retry — all "
                "in this turn.")
    if release.patch:
        return (f"Replacement would put memory at {total:,}/{limit:,} chars: free at least {total - limit:,} chars. "
                "Shorten the new content, or retry as ONE 'operations' batch with this replace plus "
                "removes/shortenings of other stale entries (see current_entries below) — the limit is checked "
                "only on the batch result.")
    head = f"Replacement would put memory at {total:,}/{limit:,} chars. "
    if release < (0, 17):
        return head + "Shorten the new content or remove other entries first."
    return head + ("Shorten the new content, or 'remove' other stale or less important entries to make "
                   "room (see current_entries below), then retry — all in this turn.")
