"""Profiles: the view (5), the comparison (c), a move (M) and the cross-profile finding, as the
screenshots show them."""

from __future__ import annotations

import pytest

from tools.shots import build_app, drive
from tools.shots.profiles import SCENARIOS


@pytest.mark.parametrize("shot", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_profiles_snapshot(shot, snap_compare, demo_home):
    app = build_app(demo_home, shot)
    assert snap_compare(app, terminal_size=shot.size, run_before=lambda pilot: drive(pilot, shot))
