"""The first-run screen at 120×36 and 80×24: a folder that isn't a home, one that doesn't exist, and
a folder that can't be created (the reason in one line)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tui.screens.first_run import MISSING, NOT_HOME, FirstRunApp

SIZES = [(120, 36), (80, 24)]


@pytest.mark.parametrize("size", SIZES, ids=["120x36", "80x24"])
def test_not_a_home(snap_compare, isolated_user, size):
    folder = isolated_user / "projects" / "notes"
    folder.mkdir(parents=True)
    (folder / "todo.txt").write_text("x")
    assert snap_compare(FirstRunApp(folder, NOT_HOME, "--home"), terminal_size=size)


@pytest.mark.parametrize("size", SIZES, ids=["120x36", "80x24"])
def test_missing(snap_compare, isolated_user, size):
    assert snap_compare(FirstRunApp(isolated_user / ".hermes", MISSING, "the default"), terminal_size=size)


@pytest.mark.parametrize("size", SIZES, ids=["120x36", "80x24"])
def test_cannot_create(snap_compare, isolated_user, size):
    (isolated_user / "hermes").write_text("a file where the folder should go")
    app = FirstRunApp(isolated_user / "hermes" / "home", MISSING, "$HERMES_HOME")

    async def press_create(pilot):
        await pilot.press("y")
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=press_create)
    assert sorted(p.name for p in Path(isolated_user).iterdir()) == ["hermes"]  # nothing created
