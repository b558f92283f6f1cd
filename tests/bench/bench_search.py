"""Search benchmarks, measured side by side in one run (not part of the test suite).

    python tests/bench/bench_search.py            # builds (once) and caches a 1,000,000-message state.db
    python tests/bench/bench_search.py --quick    # 100,000 messages, for a fast look
    python tests/bench/bench_search.py --rebuild  # build the databases again

It prints three comparisons (goals from DESIGN.md / issue 4):

1. hmc's search (SessionDB.search: parse, visibility rules, cron demotion, titles, snippets) vs the
   bare FTS5 query for the same terms and page (goal <= 1.3x);
2. opening a hit (session meta + a window of +-10 messages + the ids of the hits in that session)
   in a 100,000-message session vs in a 100-message session (goal <= 1.5x);
3. `hmc search RARE_TERM` end to end (a subprocess) on the big database vs on a tiny one (goal <= 1.5x).

Every pair is timed alternately and repeated on warm caches; ratios are medians of the pairs' ratios.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from core.demo.build import BIG_SESSION_ID, RARE_TERM, SMALL_SESSION_ID, build_state_db  # noqa: E402
from core.sessions.query import parse_query  # noqa: E402
from core.sessions.search import SessionDB  # noqa: E402

PAGE = 20
BARE_SQL = (
    "SELECT rowid, snippet(messages_fts, -1, '[', ']', '…', 24) FROM messages_fts "
    "WHERE messages_fts MATCH ? ORDER BY rank LIMIT ?"
)


def cache_dir() -> Path:
    try:
        from platformdirs import user_cache_path

        return user_cache_path("hmc") / "bench"
    except Exception:  # pragma: no cover
        return Path(tempfile.gettempdir()) / "hmc-bench"


def ensure_db(path: Path, *, sessions: int, messages: int, big: int, rebuild: bool) -> Path:
    if rebuild and path.exists():
        path.unlink()
    if not path.exists():
        print(f"building {path} ({messages + big:,} messages)…", flush=True)
        started = time.perf_counter()
        last = [0.0]

        def progress(done: int, total: int) -> None:
            now = time.perf_counter()
            if now - last[0] > 5:
                last[0] = now
                print(f"  {done:,}/{total:,}", flush=True)

        build_state_db(path, sessions=sessions, messages=messages, big_session_messages=big, progress=progress)
        print(f"  built in {time.perf_counter() - started:.1f} s", flush=True)
    return path


def timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def side_by_side(a, b, repeat: int) -> tuple[float, float, float]:
    """Median seconds of a() and b() run in alternating pairs, and the median of the pairs' ratios b/a.

    The ratio of each adjacent pair is what is reported: on a shared machine a burst of load hits
    both halves of a pair alike, so pairwise ratios are steadier than a ratio of medians.
    """
    a()
    b()
    ta, tb, ratios = [], [], []
    for i in range(repeat):
        if i % 2:
            y = timed(b)
            x = timed(a)
        else:
            x = timed(a)
            y = timed(b)
        ta.append(x)
        tb.append(y)
        ratios.append(y / x)
    return statistics.median(ta), statistics.median(tb), statistics.median(ratios)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f} ms"


def verdict(ratio: float, goal: float) -> str:
    return "ok" if ratio <= goal else "OVER GOAL"


def bench_search(path: Path, repeat: int) -> list[tuple]:
    db = SessionDB(path)
    bare = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    counts = {}
    terms = ["error", "deploy", "migration", "postgres replication", '"export job"', "test*", RARE_TERM]
    rows = []
    for term in terms:
        match = parse_query(term).fts5()  # exactly the MATCH expression hmc runs
        counts[term] = bare.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?", (match,)).fetchone()[0]

        def run_bare(m=match):
            bare.execute(BARE_SQL, (m, PAGE)).fetchall()

        def run_hmc(t=term):
            db.search(t, limit=PAGE)

        t_bare, t_hmc, ratio = side_by_side(run_bare, run_hmc, repeat)
        rows.append((term, counts[term], t_bare, t_hmc, ratio))
    bare.close()
    db.close()
    return rows


def bench_open(path: Path, repeat: int) -> list[tuple]:
    """Open the RARE_TERM hit in the big session and in the small one, as the TUI does on Enter."""
    db = SessionDB(path)
    anchors = {h.session_id: h.message_id for h in db.search(RARE_TERM, include_hidden=True, limit=50).hits}
    out = []
    for sid in (BIG_SESSION_ID, SMALL_SESSION_ID):
        mid = anchors[sid]

        def open_hit(s=sid, m=mid):
            db.session(s)
            db.window(s, m, before=10, after=10)
            db.hit_ids(s, RARE_TERM)

        out.append((db.session(sid).message_count, len(db.hit_ids(sid, RARE_TERM)), open_hit))
    (big_n, big_hits, big_fn), (small_n, small_hits, small_fn) = out
    t_small, t_big, ratio = side_by_side(small_fn, big_fn, repeat)
    db.close()
    return [(big_n, big_hits, t_big), (small_n, small_hits, t_small), ratio]


def bench_cli(big: Path, tiny: Path, repeat: int) -> tuple[float, float]:
    env = dict(os.environ, COLUMNS="120", NO_COLOR="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)

    def runner(home: Path):
        def run():
            out = subprocess.run([sys.executable, "-m", "tui.cli", "--home", str(home), "search", RARE_TERM],
                                 capture_output=True, text=True, env=env)
            if out.returncode != 0:
                raise SystemExit(out.stderr)
        return run

    t_tiny, t_big, ratio = side_by_side(runner(tiny), runner(big), repeat)
    return t_big, t_tiny, ratio


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100,000 messages instead of 1,000,000")
    parser.add_argument("--rebuild", action="store_true", help="rebuild the cached databases")
    parser.add_argument("--repeat", type=int, default=15, help="timed runs per side (default 15)")
    parser.add_argument("--cache", type=Path, default=None, help="where the built databases are kept")
    args = parser.parse_args(argv)
    folder = args.cache or cache_dir()
    total = 100_000 if args.quick else 1_000_000
    big_session = 100_000 if not args.quick else 20_000
    homes = folder / ("quick" if args.quick else "full")
    big_home, tiny_home = homes / "big", homes / "tiny"
    big_home.mkdir(parents=True, exist_ok=True)
    tiny_home.mkdir(parents=True, exist_ok=True)
    big = ensure_db(big_home / "state.db", sessions=max(60, (total - big_session) // 100),
                    messages=total - big_session, big=big_session, rebuild=args.rebuild)
    tiny = ensure_db(tiny_home / "state.db", sessions=30, messages=600, big=0, rebuild=args.rebuild)
    size = big.stat().st_size
    print(f"\nstate.db: {total:,} messages, {size / 2**20:,.0f} MiB · SQLite {sqlite3.sqlite_version} · "
          f"Python {sys.version.split()[0]} · {os.cpu_count()} CPUs · medians of {args.repeat} alternating runs\n")

    print(f"1. first page ({PAGE} hits): hmc search vs the bare FTS5 query (goal <= 1.3x)")
    print(f"   {'query':<24} {'matches':>9} {'bare FTS5':>11} {'hmc':>11} {'ratio':>7}")
    worst = 0.0
    total_bare = total_hmc = 0.0
    for term, count, t_bare, t_hmc, ratio in bench_search(big, args.repeat):
        worst = max(worst, ratio)
        total_bare += t_bare
        total_hmc += t_hmc
        print(f"   {term:<24} {count:>9,} {ms(t_bare)} {ms(t_hmc)} {ratio:6.2f}x")
    print(f"   all queries together: {total_hmc / total_bare:.2f}x, worst single query {worst:.2f}x "
          f"-> {verdict(total_hmc / total_bare, 1.3)}\n")

    print(f"2. opening a hit ({RARE_TERM}): session meta + window of +-10 messages + hit ids in the session "
          "(goal <= 1.5x)")
    (big_n, big_hits, t_big), (small_n, small_hits, t_small), ratio = bench_open(big, args.repeat)
    print(f"   {big_n:>7,}-message session  {ms(t_big)}")
    print(f"   {small_n:>7,}-message session  {ms(t_small)}")
    print(f"   ratio {ratio:.2f}x -> {verdict(ratio, 1.5)}\n")

    print(f"3. `hmc search {RARE_TERM}` end to end (subprocess) on the big db vs a 600-message db (goal <= 1.5x)")
    t_cli_big, t_cli_tiny, ratio = bench_cli(big_home, tiny_home, max(5, args.repeat // 2))
    print(f"   {total:>9,} messages  {ms(t_cli_big)}")
    print(f"   {600:>9,} messages  {ms(t_cli_tiny)}")
    print(f"   ratio {ratio:.2f}x -> {verdict(ratio, 1.5)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
