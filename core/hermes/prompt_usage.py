"""Two honest figures for one store: the file's usage (what decides whether a write fits) and the
usage label the release prints in the prompt (which counts the `[BLOCKED: …]` notices that stand in
for entries its scan blocks). They differ only when an entry is blocked; then `UsageFigures.note`
says so in a few words, giving both figures and the reason.

    figures = usage_figures("memory", entries, 2200, release)
    figures.file_label     # '85% — 1,875/2,200 chars'  (the gauge, limits, hmc status)
    figures.prompt_label   # '87% — 1,916/2,200 chars'  (the prompt's own label, `p`)
    figures.note           # None when they agree, else one sentence for people
    store.figures(snap)    # the same for a MemoryStore's snapshot (core.store.memory)

May import: the standard library and core.hermes (the lowest package).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from core.hermes.memory import prompt_entries, usage, usage_label
from core.hermes.release import NEWEST

if TYPE_CHECKING:  # pragma: no cover
    from core.hermes.release import Release


@dataclass(frozen=True)
class UsageFigures:
    target: str
    limit: int
    file_chars: int  # the file's entries joined: what limits are checked against
    prompt_chars: int  # the prompt's entries joined (blocked ones as their notices): the prompt's label
    blocked: int  # entries the release's scan replaces by a notice in the prompt

    @property
    def differ(self) -> bool:
        return self.file_chars != self.prompt_chars

    @property
    def file_label(self) -> str:
        return usage_label(self.file_chars, self.limit)

    @property
    def prompt_label(self) -> str:
        return usage_label(self.prompt_chars, self.limit)

    @property
    def reason(self) -> str | None:
        """Why the prompt's figure differs from the file's, in a few words (None when they agree)."""
        if not self.differ:
            return None
        if self.blocked == 1:
            return "it counts the [BLOCKED: …] notice for 1 blocked entry"
        return f"it counts the [BLOCKED: …] notices for {self.blocked} blocked entries"

    @property
    def note(self) -> str | None:
        """'the prompt's label says 87% — 1,916/2,200 chars, not 85% — 1,875/2,200 chars: it counts the
        [BLOCKED: …] notice for 1 blocked entry; limits count the file' — or None when they agree."""
        if not self.differ:
            return None
        return f"the prompt's label says {self.prompt_label}, not {self.file_label}: {self.reason}; limits count the file"

    def as_json(self) -> dict:
        """Fields for --json outputs (added beside the existing `chars` / `label`)."""
        return {"prompt_chars": self.prompt_chars, "prompt_label": self.prompt_label,
                "blocked_in_prompt": self.blocked, "usage_note": self.note}


def usage_figures(target: str, entries: Sequence[str], limit: int, release: "Release" = NEWEST) -> UsageFigures:
    """Both figures for a store's entries (as the release loads them) under this release."""
    shown = prompt_entries(target, entries, release)
    blocked = sum(1 for before, after in zip(entries, shown) if before != after)
    return UsageFigures(target, limit, usage(entries), usage(shown), blocked)
