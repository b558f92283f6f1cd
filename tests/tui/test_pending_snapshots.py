"""Every pending-mode state and dialog, exactly as the screenshots show them (tools/shots/pending.py)."""

from __future__ import annotations

import pytest

from core.curator import open_curator
from tools.shots import TODAY, frozen_clock
from tools.shots.pending import SCENARIOS
from tui.app import CuratorApp


def build(home, shot) -> CuratorApp:
    if shot.setup:
        shot.setup(home)
    return CuratorApp(open_curator(home, today=TODAY, clock=frozen_clock), greet=shot.greet, poll=False)


async def drive(pilot, shot) -> None:
    await pilot.pause()
    for key in shot.press:
        await pilot.press(key)
        await pilot.pause()
    if shot.settle:
        await shot.settle(pilot)
    await pilot.pause()


@pytest.mark.parametrize("shot", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_pending_snapshot(shot, snap_compare, demo_home):
    app = build(demo_home, shot)
    assert snap_compare(app, terminal_size=shot.size, run_before=lambda pilot: drive(pilot, shot))
