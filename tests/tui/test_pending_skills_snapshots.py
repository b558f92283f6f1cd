"""The skills tab of pending mode, exactly as the screenshots show it (tools/shots/pending_skills.py):
the list, the diff pane, refused records, approve all and the editor, at 120×36 and 80×24."""

from __future__ import annotations

import pytest

from tools.shots import build_app, drive
from tools.shots.pending_skills import SCENARIOS


@pytest.mark.parametrize("shot", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_pending_skills_snapshot(shot, snap_compare, demo_home):
    app = build_app(demo_home, shot)
    assert snap_compare(app, terminal_size=shot.size, run_before=lambda pilot: drive(pilot, shot))
