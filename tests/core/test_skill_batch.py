"""Skill `batch` records (0.22's operations array as one record): read, inspected op by op, approved
all or nothing, undone whole. Records the release never stages (its checks run before staging)
are written by hand here; tests/conformance/test_skill_batch.py has the ones it stages."""

from __future__ import annotations

import pytest

from core.pending import skill_undo
from core.pending import skills as sk
from core.pending.skills import SkillApproveRefused, SkillQueue
from tests.core.test_pending_skills import home, skill_md, stage, tree  # noqa: F401  (home: a fixture)


def batch(*ops: dict) -> dict:
    return {"action": "batch", "operations": list(ops)}


CREATE = {"action": "create", "name": "fresh", "content": skill_md("fresh", "Fresh", "Do it once.")}
WRITE = {"action": "write_file", "name": "fresh", "file_path": "references/a.md", "file_content": "a\n"}
PATCH = {"action": "patch", "name": "fresh", "old_string": "once", "new_string": "twice"}


def test_a_batch_is_read_and_inspected_op_by_op(home):
    rid = stage(home, batch(CREATE, WRITE, PATCH, {"action": "patch", "name": "alpha", "old_string": "blue",
                                                   "new_string": "green"}))
    queue = SkillQueue(home)
    record = queue.get(rid)
    assert record.action == "batch" and record.name == "fresh, alpha"
    ins = queue.inspect(record)
    assert ins.can_apply, ins.reason
    ops = ins.operations()
    assert [(i, a, n) for i, a, n, _fp, _c in ops] == [(0, "create", "fresh"), (1, "write_file", "fresh"),
                                                       (2, "patch", "fresh"), (3, "patch", "alpha")]
    # op 3 diffs against what op 1 wrote, not against the disk (where nothing is yet)
    patch = ops[2][4][0]
    assert patch.path == "fresh/SKILL.md" and "Do it once." in patch.before and "Do it twice." in patch.after
    assert [c.path for c in ins.changes] == ["fresh/SKILL.md", "fresh/references/a.md", "fresh/SKILL.md",
                                             "alpha/SKILL.md"]
    assert not (home / "skills" / "fresh").exists()  # inspecting writes nothing


def test_approve_applies_every_op_and_one_undo_puts_all_back(home):
    before = tree(home / "skills")
    rid = stage(home, batch(CREATE, WRITE, PATCH, {"action": "remove_file", "name": "alpha",
                                                   "file_path": "references/old.md"}))
    queue = SkillQueue(home)
    ins = queue.approve(rid)
    assert (home / "skills/fresh/SKILL.md").read_text().count("Do it twice.") == 1
    assert (home / "skills/fresh/references/a.md").read_text() == "a\n"
    assert not (home / "skills/alpha/references/old.md").exists()
    assert ins.journal_id is not None and queue.list() == []
    undo = queue.undoable()
    assert undo.action == "batch" and undo.skill_dir == "skills/fresh, skills/alpha"
    queue.undo()
    assert tree(home / "skills") == before


@pytest.mark.parametrize("ops, text", [
    ([], "operations must be a non-empty array."),
    ([WRITE] * 21, "operations is capped at 20 ops per call."),
    ([CREATE, {"action": "delete", "name": "alpha"}],
     "delete must be the SOLE op in its call — it doesn't compose with other ops' rollback."),
    ([{"action": "edit", "name": "alpha", "content": skill_md("alpha")}],
     "operations[0]: unknown action 'edit'. Batchable: create, patch, remove_file, write_file; delete must be sole."),
    ([{"name": "alpha"}], "operations[0] needs an 'action'."),
    ([{"action": "patch", "old_string": "a", "new_string": "b"}], "operations[0] needs a 'name' (the skill it targets)."),
    ([WRITE, CREATE], "operations[1]: create for 'fresh' must precede that skill's other ops."),
    ([CREATE, WRITE, dict(WRITE, file_content="b")],
     "operations[2]: write_file on 'references/a.md' of skill 'fresh' — an earlier op in this batch already touched"),
    ([{"action": "patch", "name": "alpha", "content": "x", "old_string": "a"}],
     "operations[0] (patch on 'alpha'): Pass EITHER content (full SKILL.md rewrite) OR old_string/new_string"),
    ([{"action": "create", "name": "x", "file_content": "y"}],
     "operations[0] (create on 'x'): content is required for 'create'. Provide the full SKILL.md text "
     "(frontmatter + body). Note: this op carries 'file_content' (that key is for write_file) — move that text "
     "to 'content'."),
    ([{"action": "create", "name": "x", "category": "a/b", "content": skill_md("x")}],
     "operations[0] (create on 'x'): Invalid category"),
])
def test_the_releases_checks_refuse_the_whole_batch_before_any_op(home, ops, text):
    before = tree(home / "skills")
    rid = stage(home, batch(*ops))
    queue = SkillQueue(home)
    ins = queue.inspect(queue.get(rid))
    assert not ins.can_apply and ins.kind == sk.INVALID and ins.reason.startswith(text), ins.reason
    with pytest.raises(SkillApproveRefused):
        queue.approve(rid)
    assert tree(home / "skills") == before and [r.id for r in queue.list()] == [rid]


def test_one_failing_op_refuses_the_batch_and_names_it(home):
    before = tree(home / "skills")
    rid = stage(home, batch(CREATE, WRITE, {"action": "patch", "name": "alpha", "old_string": "nowhere",
                                            "new_string": "x"}))
    queue = SkillQueue(home)
    with pytest.raises(SkillApproveRefused) as exc:
        queue.approve(rid)
    assert exc.value.kind == sk.NO_MATCH
    assert str(exc.value).startswith("operations[2] (patch on 'alpha') failed: the patch text is not in the file")
    assert str(exc.value).endswith(" — batch aborted, all touched skills rolled back.")
    assert tree(home / "skills") == before and queue.undoable() is None


def test_a_write_failing_half_way_puts_back_what_the_first_ops_wrote(home, monkeypatch):
    before = tree(home / "skills")
    rid = stage(home, batch(CREATE, WRITE, {"action": "patch", "name": "alpha", "old_string": "blue",
                                            "new_string": "green"}))
    real, calls = skill_undo.write_file, []

    def flaky(skills, rel, data):
        calls.append(rel)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        real(skills, rel, data)

    monkeypatch.setattr(skill_undo, "write_file", flaky)
    queue = SkillQueue(home)
    with pytest.raises(OSError):
        queue.approve(rid)
    assert len(calls) == 3
    assert tree(home / "skills") == before  # all or nothing
    assert [r.id for r in queue.list()] == [rid]


def test_a_delete_batch_is_the_single_delete(home):
    rid = stage(home, batch({"action": "delete", "name": "alpha"}))
    queue = SkillQueue(home)
    ins = queue.approve(rid)
    assert not (home / "skills/alpha").exists()
    assert {c.path for c in ins.changes} == {"alpha/SKILL.md", "alpha/references/old.md"}


def test_approve_all_simulates_a_batch_after_the_records_before_it(home):
    stage(home, {"action": "create", "name": "fresh", "content": skill_md("fresh", "Fresh", "Do it once.")})
    stage(home, batch(PATCH, WRITE))
    stage(home, batch(CREATE))  # exists by then
    queue = SkillQueue(home)
    assert queue.simulate_all() == (2, 1)
    done, failed = queue.approve_all()
    assert len(done) == 2 and [f[1] for f in failed] == [sk.EXISTS]


def test_cli_show_and_list_print_each_op_with_its_diff(home, capsys, monkeypatch):
    from tui.cli.main import main

    monkeypatch.setenv("COLUMNS", "200")
    rid = stage(home, batch(CREATE, WRITE, PATCH))
    assert main(["--home", str(home), "pending", "show", rid, "--subsystem", "skills"]) == 0
    out = capsys.readouterr().out
    assert "3 operations, applied all or none:" in out
    assert "op 2/3: write_file fresh references/a.md" in out
    assert "op 3/3: patch fresh" in out and "-Do it once." in out and "+Do it twice." in out
    assert main(["--home", str(home), "pending", "show", rid, "--subsystem", "skills", "--json"]) == 0
    shown = __import__("json").loads(capsys.readouterr().out)
    assert [op["action"] for op in shown["operations"]] == ["create", "write_file", "patch"]
    assert shown["operations"][2]["files"][0]["path"] == "fresh/SKILL.md"
    assert any(line.startswith("+Do it twice.") for line in shown["operations"][2]["diffs"][0])
    assert main(["--home", str(home), "pending", "list", "--subsystem", "skills"]) == 0
    out = capsys.readouterr().out
    assert f"{rid}  batch" in out and "✓ can apply" in out and "1 would apply, 0 would be kept" in out
