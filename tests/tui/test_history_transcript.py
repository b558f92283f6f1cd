"""A session's transcript opened from an entry's history (memory mode's i, then Enter) shows only
the keys that work there: it was opened at the call that wrote the entry, not at a search's matches,
so n/N (next and previous match) are not offered. A transcript opened from a search still has them."""

from __future__ import annotations

from tests.tui.helpers import settle, toasts, until, until_dialog
from tui.screens.entry_history import EntryHistoryScreen
from tui.widgets.footer import KeyFooter


def footer_text(screen) -> str:
    return screen.query_one(KeyFooter).render().plain


async def test_a_transcript_opened_from_an_entrys_history_offers_no_match_keys(demo_home, make_app):
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("tab", "i")  # USER.md's first entry, written by the agent
        history = await until_dialog(pilot, EntryHistoryScreen)
        assert await until(pilot, lambda: history.loaded)
        await pilot.press("enter")
        assert await until(pilot, lambda: app.current_mode == "search")
        search = app.screen
        assert await until(pilot, lambda: getattr(search, "session_info", None) is not None)
        await pilot.pause()
        footer = footer_text(search)
        assert "Next match" not in footer and "Prev match" not in footer and "Clear filters" not in footer
        assert "Back" in footer and "Copy link" in footer and "What it knew" in footer  # what does apply
        assert not search.check_action("hit", (1,))
        await pilot.press("n")  # not a key here: nothing moves, no notice
        await pilot.pause()
        assert search.view == "transcript" and not toasts(app)


async def test_a_transcript_opened_from_a_search_keeps_them(demo_home, make_app):
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("3", *"node")
        search = app.screen
        assert await until(pilot, lambda: bool(search.results.items))
        await pilot.press("down", "enter")
        assert await until(pilot, lambda: search.view == "transcript" and bool(search.transcript.hit_ids))
        await pilot.pause()
        footer = footer_text(search)
        assert "Next match" in footer and "Prev match" in footer


async def test_an_origin_not_found_offers_only_the_way_back(demo_home, make_app):
    """Memory mode's o on an entry no call wrote: no session is open, so only Esc (and help, quit)."""
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("down", "o")  # MEMORY.md's 2nd entry: the deploy key, typed by hand
        assert await until(pilot, lambda: app.current_mode == "search")
        search = app.screen
        assert await until(pilot, lambda: "Origin not found" in str(search.query_one("#transcript-title").render()))
        await settle(app, pilot)
        footer = footer_text(search)
        assert "Back" in footer
        for gone in ("Expand", "Copy link", "To memory", "Why not", "What it knew", "Clear filters", "match"):
            assert gone not in footer
