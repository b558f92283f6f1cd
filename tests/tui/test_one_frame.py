"""A key's change reaches the terminal in one frame (tui.screens.base.OneFrame; measured through a
real terminal by tests/bench/bench_keys.py). Frames are counted, never timed: every frame the app
would write (Textual's _display with something to show) between a key and the screen at rest."""

from __future__ import annotations

from tests.tui.helpers import settle, until_dialog
from tools.shots import settled
from tui.screens.dialogs import EditEntryDialog
from tui.screens.help import HelpDialog


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
        await at_rest(pilot)
        frames.reset()
        await pilot.press("question_mark")
        await at_rest(pilot)
        assert isinstance(app.screen, HelpDialog)
        assert frames.markdown_at_first is True  # composed, not mounted from a thread after the first frame
        assert app.screen.query("MarkdownBlock")
        assert "memory mode" in str(app.screen.query_one(".dialog-title").render())
