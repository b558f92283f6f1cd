"""ctrl+e in every dialog that edits an entry's or a record's text: the text goes to $EDITOR (a
fake one here, tests/fake_editor.py), comes back into the box, and is checked (count, capacity,
scan) and saved only as typed text is: on ctrl+s. ctrl+a selects all of the box's text."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import TextArea

from core.external_editor import NOT_SET
from core.store.memory import serialize
from tests.core.pending_support import build_home, entries, pending_files, stage
from tests.tui.helpers import memory_text, settle, shown, toasts, until_dialog
from tui.screens.dialogs import EditEntryDialog, EntryEditor
from tui.widgets.footer import KeyFooter

FAKE = Path(__file__).resolve().parents[1] / "fake_editor.py"
KEY = "sk-proj-" + "Xq7Lm2Pz9Rt4" + "Vb8Nc1Kd6Hs3" + "Jf5Gw0Ya2Ue"  # a key shape the scan flags


@pytest.fixture
def home(hermes_home) -> Path:
    memories = hermes_home / "memories"
    memories.mkdir(parents=True)
    (memories / "MEMORY.md").write_text(serialize(["Project uses pnpm", "Deploy with make ship"]))
    (memories / "USER.md").write_text("Name: Ana")
    (hermes_home / "config.yaml").write_text("memory:\n  memory_char_limit: 200\n  user_char_limit: 60\n")
    return hermes_home


@pytest.fixture
def editor(tmp_path, monkeypatch):
    """editor(*args) makes $EDITOR the fake editor doing `args`; editor(written=b"…") makes it save
    those bytes. The app runs it without suspending (a headless app can't): the seam."""
    monkeypatch.setattr(EntryEditor, "run_editor", lambda self, argv: subprocess.call(argv))
    monkeypatch.delenv("VISUAL", raising=False)
    log = tmp_path / "editor-log.json"
    monkeypatch.setenv("FAKE_EDITOR_LOG", str(log))

    def use(*args: str, written: bytes | str | None = None) -> Path:
        if written is not None:
            source = tmp_path / "editor-source"
            source.write_bytes(written.encode() if isinstance(written, str) else written)
            args = ("copy", str(source))
        monkeypatch.setenv("EDITOR", " ".join(shlex.quote(a) for a in (sys.executable, str(FAKE), *args)))
        return log

    return use


def notes(app) -> list[str]:
    return [n.message for n in toasts(app)]


def status(dialog, prefix: str = "edit") -> str:
    return str(dialog.query_one(f"#{prefix}-count").render())


async def test_ctrl_e_puts_the_editors_text_in_the_box_and_ctrl_s_saves_it(home, make_app, editor):
    log = editor(written="Tests run with pytest -x\n")
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("a")
        dialog = await until_dialog(pilot, EditEntryDialog)
        await pilot.press(*"draft")
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert dialog.query_one(TextArea).text == "Tests run with pytest -x"
        assert status(dialog).startswith("24 chars · MEMORY.md after saving:")
        assert "nothing is saved until you confirm" in notes(app)[-1]
        assert app.screen is dialog and memory_text(home) == serialize(["Project uses pnpm", "Deploy with make ship"])
        seen = json.loads(log.read_text())
        assert seen["text"] == "draft" and seen["file_mode"] == 0o600 and seen["dir_mode"] == 0o700
        assert not Path(seen["path"]).parent.exists()  # the private folder is gone
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert memory_text(home).endswith("\n§\nTests run with pytest -x")


async def test_ctrl_z_brings_back_the_text_from_before_the_editor(home, make_app, editor):
    editor(written="Project uses pnpm 9")
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("e")
        dialog = await until_dialog(pilot, EditEntryDialog)
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert dialog.query_one(TextArea).text == "Project uses pnpm 9"
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert dialog.query_one(TextArea).text == "Project uses pnpm"


async def test_the_editors_text_past_the_limit_is_refused_as_typed_text_is(home, make_app, editor):
    editor(written="x" * 300)
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        before = memory_text(home)
        await pilot.press("a")
        dialog = await until_dialog(pilot, EditEntryDialog)
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert status(dialog).startswith("300 chars") and "✗" in status(dialog)
        assert dialog.query_one("#save").disabled
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is dialog and memory_text(home) == before


async def test_the_editors_text_is_scanned_as_typed_text_is(home, make_app, editor):
    editor(written=f"Deploy token {KEY}")
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("a")
        dialog = await until_dialog(pilot, EditEntryDialog)
        assert "Security scan" not in str(dialog.query_one("#edit-findings").render())
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert "Security scan" in str(dialog.query_one("#edit-findings").render())


@pytest.mark.parametrize("setup, message", [
    (lambda editor, mp: mp.delenv("EDITOR", raising=False), NOT_SET),
    (lambda editor, mp: mp.setenv("EDITOR", "no-such-editor-hmc --wait"), "isn't a command found on PATH"),
    (lambda editor, mp: editor("exit", "1"), "The editor exited with status 1; the text is unchanged."),
    (lambda editor, mp: editor("keep"), "No change from the editor."),
    (lambda editor, mp: editor(written=b""), "The editor left the file empty"),
    (lambda editor, mp: editor(written=b"\xff\xfe bad"), "aren't UTF-8 (at byte 0)"),
], ids=["unset", "not-found", "non-zero-exit", "unchanged", "emptied", "invalid-utf8"])
async def test_an_editor_that_gives_nothing_usable_leaves_the_text_and_says_why(home, make_app, editor,
                                                                                monkeypatch, setup, message):
    editor("keep")
    setup(editor, monkeypatch)
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("e")
        dialog = await until_dialog(pilot, EditEntryDialog)
        await pilot.press(*" (v9)")
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert app.screen is dialog
        assert dialog.query_one(TextArea).text == "Project uses pnpm (v9)"
        assert message in notes(app)[-1]


async def test_a_terminal_that_cant_be_handed_over_says_so(home, make_app, editor, monkeypatch):
    editor(written="changed")
    monkeypatch.undo()  # the real run_editor: a headless app can't suspend
    monkeypatch.setenv("EDITOR", "true")
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("e")
        dialog = await until_dialog(pilot, EditEntryDialog)
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert dialog.query_one(TextArea).text == "Project uses pnpm"
        assert notes(app)[-1] == "This terminal can't be handed over to an editor; nothing changed."


async def test_ctrl_a_selects_all_and_typing_replaces_it(home, make_app):
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("e")
        dialog = await until_dialog(pilot, EditEntryDialog)
        await pilot.press("ctrl+a", *"New")
        assert dialog.query_one(TextArea).text == "New"
        await pilot.press("home", "X")  # home still goes to the line's start
        assert dialog.query_one(TextArea).text == "XNew"


async def test_the_footer_shows_ctrl_e(home, make_app):
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("a")
        dialog = await until_dialog(pilot, EditEntryDialog)
        await pilot.pause()
        assert "^e Editor" in shown(dialog.query_one(KeyFooter))


async def test_ctrl_e_in_the_pending_edit_dialog_then_approve(hermes_home, make_app, editor):
    home = build_home(hermes_home)
    stage(home, content="Likes espresso", rid="0000000a")
    editor(written="Likes espresso, no sugar\n")
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("2")
        await pilot.pause()
        await pilot.press("e")
        dialog = await until_dialog(pilot, EditEntryDialog)
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert dialog.query_one(TextArea).text == "Likes espresso, no sugar"
        assert "0000000a.json" in pending_files(home)  # nothing approved before ctrl+s
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert entries(home)[-1] == "Likes espresso, no sugar" and "0000000a.json" not in pending_files(home)


async def test_ctrl_e_in_the_merge_dialog(demo_home, make_app, editor):
    from tests.tui.test_review_mode import entries as review_entries, highlight, open_review
    from tui.screens.review import MergeDialog

    editor(written="Use pnpm, never npm, in every JS repo.\n")
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        lst = await open_review(app, pilot)
        pair = await highlight(pilot, lst, "similar")
        (_, _, first), (_, _, second) = pair.refs
        await pilot.press("m")
        dialog = await until_dialog(pilot, MergeDialog)
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert dialog.query_one(TextArea).text == "Use pnpm, never npm, in every JS repo."
        assert status(dialog, "merge").startswith("38 chars · saves ")
        assert first in review_entries(demo_home)
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        after = review_entries(demo_home)
        assert "Use pnpm, never npm, in every JS repo." in after and first not in after and second not in after


async def test_ctrl_e_in_the_skill_editor_keeps_the_text_exactly_and_checks_it(demo_home, make_app, editor):
    from tests.tui.test_pending_skills import IDS, open_skills, staged
    from tui.screens.skill_edit import SkillEditDialog

    log = editor(written="no frontmatter at all\n")
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_skills(app, pilot, IDS["create"])
        await pilot.press("e")
        dialog = await until_dialog(pilot, SkillEditDialog)
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert json.loads(log.read_text())["path"].endswith("/SKILL.md")
        assert dialog.query_one(TextArea).text == "no frontmatter at all\n"
        assert "frontmatter" in status(dialog)  # the queue's own check, as for typed text
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is dialog
    assert not (demo_home / "skills/paylane-webhook-replay").exists() and IDS["create"] in staged(demo_home)
