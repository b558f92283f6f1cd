"""Concurrency: a record is applied at most once, and nothing Hermes writes meanwhile is lost."""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections import Counter

from core.store.memory import MemoryStore, Op
from core.pending.queue import Approval, PendingError, approved_by
from tests.core.pending_support import curator, entries, make_home, pending_files, stage

BIG = "memory:\n  write_approval: true\n  memory_char_limit: 200000\n  user_char_limit: 1375\n"


def test_threads_racing_on_one_record_apply_it_once(tmp_path):
    home = make_home(tmp_path, config=BIG)
    rid = stage(home, content="Likes espresso")
    barrier = threading.Barrier(8)
    results: list[object] = []

    def worker() -> None:
        q = curator(home).pending  # each thread its own queue and store objects, like separate windows
        barrier.wait()
        try:
            results.append(q.approve(rid))
        except PendingError as exc:
            results.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wins = [r for r in results if isinstance(r, Approval)]
    assert len(wins) == 1 and len(results) == 8
    assert all("no pending write" in str(r) or "right now" in str(r) for r in results if r not in wins)
    assert entries(home).count("Likes espresso") == 1 and pending_files(home) == []
    approvals = [r for r in curator(home).history.records() if r.action.startswith("approve")]
    assert len(approvals) == 1


def _hmc(home, rounds, out):
    q = curator(home).pending
    done = []
    for _ in range(rounds):
        done += [a.id for a in q.approve_all().done]
        time.sleep(0.005)
    out.put(done)


def _hermes(home, n):
    store = MemoryStore("memory", home / "memories" / "MEMORY.md", 200000, True, None)
    for i in range(n):
        store.apply([Op("add", content=f"hermes wrote note {i}")])  # Hermes writing directly
        stage(home, content=f"staged while approving {i}", rid=f"{0xa0000000 + i:08x}")  # and staging more


def test_hermes_staging_and_writing_while_two_hmcs_approve_loses_nothing(tmp_path):
    home = make_home(tmp_path, config=BIG)
    first = [stage(home, content=f"staged before {i}", rid=f"{0xb0000000 + i:08x}") for i in range(15)]
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    n = 25
    procs = [ctx.Process(target=_hermes, args=(home, n))]
    procs += [ctx.Process(target=_hmc, args=(home, 40, out)) for _ in range(2)]
    for p in procs:
        p.start()
    approved = out.get(timeout=60) + out.get(timeout=60)
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    # whatever the race left staged is approved now
    approved += [a.id for a in curator(home).pending.approve_all().done]
    counts = Counter(approved)
    assert all(c == 1 for c in counts.values()), "a record was approved twice"
    assert len(counts) == 15 + n
    assert pending_files(home) == []  # no claim left behind either
    have = Counter(entries(home))
    for i in range(n):
        assert have[f"hermes wrote note {i}"] == 1
        assert have[f"staged while approving {i}"] == 1
    for i in range(15):
        assert have[f"staged before {i}"] == 1
    journal = Counter(rid for r in curator(home).history.records() for rid in approved_by(r))
    assert sorted(journal) == sorted(counts) and set(journal.values()) == {1}
    assert set(first) <= set(counts)


def test_a_failed_approval_puts_the_record_back_for_the_next_one(tmp_path):
    home = make_home(tmp_path, config=BIG)
    rid = stage(home, "remove", old_text="kubernetes")
    q = curator(home).pending
    for _ in range(3):  # fails every time, and the record is always back in its place
        try:
            q.approve(rid)
        except PendingError:
            pass
        assert pending_files(home) == [f"{rid}.json"]
