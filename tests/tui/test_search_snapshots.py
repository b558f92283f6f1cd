"""Every search-mode view, exactly as the screenshots show them (results, transcript, list, dialogs)."""

from __future__ import annotations

import pytest

from tools.shots import build_app, drive
from tools.shots.search import SCENARIOS


@pytest.mark.parametrize("shot", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_search_snapshot(shot, snap_compare, demo_home):
    app = build_app(demo_home, shot)
    assert snap_compare(app, terminal_size=shot.size, run_before=lambda pilot: drive(pilot, shot))
