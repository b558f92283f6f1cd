"""Two profiles' store side by side (the profiles view's `c`): which entries both hold (word for
word, or nearly: core.review.duplicates), and which only one side holds.

`compare(left, right)` pairs each entry with at most one on the other side (the best match first);
what is left over is "only here". Entries keep their order and 0-based index in their file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

SAME, NEAR, ONLY = "same", "near", "only"


@dataclass(frozen=True)
class Line:
    kind: str  # same | near | only
    left: tuple[int, str] | None  # (index, text) of the left side's entry
    right: tuple[int, str] | None
    reason: str = ""  # for near: what the review's detector says

    def to_json(self) -> dict:
        side = lambda s: {"index": s[0], "text": s[1]} if s else None  # noqa: E731
        return {"kind": self.kind, "left": side(self.left), "right": side(self.right), "reason": self.reason}


def compare(left: Sequence[str], right: Sequence[str]) -> list[Line]:
    """Shared entries first (in the left side's order), then the left's own, then the right's own."""
    from core.review.profiles import leaks

    mine = [("l", i, t) for i, t in enumerate(left)]
    theirs = [("r", j, t) for j, t in enumerate(right)]
    pairs = sorted(leaks(mine, theirs), key=lambda p: (-p[2].score, p[0][1], p[1][1]))
    used_l: set[int] = set()
    used_r: set[int] = set()
    shared = []
    for (_, i, a), (_, j, b), verdict in pairs:
        if i in used_l or j in used_r:
            continue
        used_l.add(i)
        used_r.add(j)
        same = a == b
        shared.append(Line(SAME if same else NEAR, (i, a), (j, b), "" if same else verdict.reason))
    shared.sort(key=lambda line: line.left[0])
    return (shared + [Line(ONLY, (i, t), None) for i, t in enumerate(left) if i not in used_l]
            + [Line(ONLY, None, (j, t)) for j, t in enumerate(right) if j not in used_r])


def counts(lines: Sequence[Line]) -> dict[str, int]:
    return {"same": sum(1 for x in lines if x.kind == SAME), "near": sum(1 for x in lines if x.kind == NEAR),
            "only_left": sum(1 for x in lines if x.kind == ONLY and x.left),
            "only_right": sum(1 for x in lines if x.kind == ONLY and x.right)}
