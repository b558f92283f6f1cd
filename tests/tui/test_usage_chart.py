"""The timeline's usage lines (tui.widgets.usage_chart): one line per store that never wraps; the
latest growth is named only when it leaves room for the weeks' bars."""

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
    line = usage_lines([series()], 160).plain
    assert "latest growth: session 20261106_102000_608a6a (background review)" in line
    assert sum(c in LEVELS for c in line) >= MIN_BARS and len(line) <= 160


def test_a_narrow_line_keeps_its_bars_and_drops_the_growth():
    assert len(usage_lines([series()], 118).plain) <= 118  # a 120-column timeline
    for width in (100, 80):
        line = usage_lines([series()], width).plain
        assert "\n" not in line and len(line) <= width, width
        assert "latest growth" not in line
        assert sum(c in LEVELS for c in line) >= MIN_BARS
