"""Text ranges: the one way matched `(start, end)` ranges are joined (search hits, the `/` filter)."""

from __future__ import annotations

from typing import Iterable


def merged(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """`(start, end)` ranges sorted, with overlapping or touching ones joined into one."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out
