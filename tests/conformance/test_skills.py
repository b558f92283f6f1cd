"""Skill write approval: records staged by the release's own skill_manage, approved by hmc and by
the release on byte-identical copies. hmc's can-apply verdict for each record (taken in queue
order, as approve-all meets it) must equal the release's outcome, and the skills/ trees must be
byte-identical afterwards (Hermes's bookkeeping: skills/.usage.json and .hub/ aside)."""

from __future__ import annotations

import pytest

from core.pending.skills import SkillQueue
from tests.conformance.oracle import copy_home, home_files

pytestmark = pytest.mark.area("pending")

CONFIG = "skills:\n  write_approval: true\n"


def skill_md(name: str, description: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\n{body}\n"


BASE = {
    "skills/alpha/SKILL.md": skill_md("alpha", "Alpha things", "Step one.\nStep two."),
    "skills/beta/SKILL.md": skill_md("beta", "Beta things", "Use the blue button.\nThen wait."),
    "skills/tools/gamma/SKILL.md": skill_md("gamma", "Gamma", "Old and absorbed."),
    "skills/delta/SKILL.md": skill_md("delta", "Delta", "See references."),
    "skills/delta/references/old.md": "old notes\n",
    "skills/delta/references/keep.md": "keep me\n",
    "skills/epsilon/SKILL.md": "---\r\nname: epsilon\r\ndescription: CRLF\r\n---\r\n\r\nline a\r\nline b\r\n",
    "skills/.hub/lock.json": "{}\n",
}

WRITES = [
    # one of each action, each applicable
    {"action": "create", "name": "fresh", "category": "ops",
     "content": skill_md("fresh", "A new skill", "Do the fresh thing. ünïcödé ✓")},
    {"action": "edit", "name": "alpha", "content": skill_md("alpha", "Alpha, rewritten", "Only one step now.")},
    {"action": "patch", "name": "beta", "old_string": "blue button", "new_string": "green button"},
    {"action": "delete", "name": "gamma"},
    {"action": "write_file", "name": "delta", "file_path": "references/new.md", "file_content": "new notes\n"},
    {"action": "remove_file", "name": "delta", "file_path": "references/old.md"},
    {"action": "patch", "name": "epsilon", "old_string": "line a", "new_string": "line A"},
    # ones that can't apply, each for a reason the release shares
    {"action": "create", "name": "alpha", "content": skill_md("alpha", "dup", "Again.")},
    {"action": "edit", "name": "nobody", "content": skill_md("nobody", "x", "y")},
    {"action": "patch", "name": "beta", "old_string": "this text is nowhere at all 12345", "new_string": "z"},
    {"action": "write_file", "name": "delta", "file_path": "../escape.md", "file_content": "x"},
    {"action": "write_file", "name": "delta", "file_path": "notes/free.md", "file_content": "x"},
    {"action": "create", "name": "Bad Name", "content": skill_md("bad", "x", "y")},
    {"action": "create", "name": "nofront", "content": "no frontmatter here"},
    {"action": "remove_file", "name": "delta", "file_path": "references/absent.md"},
    {"action": "write_file", "name": "delta", "file_path": "references/big.md", "file_content": "x" * 100_001},
    {"action": "patch", "name": "alpha", "old_string": "---\nname: alpha", "new_string": "name: alpha"},
    {"action": "delete", "name": "ghost"},
]


# the releases' own bookkeeping beside the skills, not skill content: usage counts, the hub, and
# 0.22's per-skill locks and curator ledger (hmc journals its approvals in its own state folder)
BOOKKEEPING = (".usage.json", ".hub/", ".locks/", ".curator_ledger.jsonl")


def _tree(files: dict) -> dict:
    return {k: v for k, v in files.items() if not k.startswith(BOOKKEEPING) and k not in (".hub", ".locks")}


def test_hmc_approve_all_matches_release(oracle, make_home, tmp_path):
    oracle.require("write_approval")
    home = make_home(config=CONFIG, files=BASE)
    staged = oracle.skills_stage(home, WRITES)
    assert staged["gate"] is True
    assert len(staged["pending_ids"]) == len(WRITES), staged["results"]
    assert home_files(home, "skills") == {k[len("skills/"):]: v.encode() for k, v in BASE.items()}

    mine = copy_home(home, tmp_path / "hmc-home")
    before_other = home_files(mine, "pending")
    release = oracle.skills_pending(home, ["approve", "all"])
    assert release["raised"] is None
    release_failed = {r["id"] for r in release["pending"]}

    queue = SkillQueue(mine, lock_dir=tmp_path)
    records = queue.list()
    assert [r.id for r in records] == [r["id"] for r in staged["records"]]
    verdicts = {}
    for record in records:
        ins = queue.inspect(record)
        verdicts[record.id] = ins.can_apply
        if ins.can_apply:
            queue.approve(record.id)
    hmc_failed = {rid for rid, ok in verdicts.items() if not ok}
    by_id = {r["id"]: r["payload"] for r in staged["records"]}
    assert hmc_failed == release_failed, {rid: by_id[rid] for rid in hmc_failed ^ release_failed}
    assert len(hmc_failed) == 11

    # the same records are left pending, byte for byte
    left = home_files(mine, "pending/skills")
    assert sorted(left) == sorted(f"{rid}.json" for rid in release_failed)
    assert all(before_other[f"skills/{name}"] == data for name, data in left.items())
    # and the skills/ trees are byte-identical (files and folders)
    assert _tree(home_files(mine, "skills")) == _tree(release["skills_files"])
    mine_dirs = sorted(p.relative_to(mine / "skills").as_posix()
                       for p in (mine / "skills").rglob("*") if p.is_dir())
    assert [d for d in mine_dirs if not d.startswith((".hub", ".locks"))] == \
        [d for d in release["skills_dirs"] if not d.startswith((".hub", ".locks"))]


def test_patch_and_edit_in_order_match_release(oracle, make_home, tmp_path):
    """Records that touch the same skill apply in queue order: a patch staged after an edit
    patches the edited text; one that patched the old text fails, for both."""
    oracle.require("write_approval")
    home = make_home(config=CONFIG, files=BASE)
    writes = [
        {"action": "edit", "name": "beta", "content": skill_md("beta", "Beta v2", "Press the red lever.")},
        {"action": "patch", "name": "beta", "old_string": "red lever", "new_string": "red lever twice"},
        {"action": "patch", "name": "beta", "old_string": "blue button", "new_string": "x"},
        {"action": "write_file", "name": "beta", "file_path": "scripts/run.sh", "file_content": "echo hi\n"},
        {"action": "patch", "name": "beta", "file_path": "scripts/run.sh", "old_string": "hi",
         "new_string": "hello"},
        {"action": "delete", "name": "beta"},
        {"action": "write_file", "name": "beta", "file_path": "references/late.md", "file_content": "late"},
    ]
    staged = oracle.skills_stage(home, writes)
    assert len(staged["pending_ids"]) == len(writes)
    mine = copy_home(home, tmp_path / "hmc-home")
    release = oracle.skills_pending(home, ["approve", "all"])
    queue = SkillQueue(mine, lock_dir=tmp_path)
    done, failed = queue.approve_all()
    assert {f[0] for f in failed} == {r["id"] for r in release["pending"]}
    assert len(done) == 5 and len(failed) == 2
    assert _tree(home_files(mine, "skills")) == _tree(release["skills_files"])


def _dirs(home) -> list[str]:
    return sorted(d for d in (p.relative_to(home / "skills").as_posix()
                              for p in (home / "skills").rglob("*") if p.is_dir()) if not d.startswith(".hub"))


def test_undo_puts_back_every_approval_of_records_the_release_staged(oracle, make_home, tmp_path):
    """Records staged by the release's own skill_manage (one of each action), approved by hmc, then
    undone one by one (newest first): the skills/ tree is byte-identical to before, folders too."""
    oracle.require("write_approval")
    home = make_home(config=CONFIG, files=BASE)
    staged = oracle.skills_stage(home, WRITES[:7])
    assert len(staged["pending_ids"]) == 7, staged["results"]
    before, before_dirs = _tree(home_files(home, "skills")), _dirs(home)
    queue = SkillQueue(home, lock_dir=tmp_path)
    done, failed = queue.approve_all()
    assert len(done) == 7 and failed == []
    assert _tree(home_files(home, "skills")) != before
    undone = []
    while queue.undoable() is not None:
        undone.append(queue.undo().action)
    assert undone == [w["action"] for w in reversed(WRITES[:7])]
    assert _tree(home_files(home, "skills")) == before
    assert _dirs(home) == before_dirs
