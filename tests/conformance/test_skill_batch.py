"""Skill `batch` records (0.22: skill_manage's operations array staged as one record), staged by the
release itself, approved by hmc and by the release on byte-identical copies: the same records apply,
a batch with one failing op changes nothing (the release rolls every touched skill back), the
failure names the same op the same way, and the skills/ trees — bytes, folders and modes — are equal.
"""

from __future__ import annotations

import pytest

from core.pending.skills import SkillQueue
from tests.conformance.oracle import copy_home, home_files
from tests.conformance.test_skills import BASE, CONFIG, _tree, skill_md

pytestmark = pytest.mark.area("pending")

BATCHES = [
    # a new skill, a file in it, then a patch of the SKILL.md the first op wrote
    [{"action": "create", "name": "newbie", "category": "ops",
      "content": skill_md("newbie", "New things.", "Do it once.")},
     {"action": "write_file", "name": "newbie", "file_path": "references/a.md", "file_content": "notes a\n"},
     {"action": "patch", "name": "newbie", "old_string": "Do it once.", "new_string": "Do it twice."}],
    # three skills at once, and a patch chain on one file
    [{"action": "patch", "name": "alpha", "old_string": "Step one.", "new_string": "Step 1."},
     {"action": "patch", "name": "alpha", "old_string": "Step 1.", "new_string": "Step 1 (first)."},
     {"action": "write_file", "name": "delta", "file_path": "references/x.md", "file_content": "x\n"},
     {"action": "remove_file", "name": "delta", "file_path": "references/keep.md"},
     {"action": "patch", "name": "epsilon", "old_string": "line b", "new_string": "line B"}],
    # one op fails: nothing of the batch stays, for both
    [{"action": "write_file", "name": "beta", "file_path": "references/ok.md", "file_content": "ok\n"},
     {"action": "patch", "name": "beta", "old_string": "this text is nowhere 98765", "new_string": "z"}],
    # a full rewrite through patch's content (0.22), then a supporting file
    [{"action": "patch", "name": "beta", "content": skill_md("beta", "Beta, rewritten.", "New body.")},
     {"action": "write_file", "name": "beta", "file_path": "scripts/run.sh", "file_content": "echo hi\n"}],
    # fails at its last op, after a create: the created skill goes again
    [{"action": "create", "name": "short-lived", "content": skill_md("short-lived", "Gone soon.", "Body.")},
     {"action": "write_file", "name": "ghost-skill", "file_path": "references/a.md", "file_content": "a"}],
    # an op on a file an earlier op of the queue removed
    [{"action": "remove_file", "name": "delta", "file_path": "references/old.md"}],
    [{"action": "patch", "name": "delta", "file_path": "references/old.md", "old_string": "old",
      "new_string": "new"}],
]


def _batch(ops: list) -> dict:
    """skill_manage's call for an operations array (the flat fields empty, as its registry passes them)."""
    return {"action": "", "name": "", "operations": ops}


def _stage(oracle, home):
    staged = oracle.skills_stage(home, [_batch(ops) for ops in BATCHES])
    assert len(staged["pending_ids"]) == len(BATCHES), staged["results"]
    assert [r["payload"]["action"] for r in staged["records"]][:5] == ["batch"] * 5
    return staged


def _release_failures(output: str) -> dict[str, str]:
    """{record id: error text} from the release's `/skills approve all` output."""
    lines = output.split("\nFailed:\n", 1)[1].splitlines() if "\nFailed:\n" in output else []
    return dict(line.strip().split(": ", 1) for line in lines)


def test_hmc_approves_batches_as_the_release_does(oracle, make_home, tmp_path):
    oracle.require("skill_batch")
    home = make_home(config=CONFIG, files=BASE)
    staged = _stage(oracle, home)
    mine = copy_home(home, tmp_path / "hmc-home")
    release = oracle.skills_pending(home, ["approve", "all"])
    assert release["raised"] is None
    release_failed = _release_failures(release["output"])
    assert set(release_failed) == {r["id"] for r in release["pending"]}

    queue = SkillQueue(mine, lock_dir=tmp_path)
    done, failed = queue.approve_all()
    hmc_failed = {rid: reason for rid, _kind, reason in failed}
    assert set(hmc_failed) == set(release_failed), (hmc_failed, release_failed)
    assert len(done) == 4 and len(failed) == 3
    # each failure names the op and its skill as the release does, and says the batch was rolled back
    for rid, text in release_failed.items():
        head = text.split(" failed: ")[0]
        assert hmc_failed[rid].startswith(head + " failed: "), (hmc_failed[rid], text)
        assert hmc_failed[rid].endswith(" — batch aborted, all touched skills rolled back.")
    # the same bytes, folders and modes
    assert _tree(home_files(mine, "skills")) == _tree(release["skills_files"])
    mine_dirs = sorted(p.relative_to(mine / "skills").as_posix()
                       for p in (mine / "skills").rglob("*") if p.is_dir())
    assert [d for d in mine_dirs if not d.startswith((".hub", ".locks"))] == \
        [d for d in release["skills_dirs"] if not d.startswith((".hub", ".locks"))]
    mine_modes = {p.relative_to(mine / "skills").as_posix(): p.stat().st_mode & 0o7777
                  for p in (mine / "skills").rglob("*") if p.is_file()}
    assert {k: v for k, v in mine_modes.items() if k in _tree(release["skills_files"])} == \
        {k: v for k, v in release["skills_modes"].items() if k in _tree(release["skills_files"])}
    # the failed batches are kept, byte for byte
    staged_ids = [r["id"] for r in staged["records"]]
    assert sorted(home_files(mine, "pending/skills")) == sorted(f"{rid}.json" for rid in hmc_failed)
    assert set(hmc_failed) <= set(staged_ids)


def test_a_failing_batch_alone_leaves_every_byte_as_it_was(oracle, make_home, tmp_path):
    """The release's rollback and hmc's refusal before writing end at the same tree: the one before."""
    oracle.require("skill_batch")
    home = make_home(config=CONFIG, files=BASE)
    staged = oracle.skills_stage(home, [_batch(BATCHES[2]), _batch(BATCHES[4])])
    assert len(staged["pending_ids"]) == 2, staged["results"]
    before = _tree(home_files(home, "skills"))
    mine = copy_home(home, tmp_path / "hmc-home")
    release = oracle.skills_pending(home, ["approve", "all"])
    assert len(release["pending"]) == 2
    assert _tree(release["skills_files"]) == before
    queue = SkillQueue(mine, lock_dir=tmp_path)
    done, failed = queue.approve_all()
    assert done == [] and len(failed) == 2
    assert _tree(home_files(mine, "skills")) == before
    assert queue.undoable() is None  # nothing was written, so nothing to undo


def test_undo_of_an_approved_batch_puts_every_skill_back(oracle, make_home, tmp_path):
    oracle.require("skill_batch")
    home = make_home(config=CONFIG, files=BASE)
    staged = oracle.skills_stage(home, [_batch(BATCHES[0]), _batch(BATCHES[1])])
    assert len(staged["pending_ids"]) == 2
    before = _tree(home_files(home, "skills"))
    queue = SkillQueue(home, lock_dir=tmp_path)
    done, failed = queue.approve_all()
    assert len(done) == 2 and failed == []
    newest = queue.undoable()
    assert newest is not None and newest.action == "batch"
    assert newest.skill_dir == "skills/alpha, skills/delta, skills/epsilon"
    queue.undo()
    queue.undo()
    assert _tree(home_files(home, "skills")) == before
    assert not (home / "skills" / "ops").exists()


def test_release_rewrite_of_a_script_and_hmcs_keep_the_mode_on_022(oracle, make_home, tmp_path):
    """An approved write_file over scripts/go.sh (0755): 0.22 keeps the exec bit, and so does hmc.
    (Up to 0.20 the release leaves it 0600: a deviation, asserted in test_deviations_skills.py.)"""
    oracle.require("skill_batch")
    home = make_home(config=CONFIG, files={**BASE, "skills/beta/scripts/go.sh": "echo go\n"})
    (home / "skills/beta/scripts/go.sh").chmod(0o755)
    staged = oracle.skills_stage(home, [{"action": "write_file", "name": "beta", "file_path": "scripts/go.sh",
                                         "file_content": "echo went\n"}])
    assert len(staged["pending_ids"]) == 1
    mine = copy_home(home, tmp_path / "hmc-home")
    (mine / "skills/beta/scripts/go.sh").chmod(0o755)
    release = oracle.skills_pending(home, ["approve", "all"])
    assert release["skills_modes"]["beta/scripts/go.sh"] == 0o755
    SkillQueue(mine, lock_dir=tmp_path).approve_all()
    assert (mine / "skills/beta/scripts/go.sh").stat().st_mode & 0o7777 == 0o755
    assert (mine / "skills/beta/scripts/go.sh").read_bytes() == release["skills_files"]["beta/scripts/go.sh"]
