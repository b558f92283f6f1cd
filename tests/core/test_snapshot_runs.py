"""core.snapshots.runs: rowid → slot kept as runs answers exactly as a dict would, whatever the
order sessions are added in, and a damaged set of runs is refused. Seeded; a failure prints its
seed."""

from __future__ import annotations

import random
from array import array

import pytest

from core.snapshots.runs import Runs


@pytest.mark.parametrize("seed", range(20))
def test_runs_answer_as_a_dict_would(seed):
    rng = random.Random(seed)
    runs, model = Runs(), {}
    next_rowid = 1
    for step in range(300):
        roll = rng.random()
        if roll < 0.3:  # a stretch of new sessions, mostly sharing a snapshot
            n = rng.randrange(1, 40)
            rowids = list(range(next_rowid, next_rowid + n))
            if rng.random() < 0.3:  # a gap: sessions deleted, or still live
                rowids = [r for r in rowids if rng.random() < 0.7]
            slots = [rng.choice([rng.randrange(3), -1]) if rng.random() < 0.2 else 7 for _ in rowids]
            runs.extend(rowids, slots)
            model.update(zip(rowids, slots))
            next_rowid += n + rng.randrange(0, 3)
        elif roll < 0.5:  # a live session from earlier settles: added out of order
            free = [r for r in range(1, next_rowid) if r not in model]
            if free:
                rowid = rng.choice(free)
                slot = rng.randrange(-1, 5)
                runs.add(rowid, slot)
                model[rowid] = slot
        elif roll < 0.7 and model:  # a counted session now loads another snapshot
            rowid = rng.choice(sorted(model))
            slot = rng.randrange(-1, 5)
            runs.set(rowid, slot)
            model[rowid] = slot
        else:
            rowid = rng.randrange(0, next_rowid + 2)
            if rowid in model:
                assert runs.get(rowid) == model[rowid], f"seed {seed}, step {step}"
            else:
                with pytest.raises(KeyError):
                    runs.get(rowid)
    assert len(runs) == len(model), f"seed {seed}"
    assert {r: runs.get(r) for r in model} == model, f"seed {seed}"
    runs.check()
    again = Runs(runs.starts, runs.lengths, runs.slots)
    assert len(again) == len(model) and all(again.get(r) == s for r, s in model.items())


def test_a_run_of_sessions_sharing_a_snapshot_is_one_run():
    runs = Runs()
    runs.extend(list(range(1, 101)), [4] * 50 + [5] * 50)
    runs.add(101, 5)
    assert (list(runs.starts), list(runs.lengths), list(runs.slots)) == ([1, 51], [50, 51], [4, 5])
    runs.set(60, 9)
    assert (list(runs.starts), list(runs.lengths), list(runs.slots)) == ([1, 51, 60, 61], [50, 9, 1, 41], [4, 5, 9, 5])


def test_a_rowid_is_held_once():
    runs = Runs()
    runs.extend([1, 2, 3], [0, 0, 0])
    with pytest.raises(ValueError):
        runs.add(2, 1)
    with pytest.raises(KeyError):
        runs.set(9, 1)


@pytest.mark.parametrize("starts, lengths, slots", [
    ([1, 5], [3, 2], [0]),  # fewer slots than runs
    ([1, 5], [0, 2], [0, 0]),  # an empty run
    ([1, 2], [3, 2], [0, 1]),  # overlapping
    ([5, 1], [1, 1], [0, 1]),  # out of order
])
def test_damaged_runs_are_refused(starts, lengths, slots):
    with pytest.raises(ValueError):
        Runs(array("q", starts), array("q", lengths), array("i", slots)).check()
