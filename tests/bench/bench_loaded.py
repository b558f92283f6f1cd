"""What reading every session's loaded memory costs: core.snapshots.loaded.read vs a bare SQL scan of
the same prompt rows, on a state.db of 100,000 sessions in each release's layout.

    python tests/bench/bench_loaded.py                 # 100,000 sessions, both layouts, 5 pairs each
    python tests/bench/bench_loaded.py --sessions 10000 --pairs 9

- 0.22 (and 0.20): each session names its prompt by hash (`sessions.system_prompt_hash`), the text
  is stored once in `system_prompts`; the baseline reads every session's hash and every prompt row.
- 0.19: each session holds its prompt inline (`sessions.system_prompt`); the baseline reads every
  session's prompt.

The sessions table has the releases' primary key and indexes. Prompts are built as the releases build them (core.hermes.memory.prompt_block for both stores, a
persona before, the profile line and the start time after), the memory changing every 40 sessions
and the start time every session's day, so 0.22's table holds one row per (memory, day). hmc's side
parses each distinct prompt once and makes one record per session. Timed in alternating pairs; the
median of the per-pair ratios is printed. Then through hmc's cache (core.snapshots.cache, as hmc
reads them): a cold build (no cache: read whole, then the cache written) against the bare scan, and
the update after 100 more sessions (a day of use, below cache.WRITE_AFTER: not written back, so
the next run reads those sessions again) and after 1,000 (written back) against that cold build.
Nothing is asserted. The
databases and the cache are built in a temporary folder and removed.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from core.hermes import memory as hermes_memory  # noqa: E402
from core.snapshots import cache  # noqa: E402
from core.snapshots.loaded import read  # noqa: E402

COLUMNS = ("id", "source", "title", "started_at", "ended_at", "end_reason", "last_activity_at",
           "parent_session_id", "display_name", "chat_id")
PERSONA = "You are Hermes, a helpful assistant. " * 40
SESSION_INDEXES = ("CREATE INDEX idx_sessions_source ON sessions(source)",
                   "CREATE INDEX idx_sessions_source_id ON sessions(source, id)",
                   "CREATE INDEX idx_sessions_parent ON sessions(parent_session_id)",
                   "CREATE INDEX idx_sessions_started ON sessions(started_at DESC)")
DAY = 86400.0
T0 = 1_760_000_000.0


def prompt(memory: list[str], user: list[str], started: float) -> str:
    blocks = [b for b in (hermes_memory.prompt_block("memory", memory, 2200),
                          hermes_memory.prompt_block("user", user, 1375)) if b]
    day = time.strftime("%A, %B %d, %Y", time.gmtime(started))
    return "\n\n".join([PERSONA, *blocks, "Active Hermes profile: default.", f"Conversation started: {day}"])


def build(path: Path, layout: str, sessions: int, seed: int = 5) -> None:
    rng = random.Random(seed)
    con = sqlite3.connect(path)
    cols = ", ".join(f"{c} {'REAL' if c.endswith('_at') else 'TEXT PRIMARY KEY' if c == 'id' else 'TEXT'}"
                     for c in COLUMNS)
    extra = ", system_prompt_hash TEXT" if layout == "0.22" else ", system_prompt TEXT"
    con.execute(f"CREATE TABLE sessions({cols}{extra})")
    for index in SESSION_INDEXES:  # the releases' own (0.19 to 0.22 create these on sessions)
        con.execute(index)
    con.execute("CREATE TABLE system_prompts(hash TEXT PRIMARY KEY, prompt TEXT)")
    memory = [f"fact {i}: " + "x" * rng.randrange(40, 120) for i in range(12)]
    user = [f"user fact {i}: " + "y" * rng.randrange(30, 90) for i in range(6)]
    seen: set[str] = set()
    rows, prompts = [], []
    made: dict[tuple, tuple[str, str]] = {}
    for n in range(sessions):
        if n % 40 == 0:  # the agent writes: one entry replaced
            memory[rng.randrange(len(memory))] = f"fact {n}: " + "z" * rng.randrange(40, 120)
            made.clear()
        started = T0 + n * 300.0
        key = (n // 40, int(started // DAY))
        if key not in made:
            text = prompt(memory, user, started)
            made[key] = (text, hashlib.sha256(text.encode("utf-8")).hexdigest())
        text, digest = made[key]
        values = [f"s{n:06d}", "cli", f"title {n}", started, started + 200, "user_exit", started + 200, None, None, None]
        if layout == "0.22":
            if digest not in seen:
                seen.add(digest)
                prompts.append((digest, text))
            values.append(digest)
        else:
            values.append(text)
        rows.append(values)
        if len(rows) >= 5000:
            con.executemany(f"INSERT INTO sessions VALUES ({', '.join('?' * len(values))})", rows)
            con.executemany("INSERT INTO system_prompts VALUES (?, ?)", prompts)
            rows, prompts = [], []
    if rows:
        con.executemany(f"INSERT INTO sessions VALUES ({', '.join('?' * len(rows[0]))})", rows)
    con.executemany("INSERT INTO system_prompts VALUES (?, ?)", prompts)
    con.commit()
    con.close()


def bare(con: sqlite3.Connection, layout: str) -> int:
    """The baseline: every prompt row read once (their lengths summed so nothing is skipped)."""
    total = 0
    if layout == "0.22":
        for _, ref in con.execute("SELECT id, system_prompt_hash FROM sessions ORDER BY started_at, id"):
            total += len(ref)
        for (text,) in con.execute("SELECT CAST(prompt AS BLOB) FROM system_prompts"):
            total += len(text)
    else:
        for _, text in con.execute("SELECT id, CAST(system_prompt AS BLOB) FROM sessions ORDER BY started_at, id"):
            total += len(text)
    return total


def _columns(layout: str) -> frozenset[str]:
    return frozenset(COLUMNS) | {"system_prompt_hash" if layout == "0.22" else "system_prompt"}


def ours(con: sqlite3.Connection, layout: str) -> int:
    got = read(con, _columns(layout))
    assert got.known == con.execute("SELECT COUNT(*) FROM sessions").fetchone()[0], "a prompt hmc couldn't read"
    return got.known


def cached(path: Path, con: sqlite3.Connection, layout: str, cold: bool) -> int:
    if cold:
        cache.cache_path(path).unlink(missing_ok=True)
    return cache.read(path, con, _columns(layout)).known


def add_a_day(path: Path, layout: str, sessions: int = 100) -> None:
    """100 more sessions, as a day of use adds (copies of the first 100, a later start)."""
    prompt_col = "system_prompt_hash" if layout == "0.22" else "system_prompt"
    with sqlite3.connect(path) as con:
        con.execute("INSERT INTO sessions SELECT 'n' || id, source, title, started_at + 1e8, ended_at + 1e8, "
                    "end_reason, last_activity_at + 1e8, parent_session_id, display_name, chat_id, "
                    f"{prompt_col} FROM sessions WHERE id NOT LIKE 'n%' LIMIT {int(sessions)}")
    con.close()


def timed(fn, *args) -> float:
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


def run(layout: str, sessions: int, pairs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")  # hmc's cache, never the user's
        path = Path(tmp) / "state.db"
        t0 = time.perf_counter()
        build(path, layout, sessions)
        size = path.stat().st_size
        print(f"\n{layout}: {sessions:,} sessions, {size / 2**20:,.0f} MiB, built in {time.perf_counter() - t0:.1f} s")
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        bare(con, layout), ours(con, layout)  # warm the page cache for both
        base_t, ours_t, ratios = [], [], []
        for _ in range(pairs):
            b, h = timed(bare, con, layout), timed(ours, con, layout)
            base_t.append(b), ours_t.append(h), ratios.append(h / b)
        print(f"  bare SQL scan of the prompt rows: {statistics.median(base_t) * 1000:8.0f} ms median")
        print(f"  hmc's read (every session's blocks): {statistics.median(ours_t) * 1000:8.0f} ms median")
        print(f"  read / bare scan: {statistics.median(ratios):.2f}x (median of {pairs} pairs)")
        cold_t, cold_ratios = [], []
        for _ in range(pairs):
            b, h = timed(bare, con, layout), timed(cached, path, con, layout, True)
            cold_t.append(h), cold_ratios.append(h / b)
        cold = statistics.median(cold_t)
        print(f"  cold build through the cache (read whole, cache written): {cold * 1000:8.0f} ms median, "
              f"{statistics.median(cold_ratios):.2f}x the bare scan")
        con.close()
        for added in (100, 1000):
            updates = []
            for _ in range(pairs):
                with sqlite3.connect(path) as undo:  # the same sessions again each time: the cache a run before
                    undo.execute("DELETE FROM sessions WHERE id LIKE 'n%'")
                con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
                cached(path, con, layout, True)
                con.close()
                add_a_day(path, layout, added)
                con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
                updates.append(timed(cached, path, con, layout, False))
                con.close()
            again = statistics.median(updates)
            print(f"  update after {added:,} more sessions ({'read again next time' if added < cache.WRITE_AFTER else 'written back'}): "
                  f"{again * 1000:.1f} ms median ({again / cold:.1%} of the cold build)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--layout", choices=("0.22", "0.19", "both"), default="both")
    args = parser.parse_args()
    for layout in (("0.22", "0.19") if args.layout == "both" else (args.layout,)):
        run(layout, args.sessions, args.pairs)


if __name__ == "__main__":
    main()
