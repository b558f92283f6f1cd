"""The release's refusals, said to the person at the keyboard.

Hermes writes its tool messages for the agent ("No entry matched 'x'. Check current_entries below
and retry…", "…then retry this add — all in this turn"). hmc keeps those texts, word for word, in
its results (conformance compares them with the releases), and shows people this module's
sentence instead: the same meaning, for someone reading a terminal.

    explain("No entry matched 'x'. Check current_entries below …", "MEMORY.md", 18, see="hmc memory list")
    # Explained(kind='no-match', text="No entry contains 'x' (MEMORY.md has 18 entries: `hmc memory list`).")
    for_person(message, file_name, entries, see=…)   # just the text

Every kind a release produces is here (KINDS): no match, several matches, a span found twice, a
no-op patch, over the limit (add, replace/patch, batch), emptying a store, blocked by the scan
(a pattern, an invisible character), drift, an unreadable file, a staged write whose entry changed
(0.22's pin), a record staged without a pin, empty or missing text, an unknown action, a disabled
store, the per-turn consolidation cap (the release replaces the reason with it once a turn's
failed writes to a full store pass its cap), and an add that was already there. A batch's
"Operation 2 (replace): …" and "No operations were applied" are said too. A message this module doesn't know (hmc's own, already written for
people) comes back unchanged. The text inside quotes is kept as given: callers mask secrets and
render it literally, as before.

May import: the standard library only (core.hermes is the lowest package).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

_SCAN_PREFIX = "Hermes's own scan refuses it: "
# Words hmc puts before a release's message (the pending verdict, the history's replay note), and
# what a person reads instead.
_PREFIXES = (
    (_SCAN_PREFIX, _SCAN_PREFIX),
    ("the release reported success, but replayed on the store as hmc rebuilt it the call fails: ",
     "Hermes applied this call, but it fails on the file as hmc rebuilt it: "),
)
BATCH_TAIL = " No operations were applied (batch is all-or-nothing)."
_OPERATION = re.compile(r"^Operation (?P<n>\d+) \((?P<action>[^)]*)\): ")


@dataclass(frozen=True)
class Explained:
    kind: str | None  # one of KINDS, or None when the message is not a release's (returned unchanged)
    text: str


@dataclass(frozen=True)
class _Say:
    file: str
    entries: int | None
    see: str | None

    def listing(self) -> str:
        """'MEMORY.md has 18 entries: `hmc memory list`' (or without the command)."""
        if self.entries is None:
            return f"`{self.see}` lists them" if self.see else ""
        count = f"{self.file} has {self.entries} entr{'y' if self.entries == 1 else 'ies'}"
        return f"{count}: `{self.see}`" if self.see else count


def _num(text: str) -> int:
    return int(text.replace(",", ""))


def _over(total: int, limit: int) -> str:
    return f"{total - limit:,} chars over its limit" if total > limit else "over its limit"


def _no_match(m: re.Match, s: _Say) -> str:
    listing = s.listing()
    text = f"No entry contains '{m['old']}'" + (f" ({listing})." if listing else ".")
    if "§" in m["old"]:
        text += " The text runs across two entries ('§' separates them): change one entry at a time."
    return text


def _add_over(m: re.Match, s: _Say) -> str:
    cur, limit, size = _num(m["cur"]), _num(m["lim"]), _num(m["size"])
    total = cur + size + (3 if cur else 0)  # the entry and its separator
    listing = s.listing()
    return (f"{s.file} is at {m['cur']}/{m['lim']} chars, and this entry ({size:,} chars) would take it "
            f"{_over(total, limit)}. Remove or shorten other entries first" + (f" ({listing})." if listing else "."))


def _change_over(m: re.Match, s: _Say) -> str:
    total, limit = _num(m["total"]), _num(m["lim"])
    return (f"After this change {s.file} would be at {m['total']}/{m['lim']} chars, {_over(total, limit)}. "
            "Shorten the new text, or remove other entries first.")


def _batch_over(m: re.Match, s: _Say) -> str:
    total, limit = _num(m["total"]), _num(m["lim"])
    return (f"These {m['n']} changes together would leave {s.file} at {m['total']}/{m['lim']} chars, "
            f"{_over(total, limit)}. Remove or shorten more entries in the same batch.")


_R = Callable[[re.Match, _Say], str]
_DOT = re.DOTALL

# (kind, pattern, the sentence). Patterns match the releases' texts from their start to the end of
# the message (after a known prefix of hmc's, _PREFIXES, and a batch's "Operation N (…): ").
RULES: tuple[tuple[str, re.Pattern, _R], ...] = (
    ("no-match", re.compile(r"[Nn]o entry matched '(?P<old>.*)'\.(?:\s.*)?$", _DOT), _no_match),
    ("ambiguous", re.compile(r"(?:Multiple entries matched '(?P<old>.*)'\. Be more specific\.|"
                             r"'(?P<old2>.*)' matched multiple distinct entries -- be more specific\.)$", _DOT),
     lambda m, s: f"'{m['old'] if m['old'] is not None else m['old2']}' is in more than one entry of {s.file}: "
                  "give more of the entry's text, so it picks one."),
    ("span-twice", re.compile(r"'(?P<span>.*)' appears (?P<n>\d+) times in the matched entry, and patch edits "
                              r"one span\..*$", _DOT),
     lambda m, s: f"'{m['span']}' occurs {m['n']} times in that entry: give a longer span that occurs once."),
    ("no-op", re.compile(r"Patch is a no-op: '(?P<a>.*)' -> '(?P<b>.*)' leaves the entry unchanged\.$", _DOT),
     lambda m, s: f"Nothing to change: '{m['a']}' → '{m['b']}' leaves the entry as it is."),
    ("limit", re.compile(r"Memory at (?P<cur>[\d,]+)/(?P<lim>[\d,]+) chars[.;] [Aa]dding this entry "
                         r"\((?P<size>[\d,]+) chars\) would exceed the limit.*$", _DOT), _add_over),
    ("limit", re.compile(r"(?:Replacement|Patch) would put memory at (?P<total>[\d,]+)/(?P<lim>[\d,]+) chars.*$",
                         _DOT), _change_over),
    ("limit", re.compile(r"(?:After applying all (?P<n>\d+) operations, memory would be at|Applying all "
                         r"(?P<n2>\d+) operations would put memory at) (?P<total>[\d,]+)/(?P<lim>[\d,]+) chars.*$",
                         _DOT),
     lambda m, s: _batch_over(_Merged(m, n=m["n"] or m["n2"]), s)),
    ("empties-store", re.compile(r"Refusing to empty (?P<file>\S+): this batch would remove every entry.*$", _DOT),
     lambda m, s: f"This batch would remove every entry of {m['file']}, and Hermes won't empty a store in one "
                  "batch: keep at least one entry, or remove the last ones one at a time."),
    ("blocked", re.compile(r"Blocked: content matches threat pattern '(?P<id>[^']*)'\..*$", _DOT),
     lambda m, s: f"Hermes's scan refuses this text: it matches the '{m['id']}' pattern (a sign of prompt "
                  "injection or data theft), and every entry goes into the agent's prompt."),
    ("blocked", re.compile(r"Blocked: content contains invisible unicode character (?P<cp>\S+) \(possible "
                           r"injection\)\.$", _DOT),
     lambda m, s: f"Hermes's scan refuses this text: it holds an invisible character ({m['cp']}), a known way "
                  "to hide instructions from the person reading it."),
    ("drift", re.compile(r"Refusing to write (?P<file>\S+): (?P<why>file on disk has content that wouldn't "
                         r"round-trip|it holds an entry larger than the whole store's char limit).*?A snapshot "
                         r"was saved to (?P<backup>.+?)\. Resolve the drift.*$", _DOT),
     lambda m, s: f"Hermes won't edit {m['file']}: it isn't in the form Hermes writes ("
                  + ("an entry is longer than the whole limit" if m["why"].startswith("it holds")
                     else "blank lines, spaces or an empty entry around the § separators")
                  + f"). It saved a copy as {m['backup']}. Tidy the file first: the repair in memory mode "
                    "(r) keeps a backup, and `hmc review` says what is wrong."),
    ("unreadable", re.compile(r"Refusing to write (?P<file>\S+): the file exists on disk but could not be read "
                              r"right now.*$", _DOT),
     lambda m, s: f"{m['file']} can't be read right now (locked, a permission, text that isn't UTF-8, or a "
                  "disk error), so nothing was written: saving over it could wipe what it holds. Try again "
                  "in a moment; `hmc status` says what is wrong."),
    ("pin-changed", re.compile(r"Entry changed since it was staged, so this write was not applied: '(?P<e>.*)' is "
                               r"no longer in memory as reviewed\..*$", _DOT),
     lambda m, s: f"The entry this write was staged against has changed since ('{_short(m['e'])}' is no "
                  f"longer in {s.file} as it was). Reject the record, or stage the change again against the "
                  "entry as it is now. The record is kept."),
    ("unpinned", re.compile(r"staged by an older Hermes without a pin to the entry it meant, so Hermes "
                            r"(?P<v>\S+) refuses to approve it.*$", _DOT),
     lambda m, s: f"An older Hermes staged this without saying which entry it meant, so Hermes {m['v']} won't "
                  "approve it. Stage it again, or approve your own version of it (pinned to the entry you see)."),
    ("empty", re.compile(r"(?:Content cannot be empty\.|[Cc]ontent is required for 'add' action\.|"
                         r"content is required\.)$"),
     lambda m, s: "The new entry is empty: there is nothing to add."),
    ("empty", re.compile(r"(?:new_content cannot be empty\. Use 'remove' to delete entries\.|content is required "
                         r"(?:\(use action='remove' to delete\)\.|for 'replace' action\.|— set this operation "
                         r"object's own 'content' to the COMPLETE new entry.*))$", _DOT),
     lambda m, s: "The new text is empty. To delete the entry, remove it instead."),
    ("empty", re.compile(r"(?:new_text cannot be empty\.|content \(the new text for the old_text span\) is required "
                         r"for 'patch' action\.|content is required — set this operation object's own 'content' "
                         r"to the new text for the old_text span\.).*$", _DOT),
     lambda m, s: "The new text for the span is empty. To drop words inside an entry, patch a longer span "
                  "that contains them; removing deletes the whole entry."),
    ("empty", re.compile(r"(?:old_text cannot be empty\.|old_text is required(?: for '\w+' action)?\.|"
                         r"'(?:remove|replace|patch)' needs old_text -- .*)$", _DOT),
     lambda m, s: "Say which entry: the text to look for is empty."),
    ("empty", re.compile(r"(?:operations list is empty\.|Missing required parameter: provide 'action'.*)$", _DOT),
     lambda m, s: "There is no change to make: the write holds no operation."),
    ("unknown", re.compile(r"'replace' is not available; use 'patch'\..*$", _DOT),
     lambda m, s: "This Hermes has no whole-entry replace for the agent: it patches a span of an entry instead."),
    ("unknown", re.compile(r"(?:Unknown (?:staged )?action '(?P<a>[^']*)'(?:\.(?: Use: .*)?)?|unknown action\. "
                           r"Use .*)$", _DOT),
     lambda m, s: (f"'{m['a']}' is not" if m["a"] is not None else "That is not")
                  + " an operation Hermes knows (add, replace, patch or remove)."),
    ("unknown", re.compile(r"Invalid (?:memory )?target '(?P<t>[^']*)'\. Use 'memory' or 'user'\.$", _DOT),
     lambda m, s: f"'{m['t']}' is not a store: the stores are memory (MEMORY.md) and user (USER.md)."),
    ("disabled", re.compile(r"Built-in (?P<file>\S+) writes are disabled in memory config\.$"),
     lambda m, s: f"Writes to {m['file']} are turned off in config.yaml (memory_enabled / user_profile_enabled)."),
    ("disabled", re.compile(r"Memory is not available\. It may be disabled in config or this environment\.$"),
     lambda m, s: "Hermes's memory is off here (disabled in config.yaml, or not available in this environment)."),
    ("consolidation-cap", re.compile(r"Memory consolidation failed (?P<n>\d+) times this turn\..*$", _DOT),
     lambda m, s: f"Hermes gave up after {m['n']} failed memory writes in one turn (its consolidation cap): "
                  f"{s.file} was full and its attempts to make room failed, so nothing was saved."),
    ("already", re.compile(r"Entry already exists \(no duplicate added\)\.$"),
     lambda m, s: f"Already in {s.file}: nothing was added."),
)

KINDS = tuple(dict.fromkeys(kind for kind, _, _ in RULES))


class _Merged:
    """A match with some groups overridden (for patterns with alternative group names)."""

    def __init__(self, m: re.Match, **extra: str):
        self._m, self._extra = m, extra

    def __getitem__(self, key: str):
        return self._extra[key] if key in self._extra else self._m[key]


def _short(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def explain(message: str, file_name: str = "MEMORY.md", entries: int | None = None, *,
            see: str | None = None) -> Explained:
    """The release's `message` for a person: its kind and one or two sentences.

    `file_name` is the store the message is about, `entries` how many entries it holds now, `see`
    the command (or key) that lists them, e.g. "hmc memory list"."""
    text = str(message)
    say = _Say(file_name, entries, see)
    tail = ""
    if text.endswith(BATCH_TAIL):
        text = text[: -len(BATCH_TAIL)]
        tail = " Nothing was written: a batch applies all of its changes or none."
    head = ""
    for prefix, said in _PREFIXES:
        if text.startswith(prefix):
            head, text = said, text[len(prefix):]
            break
    op = _OPERATION.match(text)
    if op:
        head += f"Change {op['n']} of the batch ({op['action']}): "
        text = text[op.end():]
    for kind, pattern, sentence in RULES:
        found = pattern.match(text)  # anchored: a search would retry every quote of a long text
        if found is None:
            continue
        if head == _SCAN_PREFIX and kind == "blocked":  # hmc's pending verdict; the sentence says it
            head = ""
        return Explained(kind, head + sentence(found, say) + tail)
    return Explained(None, str(message))


def for_person(message: str, file_name: str = "MEMORY.md", entries: int | None = None, *,
               see: str | None = None) -> str:
    """`explain(…).text`: the sentence to show a person (the message unchanged when it isn't a release's)."""
    return explain(message, file_name, entries, see=see).text
