"""How each store filled up, as one line per store for the timeline, on one shared time axis (a
column is the same week in every line, labelled once underneath): a bar per week against the
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


BEFORE = "·"  # a week before the store's history starts (nothing known), on the shared axis
LABEL = 10  # the file name's column


def _week(day, year: bool) -> str:
    return f"{day.day} {day:%b}" + (f" {day.year}" if year else "")


def axis(weeks: Sequence, bars: int) -> Text:
    """The one axis under the bars: the first week shown at the left, the last at the right."""
    if not weeks:
        return Text()
    first, last = weeks[0], weeks[-1]
    years = first.year != last.year
    left, right = f"week of {_week(first, years)}", _week(last, years)
    out = Text(" " * LABEL, style="dim")
    if len(weeks) == 1:
        out.append(f"{left} · a bar per week", style="dim")
    elif len(left) + len(right) + 2 <= bars:
        out.append(f"└{left}".ljust(bars - len(right) - 1) + f"{right}┘", style="dim")
        out.append("  a bar per week", style="dim")
    else:
        out.append(f"{left} → {right}, a bar per week", style="dim")
    return out


def usage_lines(series: Sequence, width: int) -> Text:
    """One line per store: `MEMORY.md  ▁▂▃▅▆▇  85% now · 80% reached week of 20 Oct · most: session …`,
    then one axis line. Every line has the same weeks in the same columns (core.timeline.usage.
    common_weeks: a store whose history starts later shows · for the weeks before it), as many of
    the last weeks as fit `width` beside the longest tail."""
    from core.timeline.usage import common_weeks  # (what the screen's rebuild has imported already)

    weeks = common_weeks(series)
    tails: list[Text | None] = []
    for s in series:
        if not s.buckets:
            tails.append(None)
            continue
        last = s.buckets[-1]
        tail = Text(f"  {percent(last.chars, s.limit)}% of {s.limit:,} now", style="dim")
        filled = s.filled
        if filled is not None:
            tail.append(f" · 80% reached week of {filled.start.day} {filled.start:%b %Y}", style="dim")
        tails.append(tail)
    longest = max((t.cell_len for t in tails if t is not None), default=0)
    for s, tail in zip(series, tails):  # the latest growth only where it leaves room for MIN_BARS weeks
        grew = next((g for b in reversed(s.buckets) for g in b.grew[:1]), None)
        if tail is not None and grew is not None:
            growth = f" · latest growth: {masked(grew.label())}"
            if width - LABEL - max(longest, tail.cell_len + len(growth)) - 1 >= MIN_BARS:
                tail.append(growth, style="dim")
    longest = max((t.cell_len for t in tails if t is not None), default=0)
    room = max(4, width - LABEL - longest - 1)
    shown = weeks[-room:]
    out = Text()
    for n, (s, tail) in enumerate(zip(series, tails)):
        if n:
            out.append("\n")
        out.append(f"{FILE_NAMES[s.target]:<{LABEL}}", style="bold")
        if tail is None:
            out.append("no recorded writes yet", style="dim")
            continue
        by_week = {b.start: b for b in s.buckets}
        for week in shown:
            bucket = by_week.get(week)
            if bucket is None:
                out.append(BEFORE, style="dim")
                continue
            cell, style = week_bar(bucket.chars, s.limit)
            out.append(cell, style=style)
        out.append_text(tail)
    if shown and any(t is not None for t in tails):
        out.append("\n")
        out.append_text(axis(shown, len(shown)))
    return out
