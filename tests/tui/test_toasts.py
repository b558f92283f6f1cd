"""Toasts don't hide what the person needs: one that only informs goes sooner (3 s, the greeting 4 s),
and none that only informs is drawn over a dialog (help at 80x24, the edit dialog's buttons);
warnings and errors still are."""

from __future__ import annotations

from tests.tui.helpers import settle, toasts, until, until_dialog
from tui.app import INFO_SECONDS
from tui.screens.help import HelpDialog
from textual.widgets._toast import Toast


def notes(app) -> list:
    return toasts(app)


def painted(app) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def test_information_goes_sooner_and_warnings_keep_their_time(demo_home, make_app):
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await settle(app, pilot)
        app.notify("Saved.", title="Done")
        app.notify("Careful.", severity="warning")
        app.notify("Said how long.", timeout=9)
        await pilot.pause()
        timeouts = {n.message: n.timeout for n in notes(app)}
        assert timeouts == {"Saved.": INFO_SECONDS, "Careful.": app.NOTIFICATION_TIMEOUT, "Said how long.": 9}
        assert INFO_SECONDS < app.NOTIFICATION_TIMEOUT


async def test_the_greeting_is_short_lived(demo_home, make_app):
    app = make_app(demo_home, greet=True, poll=False)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        assert await until(pilot, lambda: any(n.title == "Waiting for you" for n in notes(app)))
        assert next(n for n in notes(app) if n.title == "Waiting for you").timeout == 4


async def test_information_is_not_drawn_over_help_at_80x24_and_comes_back(demo_home, make_app):
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(app, pilot)
        app.notify("Reloaded MEMORY.md from disk.", title="External change", timeout=600)
        await pilot.pause()
        assert await until(pilot, lambda: "Reloaded MEMORY.md" in painted(app))
        await pilot.press("question_mark")
        dialog = await until_dialog(pilot, HelpDialog)
        await pilot.pause()
        screen = painted(app)
        assert "Reloaded MEMORY.md" not in screen and "External change" not in screen
        assert "Esc closes · j/k, g/G scroll · ctrl+p: any action of any mode by name" in screen
        assert "ctrl+p" in screen and dialog.query_one("#help-keys")
        app.notify("config.yaml: memory_char_limit is not a number", severity="warning", timeout=600)
        assert await until(pilot, lambda: "memory_char_limit" in painted(app))  # a warning still shows
        await pilot.press("escape")
        assert await until(pilot, lambda: not isinstance(app.screen, HelpDialog))
        assert await until(pilot, lambda: "Reloaded MEMORY.md" in painted(app))  # back once help is closed
        assert all(t.styles.visibility == "visible" for t in app.screen.query(Toast))


async def test_information_raised_before_a_dialog_is_not_drawn_behind_it_either(demo_home, make_app):
    """The screen behind a dialog is drawn too, dimmed: an information toast it showed as the dialog
    opened is not drawn there either (the whole composite, as the terminal gets it, is read). A
    warning stays; the information comes back when the dialog closes, if its time isn't up."""
    from tools.shots import screen_text

    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await settle(app, pilot)
        app.notify("Now curating profile ops.", title="Profile", timeout=600)
        app.notify("memory_char_limit is not a number", title="config.yaml", severity="warning", timeout=600)
        assert await until(pilot, lambda: "Now curating profile ops." in screen_text(app))
        await pilot.press("question_mark")
        await until_dialog(pilot, HelpDialog)
        await settle(app, pilot)
        shown = screen_text(app)
        assert "Now curating profile ops." not in shown
        assert "memory_char_limit is not a number" in shown  # a warning still shows
        await pilot.press("escape")
        assert await until(pilot, lambda: not isinstance(app.screen, HelpDialog))
        assert await until(pilot, lambda: "Now curating profile ops." in screen_text(app))
