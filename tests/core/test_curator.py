"""The curator is the one context object: it owns its queues (memory and skills), and a profile
switch gives a new curator with queues of its own (no registry beside it)."""

from __future__ import annotations

import json
from datetime import date

from core.curator import open_curator


def _home(tmp_path):
    home = tmp_path / "hermes"
    for root in (home, home / "profiles" / "work"):
        (root / "memories").mkdir(parents=True)
        (root / "pending" / "skills").mkdir(parents=True)
    return home


def _stage_skill(root, rid: str) -> None:
    record = {"id": rid, "subsystem": "skills", "action": "create", "summary": "s", "origin": "foreground",
              "created_at": 1000.0, "payload": {"action": "create", "name": "x", "content": "---\nname: x\n---\n"}}
    (root / "pending" / "skills" / f"{rid}.json").write_text(json.dumps(record), encoding="utf-8")


def test_the_curator_owns_both_queues(tmp_path):
    home = _home(tmp_path)
    curator = open_curator(home, today=date(2026, 11, 15))
    assert curator.pending is curator.pending
    assert curator.pending_skills is curator.pending_skills
    assert curator.pending_skills.history is curator.history  # one journal for both queues' approvals
    assert curator.pending_skills.count() == 0 and curator.pending_skills.token() == ()
    _stage_skill(home, "0000aaa1")
    assert curator.pending_skills.count() == 1
    assert [name for name, _, _ in curator.pending_skills.token()] == ["0000aaa1.json"]


def test_a_profile_switch_gives_a_new_curator_with_its_own_queues(tmp_path):
    home = _home(tmp_path)
    _stage_skill(home / "profiles" / "work", "0000bbb1")
    default = open_curator(home, today=date(2026, 11, 15))
    work = default.switch_profile("work")
    assert work is not default and work.home.profile == "work"
    assert work.pending is not default.pending and work.pending_skills is not default.pending_skills
    assert default.pending_skills.count() == 0 and work.pending_skills.count() == 1
    assert work.pending_skills.home == work.home.root and work.pending_skills.history is work.history
