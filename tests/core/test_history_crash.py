"""The history under the memory queue's depth of probing (issue 20): kill -9 at random moments of a
rollback loop (rollback, undo, the timeline cache rewritten) never leaves a half-written store,
journal or cache that breaks the next run; rollbacks racing each other apply once and lose nothing.
The kill times come from a seeded Random, printed on failure (HMC_SEED replays or explores)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from core.curator import open_curator
from core.store.memory import parse
from core.timeline import RollbackConflict, TimelineError, build_timeline
from tests.core.test_timeline import add, make_home, write_files
from tui.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SEED = int(os.environ.get("HMC_SEED", "20261204"))
RUNS = 4  # kills of the loop (a count, not a time budget: a loaded box made fewer runs, and too few kills)

# `hmc rollback` of one agent write, `hmc undo`, again — the timeline rebuilt each time, every other time
# with its cache removed first, so kills land in store writes, journal lines and cache writes alike
LOOP = """
import io, os, sys, contextlib
from core.curator import open_curator
from core.timeline import cache as tl_cache
from tui.cli.main import main
home, wid = sys.argv[1], sys.argv[2]
db = open_curator(home).home.state_db
for i in range(1000):
    if i % 2:
        for path in (tl_cache.cache_path(db),):
            for p in (path, tl_cache.calls_path(path)):
                try:
                    os.unlink(p)
                except FileNotFoundError:
                    pass
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--home", home, "rollback", wid]) == 0  # hmc rollback, then hmc undo
        assert main(["--home", home, "undo"]) == 0
print("done", flush=True)
"""

KEEP = ["kept note one", "kept note two"]


def _home(tmp_path):
    home, db = make_home(tmp_path)
    db.session("s1", "cli")
    wid = f"m{db.call('s1', add('rolled back and forth'))[1]}"
    for text in KEEP:
        db.call("s1", add(text))
    write_files(home, ["rolled back and forth", *KEEP], [])
    return home, wid


def _startup() -> float:
    t = time.monotonic()
    subprocess.run([sys.executable, "-c", "import core.curator, core.timeline, tui.cli.main"], cwd=ROOT,
                   env=dict(os.environ, PYTHONPATH=str(ROOT)), check=True)
    return time.monotonic() - t


def _check_next_run(home: Path, where: str, capsys) -> None:
    """What the next run sees: a canonical store in one of its two states, no temp file once the store
    lock was taken, a readable journal whose records chain into the file, and log/rollback working."""
    cur = open_curator(home)
    with cur.stores["memory"].locked():
        pass
    text = (home / "memories" / "MEMORY.md").read_text(encoding="utf-8")
    entries = parse(text)
    assert entries in (["rolled back and forth", *KEEP], KEEP, [*KEEP, "rolled back and forth"]), f"{where}: {entries}"
    assert [n for n in os.listdir(home / "memories") if n.endswith(".tmp")] == [], f"{where}: a temp file was left"
    assert cur.history.problem is None, f"{where}: {cur.history.problem}"
    records = [r for r in cur.history.records() if r.target == "memory"]
    for prev, rec in zip(records, records[1:]):
        assert rec.before == prev.after, f"{where}: journal record {rec.id} doesn't follow {prev.id}"
    if records and records[-1].after != text:  # killed between the file's replace and the journal's commit:
        assert any(r.after == text for r in cur.history.in_doubt()), f"{where}: the journal doesn't explain the file"
    build_timeline(cur)  # a torn cache is ignored and rebuilt, never an error
    capsys.readouterr()
    assert main(["--home", str(home), "log"]) == 0, f"{where}: {capsys.readouterr()}"
    assert main(["--home", str(home), "blame"]) == 0, f"{where}: {capsys.readouterr()}"


def test_kill_9_in_a_rollback_loop_never_breaks_the_next_run(tmp_path, capsys):
    home, wid = _home(tmp_path)
    rng = random.Random(SEED)
    startup = _startup()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    kills = 0
    for run in range(1, RUNS + 1):
        delay = startup + rng.uniform(0.05, 0.4)
        where = f"run {run}, killed after {delay:.3f} s (HMC_SEED={SEED})"
        proc = subprocess.Popen([sys.executable, "-c", LOOP, str(home), wid], cwd=ROOT, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(delay)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=60)
        assert b"Traceback" not in err, f"{where}: {err.decode(errors='replace')[-1500:]}"
        kills += proc.returncode == -signal.SIGKILL
        _check_next_run(home, where, capsys)
        cur = open_curator(home)
        if "rolled back and forth" not in parse((home / "memories" / "MEMORY.md").read_text(encoding="utf-8")):
            cur.history.undo(cur.stores)  # killed between the rollback and its undo: the loop starts over
    assert kills >= 3, f"the loop never killed a rollback mid-run (HMC_SEED={SEED})"
    build_timeline(open_curator(home)).rollback(wid)  # the next run rolls back as ever
    assert parse((home / "memories" / "MEMORY.md").read_text(encoding="utf-8")) == KEEP


def _race(home: Path, wids: list[str]) -> list[object]:
    barrier = threading.Barrier(len(wids))
    results: list[object] = []

    def worker(wid: str) -> None:
        tl = build_timeline(open_curator(home))  # each its own curator and timeline, like two processes
        barrier.wait()
        try:
            results.append(tl.rollback(wid))
        except (RollbackConflict, TimelineError) as exc:
            results.append(exc)

    threads = [threading.Thread(target=worker, args=(w,)) for w in wids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_two_rollbacks_of_one_write_at_once_apply_it_once(tmp_path):
    home, wid = _home(tmp_path)
    results = _race(home, [wid] * 4)
    wins = [r for r in results if not isinstance(r, Exception)]
    assert len(wins) == 1 and len(results) == 4, results
    assert all("no longer" in str(r) or "changed while" in str(r) for r in results if r not in wins), results
    assert parse((home / "memories" / "MEMORY.md").read_text(encoding="utf-8")) == KEEP
    rollbacks = [r for r in open_curator(home).history.records() if r.action == "rollback"]
    assert len(rollbacks) == 1


def test_rollbacks_of_different_writes_at_once_both_land(tmp_path):
    home, wid = _home(tmp_path)
    other = next(w.id for w in build_timeline(open_curator(home)).log() if w.content == KEEP[0])
    results = _race(home, [wid, other])
    assert not [r for r in results if isinstance(r, Exception)], results
    assert parse((home / "memories" / "MEMORY.md").read_text(encoding="utf-8")) == KEEP[1:]
    records = [r for r in open_curator(home).history.records() if r.action == "rollback"]
    assert len(records) == 2
    for prev, rec in zip(records, records[1:]):
        assert rec.before == prev.after


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """The timeline cache lives under the test's own folder (the child process inherits the variable)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


def test_a_rollback_left_in_doubt_is_still_undone(tmp_path, monkeypatch):
    """hmc killed after the rollback replaced the file but before the journal's commit line: the
    next hmc undo undoes it (it used to say there was nothing to undo until another write)."""
    from core.store.journal import History

    home, wid = _home(tmp_path)
    real_mark = History._mark
    monkeypatch.setattr(History, "_mark", lambda self, kind, rid: False if kind == "commit" else real_mark(self, kind, rid))
    build_timeline(open_curator(home)).rollback(wid)
    monkeypatch.setattr(History, "_mark", real_mark)
    cur = open_curator(home)
    assert cur.history.records() == [] and len(cur.history.in_doubt()) == 1
    assert parse((home / "memories" / "MEMORY.md").read_text(encoding="utf-8")) == KEEP
    rec = cur.history.undoable()
    assert rec is not None and rec.action == "rollback"
    cur.history.undo(cur.stores)
    assert parse((home / "memories" / "MEMORY.md").read_text(encoding="utf-8")) == ["rolled back and forth", *KEEP]
    cur = open_curator(home)
    assert cur.history.in_doubt() == [] and [r.action for r in cur.history.records()] == ["rollback", "undo"]
    assert cur.history.undoable() is None  # the rollback is undone; the undo itself isn't undone by undo
