"""The memory blocks inside a stored system prompt, recovered exactly as the release wrote them.

Every release from 0.13 to 0.22 renders a store as

    ═×46 \\n TITLE [P% — USED/LIMIT chars] \\n ═×46 \\n ENTRIES

where ENTRIES are the entries as shown (a blocked one is its `[BLOCKED: …]` notice) joined by
"\\n§\\n", and USED is their length in code points. So USED says exactly where a block ends, whatever
its entries hold (blank lines, a `§`, a copy of a header). The MEMORY block comes first, then the
USER block after one blank line; an empty or disabled store renders nothing, and the block is never
cut. What follows the last block is "\\n\\n" and the next part of the prompt (0.19/0.20:
"Conversation started: …", 0.22: "Active Hermes profile: …", or a provider's section).

A prompt whose blocks don't check out (a header whose label doesn't fit what follows, a block cut
short, the same store's block twice) is not known: parse() returns None, never a guess.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from core.hermes.memory import DELIMITER, RULE, TARGETS, TITLES, usage_label

MAX_PROMPT_CHARS = 4 << 20  # a longer "prompt" is not one Hermes built: not known
# The parts a complete Hermes prompt holds after its memory position, in every release read (§8):
# a prompt with no block but one of these loaded no memory; one with neither isn't known.
TAIL_MARKERS = ("\nConversation started: ", "Active Hermes profile: ")
_LABEL = re.compile(r"(\d{1,3})% \u2014 (\d{1,3}(?:,\d{3})*)/(\d{1,3}(?:,\d{3})*) chars\]\n")


class Block(NamedTuple):
    """One store's block as a session received it (a named tuple: thousands are made and cached).
    Where it sat in the prompt isn't part of it: two sessions that loaded the same entries under
    the same limit loaded the same block."""

    target: str
    entries: tuple[str, ...]  # as shown: a blocked entry is its notice
    used: int
    limit: int

    @property
    def percent(self) -> int:
        return min(100, int(self.used / self.limit * 100)) if self.limit else 0


class Loaded(NamedTuple):
    """Both stores as one session loaded them: a None block is a store that rendered nothing
    (empty, or disabled in config.yaml)."""

    memory: Block | None
    user: Block | None

    def block(self, target: str) -> Block | None:
        return self.memory if target == "memory" else self.user

    def entries(self, target: str) -> tuple[str, ...]:
        block = self.block(target)
        return block.entries if block else ()

    @property
    def key(self) -> tuple:
        """What two sessions that loaded the same memory share: each block's entries and limit."""
        return tuple((b.entries, b.limit) if b else None for b in (self.memory, self.user))


class _Found(NamedTuple):
    """A block, and where it sat in the prompt (what parse() checks the prompt's layout with)."""

    block: Block
    start: int
    end: int


_LABEL_AT = {target: len(RULE) + 1 + len(TITLES[target]) + 2 for target in TARGETS}  # header start → label
_RULE_LINE = RULE + "\n"


def _block_at(prompt: str, target: str, start: int, memo: dict | None = None) -> _Found | None:
    """The block whose header starts at `start`, when its label fits what follows it. `memo`
    keeps each block's entries by its text, for the next prompt that holds the same block."""
    label = _LABEL.match(prompt, start + _LABEL_AT[target])
    if label is None:
        return None
    used, limit = int(label[2].replace(",", "")), int(label[3].replace(",", ""))
    after = label.end()
    if not prompt.startswith(_RULE_LINE, after):
        return None
    body = after + len(_RULE_LINE)
    end = body + used
    if end > len(prompt) or (end < len(prompt) and not prompt.startswith("\n\n", end)):
        return None  # cut short, or the label doesn't fit what follows
    if used == 0 or int(label[1]) != (min(100, int(used / limit * 100)) if limit else 0):
        return None
    text = prompt[body:end]
    entries = memo.get(text, False) if memo is not None else False
    if entries is False:
        entries = _entries(text)
        if memo is not None:
            memo[text] = entries
    return None if entries is None else _Found(Block(target, entries, used, limit), start, end)


def _entries(body: str) -> tuple[str, ...] | None:
    """A block's entries, or None when Hermes couldn't have rendered them (it strips every entry
    and renders none empty)."""
    entries = tuple(body.split(DELIMITER))
    if "" in entries or tuple(map(str.strip, entries)) != entries:
        return None
    return entries


_HEADS = {target: f"{RULE}\n{TITLES[target]} [" for target in TARGETS}


def _headers(prompt: str, target: str) -> list[int]:
    """Where a line starts with this store's header."""
    head, found = _HEADS[target], []
    at = prompt.find(head)
    while at >= 0:
        if at == 0 or prompt[at - 1] == "\n":
            found.append(at)
        at = prompt.find(head, at + 1)
    return found


def parse(prompt: str | None, memo: dict | None = None) -> Loaded | None:
    """The blocks a stored prompt holds, or None when what it loaded can't be told. Given a
    `memo` (a dict kept between calls), a block seen in an earlier prompt isn't split again: the
    prompts of one state.db mostly share their blocks (the USER block rarely changes)."""
    if not prompt or not isinstance(prompt, str) or len(prompt) > MAX_PROMPT_CHARS:
        return None
    heads = {target: _headers(prompt, target) for target in TARGETS}
    if len(heads["memory"]) <= 1 and len(heads["user"]) <= 1:
        return _parse_simple(prompt, heads["memory"], heads["user"], memo)
    return _parse_any(prompt, heads)


def _parse_any(prompt: str, heads: dict[str, list[int]]) -> Loaded | None:
    """parse() for any number of headers (a copy of one inside an entry, a store twice)."""
    found = {target: [b for b in (_block_at(prompt, target, at) for at in heads[target]) if b]
             for target in TARGETS}
    if any(len(blocks) > 1 for blocks in found.values()):
        return None  # the same store twice: which one the agent read can't be told
    spans = [(b.start, b.end) for blocks in found.values() for b in blocks]
    for target in TARGETS:
        for at in heads[target]:
            if not found[target] or at != found[target][0].start:
                if not any(start < at < end for start, end in spans):
                    return None  # a header whose block doesn't check out (not text inside a block)
    memory = found["memory"][0] if found["memory"] else None
    user = found["user"][0] if found["user"] else None
    return _loaded(prompt, memory, user)


def _loaded(prompt: str, memory: _Found | None, user: _Found | None) -> Loaded | None:
    """The blocks found, when they sit where Hermes puts them."""
    if memory and user and user.start != memory.end + 2:
        return None  # Hermes puts USER right after MEMORY, one blank line between
    if memory is None and user is None and not any(m in prompt for m in TAIL_MARKERS):
        return None  # no block, and not a whole Hermes prompt either
    return Loaded(memory and memory.block, user and user.block)


def _parse_simple(prompt: str, memory_at: list[int], user_at: list[int], memo: dict | None = None) -> Loaded | None:
    """parse() for the usual prompt, at most one header of each store: the same rules, less work
    (it is run once for each distinct prompt of a state.db, thousands of them)."""
    memory = _block_at(prompt, "memory", memory_at[0], memo) if memory_at else None
    user = _block_at(prompt, "user", user_at[0], memo) if user_at else None
    if memory_at and memory is None and not (user and user.start < memory_at[0] < user.end):
        return None  # a header whose block doesn't check out, and not text inside the other block
    if user_at and user is None and not (memory and memory.start < user_at[0] < memory.end):
        return None
    return _loaded(prompt, memory, user)


def render(block: Block) -> str:
    """The block's exact text, as the session received it."""
    return f"{RULE}\n{TITLES[block.target]} [{usage_label(block.used, block.limit)}]\n{RULE}\n" \
           + DELIMITER.join(block.entries)


def render_loaded(loaded: Loaded) -> str:
    """Both blocks as the session received them, joined as Hermes joins them."""
    return "\n\n".join(render(b) for b in (loaded.memory, loaded.user) if b)
