"""Undo of skill approvals: hmc's journal keeps what an approval replaced or deleted under skills/."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from core.pending import skill_undo
from core.pending.skills import SkillQueue, SkillUndoRefused
from core.store.journal import MAX_TREE_BYTES, History, parse_journal
from tests.core.test_pending_skills import skill_md, tree

ROOT = Path(__file__).resolve().parents[2]
_ids = iter(range(0xD0000000, 0xE0000000))


def stage(home: Path, payload: dict) -> str:
    """A staged record, oldest first, with ids of its own (test_pending_skills's names fixed ids)."""
    rid = f"{next(_ids):08x}"
    rec = {"id": rid, "subsystem": "skills", "action": payload.get("action", ""), "summary": "s",
           "origin": "foreground", "created_at": float(int(rid, 16)), "payload": payload}
    (home / "pending" / "skills" / f"{rid}.json").write_text(json.dumps(rec))
    return rid


@pytest.fixture
def home(tmp_path):
    h = tmp_path / "home"
    alpha = h / "skills" / "tools" / "alpha"
    (alpha / "references").mkdir(parents=True)
    (alpha / "scripts").mkdir()
    (alpha / "SKILL.md").write_text(skill_md("alpha", "Alpha", "Use the blue button.\nThen wait."))
    (alpha / "references" / "old.md").write_text("old\n")
    (alpha / "scripts" / "run.sh").write_text("#!/bin/sh\necho hi\n")
    os.chmod(alpha / "scripts" / "run.sh", 0o755)
    (alpha / "assets").mkdir()  # an empty folder: a delete's undo brings it back too
    (h / "pending" / "skills").mkdir(parents=True)
    (h / "config.yaml").write_text("skills:\n  write_approval: true\n")
    return h


def q(home: Path, tmp_path: Path) -> SkillQueue:
    return SkillQueue(home, lock_dir=tmp_path)


def modes(root: Path) -> dict:
    return {p.relative_to(root).as_posix(): p.lstat().st_mode & 0o777 for p in sorted(root.rglob("*"))}


def approve_then_undo(home, tmp_path, payload) -> tuple[dict, dict]:
    """Approve `payload`, undo it: the skills/ tree (bytes, folders, modes) is as before."""
    before, before_modes = tree(home / "skills"), modes(home / "skills")
    queue = q(home, tmp_path)
    ins = queue.approve(stage(home, payload))
    assert ins.journal_id is not None and ins.undo_note is None
    after = tree(home / "skills")
    assert after != before
    info = queue.undoable()
    assert info is not None and info.record_id == ins.journal_id and info.undoable
    done = queue.undo()
    assert done.record_id == ins.journal_id
    assert tree(home / "skills") == before
    assert modes(home / "skills") == before_modes
    assert queue.undoable() is None
    return before, after


# -- each action --------------------------------------------------------------------------------


def test_undo_create_removes_the_skill_and_the_category_folder_it_made(home, tmp_path):
    _, after = approve_then_undo(home, tmp_path, {"action": "create", "name": "beta", "category": "newcat",
                                                  "content": skill_md("beta")})
    assert "newcat/beta/SKILL.md" in after
    assert not (home / "skills" / "newcat").exists()


def test_undo_create_in_an_existing_category_keeps_the_category(home, tmp_path):
    approve_then_undo(home, tmp_path, {"action": "create", "name": "beta", "category": "tools",
                                       "content": skill_md("beta")})
    assert (home / "skills" / "tools" / "alpha" / "SKILL.md").exists()


def test_undo_edit_and_patch_restore_the_old_text(home, tmp_path):
    approve_then_undo(home, tmp_path, {"action": "edit", "name": "alpha", "content": skill_md("alpha", "v2")})
    approve_then_undo(home, tmp_path, {"action": "patch", "name": "alpha", "old_string": "blue",
                                       "new_string": "red"})
    approve_then_undo(home, tmp_path, {"action": "patch", "name": "alpha", "file_path": "references/old.md",
                                       "old_string": "old", "new_string": "new"})


def test_undo_delete_brings_back_the_whole_skill_with_its_files_folders_and_modes(home, tmp_path):
    os.symlink("../SKILL.md", home / "skills" / "tools" / "alpha" / "references" / "link.md")  # a link inside
    _, after = approve_then_undo(home, tmp_path, {"action": "delete", "name": "alpha"})
    assert not any(k.startswith("tools") for k in after)  # the emptied category went too
    assert os.readlink(home / "skills" / "tools" / "alpha" / "references" / "link.md") == "../SKILL.md"
    assert os.stat(home / "skills" / "tools" / "alpha" / "scripts" / "run.sh").st_mode & 0o777 == 0o755


def test_undo_write_file_new_and_replaced(home, tmp_path):
    _, after = approve_then_undo(home, tmp_path, {"action": "write_file", "name": "alpha",
                                                  "file_path": "templates/t.md", "file_content": "T\n"})
    assert "tools/alpha/templates/t.md" in after
    assert not (home / "skills" / "tools" / "alpha" / "templates").exists()  # the folder it made is gone
    approve_then_undo(home, tmp_path, {"action": "write_file", "name": "alpha",
                                       "file_path": "references/old.md", "file_content": "replaced\n"})


def test_undo_remove_file_puts_it_back(home, tmp_path):
    approve_then_undo(home, tmp_path, {"action": "remove_file", "name": "alpha", "file_path": "scripts/run.sh"})


def test_undos_go_back_one_approval_at_a_time(home, tmp_path):
    queue = q(home, tmp_path)
    start = tree(home / "skills")
    queue.approve(stage(home, {"action": "create", "name": "beta", "content": skill_md("beta")}))
    middle = tree(home / "skills")
    queue.approve(stage(home, {"action": "edit", "name": "beta", "content": skill_md("beta", "v2")}))
    assert queue.undoable().action == "edit"
    queue.undo()
    assert tree(home / "skills") == middle
    assert queue.undoable().action == "create"
    queue.undo()
    assert tree(home / "skills") == start
    with pytest.raises(SkillUndoRefused) as exc:
        queue.undo()
    assert exc.value.kind == "nothing"


# -- refusals -------------------------------------------------------------------------------------


def test_undo_refused_after_a_later_change_and_names_the_file(home, tmp_path):
    queue = q(home, tmp_path)
    queue.approve(stage(home, {"action": "edit", "name": "alpha", "content": skill_md("alpha", "v2")}))
    md = home / "skills" / "tools" / "alpha" / "SKILL.md"
    md.write_text(skill_md("alpha", "Hermes wrote this later"))
    snapshot = tree(home / "skills")
    with pytest.raises(SkillUndoRefused) as exc:
        queue.undo()
    assert exc.value.kind == "changed" and "skills/tools/alpha/SKILL.md" in str(exc.value)
    assert tree(home / "skills") == snapshot  # the later change is not lost
    assert queue.undoable() is not None  # still there, for when the file is put back


def test_undo_of_a_create_refused_when_a_file_was_added_to_the_skill_since(home, tmp_path):
    queue = q(home, tmp_path)
    queue.approve(stage(home, {"action": "create", "name": "beta", "content": skill_md("beta")}))
    (home / "skills" / "beta" / "notes.md").write_text("mine")
    with pytest.raises(SkillUndoRefused) as exc:
        queue.undo()
    assert exc.value.kind == "changed" and "skills/beta/notes.md" in str(exc.value)
    assert (home / "skills" / "beta" / "SKILL.md").exists() and (home / "skills" / "beta" / "notes.md").exists()


def test_undo_of_a_delete_refused_when_the_skill_was_made_again(home, tmp_path):
    queue = q(home, tmp_path)
    queue.approve(stage(home, {"action": "delete", "name": "alpha"}))
    (home / "skills" / "tools" / "alpha").mkdir(parents=True)
    (home / "skills" / "tools" / "alpha" / "SKILL.md").write_text(skill_md("alpha", "new one"))
    with pytest.raises(SkillUndoRefused) as exc:
        queue.undo()
    assert exc.value.kind == "changed" and "SKILL.md" in str(exc.value)
    assert "new one" in (home / "skills" / "tools" / "alpha" / "SKILL.md").read_text()


def test_undo_never_follows_a_symlink_planted_after_the_approval(home, tmp_path):
    queue = q(home, tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "references").mkdir()
    queue.approve(stage(home, {"action": "remove_file", "name": "alpha", "file_path": "references/old.md"}))
    refs = home / "skills" / "tools" / "alpha" / "references"
    assert not refs.exists()  # the emptied folder went with the file
    refs.symlink_to(outside / "references")  # a link where the folder was
    with pytest.raises(SkillUndoRefused) as exc:
        queue.undo()
    assert exc.value.kind == "escapes" and "symbolic link" in str(exc.value)
    assert list((outside / "references").iterdir()) == []
    # the skill folder itself swapped for a link
    refs.unlink()
    alpha = home / "skills" / "tools" / "alpha"
    os.rename(alpha, tmp_path / "moved")
    alpha.symlink_to(tmp_path / "moved")
    with pytest.raises(SkillUndoRefused) as exc:
        queue.undo()
    assert exc.value.kind == "escapes"
    assert not (tmp_path / "moved" / "references").exists()


def test_a_record_naming_a_path_outside_its_skill_is_refused(home, tmp_path):
    history = History(home)
    root = Path(os.path.realpath(home)) / "skills"
    evil = skill_undo.PathChange("other/SKILL.md", skill_undo.PathState.file(b"x", 0o644),
                                 skill_undo.PathState("absent"))
    rec = history.prepare_tree("skills", root, "tools/alpha", "delete", "forged", [evil])
    history.commit(rec.id)
    with pytest.raises(SkillUndoRefused) as exc:
        q(home, tmp_path).undo()
    assert exc.value.kind == "escapes" and "outside skills/tools/alpha/" in str(exc.value)


def test_over_the_cap_the_approval_applies_but_says_it_cant_be_undone(home, tmp_path, monkeypatch):
    monkeypatch.setattr(skill_undo, "MAX_TREE_BYTES", 10)
    queue = q(home, tmp_path)
    ins = queue.approve(stage(home, {"action": "edit", "name": "alpha", "content": skill_md("alpha", "v2")}))
    assert "can't be undone" in ins.undo_note
    assert "v2" in (home / "skills" / "tools" / "alpha" / "SKILL.md").read_text()
    info = queue.undoable()
    assert info is not None and not info.undoable
    with pytest.raises(SkillUndoRefused) as exc:
        queue.undo()
    assert exc.value.kind == "not-kept"
    line = (History(home).path.read_bytes().splitlines()[0])
    assert b'"b64"' not in line  # the journal holds hashes only


def test_a_one_megabyte_file_is_kept_and_put_back(home, tmp_path):
    assert MAX_TREE_BYTES >= 2 << 20
    big = ("x" * 99 + "\n") * 10_000  # 1,000,000 bytes
    (home / "skills" / "tools" / "alpha" / "assets" / "big.txt").write_text(big)
    approve_then_undo(home, tmp_path, {"action": "remove_file", "name": "alpha", "file_path": "assets/big.txt"})


def test_an_approval_that_changes_nothing_leaves_nothing_to_undo(home, tmp_path):
    queue = q(home, tmp_path)
    same = (home / "skills" / "tools" / "alpha" / "references" / "old.md").read_text()
    ins = queue.approve(stage(home, {"action": "write_file", "name": "alpha", "file_path": "references/old.md",
                                     "file_content": same}))
    assert ins.journal_id is None and ins.undo_note == "it changed nothing"
    assert queue.undoable() is None


def test_the_undo_is_journaled_and_memory_readers_ignore_skill_records(home, tmp_path):
    queue = q(home, tmp_path)
    queue.approve(stage(home, {"action": "edit", "name": "alpha", "content": skill_md("alpha", "v2")}))
    queue.undo()
    history = History(home)
    trees = history.tree_records("skills")
    assert [t.action for t in trees] == ["edit", "undo"] and trees[1].undoes == trees[0].id
    assert history.records() == [] and history.undoable() is None and history.removed_entries() == []
    assert history.outcome("anything") == ("none", None)


# -- crash safety ------------------------------------------------------------------------------------

KILLER = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, {root!r})
    from core.pending.skills import SkillQueue
    queue = SkillQueue({home!r}, lock_dir={lock!r})
    if sys.argv[1] == "before-write":
        queue._execute = lambda plan, rid="": os._exit(9)  # killed after the prepared line, before writing
    elif sys.argv[1] == "after-write":
        from core.store.journal import History
        History.commit = lambda self, rid: os._exit(9)  # killed after writing, before the commit line
    queue.approve({rid!r})
""")


def _kill_mid_approve(home, tmp_path, rid, when):
    script = KILLER.format(root=str(ROOT), home=str(home), lock=str(tmp_path), rid=rid)
    proc = subprocess.run([sys.executable, "-c", script, when], env=os.environ.copy(), capture_output=True)
    assert proc.returncode == 9, proc.stderr.decode()


def test_killed_between_prepared_and_write_leaves_no_undoable_phantom(home, tmp_path):
    rid = stage(home, {"action": "edit", "name": "alpha", "content": skill_md("alpha", "v2")})
    before = tree(home / "skills")
    _kill_mid_approve(home, tmp_path, rid, "before-write")
    history = History(home)
    assert len(history.tree_in_doubt("skills")) == 1
    assert tree(home / "skills") == before
    queue = q(home, tmp_path)
    assert queue.recover_claims() == [f"{rid}.json"]  # not applied: the record comes back
    assert queue.undoable() is None  # settled: aborted, the write never happened
    assert history.tree_in_doubt("skills") == [] and history.tree_records() == []


def test_killed_between_write_and_commit_is_undoable(home, tmp_path):
    rid = stage(home, {"action": "edit", "name": "alpha", "content": skill_md("alpha", "v2")})
    before = tree(home / "skills")
    _kill_mid_approve(home, tmp_path, rid, "after-write")
    assert "v2" in (home / "skills" / "tools" / "alpha" / "SKILL.md").read_text()
    queue = q(home, tmp_path)
    assert queue.recover_claims() == []  # the journal (settled: committed) says it was applied
    assert os.listdir(home / "pending" / "skills") == []
    assert queue.undoable() is not None
    queue.undo()
    assert tree(home / "skills") == before


def test_in_doubt_record_of_a_file_changed_since_is_dropped(home, tmp_path):
    rid = stage(home, {"action": "edit", "name": "alpha", "content": skill_md("alpha", "v2")})
    _kill_mid_approve(home, tmp_path, rid, "after-write")
    (home / "skills" / "tools" / "alpha" / "SKILL.md").write_text(skill_md("alpha", "v3 by Hermes"))
    assert q(home, tmp_path).undoable() is None


def test_a_failure_mid_approval_keeps_what_ran_undoable(home, tmp_path, monkeypatch):
    queue = q(home, tmp_path)
    before = tree(home / "skills")
    rid = stage(home, {"action": "write_file", "name": "alpha", "file_path": "templates/t.md",
                       "file_content": "T\n"})
    real = os.replace

    def failing(src, dst, *a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing)
    with pytest.raises(OSError):
        queue.approve(rid)
    monkeypatch.setattr(os, "replace", real)
    assert (home / "skills" / "tools" / "alpha" / "templates").is_dir()  # the mkdir ran
    assert (home / "pending" / "skills" / f"{rid}.json").exists()  # the record is kept
    assert queue.undoable() is not None
    queue.undo()
    assert tree(home / "skills") == before


# -- the journal's format ------------------------------------------------------------------------------


def test_an_old_journal_without_tree_records_parses_and_tree_lines_dont_disturb_memory(home, tmp_path):
    old = [
        {"id": 1, "ts": 1.0, "target": "memory", "path": "/m/MEMORY.md", "action": "add", "detail": "d",
         "before": "", "after": "a"},
        {"id": 2, "ts": 2.0, "target": "memory", "path": "/m/MEMORY.md", "action": "add", "detail": "d",
         "before": "a", "after": "a\n§\nb", "state": "prepared"},
        {"commit": 2},
    ]
    data = "".join(json.dumps(o) + "\n" for o in old).encode()
    parsed = parse_journal(data)
    assert [r.id for r in parsed.records] == [1, 2] and parsed.trees == () and parsed.last_id == 2
    tree_line = {"type": "tree", "id": 3, "ts": 3.0, "subsystem": "skills", "root": "/h/skills",
                 "scope": "x", "action": "create", "detail": "d", "kept": True, "undoes": None, "tag": None,
                 "changes": [{"path": "x/SKILL.md", "before": {"type": "absent"},
                              "after": {"type": "file", "sha256": "0" * 64}}]}
    bad_tree = dict(tree_line, id=4, changes=[{"path": "x", "before": {"type": "file", "b64": "AA=="}}])
    both = parse_journal(data + (json.dumps(tree_line) + "\n" + json.dumps(bad_tree) + "\n").encode())
    assert [r.id for r in both.records] == [1, 2] and [t.id for t in both.trees] == [3]
    assert both.last_id == 3
    # the memory History on a journal with tree records
    history = History(home)
    history.folder.mkdir(parents=True, exist_ok=True)
    history.path.write_bytes(data + (json.dumps(tree_line) + "\n").encode())
    assert history.undoable().id == 2 and [r.id for r in history.records()] == [1, 2]
    assert history.tree_undoable("skills").id == 3
    assert history.record("memory", Path("/m/MEMORY.md"), "a\n§\nb", "a", "remove", "d").id == 4  # ids go on


def test_bytes_in_the_journal_that_dont_match_their_hash_are_never_written(home, tmp_path):
    import base64
    import re

    queue = q(home, tmp_path)
    queue.approve(stage(home, {"action": "edit", "name": "alpha", "content": skill_md("alpha", "v2")}))
    journal = History(home).path
    forged = base64.b64encode(b"tampered").decode()
    journal.write_text(re.sub(r'"b64": "[^"]*"', f'"b64": "{forged}"', journal.read_text()))
    now = tree(home / "skills")
    with pytest.raises(SkillUndoRefused) as exc:
        q(home, tmp_path).undo()
    assert exc.value.kind == "failed" and "don't match their hash" in str(exc.value)
    assert tree(home / "skills") == now


def test_killed_after_the_write_before_the_record_is_deleted_it_is_never_applied_twice(home, tmp_path):
    rid = stage(home, {"action": "write_file", "name": "alpha", "file_path": "references/new.md",
                       "file_content": "new\n"})
    script = KILLER.format(root=str(ROOT), home=str(home), lock=str(tmp_path), rid=rid).replace(
        'queue.approve(', 'import core.pending.claims as C\nC.remove = lambda path: os._exit(9)\nqueue.approve(')
    proc = subprocess.run([sys.executable, "-c", script, "after-commit"], capture_output=True)
    assert proc.returncode == 9, proc.stderr.decode()
    folder = home / "pending" / "skills"
    assert [n for n in os.listdir(folder) if ".claim-" in n]  # the claim was left behind
    stage_other = stage(home, {"action": "edit", "name": "alpha", "content": skill_md("alpha", "v2")})
    queue = q(home, tmp_path)
    assert queue.recover_claims() == []  # applied: the claim goes, the record doesn't come back
    assert sorted(os.listdir(folder)) == [f"{stage_other}.json"]
    assert (home / "skills" / "tools" / "alpha" / "references" / "new.md").read_text() == "new\n"
    assert queue.undoable().detail.endswith(f"(pending {rid})")


def test_an_undo_stopped_part_way_finishes_when_run_again(home, tmp_path, monkeypatch):
    queue = q(home, tmp_path)
    before = tree(home / "skills")
    ins = queue.approve(stage(home, {"action": "delete", "name": "alpha"}))
    real, calls = os.replace, []

    def second_fails(*a, **k):
        calls.append(a)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real(*a, **k)

    monkeypatch.setattr(os, "replace", second_fails)
    with pytest.raises(SkillUndoRefused) as exc:
        queue.undo()
    assert exc.value.kind == "failed" and "undo again" in str(exc.value)
    assert tree(home / "skills") != before
    assert not [p for p in (home / "skills").rglob(".*hmc-undo*")]  # no temp file left
    monkeypatch.setattr(os, "replace", real)
    assert queue.undoable().record_id == ins.journal_id  # the half-done undo didn't count
    queue.undo()
    assert tree(home / "skills") == before
    assert queue.undoable() is None
