"""A mode key settles in one frame on a home with 1,000 entries, as on the demo (issue 35): frames
are counted, never timed (tests/tui/test_one_frame.py's Frames; the pty figures are
tests/bench/bench_modes.py's)."""

from __future__ import annotations

import pytest

from tests.bench.bench_soak import fill_varied
from tests.tui.test_one_frame import Frames, at_rest, built_ahead

pytestmark = pytest.mark.long


@pytest.fixture(params=[18, 1000], ids=lambda n: f"{n}-entries")
def big_home(demo_home, request):
    if request.param != 18:
        fill_varied(demo_home, request.param, seed=35)  # as varied as a person's entries
    return demo_home


@pytest.mark.parametrize("key, mode", [("2", "pending"), ("3", "search"), ("4", "review"), ("5", "profiles")])
async def test_a_mode_key_is_one_frame_at_1000_entries(make_app, big_home, key, mode):
    """A visit, memory mode again, and a visit again: one frame each (profiles mode, not built
    ahead, paints its first visit as it reads: the folders, the figures, the sessions)."""
    app = make_app(big_home, poll=False, prebuild=True)
    async with app.run_test(size=(120, 36)) as pilot:
        frames = Frames(app)
        await built_ahead(pilot)
        frames.reset()
        await pilot.press(key)
        await at_rest(pilot)
        assert app.current_mode == mode
        first_visit = len(frames.shown)
        if mode == "search":
            await pilot.press("escape")  # out of the query box, where 1 would type a 1
            await at_rest(pilot)
        frames.reset()
        await pilot.press("1")
        await at_rest(pilot)
        back = len(frames.shown)
        frames.reset()
        await pilot.press(key)
        await at_rest(pilot)
        assert (first_visit if mode != "profiles" else 1, back, len(frames.shown)) == (1, 1, 1)
