"""kill -9 at chosen points of approve-all's group commit (core/pending/queue.py `_approve_together`):
while claiming, after the claims are made durable, mid-way through the in-memory applies, while the
refused go back, after a file's prepared journal line, after its replace, after its commit line,
and while the claims are deleted. After the next run's recovery every record is either applied
exactly once and gone from the queue, or still pending and not applied; no claim or temp file is
left; the journal is a chain of the writes that happened; and finishing the approval leaves the
same files and the same refused records as an approve-all that was never interrupted.

Which call is the fatal one comes from a seeded Random (the seed is printed with a failure).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from core.curator import open_curator
from core.pending.queue import approved_by
from core.store.memory import parse
from tests.core.pending_support import make_home, pending_files, stage

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SEED = int(os.environ.get("HMC_SEED", "2026"))
CONFIG = "memory:\n  write_approval: true\n  memory_char_limit: 1500\n  user_char_limit: 1375\n"

# Kill the approver right after the n-th call of `module:attribute` returns (or raises).
CHILD = """
import importlib, os, signal, sys
from core.curator import open_curator
module, attr, n = sys.argv[2].split(":")
owner = importlib.import_module(module)
*path, name = attr.split(".")
for part in path:
    owner = getattr(owner, part)
original, calls = getattr(owner, name), [0]
def fatal(*args, **kwargs):
    try:
        return original(*args, **kwargs)
    finally:  # returned or raised (a refused record)
        calls[0] += 1
        if calls[0] == int(n):
            os.kill(os.getpid(), signal.SIGKILL)
setattr(owner, name, fatal)
open_curator(sys.argv[1]).pending.approve_all()
print("done", flush=True)
"""

N_MEMORY, N_USER = 12, 5  # adds that apply; two memory records more are refused (limit, no match)
RECORDS = N_MEMORY + N_USER + 2
# (point, how many calls an uninterrupted approve-all makes)
POINTS = [
    ("core.pending.claims:take", RECORDS),
    ("core.pending.approve_all:fsync_dir", 3),  # the claims made durable; the refused put back; the claims deleted
    ("core.store.group:Group.apply", RECORDS),
    ("core.store.journal:History._write_record", 2),  # the prepared line of MEMORY.md's write, then USER.md's
    ("core.store.memory:_atomic_write", 2),  # each file replaced
    ("core.store.journal:History._mark", 2),  # each commit line
    ("core.pending.claims:remove", N_MEMORY + N_USER),
]


def build(root: Path) -> tuple[Path, dict[str, tuple[str, str]]]:
    """A home with records for both files, two of which the release refuses. Returns the home and
    id -> (target, text) of every add."""
    home = make_home(root, config=CONFIG)
    staged: dict[str, tuple[str, str]] = {}
    for i in range(N_MEMORY + N_USER):
        target = "user" if i % 4 == 3 and sum(t == "user" for t, _ in staged.values()) < N_USER else "memory"
        text = f"group note {i} for {target}"
        staged[stage(home, target=target, content=text)] = (target, text)
        if i == 5:  # over the limit: refused, stays pending
            staged[stage(home, content="a very long remark " * 80)] = ("memory", "a very long remark")
        if i == 9:  # no entry matches: refused, stays pending
            stage(home, action="remove", old_text="nothing like this is stored")
    assert len(pending_files(home)) == RECORDS
    return home, staged


def spawn(home: Path, point: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", CHILD, str(home), point], cwd=ROOT, env=env,
                          capture_output=True, timeout=120)


def files(home: Path) -> dict[str, str]:
    return {name: (home / "memories" / name).read_text(encoding="utf-8") for name in ("MEMORY.md", "USER.md")}


def check(home: Path, staged: dict[str, tuple[str, str]]) -> None:
    cur = open_curator(home)
    cur.pending.list()  # what any next hmc command does first: settle the claims a dead hmc left
    folder = home / "pending" / "memory"
    assert [n for n in os.listdir(folder) if n.startswith(".")] == [], "a claim was left behind"
    assert [n for n in os.listdir(home / "memories") if n.endswith(".tmp")] == [], "an orphan temp file was left"
    waiting = {n[:-5] for n in pending_files(home)}
    texts = {t: parse(text) for t, text in zip(("memory", "user"), files(home).values())}
    for rid, (target, text) in staged.items():
        there = sum(e.startswith(text) for e in texts[target])
        assert there <= 1, f"{rid} applied twice"
        assert (rid in waiting) != bool(there), f"{rid}: {'pending and applied' if there else 'neither pending nor applied'}"
    records = cur.history.records()
    applied = [rid for r in records for rid in approved_by(r)]
    assert len(applied) == len(set(applied)), "the journal holds a record's approval twice"
    assert not waiting & set(applied), f"applied records came back: {sorted(waiting & set(applied))}"
    for target, name in (("memory", "MEMORY.md"), ("user", "USER.md")):
        chain = [r for r in records if r.target == target]
        for prev, rec in zip(chain, chain[1:]):
            assert rec.before == prev.after, f"journal record {rec.id} doesn't follow {prev.id}"
        if chain:
            assert chain[-1].after == files(home)[name]


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> tuple[Path, dict, dict[str, str], list[str]]:
    """The home, its adds, and what an uninterrupted approve-all leaves: files and refused ids."""
    base, staged = build(tmp_path_factory.mktemp("base"))
    ref = tmp_path_factory.mktemp("ref") / "home"
    shutil.copytree(base, ref, symlinks=True)
    report = open_curator(ref).pending.approve_all()
    assert len(report.done) == N_MEMORY + N_USER and len(report.failed) == 2
    return base, staged, files(ref), sorted(pending_files(ref))


@pytest.mark.parametrize("point,calls", POINTS, ids=[p for p, _ in POINTS])
def test_kill_9_at_each_step_of_the_group_commit_loses_nothing_and_applies_nothing_twice(
        tmp_path, reference, point, calls):
    base, staged, final, refused = reference
    rng = random.Random(f"{SEED}-{point}")
    for n in sorted({1, calls, rng.randint(1, calls)}):
        where = f"killed after call {n} of {point} (HMC_SEED={SEED})"
        home = tmp_path / f"kill-{n}"
        shutil.copytree(base, home, symlinks=True)
        out = spawn(home, f"{point}:{n}")
        assert b"Traceback" not in out.stderr, out.stderr.decode(errors="replace")
        assert out.returncode == -signal.SIGKILL, f"never {where}: {out.stdout!r}"
        check(home, staged)
        report = open_curator(home).pending.approve_all()  # finishing
        assert files(home) == final, where
        assert sorted(pending_files(home)) == refused, where
        assert {f.kind for f in report.failed} == {"limit", "no-match"}, where
        check(home, staged)
