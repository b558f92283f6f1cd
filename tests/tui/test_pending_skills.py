"""Pending mode's skills tab: real keys on a copy of the demo home, files checked on disk."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from textual.widgets import OptionList, TextArea

from core.demo.build import PENDING_SKILL_IDS
from tests.tui.helpers import settle, shown, toasts, until, until_dialog
from tui.screens.dialogs import ConfirmDialog, TextDialog
from tui.screens.pending_skills import SkillsPendingScreen
from tui.screens.skill_edit import SkillEditDialog

IDS = PENDING_SKILL_IDS


def tree(home: Path) -> dict[str, str]:
    """Every file under skills/ with a hash of its bytes."""
    root = home / "skills"
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def staged(home: Path) -> list[str]:
    return sorted(p.stem for p in (home / "pending" / "skills").glob("*.json"))


async def open_skills(app, pilot, record_id: str | None = None) -> SkillsPendingScreen:
    await pilot.pause()
    await pilot.press("2")
    await pilot.pause()
    await pilot.press("s")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, SkillsPendingScreen)
    assert await until(pilot, lambda: screen.loaded)
    if record_id is not None:
        ids = [row.ins.id for row in screen.rows]
        screen.query_one("#skills-list", OptionList).highlighted = ids.index(record_id)
        await settle(app, pilot)
    return screen


async def test_both_queues_are_tabs_and_the_header_counts_both(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.press("2")
        await settle(app, pilot)
        bar = shown(app.screen.query_one("#pending-bar"))
        assert "Memory 13" in bar and "Skills 7" in bar
        assert "13 pending ·  7 skills" in shown(app.screen.query_one("HmcHeader"))
        screen = await open_skills(app, pilot)
        assert app.current_mode == "skills" and len(screen.rows) == 7
        assert {row.ins.id for row in screen.rows} == set(IDS.values())
        bar = shown(screen.query_one("#skills-bar"))
        assert "Memory 13" in bar and "Skills 7" in bar and "2 can't apply" in bar
        listed = shown(screen.query_one("#skills-list"))
        assert "✗ path escapes" in listed and "✗ no match" in listed and listed.count("✓ ready") == 5
        await pilot.press("m")
        await pilot.pause()
        assert app.current_mode == "pending"


async def test_the_detail_shows_files_frontmatter_and_the_diff(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_skills(app, pilot, IDS["edit"])
        assert await until(pilot, lambda: "weekly-ops-report/SKILL.md" in shown(screen.query_one("#skill-files")))
        facts = str(screen.query_one("#skill-facts").render())
        assert "every Monday" in facts and "SKILL.md before" in facts and "SKILL.md after" in facts
        diff = screen.query_one("#skill-diff").render()
        assert "+Every Monday before 10:00" in str(diff) and "-4. Write five bullets" in str(diff)
        screen.query_one("#skills-list", OptionList).highlighted = [r.ins.id for r in screen.rows].index(IDS["escape"])
        await settle(app, pilot)
        assert "Path traversal" in str(screen.query_one("#skill-status").render())
        assert screen.check_action("approve", ()) is None
        await pilot.press("y")  # greyed: says why, writes nothing
        await pilot.pause()
        assert any("Path traversal" in n.message for n in toasts(app))
        assert IDS["escape"] in staged(demo_home)


async def test_y_approves_a_patch_and_the_record_goes(demo_home, make_app):
    before = tree(demo_home)
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_skills(app, pilot, IDS["patch"])
        await pilot.press("y")
        await settle(app, pilot)
        assert await until(pilot, lambda: len(screen.rows) == 6)
        assert "6 skills" in shown(screen.query_one("HmcHeader"))
    text = (demo_home / "skills/tideway-release/SKILL.md").read_text()
    assert "`uv run pytest -q -n auto`" in text and "alembic check" in text
    assert IDS["patch"] not in staged(demo_home)
    after = tree(demo_home)
    assert {k for k in after if after[k] != before.get(k)} == {"tideway-release/SKILL.md"}


async def test_n_rejects_and_u_brings_it_back(demo_home, make_app):
    before = tree(demo_home)
    path = demo_home / "pending/skills" / f"{IDS['escape']}.json"
    raw = path.read_bytes()
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_skills(app, pilot, IDS["escape"])
        await pilot.press("n")
        await settle(app, pilot)
        assert not path.exists() and tree(demo_home) == before
        await pilot.press("u")
        await settle(app, pilot)
        assert path.read_bytes() == raw
        assert await until(pilot, lambda: len(screen.rows) == 7)
        assert screen.check_action("undo", ()) is None


async def test_u_undoes_the_last_approval_from_the_journal(demo_home, make_app):
    before = tree(demo_home)
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_skills(app, pilot, IDS["delete"])
        assert screen.check_action("undo", ()) is None  # nothing approved or rejected yet
        await pilot.press("y")
        await settle(app, pilot)
        assert not (demo_home / "skills/csv-export-v1").exists()
        assert await until(pilot, lambda: screen.undoable is not None)
        await pilot.press("u")
        dialog = await until_dialog(pilot, ConfirmDialog)
        assert "csv-export-v1" in dialog.body.plain and "recreate" in dialog.body.plain
        await pilot.press("y")
        await settle(app, pilot)
        assert tree(demo_home) == before
        assert await until(pilot, lambda: screen.undoable is None)


async def test_e_edits_the_proposed_skill_md_then_approves_it(demo_home, make_app):
    app = make_app(demo_home)
    edited = ("---\nname: paylane-webhook-replay\ndescription: Replay failed Paylane webhooks on staging.\n---\n"
              "# Replaying\n\n1. Staging only, oldest first.\n")
    async with app.run_test(size=(120, 36)) as pilot:
        await open_skills(app, pilot, IDS["create"])
        await pilot.press("e")
        dialog = await until_dialog(pilot, SkillEditDialog)
        assert "name: paylane-webhook-replay" in dialog.query_one(TextArea).text
        dialog.query_one(TextArea).load_text(edited)
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(app, pilot)
    assert (demo_home / "skills/paylane-webhook-replay/SKILL.md").read_text() == edited
    assert IDS["create"] not in staged(demo_home)


async def test_e_refuses_an_edit_that_breaks_the_frontmatter(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_skills(app, pilot, IDS["create"])
        await pilot.press("e")
        dialog = await until_dialog(pilot, SkillEditDialog)
        dialog.query_one(TextArea).load_text("no frontmatter at all\n")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        await until_dialog(pilot, SkillEditDialog)  # its worker may compute first: later on a loaded box
        assert isinstance(app.screen, SkillEditDialog)  # kept open: the reason shows under the text
        assert "frontmatter" in str(dialog.query_one("#edit-count").render())
    assert not (demo_home / "skills/paylane-webhook-replay").exists() and IDS["create"] in staged(demo_home)


async def test_A_approves_all_with_the_simulated_counts(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_skills(app, pilot)
        await pilot.press("A")
        dialog = await until_dialog(pilot, ConfirmDialog)
        body = dialog.body.plain
        assert "Approve all 7 staged skill writes" in body and "5 will be written" in body and "2 can't apply" in body
        await pilot.press("y")
        await settle(app, pilot)
        assert await until(pilot, lambda: len(screen.rows) == 2)
    assert staged(demo_home) == sorted([IDS["patch_stale"], IDS["escape"]])
    skills = demo_home / "skills"
    assert not (skills / "csv-export-v1").exists()
    assert (skills / "paylane-webhook-debug/scripts/check-clock.sh").is_file()
    assert (skills / "paylane-webhook-replay/SKILL.md").is_file()
    assert "every Monday" in (skills / "weekly-ops-report/SKILL.md").read_text()
    assert "skip the tests" not in (skills / "tideway-release/SKILL.md").read_text()  # the ../ write


async def test_A_never_writes_past_a_scan_hit(demo_home, make_app):
    secret = "sk-" + "proj-" + "".join("aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5kL7x")
    payload = {"action": "write_file", "name": "tideway-release", "file_path": "references/keys.md",
               "file_content": f"Staging key: {secret}\n", "replace_all": False}
    record = {"id": "00aa00aa", "subsystem": "skills", "action": "write_file", "summary": "write keys",
              "origin": "foreground", "created_at": 1.0, "payload": payload}
    (demo_home / "pending/skills/00aa00aa.json").write_text(json.dumps(record))
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_skills(app, pilot, "00aa00aa")
        assert secret not in str(screen.query_one("#skill-diff").render())  # masked
        await pilot.press("A")
        dialog = await until_dialog(pilot, ConfirmDialog)
        assert "flagged by the security scan" in dialog.body.plain
        await pilot.press("y")
        await settle(app, pilot)
    assert "00aa00aa" in staged(demo_home) and not (demo_home / "skills/tideway-release/references").exists()


async def test_x_clears_the_writes_that_can_never_apply(demo_home, make_app):
    """The stale patch's detail says Hermes's fuzzy matcher may still apply it: `x` keeps it."""
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_skills(app, pilot, IDS["patch_stale"])
        detail = str(screen.query_one("#skill-status").render())
        assert "fuzzy matcher may still find it" in detail and "x keeps it, for Hermes" in detail
        await pilot.press("x")
        dialog = await until_dialog(pilot, ConfirmDialog)
        assert IDS["escape"] in dialog.body.plain and IDS["patch_stale"] not in dialog.body.plain
        assert "Hermes may still apply" in dialog.body.plain
        await pilot.press("y")
        await settle(app, pilot)
    assert len(staged(demo_home)) == 6 and IDS["escape"] not in staged(demo_home)
    assert IDS["patch_stale"] in staged(demo_home)


async def test_an_invalid_writes_detail_says_x_clears_it(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_skills(app, pilot, IDS["escape"])
        assert "x clears every write that can never apply" in str(screen.query_one("#skill-status").render())


async def test_w_toggles_only_the_skills_write_approval_line(demo_home, make_app):
    config = demo_home / "config.yaml"
    before = config.read_text().splitlines()
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_skills(app, pilot)
        assert screen.write_approval
        await pilot.press("w")
        dialog = await until_dialog(pilot, ConfirmDialog)
        assert "including those from its background review" in dialog.body.plain
        await pilot.press("y")
        await settle(app, pilot)
        assert await until(pilot, lambda: not screen.write_approval)
    after = config.read_text().splitlines()
    changed = [(a, b) for a, b in zip(before, after) if a != b]
    assert len(before) == len(after) and changed == [("  write_approval: true", "  write_approval: false")]
    assert after.index("skills:") < after.index("  write_approval: false")
    assert "memory:" in after and after[after.index("memory:") + 4] == "  write_approval: true"


async def test_p_shows_the_raw_record(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_skills(app, pilot, IDS["escape"])
        await pilot.press("p")
        await pilot.pause()
        await until_dialog(pilot, TextDialog)  # its worker may compute first: later on a loaded box
        assert isinstance(app.screen, TextDialog) and '"file_path": "../tideway-release/SKILL.md"' in app.screen.text


async def test_hostile_record_renders_literally(demo_home, make_app):
    name = "[bold]x[/bold]\x1b[31m\u202e"
    summary = "[link=https://evil.example]click[/link] \x1b]52;c;AAAA\x07 [red]boom"
    content = f"---\nname: evil\ndescription: \"[b]d[/b]\"\n---\n# [blink]hi[/blink] \x1b[2J\u2066\n"
    record = {"id": "00bb00bb", "subsystem": "skills", "action": "create", "summary": summary,
              "origin": "foreground", "created_at": 2.0,
              "payload": {"action": "create", "name": name, "content": content, "replace_all": False}}
    (demo_home / "pending/skills/00bb00bb.json").write_text(json.dumps(record))
    app = make_app(demo_home)
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await open_skills(app, pilot, "00bb00bb")
        listed = shown(screen.query_one("#skills-list"))
        assert "[bold]x[/bold]␛[31m\\u202e" in listed or "[bold]x[/bold]␛[31…" in listed
        assert "[link=https://evil.example]click[/link] ␛]52;c;AAAA␇ [red]boom" in listed
        title = shown(screen.query_one("#skill-title"))
        assert "[bold]x[/bold]␛[31m\\u202e" in title
        detail = shown(screen.query_one("#skills-detail"))
        assert "\x1b" not in detail and "\u202e" not in detail
        assert await until(pilot, lambda: "[blink]hi[/blink] ␛[2J\\u2066" in str(
            screen.query_one("#skill-diff").render()))


async def test_palette_finds_the_skill_actions_from_memory_mode(demo_home, make_app):
    from tests.tui.test_palette import best

    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        assert app.current_mode == "memory"
        assert best(app, "approve all skill writes")[0] == "pending: Approve all skill writes"
        assert best(app, "approve all")[0] == "pending: Approve all"
        assert best(app, "skill write approval")[0] == "pending: Turn skill write approval on or off"
        text, help_text, hit = best(app, "reject all skill writes")
        assert text == "pending: Reject all skill writes" and "skills tab" in help_text
        hit.callback()
        await until_dialog(pilot, ConfirmDialog)
        assert app.current_mode == "skills"


async def test_the_start_up_notice_counts_both_queues(demo_home, make_app):
    app = make_app(demo_home, greet=True)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await until(pilot, lambda: any("skill writes" in n.message for n in toasts(app)))
        note = next(n.message for n in toasts(app) if "skill writes" in n.message)
        assert note.splitlines()[1] == "13 memory + 7 skill writes wait (2 weeks): press 2"  # after the profile's line


async def test_a_100_kb_skill_md_shows_its_whole_diff(demo_home, make_app):
    body = "---\nname: big\ndescription: A big one.\n---\n" + "".join(
        f"## Step {i}\nRun `uv run thing --n {i}` and check the output.\n" for i in range(1500))
    assert 90_000 < len(body) < 100_000
    record = {"id": "00cc00cc", "subsystem": "skills", "action": "create", "summary": "create big",
              "origin": "foreground", "created_at": 3.0,
              "payload": {"action": "create", "name": "big", "content": body, "replace_all": False}}
    (demo_home / "pending/skills/00cc00cc.json").write_text(json.dumps(record))
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_skills(app, pilot, "00cc00cc")
        assert await until(pilot, lambda: "Step 1499" in str(screen.query_one("#skill-diff").render()))
        assert screen.current.can_apply
        await pilot.press("y")
        await settle(app, pilot)
    assert (demo_home / "skills/big/SKILL.md").read_text() == body


async def test_with_hermes_guard_on_nothing_is_approved_and_it_says_why(demo_home, make_app):
    config = demo_home / "config.yaml"
    config.write_text(config.read_text().replace("skills:\n", "skills:\n  guard_agent_created: true\n"))
    before = tree(demo_home)
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_skills(app, pilot, IDS["patch"])
        assert "guard_agent_created" in screen.why_not("approve") and "guard_agent_created" in screen.why_not("approve_all")
        await pilot.press("y")
        await pilot.press("A")
        await settle(app, pilot)
        assert any("/skills approve" in n.message for n in toasts(app))
    assert tree(demo_home) == before and len(staged(demo_home)) == 7


async def test_a_batch_lists_its_ops_and_y_applies_them_all(demo_home, make_app):
    """0.22's batch record: the detail pane names every op and which op each file change is from."""
    skill = "tideway-release"
    ops = [{"action": "write_file", "name": skill, "file_path": "references/batch-notes.md", "file_content": "n\n"},
           {"action": "patch", "name": skill, "file_path": "references/batch-notes.md", "old_string": "n",
            "new_string": "notes"}]
    rid = "bbbb0001"
    record = {"id": rid, "subsystem": "skills", "action": "batch", "summary": "batch(2 ops)", "origin": "foreground",
              "created_at": 4_000_000_000.0, "payload": {"action": "batch", "operations": ops}}
    (demo_home / "pending" / "skills" / f"{rid}.json").write_text(json.dumps(record))
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_skills(app, pilot, rid)
        files = str(screen.query_one("#skill-files").render())
        assert "2 operations, applied all or none" in files
        assert "op 1/2: write_file tideway-release references/batch-notes.md" in files
        assert "(op 2/2)" in files
        await pilot.press("y")
        await settle(app, pilot)
        assert await until(pilot, lambda: rid not in staged(demo_home))
    assert (demo_home / "skills" / skill / "references/batch-notes.md").read_text() == "notes\n"


async def test_a_filter_that_hides_every_skill_write_says_so_not_an_empty_queue(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_skills(app, pilot)
        await pilot.press("slash", *"zzzz")
        await settle(app, pilot)
        detail = shown(screen.query_one("#skill-title")) + shown(screen.query_one("#skill-summary"))
        assert "Nothing matches the filter" in detail and "hides all 7 staged writes" in detail
        assert "No staged skill writes" not in detail
        await pilot.press("escape")
        await settle(app, pilot)
        assert "Nothing matches" not in shown(screen.query_one("#skill-title"))
    assert len(staged(demo_home)) == 7
