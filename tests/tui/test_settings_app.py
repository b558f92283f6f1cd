"""Settings that persist: the theme picked in the palette, key overrides, the review's old threshold,
the poll interval; a bad config.toml gives a notice, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import settings as S
from core.curator import open_curator
from tests.tui.helpers import record_toasts, settle, toasts, until_dialog
from tools.shots import TODAY, frozen_clock
from tui.app import CuratorApp
from tui.screens.dialogs import EditEntryDialog
from tui.widgets.findings import FindingsList
from tui.widgets.footer import KeyFooter


@pytest.fixture
def config() -> Path:
    return S.settings_path()  # inside the test's own XDG_CONFIG_HOME


def app_on(home: Path, **kwargs) -> CuratorApp:
    """The app as `hmc` starts it: settings read from hmc's config.toml."""
    app = CuratorApp(open_curator(home, today=TODAY, clock=frozen_clock), greet=False, **kwargs)
    record_toasts(app)
    return app


def warnings(app) -> list[str]:
    return [n.message for n in toasts(app) if n.severity == "warning"]


async def test_theme_picked_in_the_palette_survives_a_restart(demo_home, config):
    app = app_on(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert app.theme != "nord"
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"change theme")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await pilot.pause(0.5)
        await pilot.press(*"nord")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.theme == "nord"
    assert S.load(config).theme == "nord"
    again = app_on(demo_home)
    async with again.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert again.theme == "nord"


async def test_a_key_override_survives_a_restart(demo_home, config):
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[keys]\n"memory.add" = "plus"\n"pending.approve_all" = "ctrl+a"\n')
    app = app_on(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.press("a")
        await pilot.pause()
        assert not isinstance(app.screen, EditEntryDialog)  # a no longer adds
        assert "+ Add" in str(app.screen.query_one(KeyFooter).render())  # the footer shows the new key
        await pilot.press("plus")
        await until_dialog(pilot, EditEntryDialog)
        assert warnings(app) == []


async def until_warned(app, pilot, timeout: float = 10.0) -> None:
    """The settings notice comes after the first frame: wait for it (a loaded CI box is slow)."""
    import time

    deadline = time.monotonic() + timeout
    while not warnings(app) and time.monotonic() < deadline:
        await pilot.pause(0.05)


async def test_a_broken_config_toml_gives_a_notice_and_the_defaults(demo_home, config):
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('theme = "nord"\npoll_interval = "fast"\n[keys\n')
    app = app_on(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await until_warned(app, pilot)
        assert app.is_running and app.current_mode == "memory"
        (notice,) = warnings(app)
        assert "config.toml" in notice and "not valid TOML" in notice
        assert app.poll_seconds == S.DEFAULT_POLL


async def test_bad_values_unknown_themes_and_binding_ids_are_named(demo_home, config):
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('theme = "no-such-theme"\npoll_interval = 0\n[keys]\n"memory.addd" = "plus"\n')
    app = app_on(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await until_warned(app, pilot)
        text = "\n".join(warnings(app))
        assert "poll_interval must be" in text
        assert "no theme named 'no-such-theme'" in text
        assert "'memory.addd' is not a binding id" in text
        assert app.theme != "no-such-theme"


async def test_poll_interval_is_used(demo_home, config):
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("poll_interval = 2.5\n")
    app = app_on(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert app.poll_timer._interval == 2.5


async def test_review_thresholds_come_from_the_settings(demo_home, config):
    """[review] stale_days moves `stale`, old_days moves `old` (the demo's entries were written by
    the agent 25 to 118 days before its today, so none is old at the default 180)."""
    async def count(app, pilot) -> dict[str, int]:
        await pilot.press("4")
        await settle(app, pilot)
        found = app.screen.query_one(FindingsList).findings
        return {kind: sum(1 for f in found if f.kind == kind) for kind in ("stale", "old")}

    default = app_on(demo_home)
    async with default.run_test(size=(120, 36)) as pilot:
        got = await count(default, pilot)
        assert got["stale"] > 0 and got["old"] == 0
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[review]\nstale_days = 3650\nold_days = 60\n")
    relaxed = app_on(demo_home)
    async with relaxed.run_test(size=(120, 36)) as pilot:
        got = await count(relaxed, pilot)
        assert got["stale"] == 0 and got["old"] >= 5
