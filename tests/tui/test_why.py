"""Why did Hermes forget, from the TUI: the palette's command asks for the fact and shows every
cause's verdict; a text that can't be a fact is said under the box; search mode's w traces the
selected message; the review's unsaved finding adds the fact, prefilled, and the file on disk holds it
(driven through the real keys, on the demo home)."""

from __future__ import annotations

from tests.tui.helpers import memory_text, settle, until, until_dialog


def plain(dialog) -> str:
    """The text dialog's body as a person reads it (its grid rendered 100 columns wide)."""
    from rich.console import Console

    console = Console(width=100, record=True, file=open("/dev/null", "w"))
    console.print(dialog.text)
    return console.export_text()
from tui.screens.dialogs import EditEntryDialog, TextDialog
from tui.screens.why import FactDialog


async def open_palette_why(app, pilot) -> None:
    from tui.screens.palette_dialog import PaletteDialog

    await pilot.press("ctrl+p")
    assert await until(pilot, lambda: isinstance(app.screen, PaletteDialog))
    await pilot.press(*"why did hermes")
    await pilot.pause(0.2)
    await pilot.press("enter")
    assert await until(pilot, lambda: isinstance(app.screen, FactDialog))


async def test_the_palette_asks_for_the_fact_and_shows_the_verdicts(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await open_palette_why(app, pilot)
        await pilot.press("enter")  # nothing typed: said under the box, the dialog stays
        await pilot.pause()
        problem = str(app.screen.query_one("#why-problem").render())
        assert "give the fact" in problem and isinstance(app.screen, FactDialog)
        await pilot.press(*"harbor-web TLS certificate expires", "enter")
        assert await until(pilot, lambda: isinstance(app.screen, TextDialog), timeout=20)
        dialog = app.screen
        assert dialog.title_text.startswith("Why doesn't Hermes know “harbor-web TLS certificate expires”?")
        body = plain(dialog)
        assert body.split()[:2] == ["yes", "never-saved"]
        assert "me lo ricorderò" in body and "→ do          Add it yourself" in body
        assert "no  in-memory" in body


async def test_w_on_a_search_hit_traces_its_words(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("3")
        await settle(app, pilot)
        await pilot.press(*"certificato TLS")
        # the hits of the whole query, not of a part of it typed so far ("certificat" finds French too)
        assert await until(pilot, lambda: (getattr(app.screen, "_last_ran", None) or ("",))[0] == "certificato TLS"
                           and getattr(app.screen, "_slow", None) is None and len(app.screen.results.items) > 0,
                           timeout=20)
        await pilot.press("down", "w")
        assert await until(pilot, lambda: isinstance(app.screen, TextDialog), timeout=20)
        assert app.screen.title_text.startswith("Why doesn't Hermes know “Ricorda che il certificato TLS")
        assert plain(app.screen).split()[:2] == ["yes", "never-saved"]


async def test_the_unsaved_finding_adds_the_fact_prefilled(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("4")
        await settle(app, pilot)
        review = app.screen
        assert await until(pilot, lambda: any(f.kind == "unsaved" for f in review.findings), timeout=30)
        target = next(f for f in review.findings if f.kind == "unsaved")
        assert await until(pilot, lambda: review.current is not None)
        for _ in range(len(review.findings)):
            if review.current is target:
                break
            await pilot.press("down")
        assert review.current is target
        await pilot.press("e")
        assert await until(pilot, lambda: isinstance(app.screen, EditEntryDialog))
        editor = app.screen
        assert editor.title_text == "Add the unsaved fact"
        assert editor.query_one("TextArea").text.startswith("Ricorda che il certificato TLS di harbor-web")
        await pilot.press("ctrl+s")  # the user's words as they are
        assert await until(pilot, lambda: "il certificato TLS di harbor-web scade" in memory_text(demo_home),
                           timeout=20)
        assert await until(pilot, lambda: not any(f.kind == "unsaved" for f in review.findings), timeout=30)


async def test_the_timeline_lists_refused_calls_with_the_reason(demo_home, make_app):
    from tui.screens.timeline import TimelineScreen, is_refusal

    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("t")
        assert await until(pilot, lambda: isinstance(app.screen, TimelineScreen) and app.screen.refused, timeout=30)
        screen = app.screen
        rows = [i for i, item in enumerate(screen.shown) if is_refusal(item)]
        assert len(rows) == 3
        assert "3 of 3 refused" in str(screen.query_one("#tl-title").render())
        screen.query_one("#tl-writes").highlighted = rows[0]
        await pilot.pause()
        detail = str(screen.query_one("#tl-diff").render())
        assert "Nothing was written: No entry contains 'Node 20.11'." in detail and "- Node 20.11" in detail
        assert screen.why_not("rollback") == "Roll back: the tool refused this call, so it wrote nothing"
        await pilot.press("R")  # nothing happens: the binding is greyed
        await pilot.pause()
        await until_dialog(pilot, TimelineScreen)  # its worker may compute first: later on a loaded box
        assert isinstance(app.screen, TimelineScreen)
        screen.query_one("#tl-target").value = "user"
        await pilot.pause()
        assert sum(1 for item in screen.shown if is_refusal(item)) == 1


async def test_an_entrys_history_names_the_refused_call_about_it(demo_home, make_app):
    from tui.screens.entry_history import EntryHistoryScreen

    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("down", "down", "i")  # MEMORY.md's third entry: "This machine: … Node 20 via fnm"
        assert await until(pilot, lambda: isinstance(app.screen, EntryHistoryScreen) and app.screen.loaded,
                           timeout=30)
        assert app.screen.entry.startswith("This machine:")
        status = str(app.screen.query_one("#eh-status").render())
        assert "The tool refused a patch of it" in status and "No entry contains 'Node 20.11'" in status
