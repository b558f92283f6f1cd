"""The profiles on the command line: `hmc profiles`, status's line, `review --all-profiles`, and
`memory move|copy --to` with `undo`, on the demo (default, contenu, ops; contenu's repository line
leaked into ops)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from core.demo.content import CONTENU_REPO
from tests.cli.runner import hmc


@pytest.fixture
def home(demo_copy) -> Path:
    return demo_copy


def memory(home: Path, profile: str) -> str:
    return (home / "profiles" / profile / "memories" / "MEMORY.md").read_text(encoding="utf-8")


def test_profiles_json_rows_and_the_odd_folders(home):
    (home / "profiles" / "Bad.Name").mkdir()
    os.mkfifo(home / "profiles" / "pipe")
    data = json.loads(hmc("profiles", "--json", home=home).stdout)
    assert [p["name"] for p in data["profiles"]] == ["default", "contenu", "ops"]
    default, contenu, ops = data["profiles"]
    assert default["active"] and default["pending"] == 13 and default["sessions_last_30_days"] > 0
    assert contenu["stores"]["memory"]["entries"] == 3 and contenu["last_session"] is None
    assert ops["provider"] == "honcho" and "cli" in ops["memory_off"]
    assert {s["folder"] for s in data["skipped"]} == {"Bad.Name", "pipe"}
    assert "never reads it" in data["default_trap"]["advice"]
    text = hmc("profiles", home=home)
    assert text.returncode == 0 and "profiles/pipe: skipped, a FIFO" in text.stdout


def test_status_names_the_others_and_a_refused_active_profile(home):
    out = hmc("status", home=home).stdout
    assert "profiles   default (active), contenu, ops · `hmc profiles` compares them" in out
    (home / "active_profile").write_text("nosuch\n", encoding="utf-8")
    data = json.loads(hmc("status", "--json", home=home).stdout)
    assert data["profile"] == "default" and "no longer exists" in data["profiles"]["active_profile_problem"]
    (home / "active_profile").write_text("OPS\n", encoding="utf-8")  # read as Hermes does: lower-cased
    assert json.loads(hmc("status", "--json", home=home).stdout)["profile"] == "ops"


def test_review_all_profiles_flags_the_leak_in_ops(home):
    data = json.loads(hmc("review", "--all-profiles", "--json", home=home).stdout)
    by = {p["profile"]: p for p in data["profiles"]}
    assert set(by) == {"default", "contenu", "ops"}
    (leak,) = [f for f in by["ops"]["findings"] if f["kind"] == "cross-profile"]
    assert leak["profile"] == "contenu" and "the same entry" in leak["detail"]
    assert any(f["kind"] == "default-trap" for f in by["default"]["findings"])


def test_move_back_and_undo_both_sides(home):
    before = {p: memory(home, p) for p in ("ops", "contenu")}
    out = hmc("--profile", "ops", "memory", "move", "-t", "memory", "Dépôt des articles", "--to", "contenu",
              "--json", home=home)
    assert out.returncode == 0, out.stderr
    done = json.loads(out.stdout)
    assert done["kind"] == "move" and done["added"] is False  # contenu held it already
    assert CONTENU_REPO not in memory(home, "ops") and memory(home, "contenu") == before["contenu"]
    undo = hmc("--profile", "contenu", "undo", home=home)  # from the other side: nothing was written there
    assert undo.returncode == 1
    assert hmc("--profile", "ops", "undo", home=home).returncode == 0
    assert {p: memory(home, p) for p in ("ops", "contenu")} == before


@pytest.mark.parametrize("args, said", [
    (("memory", "copy", "-t", "memory", "Dépôt des articles", "--to", "contenu"), "holds this entry already"),
    (("memory", "move", "-t", "memory", "nothing like it", "--to", "contenu"), "No entry matched"),
    (("memory", "move", "-t", "memory", "Dépôt des articles", "--to", "opps"), "did you mean ops"),
    (("memory", "move", "-t", "memory", "Dépôt des articles", "--to", "ops"), "choose another"),
])
def test_refused_moves_say_why_in_one_line_and_write_nothing(home, args, said):
    before = {p: memory(home, p) for p in ("ops", "contenu")}
    out = hmc("--profile", "ops", *args, home=home)
    assert out.returncode in (1, 2) and said in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert {p: memory(home, p) for p in ("ops", "contenu")} == before
