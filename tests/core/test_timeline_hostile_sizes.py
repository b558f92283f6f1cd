"""Hostile sizes stay bounded: the replay's work is linear in the calls (an add never walks the
store; only the reconciliations at the end read it whole), a 1 MB store of tiny entries reconciles
in one pass, and a cache over its size limit is not kept and says so (the CLI names it).
Work is counted by wrapping the whole-store paths, never timed."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import pytest

from core.hermes.release import NEWEST
from core.sessions.memory_calls import Call
from core.timeline import cache as tl_cache
from core.timeline import history, state
from core.timeline import replay as tl_replay
from tests.core.test_timeline import add, make_home, timeline, write_files


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


@pytest.fixture
def whole_store_reads(monkeypatch):
    """How often something walks a whole store: its lines, its texts, a morph, the release's locate."""
    count = {"n": 0}
    alive, morph, locate = state.State.alive, state.State.morph, tl_replay.locate

    def counted(fn):
        def wrapper(*args, **kwargs):
            count["n"] += 1
            return fn(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(state.State, "alive", counted(alive))
    monkeypatch.setattr(state.State, "morph", counted(morph))
    monkeypatch.setattr(tl_replay, "locate", counted(locate))
    return count


def test_twenty_thousand_adds_and_exact_replaces_never_walk_the_store(whole_store_reads):
    n = 20_000
    calls = [Call(i, 10**6 + i, "s", 1.0 + i, f"c{i}", "memory", "add", f"fact {i}") for i in range(n)]
    calls += [Call(n + i, 2 * 10**6 + i, "s", 1.0 + n + i, f"r{i}", "memory", "replace", f"fact {i}!", f"fact {i}")
              for i in range(0, n, 10)]  # 0.22: an old_text equal to an entry is found by the index
    replay = history._Replay(NEWEST)
    replay.feed(calls, [], {}, {})
    assert whole_store_reads["n"] == 0
    final = tuple(f"fact {i}" + ("!" if i % 10 == 0 else "") for i in range(n))
    blame = history.finish(replay.builder, {"memory": final, "user": ()}, replay.last_ts)
    assert whole_store_reads["n"] <= 6  # the reconciliation at the end: one pass per store
    assert len(replay.builder.writes) == n + n // 10 and not replay.builder.divergences
    assert [b.revisions for b in blame["memory"][:2]] == [2, 1]
    assert replay.builder.writes[-1].after[:2] == ("fact 0!", "fact 1")


@pytest.mark.long
def test_a_one_megabyte_store_of_tiny_entries_reconciles_in_one_pass(tmp_path, whole_store_reads):
    home, db = make_home(tmp_path)
    db.session("s1")
    db.call("s1", add("0"))
    tiny = [f"{i:x}" for i in range(122_000)]  # just under hmc's 1 MiB store limit, delimiters included
    write_files(home, tiny)
    assert 1_000_000 < (home / "memories" / "MEMORY.md").stat().st_size < 1 << 20
    _, tl = timeline(home, cache=False)
    assert whole_store_reads["n"] <= 12
    assert len(tl.blame("memory")) == 122_000 and tl.blame("memory")[0].origin is not None
    outside = [w for w in tl.writes if w.by == "unknown"]  # one observation: a row per change
    assert len(outside) == 121_999 and {w.id.split(".")[0] for w in outside} == {"x1"}
    assert all(len(w.changes) == 1 for w in outside) and len(outside[0].log) == 2 * 121_999


def test_a_cache_over_its_limit_is_not_kept_and_the_cli_says_so(tmp_path, monkeypatch):
    home, db = make_home(tmp_path)
    db.session("s1")
    for i in range(5):
        db.call("s1", add(f"fact {i}"))
    write_files(home, [f"fact {i}" for i in range(5)])
    monkeypatch.setattr(tl_cache, "MAX_CACHE_BYTES", 100)
    _, tl = timeline(home)
    assert "over hmc's" in tl.stats["cache_problem"] and "each run replays the history" in tl.stats["cache_problem"]
    assert not tl_cache.cache_path(home / "state.db").exists()
    _, again = timeline(home)
    assert again.stats["cache"] == "rebuilt" and again.stats["replayed"] == "all"
    from tui.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["--home", str(home), "--today", "2026-10-01", "log", "--json"])
    assert code == 0 and "the history's cache would be" in err.getvalue() and '"writes"' in out.getvalue()
    monkeypatch.setattr(tl_cache, "MAX_CACHE_BYTES", 256 * 1024 * 1024)
    _, fine = timeline(home)
    assert "cache_problem" not in fine.stats


def _outcome(fn, text):
    try:
        return "ok", fn(text)
    except RecursionError:
        return "deep", None
    except ValueError as exc:
        return "error", str(exc)


def test_the_fast_json_reader_answers_as_json_loads_does():
    """memory_calls reads rows with the C scanner directly; on anything it can't take whole it
    falls back to json.loads: results and error messages are json.loads's, on odd inputs too."""
    import json
    import os
    import random

    from core.sessions.memory_calls import _loads

    fixed = ["", " ", "{}", " {}", "{} ", "{}x", "{} {}", "[1, 2", "NaN", "-Infinity", '"\\ud800"', "1e400",
             '{"a": 1, "a": 2}', "\t[true]\n", "[" * 100_000 + "]" * 100_000, "\ufeff{}", "nul", "0123", '"a\nb"']
    seed = int(os.environ.get("HMC_SEED", "20261202"))
    rng = random.Random(seed)
    pieces = ['{"k": ', "[", "]", "}", '"s"', "1", "-2.5e3", "true", "null", ",", " ", ":", '"\\u00e9"', "\n"]
    fuzz = ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 12))) for _ in range(2_000)]
    for text in fixed + fuzz:
        assert _outcome(_loads, text) == _outcome(json.loads, text), f"seed {seed}: {text[:60]!r}"
