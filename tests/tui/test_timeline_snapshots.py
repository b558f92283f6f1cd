"""The timeline, an entry's history and time travel, exactly as the screenshots show them (demo home)."""

from __future__ import annotations

import pytest

from tools.shots import build_app, drive
from tools.shots.history import SCENARIOS


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


@pytest.mark.parametrize("shot", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_history_snapshot(shot, snap_compare, demo_home):
    app = build_app(demo_home, shot)
    assert snap_compare(app, terminal_size=shot.size, run_before=lambda pilot: drive(pilot, shot))
