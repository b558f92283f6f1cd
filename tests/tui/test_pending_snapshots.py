"""Every pending-mode state and dialog, exactly as the screenshots show them (tools/shots/pending.py)."""

from __future__ import annotations

import pytest

from tools.shots import build_app, drive
from tools.shots.pending import SCENARIOS


@pytest.mark.parametrize("shot", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_pending_snapshot(shot, snap_compare, demo_home):
    app = build_app(demo_home, shot)
    assert snap_compare(app, terminal_size=shot.size, run_before=lambda pilot: drive(pilot, shot))
