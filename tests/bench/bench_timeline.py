"""Memory-history benchmarks, measured side by side in one run (not part of the test suite).

    python tests/bench/bench_timeline.py            # the 1,000,000-message state.db (built once, cached)
    python tests/bench/bench_timeline.py --quick    # 100,000 messages, for a fast look
    python tests/bench/bench_timeline.py --rebuild  # build the databases again

The database is the search benchmark's (core.demo.build.build_state_db, the current Hermes layout)
plus a few thousand memory tool calls (an assistant call and its `tool` result each), spread over
its sessions. It prints (goals from issue 11):

0. the read routes side by side: the memory rows from the FTS index (column filter), from the
   one-column FTS form, and by scanning the table — what core.sessions.memory_calls picks and why;
1. the first build of the history (read, pair, replay, reconcile, write the cache) vs a bare SQL
   scan of the memory rows (goal <= 2x);
2. the update after 100 new messages (cache hit: only the new rows are read) vs a cold start
   (goal <= 5%).

Every pair is timed alternately and repeated on warm OS caches; ratios are medians of the pairs' ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from core.demo.build import build_state_db  # noqa: E402

WRITES = 3_000
NEW_MESSAGES = 100
BARE_SQL = ("SELECT id, session_id, role, tool_call_id, tool_calls, tool_name, content, timestamp FROM messages "
            "WHERE tool_name = 'memory' OR (role = 'assistant' AND tool_calls LIKE '%\"memory\"%') ORDER BY id")


def cache_dir() -> Path:
    try:
        from platformdirs import user_cache_path

        return user_cache_path("hmc") / "bench"
    except Exception:  # pragma: no cover
        return Path(tempfile.gettempdir()) / "hmc-bench"


def timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def side_by_side(a, b, repeat: int, before_b=None, before_a=None) -> tuple[float, float, float]:
    """Median seconds of a() and b() in alternating pairs, and the median of the pairs' ratios b/a.
    `before_a` / `before_b` run untimed before each side (restoring its starting point)."""
    pa, pb = before_a or (lambda: None), before_b or (lambda: None)
    pa(), a(), pb(), b()
    ta, tb, ratios = [], [], []
    for i in range(repeat):
        if i % 2:
            pb()
            y = timed(b)
            pa()
            x = timed(a)
        else:
            pa()
            x = timed(a)
            pb()
            y = timed(b)
        ta.append(x)
        tb.append(y)
        ratios.append(y / x)
    return statistics.median(ta), statistics.median(tb), statistics.median(ratios)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:9.2f} ms"


def verdict(ratio: float, goal: float) -> str:
    return "ok" if ratio <= goal else "OVER GOAL"


def memory_rows(conn: sqlite3.Connection, n: int, seed: int = 11) -> list[tuple]:
    """n memory calls (add / replace / remove / batch, a store kept small), each an assistant row and
    its result, at random points of random sessions' time spans."""
    rng = random.Random(seed)
    sessions = conn.execute("SELECT id, started_at FROM sessions").fetchall()
    span = conn.execute("SELECT MIN(timestamp), MAX(timestamp) FROM messages").fetchone()
    times = sorted(rng.uniform(span[0], span[1]) for _ in range(n))
    live: list[str] = []
    rows = []
    for i, ts in enumerate(times):
        sid = rng.choice(sessions)[0]
        kind = rng.random()
        if len(live) >= 25:  # a real store holds a few dozen entries (2,200 chars): make room
            kind = 0.8
        if len(live) < 12 or kind < 0.4:
            text = f"Fact {i}: the build of service {i % 97} uses flag --opt-{i % 13}"
            args = {"action": "add", "target": "memory", "content": text}
            live.append(text)
        elif kind < 0.75:
            old = rng.choice(live)
            new = old.split(" (rev")[0] + f" (rev {i})"
            args = {"action": "replace", "target": "memory", "old_text": old, "content": new}
            live[live.index(old)] = new
        elif kind < 0.9:
            old = live.pop(rng.randrange(len(live)))
            args = {"action": "remove", "target": "memory", "old_text": old}
        else:
            a = live.pop(0)
            text = f"Batch fact {i}"
            args = {"target": "memory", "operations": [{"action": "remove", "old_text": a},
                                                       {"action": "add", "content": text}]}
            live.append(text)
        cid = f"call_bench_{i}"
        call = json.dumps([{"id": cid, "type": "function", "function": {"name": "memory", "arguments": json.dumps(args)}}])
        result = json.dumps({"success": True, "done": True, "target": "memory", "entry_count": len(live)})
        rows.append((sid, "assistant", "", None, call, None, ts))
        rows.append((sid, "tool", result, cid, None, "memory", ts))
    return rows, live


def insert(path: Path, rows: list[tuple]) -> None:
    conn = sqlite3.connect(path)
    with conn:
        conn.executemany("INSERT INTO messages(session_id, role, content, tool_call_id, tool_calls, tool_name, "
                         "timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    conn.close()


def ensure_home(folder: Path, *, sessions: int, messages: int, big: int, rebuild: bool) -> Path:
    """A Hermes home whose state.db holds the benchmark messages plus WRITES memory calls."""
    home = folder / "home"
    db = home / "state.db"
    if rebuild and home.exists():
        shutil.rmtree(home)
    if not db.exists():
        home.mkdir(parents=True, exist_ok=True)
        base = folder / "base.db"
        if rebuild and base.exists():
            base.unlink()
        if not base.exists():
            print(f"building {base} ({messages + big:,} messages)…", flush=True)
            started = time.perf_counter()
            build_state_db(base, sessions=sessions, messages=messages, big_session_messages=big)
            print(f"  built in {time.perf_counter() - started:.1f} s", flush=True)
        tmp = home / "state.db.building"
        shutil.copyfile(base, tmp)
        conn = sqlite3.connect(tmp)
        rows, live = memory_rows(conn, WRITES)
        conn.close()
        insert(tmp, rows)
        os.replace(tmp, db)
        (home / "memories").mkdir(exist_ok=True)
        (home / "memories" / "MEMORY.md").write_text("\n§\n".join(live), encoding="utf-8")
        (home / "config.yaml").write_text("memory:\n  memory_char_limit: 100000\n", encoding="utf-8")
    return home


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100,000 messages instead of 1,000,000")
    parser.add_argument("--rebuild", action="store_true", help="rebuild the cached databases")
    parser.add_argument("--repeat", type=int, default=9, help="timed runs per side (default 9)")
    parser.add_argument("--cache", type=Path, default=None, help="where the built databases are kept")
    args = parser.parse_args(argv)
    total = 100_000 if args.quick else 1_000_000
    big_session = 20_000 if args.quick else 100_000
    folder = (args.cache or cache_dir()) / ("timeline-quick" if args.quick else "timeline-full")
    home = ensure_home(folder, sessions=max(60, (total - big_session) // 100), messages=total - big_session,
                       big=big_session, rebuild=args.rebuild)
    scratch = Path(tempfile.mkdtemp(prefix="hmc-bench-timeline-"))
    os.environ["XDG_CACHE_HOME"] = str(scratch / "cache")  # the timeline cache: ours, thrown away after
    os.environ["XDG_STATE_HOME"] = str(scratch / "state")
    try:
        return run(home, scratch, args.repeat, total)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def run(home: Path, scratch: Path, repeat: int, total: int) -> int:
    from core.curator import open_curator
    from core.sessions.db import ReadOnlyConnections, probe
    from core.timeline import build_timeline
    from core.timeline import cache as tl_cache
    from core.sessions.memory_calls import Harvest, read_calls

    work = scratch / "home"
    shutil.copytree(home, work)  # the update test appends messages: never to the cached database
    db_path = work / "state.db"
    size = db_path.stat().st_size
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    n_messages = conn.execute("SELECT MAX(id) FROM messages").fetchone()[0]
    print(f"\nstate.db: {n_messages:,} messages with {WRITES:,} memory calls, {size / 2**20:,.0f} MiB · "
          f"SQLite {sqlite3.sqlite_version} · Python {sys.version.split()[0]} · {os.cpu_count()} CPUs · "
          f"medians of {repeat} alternating runs\n")

    def bare() -> None:
        conn.execute(BARE_SQL).fetchall()

    def route(name: str):
        def read() -> None:
            conns = ReadOnlyConnections(db_path)
            c = conns.get()
            read_calls(c, probe(c, db_path), Harvest(), name)
            conns.close()
        return read

    print("0. reading the memory rows: each route vs the bare SQL scan")
    print(f"   {'route':<14} {'bare scan':>12} {'route':>12} {'ratio':>7}")
    for name in ("fts-columns", "fts", "scan"):
        t_bare, t_route, ratio = side_by_side(bare, route(name), repeat)
        print(f"   {name:<14} {ms(t_bare)} {ms(t_route)} {ratio:6.2f}x")

    curator = open_curator(work, None, date.today())
    cache_file = tl_cache.cache_path(db_path)

    def cold() -> None:
        cache_file.unlink(missing_ok=True)
        build_timeline(curator)

    tl = build_timeline(curator, cache=False)
    print(f"\n1. first build ({len(tl.writes):,} writes, route {tl.stats['route']}, cache written) vs the bare SQL "
          "scan of the memory rows (goal <= 2x)")
    t_bare, t_cold, ratio = side_by_side(bare, cold, repeat)
    print(f"   bare SQL scan {ms(t_bare)}")
    print(f"   first build   {ms(t_cold)}")
    print(f"   ratio {ratio:.2f}x -> {verdict(ratio, 2.0)}\n")

    cold()
    saved = cache_file.read_bytes()
    rng = random.Random(5)
    sid = conn.execute("SELECT id FROM sessions LIMIT 1").fetchone()[0]
    last_ts = conn.execute("SELECT MAX(timestamp) FROM messages").fetchone()[0]
    new = [(sid, "user" if i % 2 else "assistant", f"new message {i} {rng.random()}", None, None, None, last_ts + i)
           for i in range(NEW_MESSAGES - 2)]
    call = json.dumps([{"id": "call_new", "type": "function", "function": {"name": "memory", "arguments": json.dumps(
        {"action": "add", "target": "memory", "content": "A fact from the newest session"})}}])
    extra = [(sid, "assistant", "", None, call, None, last_ts + NEW_MESSAGES),
             (sid, "tool", json.dumps({"success": True}), "call_new", None, "memory", last_ts + NEW_MESSAGES)]
    conn.close()  # first: the writer's close is then the last, which checkpoints its WAL away, as Hermes's
    # last close does (a WAL left behind by an open reader made every later read-only open rebuild its
    # index from the whole log: ~3.5 ms per open here, which no home where Hermes closed cleanly has)
    insert(db_path, new + extra)
    memory = work / "memories" / "MEMORY.md"  # the add landed, as Hermes writes it: the file agrees
    memory.write_text(memory.read_text(encoding="utf-8") + "\n§\nA fact from the newest session", encoding="utf-8")

    def restore() -> None:
        cache_file.write_bytes(saved)

    def update() -> None:
        t = build_timeline(curator)
        assert t.stats["cache"] == "hit", t.stats

    print(f"2. update after {NEW_MESSAGES} new messages (cache hit) vs a cold start (goal <= 5%)")
    t_cold, t_update, ratio = side_by_side(cold, update, repeat, before_b=restore)
    print(f"   cold start {ms(t_cold)}")
    print(f"   update     {ms(t_update)}")
    print(f"   ratio {ratio * 100:.1f}% -> {verdict(ratio, 0.05)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
