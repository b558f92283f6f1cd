"""A new user's first run of hmc on a home the release itself wrote (its memory_tool made the files
and staged writes, its SessionDB made state.db): hmc detects the release from state.db with no
override, sees no drift, `hmc memory prompt` prints exactly the release's prompt, and
`hmc pending approve all` leaves the same files and records as the release's own approve.
hmc runs as a subprocess, as a person would run it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.hermes.release import for_schema
from tests.conformance import hmc_side as hmc
from tests.conformance.oracle import copy_home

ROOT = Path(__file__).resolve().parents[2]
S = "\n§\n"


def run_hmc(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("HMC_HERMES_VERSION", "HERMES_HOME")}
    env.update(COLUMNS="200", NO_COLOR="1", PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "tui.cli", "--home", str(home), *args],
                          capture_output=True, env=env, timeout=60, cwd=home)


def _written_by_the_release(oracle, home: Path) -> None:
    patch = hmc.release_of(oracle).patch  # 0.22: the model's edit verb is patch
    calls = [
        {"action": "add", "target": "memory", "content": "Project uses pytest -q; run it before pushing"},
        {"action": "add", "target": "memory", "content": "Deploys go out on Fridays 🚀"},
        {"action": "add", "target": "user", "content": "Name is Ada; prefers concise answers"},
        {"action": "add", "target": "user", "content": "用中文回答技术问题"},
        {"action": "add", "target": "memory", "content": "Staging DB refreshes on Sundays"},
        {"action": "patch", "target": "memory", "old_text": "Fridays 🚀", "content": "Thursdays"} if patch else
        {"action": "replace", "target": "memory", "old_text": "Fridays", "content": "Deploys go out on Thursdays"},
        {"action": "remove", "target": "memory", "old_text": "Staging"},
        {"action": "add", "target": "memory", "content": "Team chat: 👩\u200d💻 channel is #dev"},  # refused: a ZWJ
    ]
    out = oracle.apply_ops(home, calls)
    assert [r["result"]["success"] for r in out["results"]] == [True] * 7 + [False]
    if not oracle.has("write_approval"):
        (home / "config.yaml").write_text("memory:\n  memory_enabled: true\n", encoding="utf-8")
    else:
        _stage(oracle, home)
    oracle.sessions(home, build=[{"id": "s1", "source": "cli", "messages": [
        {"role": "user", "content": "remember that we use ruff"},
        {"role": "assistant", "content": "Saved."},
    ]}])


def _stage(oracle, home: Path) -> None:
    (home / "config.yaml").write_text("memory:\n  write_approval: true\n", encoding="utf-8")
    staged = oracle.stage(home, [
        {"action": "add", "target": "memory", "content": "Uses ruff for lint", "origin": "background_review"},
        {"action": "patch", "target": "user", "old_text": "Ada", "content": "Ada L."} if hmc.release_of(oracle).patch
        else {"action": "replace", "target": "user", "old_text": "Ada", "content": "Name is Ada L.; prefers concise answers"},
        {"action": "remove", "target": "memory", "old_text": "no such entry"},  # 0.22 refuses to stage it
        {"target": "memory", "operations": [{"action": "add", "content": "CI is GitHub Actions"},
                                            {"action": "remove", "old_text": "pytest"}]},
    ])
    assert len(staged["pending_ids"]) == (3 if hmc.release_of(oracle).pins else 4)


def _homes(oracle, make_home, tmp_path):
    home = make_home()
    _written_by_the_release(oracle, home)
    return home, copy_home(home, tmp_path / "hmc")


@pytest.mark.area("drift")
def test_status_detects_the_release_and_sees_no_drift(oracle, make_home, tmp_path):
    _, mine = _homes(oracle, make_home, tmp_path)
    status = run_hmc(mine, "status", "--json")
    assert status.returncode == 0, status.stderr.decode()
    data = json.loads(status.stdout)
    # state.db's schema names the newest release that writes it (0.13.0 and 0.14.0 share one, as do
    # 0.15.x and 0.18.1/0.18.2; their memory rules are the same)
    schema = oracle.hello()["schema_version"]
    assert data["hermes"]["source"] == "state.db" and data["hermes"]["detail"] == f"state.db schema version {schema}"
    detected, notice = for_schema(schema)
    assert data["hermes"]["version"] == detected.name and notice is None
    assert detected.schema == schema and detected.scan == hmc.release_of(oracle).scan
    for target in hmc.TARGETS:
        assert data["targets"][target]["drift"] is None and data["targets"][target]["error"] is None
        assert data["targets"][target]["untidy"] == []
    staged = (3 if hmc.release_of(oracle).pins else 4) if oracle.has("write_approval") else 0
    assert data["pending"]["count"] == staged and data["write_approval"] is bool(staged)


@pytest.mark.area("prompt")
def test_memory_prompt_prints_the_releases_prompt(oracle, make_home, tmp_path):
    home, mine = _homes(oracle, make_home, tmp_path)
    theirs = oracle.prompt(home, agent=True)
    prompt = run_hmc(mine, "memory", "prompt", "--raw")
    assert prompt.returncode == 0, prompt.stderr.decode()
    assert prompt.stdout.decode("utf-8") == theirs["joined"]
    assert "Deploys go out on Thursdays" in theirs["joined"] and "用中文回答技术问题" in theirs["joined"]


@pytest.mark.area("pending")
def test_approve_all_leaves_what_the_releases_approve_leaves(oracle, make_home, tmp_path):
    oracle.require("write_approval")
    home, mine = _homes(oracle, make_home, tmp_path)
    approved = oracle.approve_all(home)
    ours = run_hmc(mine, "pending", "approve", "all")
    assert ours.returncode in (0, 1), ours.stderr.decode()
    assert hmc.store_bytes(mine) == approved["files"]
    left = json.loads(run_hmc(mine, "pending", "list", "--json").stdout)
    assert [r["id"] for r in left["records"]] == [r["id"] for r in approved["pending"]]
    # the remove that matches nothing, on both sides (0.22 never staged it)
    assert len(approved["pending"]) == (0 if hmc.release_of(oracle).pins else 1)
