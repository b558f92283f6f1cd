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
from dataclasses import dataclass

from core.hermes.memory import DELIMITER, RULE, TARGETS, TITLES, usage_label

MAX_PROMPT_CHARS = 4 << 20  # a longer "prompt" is not one Hermes built: not known
# The parts a complete Hermes prompt holds after its memory position, in every release read (§8):
# a prompt with no block but one of these loaded no memory; one with neither isn't known.
TAIL_MARKERS = ("\nConversation started: ", "Active Hermes profile: ")
_LABEL = re.compile(r"(\d{1,3})% \u2014 (\d{1,3}(?:,\d{3})*)/(\d{1,3}(?:,\d{3})*) chars\]\n")


@dataclass(frozen=True)
class Block:
    """One store's block as a session received it."""

    target: str
    entries: tuple[str, ...]  # as shown: a blocked entry is its notice
    used: int
    limit: int
    start: int  # where it starts in the prompt
    end: int  # where it ends

    @property
    def percent(self) -> int:
        return min(100, int(self.used / self.limit * 100)) if self.limit else 0


@dataclass(frozen=True)
class Loaded:
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
        """What two sessions that loaded the same memory share (positions and limits aside)."""
        return tuple((b.entries, b.limit) if b else None for b in (self.memory, self.user))


def _block_at(prompt: str, target: str, start: int) -> Block | None:
    """The block whose header starts at `start`, when its label fits what follows it."""
    at = start + len(RULE) + 1 + len(TITLES[target]) + 2
    label = _LABEL.match(prompt, at)
    if label is None:
        return None
    used, limit = int(label[2].replace(",", "")), int(label[3].replace(",", ""))
    body = label.end() + len(RULE) + 1
    if prompt[label.end():body] != RULE + "\n":
        return None
    end = body + used
    if end > len(prompt) or (end < len(prompt) and not prompt.startswith("\n\n", end)):
        return None  # cut short, or the label doesn't fit what follows
    if used == 0 or int(label[1]) != (min(100, int(used / limit * 100)) if limit else 0):
        return None
    entries = tuple(prompt[body:end].split(DELIMITER))
    if any(not e or e != e.strip() for e in entries):
        return None  # Hermes strips every entry and renders none empty
    return Block(target, entries, used, limit, start, end)


def _headers(prompt: str, target: str) -> list[int]:
    """Where a line starts with this store's header."""
    head, found = f"{RULE}\n{TITLES[target]} [", []
    at = prompt.find(head)
    while at >= 0:
        if at == 0 or prompt[at - 1] == "\n":
            found.append(at)
        at = prompt.find(head, at + 1)
    return found


def parse(prompt: str | None) -> Loaded | None:
    """The blocks a stored prompt holds, or None when what it loaded can't be told."""
    if not prompt or not isinstance(prompt, str) or len(prompt) > MAX_PROMPT_CHARS:
        return None
    heads = {target: _headers(prompt, target) for target in TARGETS}
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
    if memory and user and user.start != memory.end + 2:
        return None  # Hermes puts USER right after MEMORY, one blank line between
    if memory is None and user is None and not any(m in prompt for m in TAIL_MARKERS):
        return None  # no block, and not a whole Hermes prompt either
    return Loaded(memory, user)


def render(block: Block) -> str:
    """The block's exact text, as the session received it."""
    return f"{RULE}\n{TITLES[block.target]} [{usage_label(block.used, block.limit)}]\n{RULE}\n" \
           + DELIMITER.join(block.entries)


def render_loaded(loaded: Loaded) -> str:
    """Both blocks as the session received them, joined as Hermes joins them."""
    return "\n\n".join(render(b) for b in (loaded.memory, loaded.user) if b)
