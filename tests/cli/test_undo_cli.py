"""`hmc undo [--subsystem memory|skills] [--json]` as a subprocess: output, exit codes, files on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.store.memory import serialize
from tests.cli.runner import hmc


def skill_md(name: str, description: str = "d") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\nUse the blue button.\n"


@pytest.fixture
def home(tmp_path) -> Path:
    root = tmp_path / "hermes"
    (root / "memories").mkdir(parents=True)
    (root / "memories" / "MEMORY.md").write_text(serialize(["Project uses pnpm"]))
    (root / "skills" / "alpha").mkdir(parents=True)
    (root / "skills" / "alpha" / "SKILL.md").write_text(skill_md("alpha", "Alpha"))
    (root / "config.yaml").write_text("skills:\n  write_approval: true\n")
    return root


def stage(home: Path, rid: str, payload: dict) -> None:
    folder = home / "pending" / "skills"
    folder.mkdir(parents=True, exist_ok=True)
    rec = {"id": rid, "subsystem": "skills", "action": payload["action"], "summary": "s",
           "origin": "foreground", "created_at": 1000.0, "payload": payload}
    (folder / f"{rid}.json").write_text(json.dumps(rec))


def test_undo_memory_is_the_default_and_puts_the_text_back(home):
    md = home / "memories" / "MEMORY.md"
    before = md.read_bytes()
    assert hmc("memory", "add", "-t", "memory", "Deploy with make ship", home=home).returncode == 0
    assert md.read_bytes() != before
    result = hmc("undo", home=home)
    assert result.returncode == 0, result.stderr
    assert "undid #" in result.stdout and "MEMORY.md" in result.stdout
    assert md.read_bytes() == before
    again = hmc("undo", "--subsystem", "memory", "--json", home=home)
    assert again.returncode == 1
    out = json.loads(again.stdout)
    assert out["undone"] is None and out["refused"]["kind"] == "nothing"


def test_undo_memory_refused_when_the_file_changed_since(home):
    md = home / "memories" / "MEMORY.md"
    assert hmc("memory", "add", "-t", "memory", "Deploy with make ship", home=home).returncode == 0
    md.write_text(md.read_text() + "\n§\nHermes added this")
    changed = md.read_bytes()
    result = hmc("undo", home=home)
    assert result.returncode == 1
    assert "changed since" in result.stderr and result.stdout == ""
    assert md.read_bytes() == changed


def test_undo_skills_puts_back_what_the_approval_replaced(home):
    md = home / "skills" / "alpha" / "SKILL.md"
    before = md.read_bytes()
    stage(home, "0000000a", {"action": "edit", "name": "alpha", "content": skill_md("alpha", "v2")})
    assert hmc("pending", "approve", "0000000a", "--subsystem", "skills", home=home).returncode == 0
    assert md.read_bytes() != before
    # memory's undo doesn't touch the skill approval
    assert hmc("undo", home=home).returncode == 1
    result = hmc("undo", "--subsystem", "skills", "--json", home=home)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["subsystem"] == "skills" and out["undone"]["action"] == "edit"
    assert out["undone"]["files"] == [{"path": "skills/alpha/SKILL.md", "undo": "restore"}]
    assert md.read_bytes() == before


def test_undo_skills_removes_a_created_skill_and_says_so(home):
    stage(home, "0000000b", {"action": "create", "name": "beta", "category": "cat", "content": skill_md("beta")})
    assert hmc("pending", "approve", "0000000b", "--subsystem", "skills", home=home).returncode == 0
    assert (home / "skills" / "cat" / "beta" / "SKILL.md").exists()
    result = hmc("undo", "--subsystem", "skills", home=home)
    assert result.returncode == 0, result.stderr
    assert "remove" in result.stdout and "skills/cat/beta/SKILL.md" in result.stdout
    assert not (home / "skills" / "cat").exists()


def test_undo_skills_nothing_to_undo_and_refused_after_a_change(home):
    result = hmc("undo", "--subsystem", "skills", home=home)
    assert result.returncode == 1 and "no skill write here to undo" in result.stderr
    stage(home, "0000000c", {"action": "edit", "name": "alpha", "content": skill_md("alpha", "v2")})
    assert hmc("pending", "approve", "0000000c", "--subsystem", "skills", home=home).returncode == 0
    md = home / "skills" / "alpha" / "SKILL.md"
    md.write_text(skill_md("alpha", "Hermes later"))
    result = hmc("undo", "--subsystem", "skills", home=home)
    assert result.returncode == 1
    assert "skills/alpha/SKILL.md" in result.stderr and "changed since" in result.stderr
    assert "Hermes later" in md.read_text()
    out = json.loads(hmc("undo", "--subsystem", "skills", "--json", home=home).stdout)
    assert out["refused"]["kind"] == "changed"


def test_undo_bad_usage_is_exit_2(home):
    result = hmc("undo", "--subsystem", "config", home=home)
    assert result.returncode == 2 and "invalid choice" in result.stderr


def test_undo_skills_journal_unwritable_is_exit_2(home, tmp_path):
    stage(home, "0000000d", {"action": "edit", "name": "alpha", "content": skill_md("alpha", "v2")})
    assert hmc("pending", "approve", "0000000d", "--subsystem", "skills", home=home).returncode == 0
    from core.store.journal import History

    lock = History(home).lock_path
    lock.unlink()
    lock.mkdir()  # the journal can be read, but no record can be appended
    result = hmc("undo", "--subsystem", "skills", home=home)
    assert result.returncode == 2 and "journal" in result.stderr
    assert "v2" in (home / "skills" / "alpha" / "SKILL.md").read_text()  # nothing written


def test_an_approval_too_large_to_keep_says_it_cant_be_undone(home):
    assets = home / "skills" / "alpha" / "assets"
    assets.mkdir()
    (assets / "model.bin").write_bytes(b"\x00" * (5 << 20))  # more than the journal keeps (4 MiB)
    stage(home, "0000000e", {"action": "delete", "name": "alpha"})
    result = hmc("pending", "approve", "0000000e", "--subsystem", "skills", home=home)
    assert result.returncode == 0, result.stderr
    assert "can't be undone" in result.stdout and not (home / "skills" / "alpha").exists()
    result = hmc("undo", "--subsystem", "skills", "--json", home=home)
    assert result.returncode == 1
    assert json.loads(result.stdout)["refused"]["kind"] == "not-kept"
    (home / "skills" / "gamma" / "assets").mkdir(parents=True)
    (home / "skills" / "gamma" / "SKILL.md").write_text(skill_md("gamma", "Gamma"))
    (home / "skills" / "gamma" / "assets" / "model.bin").write_bytes(b"\x01" * (5 << 20))
    stage(home, "0000000f", {"action": "delete", "name": "gamma"})
    as_json = json.loads(hmc("pending", "approve", "0000000f", "--subsystem", "skills", "--json", home=home).stdout)
    assert as_json["approved"] == ["0000000f"]
    assert [n["id"] for n in as_json["not_undoable"]] == ["0000000f"] and as_json["not_undoable"][0]["reason"]
