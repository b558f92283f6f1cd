"""A history build that is cut short keeps what it finished: the replay saves a checkpoint as it
goes (every CHECKPOINT_SECONDS; 0 here, so every event), and the next run resumes from it instead of
starting over, ending exactly where a build from scratch ends. Progress is reported as it goes."""

from __future__ import annotations

import json

import pytest

from core.timeline import build_timeline
from core.timeline import cache as tl_cache
from core.timeline import history
from core.timeline import replay as tl_replay
from tests.core.test_timeline import add, make_home, timeline, write_files


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


def _home(tmp_path, n=30):
    home, db = make_home(tmp_path)
    db.session("s1")
    for i in range(n):
        db.call("s1", add(f"fact {i}"))
        if i % 7 == 3:
            db.call("s1", {"action": "replace", "target": "memory", "old_text": f"fact {i}", "content": f"fact {i}!"})
    write_files(home, [f"fact {i}" + ("!" if i % 7 == 3 else "") for i in range(n)])
    return home


def _shape(tl):
    return ([(w.id, w.action, w.changes, w.after) for w in tl.writes],
            [(b.text, b.origin.id if b.origin else None, b.revisions) for b in tl.blame()])


class Cut(Exception):
    pass


def _cut_at(n: int):
    """A progress listener that stops the build (the user's ctrl+c, a crash) once `n` events are
    replayed, before the replay checkpoints the n-th (progress hears every event here)."""
    def listen(done: int, total: int) -> None:
        if done == n:
            raise Cut()
    return listen


def test_an_interrupted_build_resumes_where_it_stopped(tmp_path, monkeypatch):
    home = _home(tmp_path)
    monkeypatch.setattr(tl_replay, "CHECKPOINT_SECONDS", 0.0)
    monkeypatch.setattr(tl_replay, "PROGRESS_EVERY", 1)
    with pytest.raises(Cut):
        timeline(home, progress=_cut_at(20))
    calls_file = tl_cache.calls_path(tl_cache.cache_path(home / "state.db"))
    assert calls_file.exists()  # a checkpoint keeps the calls the replay hasn't consumed
    heard = []
    _, resumed = timeline(home, progress=lambda done, total: heard.append((done, total)))
    assert resumed.stats["cache"] == "hit" and resumed.stats["replayed"] == "new"
    assert heard[-1] == (34 - 19, 34 - 19)  # only what the cut build hadn't done
    _, full = timeline(home, cache=False)
    assert _shape(resumed) == _shape(full)
    _, again = timeline(home)  # and the resumed build's cache is whole
    assert _shape(again) == _shape(full) and again.stats["replayed"] == "new"


def test_no_checkpoint_inside_a_run_of_equal_times(monkeypatch):
    """A checkpoint between two events of the same time could resume them in another order."""
    monkeypatch.setattr(tl_replay, "CHECKPOINT_SECONDS", 0.0)
    calls = [history.Call(i, 100 + i, "s1", 5.0 if i < 3 else 6.0 + i, f"c{i}", "memory", "add", f"x{i}")
             for i in range(5)]
    replay = history._Replay(history.NEWEST)
    points: list[int] = []
    replay.feed(calls, [], {}, {}, checkpoint=lambda: points.append(replay.n_calls))
    assert points == [3, 4]  # never after the first or second of the three calls at time 5, nor at the end


def test_progress_hears_every_event(tmp_path):
    home = _home(tmp_path, n=200)
    heard = []
    from core.curator import open_curator
    from datetime import date

    build_timeline(open_curator(home, None, date(2026, 10, 1)), progress=lambda d, t: heard.append((d, t)))
    assert heard and heard[-1][0] == heard[-1][1] >= 200 + 200 // 7
    assert [d for d, _ in heard] == sorted(d for d, _ in heard)


def test_a_cached_patch_call_reads_back():
    """0.22's patch calls are harvested; the cache's calls file must take them back, or every full
    replay would read state.db again from the start."""
    call = history.Call(1, 2, "s1", 5.0, "c1", "memory", "patch", "new", "old")
    assert history.Call.from_cache(json.loads(json.dumps(call))) == call  # the calls file's form
    assert history.Call.from_json(call.to_json()) == call


def test_a_resumed_build_reads_the_sources_of_the_calls_it_replays(tmp_path, monkeypatch):
    """The cache keeps no session sources: calls resumed from a checkpoint's calls file get
    theirs from state.db."""
    home, db = make_home(tmp_path)
    db.session("s1", "telegram")
    for i in range(6):
        db.call("s1", add(f"fact {i}"))
    write_files(home, [f"fact {i}" for i in range(6)])
    monkeypatch.setattr(tl_replay, "CHECKPOINT_SECONDS", 0.0)
    monkeypatch.setattr(tl_replay, "PROGRESS_EVERY", 1)
    with pytest.raises(Cut):
        timeline(home, progress=_cut_at(3))
    _, resumed = timeline(home)
    assert resumed.stats["replayed"] == "new"
    assert [w.source for w in resumed.log()] == ["telegram"] * 6


def test_calls_alone_take_the_times_the_merge_gives_them():
    """The calls-only feed gives a call without a time the time of the call before it, as the
    merge of calls, records and snapshots does."""
    times = [None, 5.0, None, None, 7.0, None]
    calls = [history.Call(i, 100 + i, "s1", t, f"c{i}", "memory", "add", f"x{i}") for i, t in enumerate(times)]
    replay = history._Replay(history.NEWEST)
    replay.feed(calls, [], {}, {"s1": "cli"})
    merged = [ts for ts, _, _ in history._events(calls, [], {})]
    assert [w.timestamp for w in replay.builder.writes] == merged == [0.0, 5.0, 5.0, 5.0, 7.0, 7.0]
    assert (replay.last_ts, replay.n_calls, replay.events) == (7.0, 6, 6)
    assert [w.source for w in replay.builder.writes] == ["cli"] * 6
