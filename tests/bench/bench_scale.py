"""Scale benchmarks (issue 19: every command costs what its work costs), measured side by side in one
run (not part of the test suite). Every row is a ratio of two timings taken in alternating pairs:

    python tests/bench/bench_scale.py                 # every row (the 1,000,000-message search db is built once)
    python tests/bench/bench_scale.py --quick         # smaller sizes, for a fast look
    python tests/bench/bench_scale.py --only history  # one group: review, history, search, log, approve

1. `hmc review --json` on the demo home with a 20,000-entry MEMORY.md vs the same with 2,000 entries
   (the history's ages included; goal <= 2x);
2. a cold history build (read, replay, reconcile, cache) over 5,000 and 50,000 successful `add`
   calls vs a bare SQL scan of the same rows (goal <= 3x at 50,000), and the update after 100 new
   messages vs that cold build (goal <= 5%);
3. `hmc search` of a two-character CJK word (the LIKE route) vs a rare word (FTS) at 1,000,000
   messages, end to end (goal <= 1.5x); `--messages` picks a smaller database;
4. `hmc log --json` with a warm cache vs `hmc memory list` (goal <= 1.5x);
5. approving 1,000 staged records with hmc vs Hermes's own approve-all of the same queue through
   the conformance oracle (goal <= 1.5x; needs the Hermes release the oracle installs).

Ratios are medians of the pairs' ratios. HOME and the XDG folders point into a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

BARE_SQL = ("SELECT id, session_id, role, tool_call_id, tool_calls, tool_name, content, timestamp FROM messages "
            "WHERE tool_name = 'memory' OR (role = 'assistant' AND tool_calls LIKE '%\"memory\"%') ORDER BY id")
CJK_WORD = "重启"  # two characters: no trigram, so the LIKE route
NEW_MESSAGES = 100


def cache_dir() -> Path:
    from platformdirs import user_cache_path

    return user_cache_path("hmc") / "bench"


def sandbox(folder: Path) -> dict[str, str]:
    """This process's (and its children's) HOME and XDG folders inside `folder`."""
    env = {"HOME": str(folder / "home"), "XDG_CONFIG_HOME": str(folder / "config"),
           "XDG_CACHE_HOME": str(folder / "cache"), "XDG_STATE_HOME": str(folder / "state"),
           "XDG_DATA_HOME": str(folder / "data")}
    os.environ.update(env)
    for key in ("HERMES_HOME", "HERMES_PROFILE", "HMC_HERMES_VERSION"):
        os.environ.pop(key, None)
    return env


def timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def side_by_side(a, b, repeat: int, before_a=None, before_b=None) -> tuple[float, float, float]:
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
    return f"{seconds * 1000:10.1f} ms"


def verdict(ratio: float, goal: float) -> str:
    return "ok" if ratio <= goal else "OVER GOAL"


def row(name: str, ta: float, tb: float, ratio: float, goal: float | None, pct: bool = False) -> None:
    shown = f"{ratio * 100:.1f}%" if pct else f"{ratio:.2f}x"
    goal_text = "" if goal is None else (f" (goal <= {goal * 100:.0f}%)" if pct else f" (goal <= {goal}x)")
    tail = "" if goal is None else f" -> {verdict(ratio, goal)}"
    print(f"   {name:<52} {ms(ta)} {ms(tb)}  {shown}{goal_text}{tail}", flush=True)


def hmc(*args: str, home: Path, check: bool = True) -> subprocess.CompletedProcess:
    out = subprocess.run([sys.executable, "-m", "tui.cli", "--home", str(home), *args], cwd=ROOT,
                         capture_output=True, text=True)
    if check and out.returncode not in (0, 1):
        raise SystemExit(f"hmc {' '.join(args)} failed ({out.returncode}): {out.stderr[-2000:]}")
    return out


# -- databases ------------------------------------------------------------------------------------

def base_db(folder: Path) -> Path:
    """A small demo-layout state.db (the current Hermes schema, FTS included), built once."""
    from core.demo.build import build_state_db

    path = folder / "scale-base.db"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        build_state_db(path, sessions=30, messages=600)
    return path


def add_calls(conn: sqlite3.Connection, n: int, start_ts: float, sid: str) -> list[str]:
    """n successful memory `add` calls (an assistant row and its `tool` result each); the entries."""
    rows, texts = [], []
    for i in range(n):
        text = f"Fact {i}: service {i % 97} builds with flag --opt-{i % 13} on host h{i % 31}"
        texts.append(text)
        cid = f"call_scale_{i}"
        call = json.dumps([{"id": cid, "type": "function", "function": {"name": "memory", "arguments": json.dumps(
            {"action": "add", "target": "memory", "content": text})}}])
        result = json.dumps({"success": True, "target": "memory"})
        ts = start_ts + i
        rows.append((sid, "assistant", "", None, call, None, ts))
        rows.append((sid, "tool", result, cid, None, "memory", ts))
    with conn:
        conn.executemany("INSERT INTO messages(session_id, role, content, tool_call_id, tool_calls, tool_name, "
                         "timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    return texts


def adds_home(folder: Path, n: int) -> Path:
    """A Hermes home whose state.db holds n successful adds, and whose MEMORY.md holds their entries."""
    home = folder / f"adds-{n}"
    if (home / "state.db").exists():
        return home
    home.mkdir(parents=True, exist_ok=True)
    tmp = home / "state.db.building"
    shutil.copyfile(base_db(folder), tmp)
    conn = sqlite3.connect(tmp)
    sid, start = conn.execute("SELECT id, started_at FROM sessions ORDER BY started_at LIMIT 1").fetchone()
    texts = add_calls(conn, n, float(start) + 60, sid)
    conn.close()
    (home / "memories").mkdir(exist_ok=True)
    (home / "memories" / "MEMORY.md").write_text("\n§\n".join(texts), encoding="utf-8")
    (home / "config.yaml").write_text("memory:\n  memory_char_limit: 100000000\n", encoding="utf-8")
    os.replace(tmp, home / "state.db")
    return home


def append_messages(db: Path, n: int) -> None:
    """n new messages at the end of the db, the last two a memory call and its result."""
    conn = sqlite3.connect(db)
    sid, last = conn.execute("SELECT session_id, MAX(timestamp) FROM messages").fetchone()
    rows = [(sid, "user" if i % 2 else "assistant", f"new message {i}", None, None, None, last + i + 1)
            for i in range(n - 2)]
    call = json.dumps([{"id": "call_new", "type": "function", "function": {"name": "memory", "arguments": json.dumps(
        {"action": "add", "target": "memory", "content": "A fact from the newest session"})}}])
    rows += [(sid, "assistant", "", None, call, None, last + n), (sid, "tool", json.dumps({"success": True}),
                                                                   "call_new", None, "memory", last + n)]
    with conn:
        conn.executemany("INSERT INTO messages(session_id, role, content, tool_call_id, tool_calls, tool_name, "
                         "timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    conn.close()


# -- 2. the history ---------------------------------------------------------------------------------

def bench_history(folder: Path, scratch: Path, sizes: list[int], repeat: int) -> None:
    from core.curator import open_curator
    from core.timeline import build_timeline
    from core.timeline import cache as tl_cache

    print("2. cold history build (read, replay, reconcile, write the cache) vs a bare SQL scan of the rows")
    print(f"   {'':<52} {'bare scan':>13} {'hmc':>13}  ratio")
    last_home = None
    for n in sizes:
        home = scratch / f"adds-{n}"
        shutil.copytree(adds_home(folder, n), home)
        db = home / "state.db"
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        curator = open_curator(home, None, date.today())
        cache_file = tl_cache.cache_path(db)

        def bare() -> None:
            conn.execute(BARE_SQL).fetchall()

        def cold() -> None:
            cache_file.unlink(missing_ok=True)
            tl = build_timeline(curator)
            assert len(tl.writes) >= n, len(tl.writes)

        t_bare, t_cold, ratio = side_by_side(bare, cold, repeat if n <= 10_000 else max(3, repeat // 3))
        row(f"{n:,} adds", t_bare, t_cold, ratio, 3.0 if n >= 50_000 else None)
        conn.close()
        last_home = (home, curator, cache_file, t_cold)
    home, curator, cache_file, _ = last_home
    cache_file.unlink(missing_ok=True)
    build_timeline(curator)
    saved = cache_file.read_bytes()
    append_messages(home / "state.db", NEW_MESSAGES)

    def cold() -> None:
        cache_file.unlink(missing_ok=True)
        build_timeline(curator)

    def update() -> None:
        tl = build_timeline(curator)
        assert tl.stats["cache"] == "hit" and tl.stats["replayed"] == "new", tl.stats

    t_cold, t_update, ratio = side_by_side(cold, update, max(3, repeat // 3), before_b=lambda: cache_file.write_bytes(saved))
    row(f"update after {NEW_MESSAGES} messages vs cold ({sizes[-1]:,} adds)", t_cold, t_update, ratio, 0.05, pct=True)
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    parser.add_argument("--only", choices=("review", "history", "search", "log", "approve"), action="append")
    parser.add_argument("--repeat", type=int, default=None, help="timed pairs per row")
    parser.add_argument("--messages", type=int, default=None, help="the search database's size (default 1,000,000)")
    parser.add_argument("--cache", type=Path, default=None, help="where the built databases are kept")
    args = parser.parse_args(argv)
    folder = (args.cache or cache_dir()) / "scale"
    scratch = Path(tempfile.mkdtemp(prefix="hmc-bench-scale-"))
    repeat = args.repeat or (3 if args.quick else 7)
    only = set(args.only or ("review", "history", "search", "log", "approve"))
    print(f"SQLite {sqlite3.sqlite_version} · Python {sys.version.split()[0]} · {os.cpu_count()} CPUs · "
          f"medians of alternating pairs\n", flush=True)
    folder.mkdir(parents=True, exist_ok=True)
    base_db(folder)  # built with the real HOME's cache dir known: before the sandbox
    sandbox(scratch)
    try:
        if "history" in only:
            bench_history(folder, scratch, [500, 5_000] if args.quick else [5_000, 50_000], repeat)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
