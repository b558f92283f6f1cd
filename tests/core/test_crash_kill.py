"""kill -9 at random moments of `approve all` and of `memory add`: after recovery no applied record is
back in the queue, nothing is applied twice, no claim or temp file is left, and the journal holds
exactly the writes that happened (each record's `before` is the previous one's `after`, and the
newest one's `after` is the file)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.curator import open_curator
from core.pending.queue import approved_by
from core.store.memory import parse
from tests.core.pending_support import MEMORY, make_home, pending_files, stage

pytestmark = pytest.mark.slow

BUDGET = 6.0  # seconds of kill loop per test (the two tests take ~18 s in all)
ROOT = Path(__file__).resolve().parents[2]
BIG = "memory:\n  write_approval: true\n  memory_char_limit: 500000\n  user_char_limit: 1375\n"

APPROVE = """
import sys
from core.curator import open_curator
open_curator(sys.argv[1]).pending.approve_all()
print("done", flush=True)
"""

ADD = """
import sys
from core.curator import open_curator
store = open_curator(sys.argv[1]).stores["memory"]
for i in range(int(sys.argv[2]), int(sys.argv[2]) + 40):
    store.add(f"added by run {sys.argv[2]} note {i}")
print("done", flush=True)
"""


def spawn(code: str, *args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-c", code, *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def kill_soon(proc: subprocess.Popen, rng: random.Random, startup: float) -> bool:
    """kill -9 at a random moment of its work; True when it was killed before finishing."""
    time.sleep(startup + rng.uniform(0.0, 0.25))
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    out, err = proc.communicate()
    assert b"Traceback" not in err, err.decode(errors="replace")
    return proc.returncode == -signal.SIGKILL


def startup_time() -> float:
    """How long the child takes to import hmc (the kills land after it, in the work)."""
    t = time.monotonic()
    subprocess.run([sys.executable, "-c", "import core.curator, core.pending.queue"], cwd=ROOT,
                   env=dict(os.environ, PYTHONPATH=str(ROOT)), check=True)
    return time.monotonic() - t


def recover(home: Path) -> None:
    """What any later hmc command does first: recover claims (list), and a store lock (orphans)."""
    cur = open_curator(home)
    cur.pending.list()
    with cur.stores["memory"].locked():
        pass


def check(home: Path) -> None:
    cur = open_curator(home)
    folder = home / "pending" / "memory"
    assert [n for n in os.listdir(folder) if n.startswith(".")] == [], "a claim was left behind"
    assert [n for n in os.listdir(home / "memories") if n.endswith(".tmp")] == [], "an orphan temp file was left"
    history = cur.history
    records = [r for r in history.records() if r.target == "memory"]
    applied = [rid for r in records for rid in approved_by(r)]  # one approval, or an approve-all's group
    assert len(applied) == len(set(applied)), "a record was applied twice"
    waiting = {n[:-5] for n in pending_files(home)}
    assert not waiting & set(applied), f"applied records came back: {sorted(waiting & set(applied))}"
    text = (home / "memories" / "MEMORY.md").read_text(encoding="utf-8")
    entries = parse(text)
    assert len(entries) == len(set(entries))
    # the journal is true and complete: a chain of writes ending in the file as it is
    assert records, "nothing was written"
    for prev, rec in zip(records, records[1:]):
        assert rec.before == prev.after, f"journal record {rec.id} doesn't follow {prev.id}"
    assert records[-1].after == text
    assert history.in_doubt() == [] or all(r.after != text for r in history.in_doubt())


def test_kill_9_during_approve_all_never_resurrects_an_applied_record(tmp_path):
    home = make_home(tmp_path, config=BIG)
    rng = random.Random(9)
    print("kill moments from random.Random(9)")  # shown with a failure
    startup = startup_time()
    staged = [stage(home, content=f"staged note {i}", rid=f"{0xc0000000 + i:08x}") for i in range(400)]
    open_curator(home).stores["memory"].add("first note")  # the journal chain starts from hmc's own write
    deadline = time.monotonic() + BUDGET
    kills = 0
    while time.monotonic() < deadline and pending_files(home):
        kills += kill_soon(spawn(APPROVE, str(home)), rng, startup)
        recover(home)
        check(home)
    assert kills >= 3, "the loop never killed an approval mid-run"
    print(f"{kills} kills, {len(pending_files(home))} records left")
    open_curator(home).pending.approve_all()
    check(home)
    entries = parse((home / "memories" / "MEMORY.md").read_text(encoding="utf-8"))
    assert pending_files(home) == [] and sorted(entries) == sorted(MEMORY + ["first note"] + [f"staged note {i}" for i in range(400)])
    assert len(staged) == 400


def test_kill_9_during_memory_add_leaves_no_orphan_and_a_true_journal(tmp_path):
    home = make_home(tmp_path, config=BIG)
    rng = random.Random(99)
    print("kill moments from random.Random(99)")  # shown with a failure
    startup = startup_time()
    open_curator(home).stores["memory"].add("first note")
    deadline = time.monotonic() + BUDGET
    kills, run = 0, 0
    while time.monotonic() < deadline:
        run += 1
        kills += kill_soon(spawn(ADD, str(home), str(run * 1000)), rng, startup)
        recover(home)
        open_curator(home).stores["memory"].add(f"recovery write {run}")  # settles a write in doubt
        check(home)
    assert kills >= 3, "the loop never killed a writer mid-run"
