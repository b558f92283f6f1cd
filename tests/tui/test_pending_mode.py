"""Pending mode through its real keys; every assertion checks the files on disk."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList

from tests.core.pending_support import MEMORY, NOW, USER, build_home, entries, pending_files, stage, write_raw
from tests.tui.helpers import settle, until, until_dialog
from tui.screens.dialogs import ConfirmDialog, EditEntryDialog, TextDialog
from tui.screens.pending import PendingScreen
from tui.widgets.diff import EntryDiff
from tui.widgets.gauge import CapacityGauge


def injection() -> str:
    """Text hmc's wider scan flags (a key shape) but Hermes's own scan lets through: approving asks first."""
    return "Deploy token " + "sk-proj-" + "Xq7Lm2Pz9Rt4" + "Vb8Nc1Kd6Hs3" + "Jf5Gw0Ya2Ue" + " for staging"


@pytest.fixture
def home(hermes_home) -> Path:
    home = build_home(hermes_home)
    stage(home, content="Likes espresso", rid="0000000a", created_at=NOW - 5 * 86400, origin="background_review")
    stage(home, "replace", content="User's editor: helix", old_text="neovim with lazy.nvim", rid="0000000b",
          created_at=NOW - 3 * 86400)
    stage(home, "remove", old_text="kubernetes", rid="0000000c", created_at=NOW - 2 * 86400)
    stage(home, content=injection(), rid="0000000d", created_at=NOW - 86400)
    return home


async def open_pending(app, pilot, row: int = 0) -> PendingScreen:
    await pilot.press("2")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, PendingScreen)
    screen.query_one("#pending-list", OptionList).highlighted = row
    await pilot.pause()
    return screen


async def test_list_detail_and_header_count(home, make_app):
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_pending(app, pilot, 1)
        assert [ins.id for ins, _ in screen.rows] == ["0000000a", "0000000b", "0000000c", "0000000d"]
        assert screen.current.id == "0000000b"
        assert app.header_state()["pending"] == 4
        diff = screen.query_one(EntryDiff)
        assert [c.kind for c in diff._changes].count("replaced") == 1
        assert screen.query_one("#gauge-after", CapacityGauge).used < screen.query_one("#gauge-now", CapacityGauge).used
        assert "WHOLE entry" in str(screen.query_one("#detail-warnings").render())


async def test_y_approves_and_the_record_goes(home, make_app):
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_pending(app, pilot, 1)
        await pilot.press("y")
        await settle(app, pilot)
        assert entries(home)[2] == "User's editor: helix"
        assert "0000000b.json" not in pending_files(home)
        assert [ins.id for ins, _ in screen.rows] == ["0000000a", "0000000c", "0000000d"]
        assert app.header_state()["pending"] == 3


async def test_y_on_a_record_that_cant_apply_does_nothing(home, make_app):
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_pending(app, pilot, 2)
        assert screen.check_action("approve", ()) is None
        await pilot.press("y")
        await settle(app, pilot)
        assert entries(home) == MEMORY and "0000000c.json" in pending_files(home)


async def test_scanner_hit_asks_before_writing(home, make_app):
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_pending(app, pilot, 3)
        await pilot.press("y")
        await pilot.pause()
        await until_dialog(pilot, ConfirmDialog)  # its worker may compute first: later on a loaded box
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")
        await settle(app, pilot)
        assert injection() not in entries(home) and "0000000d.json" in pending_files(home)
        await pilot.press("y")
        await pilot.pause()
        await pilot.press("y")
        await settle(app, pilot)
        assert injection() in entries(home) and "0000000d.json" not in pending_files(home)


async def test_n_rejects_and_u_brings_it_back(home, make_app):
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_pending(app, pilot, 0)
        raw = (home / "pending" / "memory" / "0000000a.json").read_bytes()
        await pilot.press("n")
        await settle(app, pilot)
        assert "0000000a.json" not in pending_files(home) and entries(home) == MEMORY
        await pilot.press("u")
        await settle(app, pilot)
        assert (home / "pending" / "memory" / "0000000a.json").read_bytes() == raw


async def test_e_edits_then_approves(home, make_app):
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_pending(app, pilot, 1)
        await pilot.press("e")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, EditEntryDialog)
        assert dialog.query_one("TextArea").text == "User's editor: helix"
        await pilot.press(*"; dark theme")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert entries(home)[2] == "User's editor: helix; dark theme"
        assert "0000000b.json" not in pending_files(home)


async def test_e_can_move_an_add_to_the_other_file(home, make_app):
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_pending(app, pilot, 0)
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("ctrl+t", "ctrl+s")
        await settle(app, pilot)
        assert entries(home, "user") == USER + ["Likes espresso"] and entries(home) == MEMORY


async def test_approve_all_states_the_counts_and_keeps_failures(home, make_app):
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_pending(app, pilot)
        await pilot.press("A")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        body = dialog.body.plain
        assert "Approve all 4" in body and "2 will be written" in body
        assert "1 can't apply" in body and "1 flagged by the security scan" in body
        await pilot.press("y")
        await settle(app, pilot)
        assert entries(home)[-1] == "Likes espresso" and entries(home)[2] == "User's editor: helix"
        assert pending_files(home) == ["0000000c.json", "0000000d.json"]
        assert [ins.id for ins, _ in screen.rows] == ["0000000c", "0000000d"]


async def test_reject_all_asks_then_clears(home, make_app):
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_pending(app, pilot)
        await pilot.press("R")
        await pilot.pause()
        await until_dialog(pilot, ConfirmDialog)  # its worker may compute first: later on a loaded box
        assert isinstance(app.screen, ConfirmDialog) and "Reject all 4" in app.screen.body.plain
        await pilot.press("y")
        await settle(app, pilot)
        assert pending_files(home) == [] and entries(home) == MEMORY


async def test_x_clears_only_those_that_cant_apply(home, make_app):
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_pending(app, pilot)
        await pilot.press("x")
        await pilot.pause()
        await pilot.press("y")
        await settle(app, pilot)
        assert pending_files(home) == ["0000000a.json", "0000000b.json", "0000000d.json"]


async def test_queue_refreshes_when_hermes_stages_or_another_process_approves(home, make_app):
    app = make_app(home, poll=True)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_pending(app, pilot)
        stage(home, content="Staged while you watched", rid="0000000e", created_at=NOW)
        # the file poll (every 0.5 s) sees it: waited for, since a loaded box polls later
        assert await until(pilot, lambda: "0000000e" in [ins.id for ins, _ in screen.rows])
        assert await until(pilot, lambda: app.header_state()["pending"] == 5)
        (home / "pending" / "memory" / "0000000a.json").unlink()  # approved elsewhere
        assert await until(pilot, lambda: "0000000a" not in [ins.id for ins, _ in screen.rows])


async def test_memory_change_elsewhere_updates_the_verdict(home, make_app):
    app = make_app(home, poll=True)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_pending(app, pilot, 2)
        assert not screen.current.can_apply
        app.curator.stores["memory"].add("Runs kubernetes at home")  # as if Hermes wrote it
        (home / "memories" / "MEMORY.md").touch()
        await pilot.pause(0.8)
        screen.reload(force=True)
        await pilot.pause()
        assert screen.current.id == "0000000c" and screen.current.can_apply


async def test_w_toggles_write_approval_in_config(home, make_app):
    (home / "config.yaml").write_text("# mine\nmemory:\n  write_approval: true  # keep\n")
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_pending(app, pilot)
        await pilot.press("w")
        await pilot.pause()
        await until_dialog(pilot, ConfirmDialog)  # its worker may compute first: later on a loaded box
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await settle(app, pilot)
        assert (home / "config.yaml").read_text() == "# mine\nmemory:\n  write_approval: false  # keep\n"


async def test_o_opens_the_target_in_memory_mode(home, make_app):
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_pending(app, pilot, 0)
        await pilot.press("o")
        await pilot.pause()
        assert app.current_mode == "memory"


async def test_p_shows_the_raw_record(home, make_app):
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_pending(app, pilot, 1)
        await pilot.press("p")
        await pilot.pause()
        await until_dialog(pilot, TextDialog)  # its worker may compute first: later on a loaded box
        assert isinstance(app.screen, TextDialog) and '"old_text": "neovim with lazy.nvim"' in app.screen.text


async def test_markup_and_broken_files_render_literally(hermes_home, make_app):
    home = build_home(hermes_home)
    stage(home, content="[bold red]boom[/] [link=x]y[/link] \x1b[31mred", rid="0000000f")
    write_raw(home, "0000beef.json", '{"id": "0000beef", "summary": "[/]", "payl')
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_pending(app, pilot, 0)
        for row in range(2):
            screen.query_one("#pending-list", OptionList).highlighted = row
            await pilot.pause()
        assert {ins.id for ins, _ in screen.rows} == {"0000000f", "0000beef"}
        broken = screen.current
        assert broken.reason_kind == "broken" and screen.check_action("approve", ()) is None
        await pilot.press("n")
        await settle(app, pilot)
        assert pending_files(home) == ["0000000f.json"]


async def test_empty_queue_explains_write_approval(hermes_home, make_app):
    home = build_home(hermes_home, config="memory:\n  write_approval: false\n")
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_pending(app, pilot)
        assert screen.rows == [] and screen.check_action("approve_all", ()) is None
        assert "Write approval is off" in str(screen.query_one("#detail-summary").render())


async def test_e_on_a_replace_whose_entry_is_gone_approves_an_add(hermes_home, make_app):
    home = build_home(hermes_home)
    stage(home, "replace", content="Deploys on Thursdays", old_text="Deploys",
          matched_entry="Deploys go out on Fridays", rid="00000011")
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_pending(app, pilot, 0)
        await pilot.press("e")
        await pilot.pause()
        assert "as an add" in app.screen.title_text
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert entries(home) == MEMORY + ["Deploys on Thursdays"] and pending_files(home) == []


async def test_on_0_22_an_unpinned_record_is_kept_by_y_and_e_pins_it_to_the_entry_shown(home, make_app):
    """0.22 refuses a destructive record staged without a pin (home's 0.19-shaped queue, the user
    now on 0.22): y writes nothing and says why; e turns it into the person's own, pinned edit."""
    app = make_app(home, hermes_version="0.22.2")
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_pending(app, pilot, 1)  # 0000000b: a replace of the editor entry
        assert screen.current.reason_kind == "unpinned"
        before = entries(home)
        await pilot.press("y")
        await settle(app, pilot)
        assert entries(home) == before and "0000000b.json" in pending_files(home)
        await pilot.press("e")
        await pilot.pause()
        await until_dialog(pilot, EditEntryDialog)  # its worker may compute first: later on a loaded box
        assert isinstance(app.screen, EditEntryDialog)
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert entries(home)[2] == "User's editor: helix"
        assert "0000000b.json" not in pending_files(home)


def staged_patch(hermes_home) -> tuple[Path, str]:
    """The demo-like home with one patch record staged on MEMORY entry 3 (neovim → helix)."""
    home = build_home(hermes_home)
    old = MEMORY[2]
    stage(home, "patch", content="helix", old_text="neovim with lazy.nvim", matched_entry=old, rid="0000000f")
    return home, old


async def test_a_patch_record_shows_its_span_and_y_applies_it(hermes_home, make_app):
    home, old = staged_patch(hermes_home)
    app = make_app(home, hermes_version="0.22.2")
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_pending(app, pilot, 0)
        (change,) = [c for c in screen.current.changes if c.kind == "patched"]
        assert change.after == old.replace("neovim with lazy.nvim", "helix")
        await pilot.press("y")
        await settle(app, pilot)
        assert entries(home)[2] == change.after and pending_files(home) == []


async def test_e_edits_a_patch_as_the_whole_entry_it_would_leave(hermes_home, make_app):
    """e on a patch record is not greyed: the editor holds the entry as the patch would leave it, and
    the save approves that text (the key was refused by its own availability check)."""
    home, old = staged_patch(hermes_home)
    app = make_app(home, hermes_version="0.22.2")
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_pending(app, pilot, 0)
        assert screen.why_not_edit(screen.current) is None
        await pilot.press("e")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, EditEntryDialog)
        assert dialog.query_one("TextArea").text == old.replace("neovim with lazy.nvim", "helix")
        await pilot.press(*"; 2 spaces")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert entries(home)[2] == old.replace("neovim with lazy.nvim", "helix") + "; 2 spaces"
        assert pending_files(home) == []
