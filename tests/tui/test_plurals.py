"""Counts of one say one: "1 char", "1 skill" (the TUI said "1 chars", "1 skills")."""

from __future__ import annotations

import json

from tests.core.pending_support import build_home
from tests.tui.helpers import shown, until, until_dialog
from tui.screens.dialogs import EditEntryDialog
from tui.widgets.header import HmcHeader


async def test_the_edit_dialog_counts_one_char(hermes_home, make_app):
    app = make_app(build_home(hermes_home))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("a")
        dialog = await until_dialog(pilot, EditEntryDialog)
        await pilot.press("x")
        assert str(dialog.query_one("#edit-count").render()).startswith("1 char · MEMORY.md after saving")
        await pilot.press("y")
        assert str(dialog.query_one("#edit-count").render()).startswith("2 chars · ")


async def test_the_header_counts_one_skill_write(hermes_home, make_app):
    home = build_home(hermes_home)
    (home / "pending" / "skills").mkdir(parents=True)
    (home / "pending" / "skills" / "0000aaaa.json").write_text(json.dumps(
        {"id": "0000aaaa", "subsystem": "skills", "action": "delete", "summary": "delete alpha",
         "origin": "foreground", "created_at": 1000.0, "payload": {"action": "delete", "name": "alpha"}}))
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        header = app.screen.query_one(HmcHeader)
        assert await until(pilot, lambda: "1 skill " in shown(header))
        assert "1 skills" not in shown(header)
