"""The timeline's usage lines (tui.widgets.usage_chart): one line per store that never wraps, all on
one time axis labelled once underneath; the latest growth is named only when it leaves room for the
weeks' bars."""

from __future__ import annotations

from datetime import date, timedelta

from core.timeline.usage import Bucket, Growth, UsageSeries
from tui.widgets.usage_chart import LEVELS, MIN_BARS, usage_lines


def series(weeks: int = 40) -> UsageSeries:
    start = date(2026, 1, 5)
    grew = (Growth("agent", "20261106_102000_608a6a", "background review", 120),)
    buckets = tuple(Bucket(start + timedelta(days=7 * k), 40 * k, 40 * k, 1, grew if k == weeks - 1 else ())
                    for k in range(weeks))
    return UsageSeries("memory", 2200, buckets)


def test_a_wide_line_names_the_latest_growth():
    line, axis = usage_lines([series()], 160).plain.split("\n")
    assert "latest growth: session 20261106_102000_608a6a (background review)" in line
    assert sum(c in LEVELS for c in line) >= MIN_BARS and len(line) <= 160 and len(axis) <= 160


def test_a_narrow_line_keeps_its_bars_and_drops_the_growth():
    assert all(len(x) <= 118 for x in usage_lines([series()], 118).plain.split("\n"))  # a 120-column timeline
    for width in (100, 80):
        line, axis = usage_lines([series()], width).plain.split("\n")  # the store's line, then the axis
        assert len(line) <= width and len(axis) <= width, width
        assert "latest growth" not in line
        assert sum(c in LEVELS for c in line) >= MIN_BARS


def store(target: str, start: date, weeks: int, step: int = 100) -> UsageSeries:
    return UsageSeries(target, 2200, tuple(Bucket(start + timedelta(days=7 * k), step * (k + 1), step * (k + 1), 1, ())
                                           for k in range(weeks)))


def bars(line: str) -> str:
    """The week cells of a store's line: from the name's column to the tail."""
    return line[10:].split("  ")[0]


def test_both_stores_share_one_time_axis_labelled_once():
    # MEMORY.md written since the week of 3 Aug (18 weeks), USER.md only since 5 Oct (9 weeks): both end
    # in the week of 30 Nov; a column is the same week in both lines
    memory, user = store("memory", date(2026, 8, 3), 18), store("user", date(2026, 10, 5), 9, step=150)
    memory_line, user_line, axis = usage_lines([memory, user], 118).plain.split("\n")
    assert len(bars(memory_line)) == len(bars(user_line)) == 18
    assert bars(user_line) == "·" * 9 + bars(user_line)[9:] and "·" not in bars(user_line)[9:]
    assert "·" not in bars(memory_line)
    assert memory_line.index("% of") == user_line.index("% of")  # the tails start in one column too
    assert "3 Aug" in axis and "30 Nov" in axis and "a bar per week" in axis
    assert axis.startswith(" " * 10)  # under the bars, not under the names


def test_the_axis_marks_the_first_and_last_week_under_the_bars_when_they_fit():
    memory, user = store("memory", date(2025, 8, 4), 40, step=40), store("user", date(2026, 3, 2), 10)
    memory_line, user_line, axis = usage_lines([memory, user], 118).plain.split("\n")
    cells = len(bars(memory_line))
    assert cells == len(bars(user_line)) and axis[10] == "└" and axis[10 + cells - 1] == "┘"
    assert axis[11:].startswith("week of 4 Aug 2025") and axis[:10 + cells].endswith("4 May 2026┘")


def test_a_narrow_chart_keeps_the_weeks_aligned_and_shows_the_last_ones():
    memory, user = store("memory", date(2026, 3, 2), 40, step=20), store("user", date(2026, 10, 5), 9, step=20)
    memory_line, user_line, axis = usage_lines([memory, user], 60).plain.split("\n")
    cells = len(bars(memory_line))
    assert cells == len(bars(user_line)) < 40 and max(map(len, (memory_line, user_line, axis))) <= 60
    assert bars(user_line).startswith("·") and "·" not in bars(user_line)[-9:]  # its 9 weeks, at the end
    assert "30 Nov" in axis  # the latest week is always shown


def test_a_store_without_writes_says_so_and_the_other_keeps_its_axis():
    memory, user = store("memory", date(2026, 8, 3), 5), UsageSeries("user", 1375, ())
    memory_line, user_line, axis = usage_lines([memory, user], 118).plain.split("\n")
    assert "no recorded writes yet" in user_line and "3 Aug" in axis and len(bars(memory_line)) == 5
