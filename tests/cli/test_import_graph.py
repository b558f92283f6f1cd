"""What the commands a shell runs on every prompt import: `hmc --version`, and `hmc status --short`
answered from its summary, load none of hmc's heavy parts (the scanner, the pending machinery, the
doctor, the curator, rich, Textual, PyYAML). A later change that pulls one back in at the top of a
module fails here, naming the module. The run is a fresh process, as a prompt's is."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core import attention
from core.demo.build import build_demo_home
from tests.cli.runner import ROOT, hmc

HEAVY = ("rich", "textual", "yaml", "core.scan", "core.pending", "core.doctor", "core.curator", "core.store.memory",
         "core.sessions", "core.timeline", "core.review.findings", "core.profiles", "tui.cli.common",
         "tui.literal", "sqlite3", "importlib.metadata", "core.dataclass_code", "dataclasses")

PROBE = """
import json, sys
from tui.cli.main import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
sys.stdout.flush()
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n")
sys.exit(code)
"""


def modules(*args: str, env: dict | None = None) -> tuple[subprocess.CompletedProcess, list[str]]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env, timeout=60)
    loaded = json.loads(done.stderr.rsplit("MODULES ", 1)[1])
    return done, loaded


def heavy(loaded: list[str]) -> list[str]:
    return [m for m in loaded if any(m == h or m.startswith(h + ".") for h in HEAVY)]


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    base = build_demo_home(tmp_path_factory.mktemp("demo") / "home")
    copy = tmp_path_factory.mktemp("copy") / "home"
    shutil.copytree(base, copy)
    return copy


def test_version_imports_nothing_heavy():
    done, loaded = modules("--version")
    assert done.returncode == 0 and done.stdout.startswith("hmc ")
    assert heavy(loaded) == []


def test_status_short_from_its_summary_imports_nothing_heavy(home):
    args = ["--home", str(home), "--today", "2026-11-15", "status", "--short"]
    time.sleep(attention.RACY_NS / 1e9 + 0.1)  # the copy's files, changed just now, are trusted after this
    first = hmc(*args[2:], home=home, today=None)  # reads everything, keeps the summary
    assert first.returncode == 0, first.stderr
    done, loaded = modules(*args)
    assert done.returncode == 0 and done.stdout == first.stdout
    assert heavy(loaded) == [], "status --short from its summary imported heavy modules"


def test_the_probe_sees_heavy_imports(home):
    """The guard can fail: a full `status` imports what the short one must not."""
    done, loaded = modules("--home", str(home), "status", "--json")
    assert done.returncode == 0
    assert {"core.curator", "core.store.memory", "core.scan.scanner"} <= set(heavy(loaded))


# What each read-only command a script runs often must not load (issue 35: "each subcommand loads its
# own modules"). What it does load is its own work: the curator and the stores, state.db's reader,
# and the scanner where a string it prints may hold a secret (the masker) or an entry is inspected.
SLIM = {
    ("status", "--json"): ("rich", "textual", "core.doctor.check", "core.doctor.cases", "subprocess",
                           "core.pending.queue", "core.pending.inspection", "core.review", "core.timeline"),
    ("pending", "list", "--json"): ("rich.text", "rich.console", "textual", "core.doctor", "core.sessions.search",
                                    "core.review", "core.timeline"),
    ("memory", "list", "--json"): ("rich", "textual", "core.doctor", "core.pending", "core.review", "core.timeline"),
    ("sessions", "--json"): ("rich", "textual", "core.doctor", "core.pending", "core.review", "core.timeline"),
    ("profiles", "--json"): ("rich", "textual", "core.doctor.check", "core.doctor.cases", "subprocess",
                             "core.pending.queue", "core.timeline"),
}


@pytest.mark.parametrize("words", list(SLIM), ids=" ".join)
def test_each_read_only_command_imports_only_what_it_needs(home, words):
    done, loaded = modules("--home", str(home), "--today", "2026-11-15", *words)
    assert done.returncode == 0, done.stderr
    json.loads(done.stdout)
    extra = [m for m in loaded if any(m == h or m.startswith(h + ".") for h in SLIM[words])]
    assert extra == [], f"`hmc {' '.join(words)}` imported {extra}"


def test_a_repeated_status_json_loads_no_scanner_and_no_rapidfuzz(home, tmp_path):
    """A script or a status bar polling `hmc status --json`: the second run finds every text it
    prints kept clean (no scanner), the dataclasses' code kept, and scores the demo's stale chat's
    one rewritten entry without rapidfuzz (core.snapshots.compare.indel_ratio)."""
    args = ["--home", str(home), "--today", "2026-11-15", "status", "--json"]
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    first, _ = modules(*args, env=env)
    assert first.returncode == 0, first.stderr
    doc = json.loads(first.stdout)
    assert any(chat["changes"]["memory"]["changed"] for chat in doc["stale_sessions"]), "the demo has a rewrite"
    done, loaded = modules(*args, env=env)
    assert done.returncode == 0 and done.stdout == first.stdout
    assert not [m for m in loaded if m == "rapidfuzz" or m.startswith(("rapidfuzz.", "core.scan.scanner"))]
