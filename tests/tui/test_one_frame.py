"""A key's change reaches the terminal in one frame (tui.screens.base.OneFrame; measured through a
real terminal by tests/bench/bench_keys.py). Frames are counted, never timed: every frame the app
would write (Textual's _display with something to show) between a key and the screen at rest."""

from __future__ import annotations

import pytest

from tests.tui.helpers import settle, until, until_dialog
from tools.shots import settled
from tui.screens.dialogs import EditEntryDialog
from tui.screens.help import HelpDialog


@pytest.fixture(autouse=True)
def settle_by_resume_only(monkeypatch):
    """A screen here paints on its resume, not at SETTLE_AT_MOST after its mount: on a loaded box
    that time can pass before the resume, and the screen painted early counted two frames."""
    from tui.screens import base

    monkeypatch.setattr(base, "SETTLE_AT_MOST", 60.0)


class Frames:
    """Counts the frames `app` renders for its terminal, and which screen each one showed."""

    def __init__(self, app) -> None:
        self.shown: list[object] = []
        self.markdown_at_first: bool | None = None
        display = app._display

        def counting(screen, renderable) -> None:
            if renderable is not None and not app._batch_count:
                self.shown.append(screen)
                if isinstance(screen, HelpDialog) and self.markdown_at_first is None:
                    self.markdown_at_first = bool(screen.query("MarkdownBlock"))
            display(screen, renderable)

        app._display = counting

    def reset(self) -> None:
        self.shown.clear()


async def at_rest(pilot) -> None:
    await settle(pilot.app, pilot)
    await pilot.pause(0.3)
    await settle(pilot.app, pilot)


async def frames_of(pilot, frames: Frames, key: str) -> list[object]:
    """The frames painted from pressing `key` on an app at rest until it is at rest again."""
    await at_rest(pilot)
    frames.reset()
    await pilot.press(key)
    await at_rest(pilot)
    return frames.shown


async def test_a_mode_shown_again_is_one_frame(make_app, demo_home):
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        frames = Frames(app)
        await settled(pilot)
        await pilot.press("2")
        await at_rest(pilot)
        await pilot.press("1")
        await at_rest(pilot)
        frames.reset()
        await pilot.press("2")  # switch_mode repaints at the end of its batch: not once more after it
        await at_rest(pilot)
        assert len(frames.shown) == 1, frames.shown
        frames.reset()
        await pilot.press("1")
        await at_rest(pilot)
        assert len(frames.shown) == 1, frames.shown


async def test_closing_a_dialog_is_one_frame(make_app, demo_home):
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        frames = Frames(app)
        await settled(pilot)
        await at_rest(pilot)
        await pilot.press("e")
        await until_dialog(pilot, EditEntryDialog)  # its worker waits for the dialog: no settle() here
        await pilot.pause(0.3)
        assert app.screen.query("KeyFooter"), "the dialog's own footer"
        frames.reset()
        await pilot.press("escape")  # the dialog's removal doesn't lay out and paint the screen below again
        await at_rest(pilot)
        assert not isinstance(app.screen, EditEntryDialog)
        assert len(frames.shown) == 1, frames.shown


async def test_help_paints_with_its_text_in_its_first_frame(make_app, demo_home):
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        frames = Frames(app)
        await settled(pilot)
        await frames_of(pilot, frames, "question_mark")
        assert isinstance(app.screen, HelpDialog)
        assert frames.markdown_at_first is True  # composed, not mounted from a thread after the first frame
        assert app.screen.query("MarkdownBlock")
        assert "memory mode" in str(app.screen.query_one(".dialog-title").render())


async def built_ahead(pilot) -> None:
    """Wait until the other modes' screens are built, off screen, after the first one (tui.modes.prebuild_all)."""
    from tui.modes import PREBUILT

    app = pilot.app
    await settled(pilot)
    assert await until(pilot, lambda: all(m in app._screen_stacks and app._screen_stacks[m][0].is_mounted
                                          for m in PREBUILT))
    await at_rest(pilot)


@pytest.mark.parametrize("key", ["2", "3", "4"])
async def test_a_first_visit_is_one_frame(make_app, demo_home, key):
    """A mode's first visit shows the screen built ahead, with its data, in one frame (its refresh
    from the files on the visit changes nothing here, so nothing repaints)."""
    app = make_app(demo_home, poll=False, prebuild=True)
    async with app.run_test(size=(120, 36)) as pilot:
        frames = Frames(app)
        await built_ahead(pilot)
        assert app.current_mode == "memory" and app.screen.MODE == "memory"  # built, not shown
        frames.reset()
        await pilot.press(key)
        await at_rest(pilot)
        assert app.current_mode == {"2": "pending", "3": "search", "4": "review"}[key]
        assert len(frames.shown) == 1, frames.shown


async def test_a_mode_built_ahead_shows_the_files_as_they_are_on_its_first_visit(make_app, demo_home):
    """Built ahead, a screen still shows what is on disk when it is visited: a staged write
    approved elsewhere is gone from pending mode; a session Hermes added meanwhile is listed."""
    import sqlite3

    from tests.tui.conftest import NOW

    app = make_app(demo_home, poll=False, prebuild=True)  # no file poll: the visit itself looks
    async with app.run_test(size=(120, 36)) as pilot:
        await built_ahead(pilot)
        pending = app._screen_stacks["pending"][0]
        before = len(pending.rows)
        staged = sorted((demo_home / "pending" / "memory").glob("*.json"))
        staged[0].unlink()
        with sqlite3.connect(demo_home / "state.db") as db:
            db.execute("INSERT INTO sessions (id, source, started_at) VALUES ('fresh-one', 'cli', ?)",
                       (NOW,))
        await pilot.press("2")
        await at_rest(pilot)
        assert app.screen is pending and len(pending.rows) == before - 1
        await pilot.press("3")
        await settle(app, pilot)
        await at_rest(pilot)
        assert "fresh-one" in [getattr(item, "id", None) for item in app.screen.results.items]


def test_the_app_hmc_opens_builds_the_other_modes_ahead(monkeypatch, demo_home):
    from tui.app import CuratorApp
    from tui.cli.common import CliContext
    from tui.cli.open_tui import run_tui

    opened = []
    monkeypatch.setattr(CuratorApp, "run", lambda self, **_: opened.append(self.prebuild_enabled))
    assert run_tui(CliContext(home=str(demo_home)), lambda ctx: 1) == 0
    assert opened == [True]


def test_hmc_holds_the_collector_off_while_the_tui_starts(monkeypatch, demo_home):
    import gc

    from tui.cli import main as cli_main
    from tui.cli import open_tui

    seen = []
    monkeypatch.setattr(open_tui, "run_tui", lambda ctx, demo: seen.append(gc.isenabled()) or 0)
    assert cli_main.main(["--home", str(demo_home)]) == 0
    assert seen == [False] and gc.isenabled()  # back on however the TUI ends


async def test_the_collector_is_back_once_the_first_frame_is_out(make_app, demo_home):
    import gc

    app = make_app(demo_home, poll=False)
    gc.disable()  # as hmc starts the TUI
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await settled(pilot)
            assert gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()  # what the app froze goes back to the collector (other tests run in this process)


async def test_the_timeline_paints_with_its_writes_in_its_first_frame(make_app, demo_home):
    """t shows the history memory mode rebuilt for its origin lines at once; its own rebuild, the
    same history, repaints nothing. (A terminal tall enough for the demo's 31 rows: a list longer
    than its view paints its scrollbar in a second frame, as Textual measures an OptionList's lines
    when it first renders them, and that is not what this test is about.)"""
    from tui.screens.timeline import TimelineScreen

    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 44)) as pilot:
        frames = Frames(app)
        await settled(pilot)
        assert await until(pilot, lambda: app.screen.timeline is not None)  # memory mode's origin lines
        await frames_of(pilot, frames, "t")
        assert isinstance(app.screen, TimelineScreen) and app.screen.shown
        assert len(frames.shown) == 1, frames.shown



async def test_the_palette_opens_complete_in_one_frame(make_app, demo_home):
    """ctrl+p paints the palette with every command listed and the first one's help in one frame
    (Textual's CommandPalette gathered its hits asynchronously: six frames)."""
    from tui.screens.palette_dialog import CommandList, PaletteDialog

    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        frames = Frames(app)
        await settled(pilot)
        await frames_of(pilot, frames, "ctrl+p")
        assert isinstance(app.screen, PaletteDialog)
        assert len(frames.shown) == 1, frames.shown
        assert app.screen.query_one(CommandList).option_count == len(app.palette_commands())
