"""`hmc pending … --subsystem skills|all` as a subprocess: output, exit codes and files on disk."""

from __future__ import annotations

import json
import os
import random
import string
import subprocess
import sys
from pathlib import Path

import pytest

from core.pending.config_edit import ConfigEditError, edit_text
from tests.core.pending_support import make_home, stage as stage_memory

HMC = [sys.executable, "-m", "tui.cli"]
ROOT = Path(__file__).resolve().parents[2]


def hmc(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return subprocess.run([*HMC, "--home", str(home), "--today", "2026-11-15", *args],
                          capture_output=True, text=True, env=env, timeout=60)


def skill_md(name: str, description: str = "d", body: str = "Use the blue button.") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\n{body}\n"


def secret() -> str:
    rnd = random.Random(7)
    return "sk-proj-" + "".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(48))


def stage(home: Path, rid: str, payload: dict, n: int) -> None:
    rec = {"id": rid, "subsystem": "skills", "action": payload["action"], "summary": f"{payload['action']} "
           f"{payload['name']}", "origin": "foreground", "created_at": 1000.0 + n, "payload": payload}
    folder = home / "pending" / "skills"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{rid}.json").write_text(json.dumps(rec, indent=2, ensure_ascii=False))


@pytest.fixture
def home(tmp_path):
    home = make_home(tmp_path)
    (home / "skills" / "alpha").mkdir(parents=True)
    (home / "skills" / "alpha" / "SKILL.md").write_text(skill_md("alpha", "Alpha"))
    (home / "config.yaml").write_text("# mine\nmemory:\n  write_approval: true\nskills:\n  write_approval: true\n")
    stage_memory(home, content="Likes espresso", rid="0000000a")
    stage(home, "1000000a", {"action": "patch", "name": "alpha", "old_string": "blue", "new_string": "green"}, 1)
    stage(home, "1000000b", {"action": "write_file", "name": "alpha", "file_path": "references/k.md",
                             "file_content": f"OPENAI_API_KEY={secret()}\n"}, 2)
    stage(home, "1000000c", {"action": "write_file", "name": "alpha", "file_path": "../x.md",
                             "file_content": "x"}, 3)
    (home / "pending" / "skills" / "1000000d.json").write_text('{"id": "1000000d", "payl')
    return home


def test_list_skills_and_all(home):
    out = hmc(home, "pending", "list", "--subsystem", "skills")
    assert out.returncode == 0, out.stderr
    assert "4 staged skill writes" in out.stdout and "write approval on" in out.stdout
    assert "✗ escapes" in out.stdout and "✗ broken" in out.stdout and "⚠ scanner" in out.stdout
    assert "approve all (in order): 1 would apply, 3 would be kept" in out.stdout
    assert secret() not in out.stdout
    default = hmc(home, "pending", "list", "--json")
    assert [r["id"] for r in json.loads(default.stdout)["records"]] == ["0000000a"]  # memory, as before
    both = json.loads(hmc(home, "pending", "list", "--subsystem", "all", "--json").stdout)
    assert both["counts"] == {"memory": 1, "skills": 4}
    assert [(r["subsystem"], r["id"]) for r in both["records"]] == [
        ("memory", "0000000a"), ("skills", "1000000a"), ("skills", "1000000b"), ("skills", "1000000c"),
        ("skills", "1000000d")]
    assert secret() not in json.dumps(both)
    text = hmc(home, "pending", "list", "--subsystem", "all")
    assert "staged write in" in text.stdout and "staged skill writes" in text.stdout


def test_show_prints_files_and_diff_masked(home):
    out = hmc(home, "pending", "show", "1000000a", "--subsystem", "skills")
    assert out.returncode == 0, out.stderr
    assert "change  alpha/SKILL.md" in out.stdout
    assert "-Use the blue button." in out.stdout and "+Use the green button." in out.stdout
    assert "SKILL.md before: name=alpha · description=Alpha" in out.stdout
    out = hmc(home, "pending", "show", "1000000b", "--subsystem", "skills")
    assert secret() not in out.stdout and "sk-…" in out.stdout and "needs confirmation" in out.stdout
    assert secret() in hmc(home, "pending", "show", "1000000b", "--subsystem", "skills", "--reveal").stdout
    data = json.loads(hmc(home, "pending", "show", "1000000a", "--subsystem", "skills", "--json").stdout)
    assert data["can_apply"] and "+Use the green button.\n" in data["diffs"]["alpha/SKILL.md"]
    broken = hmc(home, "pending", "show", "1000000d", "--subsystem", "skills")
    assert broken.returncode == 2 and "can't be read" in broken.stderr
    missing = hmc(home, "pending", "show", "deadbeef", "--subsystem", "skills")
    assert missing.returncode == 2 and "no pending skill write" in missing.stderr


def test_show_is_literal(home):
    stage(home, "1000000e", {"action": "create", "name": "[bold]x[/bold]", "content": "[red]hi[/red]"}, 5)
    out = hmc(home, "pending", "show", "1000000e", "--subsystem", "skills")
    assert "[bold]x[/bold]" in out.stdout and "Invalid skill name" in out.stdout


def test_approve_all_then_force_then_reject_invalid(home):
    before_memory = (home / "pending" / "memory" / "0000000a.json").read_bytes()
    out = hmc(home, "pending", "approve", "all", "--subsystem", "skills")
    assert out.returncode == 1
    assert "approved 1000000a" in out.stdout and "kept 1000000b" in out.stdout and "kept 1000000c" in out.stdout
    assert "Use the green button." in (home / "skills" / "alpha" / "SKILL.md").read_text()
    assert not (home / "skills" / "alpha" / "references").exists()
    assert not (home / "pending" / "skills" / "1000000a.json").exists()
    assert (home / "pending" / "memory" / "0000000a.json").read_bytes() == before_memory
    out = hmc(home, "pending", "approve", "1000000b", "--subsystem", "skills")
    assert out.returncode == 1 and "Pass --force" in out.stdout and secret() not in out.stdout
    assert hmc(home, "pending", "approve", "1000000b", "--subsystem", "skills", "--force").returncode == 0
    assert (home / "skills" / "alpha" / "references" / "k.md").read_text().startswith("OPENAI_API_KEY=")
    out = hmc(home, "pending", "reject", "invalid", "--subsystem", "skills")
    assert out.returncode == 0 and "rejected 1000000c" in out.stdout and "rejected 1000000d" in out.stdout
    assert sorted(os.listdir(home / "pending" / "skills")) == []
    assert not (home.parent / "x.md").exists()


def test_edit_then_approve(home):
    out = hmc(home, "pending", "approve", "1000000a", "--subsystem", "skills", "--text", "purple")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Use the purple button." in (home / "skills" / "alpha" / "SKILL.md").read_text()
    assert hmc(home, "pending", "approve", "1000000a", "--subsystem", "skills", "--target", "user").returncode == 2


def test_guard_on_refuses(home):
    (home / "config.yaml").write_text("skills:\n  write_approval: true\n  guard_agent_created: true\n")
    out = hmc(home, "pending", "approve", "1000000a", "--subsystem", "skills")
    assert out.returncode == 1 and "/skills approve" in out.stdout
    assert "blue" in (home / "skills" / "alpha" / "SKILL.md").read_text()
    assert "won't approve skill writes" in hmc(home, "pending", "list", "--subsystem", "skills").stdout


def test_approval_changes_only_the_skills_line(home):
    before = (home / "config.yaml").read_text()
    out = hmc(home, "pending", "approval", "off", "--subsystem", "skills")
    assert out.returncode == 0 and "skills.write_approval: false (line 5)" in out.stdout
    assert (home / "config.yaml").read_text() == before.replace("skills:\n  write_approval: true",
                                                                 "skills:\n  write_approval: false")
    assert "is off" in hmc(home, "pending", "approval", "--subsystem", "skills").stdout
    assert "is on" in hmc(home, "pending", "approval").stdout  # memory's line untouched
    assert hmc(home, "pending", "approve", "all", "--subsystem", "all").returncode == 2  # list only


def test_config_edit_skills_section():
    assert edit_text("memory:\n  x: 1\n", True, "skills")[0] == "memory:\n  x: 1\nskills:\n  write_approval: true\n"
    text = "skills:\n    external_dirs: []\n# end\n"
    assert edit_text(text, True, "skills")[0] == "skills:\n    write_approval: true\n    external_dirs: []\n# end\n"
    with pytest.raises(ConfigEditError, match="inline"):
        edit_text("skills: {write_approval: false}\n", True, "skills")
    with pytest.raises(ConfigEditError, match="not a mapping"):
        edit_text("skills: 3\n", True, "skills")
    with pytest.raises(ValueError):
        edit_text("", True, "other")


def test_reject_invalid_keeps_a_patch_hermess_fuzzy_matcher_may_still_apply(home):
    stage(home, "1000000f", {"action": "patch", "name": "alpha", "old_string": "Use  the blue",
                             "new_string": "Use the red"}, 5)
    out = hmc(home, "pending", "show", "1000000f", "--subsystem", "skills")
    assert "fuzzy matcher may still find it" in out.stdout
    assert "Hermes may still apply it (`reject invalid` keeps it)" in " ".join(out.stdout.split())
    shown = json.loads(hmc(home, "pending", "show", "1000000f", "--subsystem", "skills", "--json").stdout)
    assert shown["reason_kind"] == "no-match" and shown["never_applies"] is False
    out = hmc(home, "pending", "show", "1000000c", "--subsystem", "skills")
    assert "can never apply (`reject invalid` clears it)" in " ".join(out.stdout.split())
    out = hmc(home, "pending", "reject", "invalid", "--subsystem", "skills")
    assert out.returncode == 0 and "rejected 1000000c" in out.stdout and "1000000f" not in out.stdout
    assert (home / "pending" / "skills" / "1000000f.json").exists()
    assert (home / "pending" / "skills" / "1000000b.json").exists()  # a scanner hit: the person decides
