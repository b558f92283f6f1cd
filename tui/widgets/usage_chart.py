"""How each store filled up, as one line per store for the timeline: a bar per week against the
store's limit (▁ to █, full = the limit), coloured as the gauge is (calm, then warning from 80%,
error from 95% and over), then where it stands now and the week it reached 80%. Renders the
series it is given (core.timeline.usage); reads nothing."""

from __future__ import annotations

from typing import Sequence

from rich.text import Text

from core.hermes.memory import FILE_NAMES, percent
from tui.literal import masked

LEVELS = "▁▂▃▄▅▆▇█"
MIN_BARS = 12  # the weeks a line keeps before it names the latest growth


def week_bar(chars: int, limit: int) -> tuple[str, str]:
    """One week's cell and its style."""
    share = chars / limit if limit > 0 else 0.0
    cell = LEVELS[min(len(LEVELS) - 1, max(0, round(share * (len(LEVELS) - 1))))] if chars else " "
    level = percent(chars, limit)
    style = "red" if chars > limit or level >= 95 else "yellow" if level >= 80 else "green"
    return cell, style


def usage_lines(series: Sequence, width: int) -> Text:
    """One line per store: `MEMORY.md  ▁▂▃▅▆▇  85% now · 80% reached week of 20 Oct · most: session …`,
    the bars of the last weeks that fit `width`."""
    out = Text()
    for n, s in enumerate(series):
        if n:
            out.append("\n")
        out.append(f"{FILE_NAMES[s.target]:<10}", style="bold")
        if not s.buckets:
            out.append("no recorded writes yet", style="dim")
            continue
        last = s.buckets[-1]
        tail = Text(f"  {percent(last.chars, s.limit)}% of {s.limit:,} now", style="dim")
        filled = s.filled
        if filled is not None:
            tail.append(f" · 80% reached week of {filled.start.day} {filled.start:%b %Y}", style="dim")
        grew = next((g for b in reversed(s.buckets) for g in b.grew[:1]), None)
        if grew is not None:  # only when it leaves room for MIN_BARS weeks on the line
            growth = f" · latest growth: {masked(grew.label())}"
            if width - 10 - tail.cell_len - len(growth) - 1 >= MIN_BARS:
                tail.append(growth, style="dim")
        room = max(4, width - 10 - tail.cell_len - 1)
        for bucket in s.buckets[-room:]:
            cell, style = week_bar(bucket.chars, s.limit)
            out.append(cell, style=style)
        out.append_text(tail)
    return out
