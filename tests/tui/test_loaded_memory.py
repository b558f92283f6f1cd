"""Memory mode says which sessions loaded each entry, and names the open chats still running on an
older snapshot; a write made now reads "not loaded yet" (driven through the real keys)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.store.memory import serialize
from tests.core.snapshot_fixtures import make_db, prompt, sha
from tests.tui.helpers import memory_text, settle, until
from tools.shots import NOW

DAY = 86400.0


@pytest.fixture
def home(hermes_home) -> Path:
    (hermes_home / "memories").mkdir(parents=True)
    (hermes_home / "memories" / "MEMORY.md").write_text(serialize(["Deploys on Thursdays.", "Uses pytest -x."]))
    (hermes_home / "memories" / "USER.md").write_text("Ana")
    old, new = prompt(["Deploys on Fridays."], ["Ana"]), prompt(["Deploys on Thursdays.", "Uses pytest -x."], ["Ana"])
    make_db(hermes_home / "state.db", [
        dict(id="20261020_090000_aaaaaaaa", source="telegram", display_name="Ops room", started_at=NOW - 26 * DAY,
             last_activity_at=NOW - DAY, system_prompt_hash=sha(old)),
        dict(id="20261114_090000_bbbbbb", source="cli", started_at=NOW - DAY, ended_at=NOW - DAY + 60,
             system_prompt_hash=sha(new)),
        dict(id="20261114_100000_cccccc", source="cli", started_at=NOW - DAY / 2, ended_at=NOW - DAY / 2 + 60,
             system_prompt_hash=sha(new))], [(sha(old), old), (sha(new), new)]).close()
    return hermes_home


async def test_each_entry_says_which_sessions_loaded_it_and_the_stale_chat_is_named(home, make_app):
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await until(pilot, lambda: app.screen._loads)
        lines = app.screen.origin_lines("memory")
        assert lines["Deploys on Thursdays."].endswith("loaded by 2 sessions since 14 Nov")
        assert [x.session.id for x in app.screen.stale_chats] == ["20261020_090000_aaaaaaaa"]
        banner = str(app.screen.query_one("#snapshot-banner").render())
        assert banner.startswith("1 chat still runs on memory from") and "telegram · Ops room" in banner
        await pilot.press("a", *"Brand new fact", "ctrl+s")
        await settle(app, pilot)
        assert memory_text(home).endswith("\n§\nBrand new fact")
        assert await until(pilot, lambda: "Brand new fact" in app.screen.origin_lines("memory"))
        assert app.screen.origin_lines("memory")["Brand new fact"].endswith(
            "not loaded yet: written after the last session started")


async def test_no_state_db_no_banner_and_no_loaded_lines(home, make_app):
    (home / "state.db").unlink()
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.pause(0.3)
        assert not app.screen.query("#snapshot-banner") and app.screen._loads == {}


async def test_a_damaged_state_db_gives_no_lines_and_no_error(home, make_app):
    (home / "state.db").write_bytes(b"garbage" * 100)
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.pause(0.3)
        assert app.screen._loads == {} and app.is_running


async def test_l_in_search_shows_what_the_session_knew(home, make_app):
    from tui.screens.dialogs import TextDialog

    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("3")
        await settle(app, pilot)
        assert await until(pilot, lambda: len(app.screen.results.items) == 3)
        await pilot.press("down")  # the most recently active first: the telegram chat is the oldest
        await pilot.press("down", "down", "l")
        assert await until(pilot, lambda: isinstance(app.screen, TextDialog))
        dialog = app.screen
        assert dialog.title_text.startswith("What telegram · Ops room knew — loaded")
        body = dialog.text.plain
        assert body.startswith("since it loaded them, the files changed:")
        assert "~ memory: Deploys on Fridays. → Deploys on Thursdays." in body
        assert "+ memory: Uses pytest -x." in body and "MEMORY (your personal notes) [0% — 19/2,200 chars]" in body
        await pilot.press("escape")
        await pilot.press("up", "up", "l")
        assert await until(pilot, lambda: isinstance(app.screen, TextDialog))
        assert app.screen.text.plain.startswith("a new session would load exactly this")
