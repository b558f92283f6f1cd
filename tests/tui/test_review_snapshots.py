"""Every review-mode view and dialog, exactly as the screenshots show them."""

from __future__ import annotations

import pytest

from tools.shots import Shot, build_app, drive
from tools.shots.review import SCENARIOS, at


@pytest.mark.parametrize("shot", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_review_snapshot(shot, snap_compare, demo_home):
    app = build_app(demo_home, shot)
    assert snap_compare(app, terminal_size=shot.size, run_before=lambda pilot: drive(pilot, shot))


def old_after_60_days(home) -> None:
    """hmc's settings: `old` after 60 days (the demo's agent writes are 25 to 118 days old)."""
    import os
    from pathlib import Path

    config = Path(os.environ["XDG_CONFIG_HOME"]) / "hmc" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[review]\nstale_days = 90\nold_days = 60\n", encoding="utf-8")


OLD = Shot("review-old", setup=old_after_60_days, press=("4",), settle=at("old"),
           title="An entry unchanged for 118 days: who wrote it and when, from the history")


def test_review_snapshot_of_an_old_entry(snap_compare, demo_home):
    app = build_app(demo_home, OLD)
    assert snap_compare(app, terminal_size=OLD.size, run_before=lambda pilot: drive(pilot, OLD))
