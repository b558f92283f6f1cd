"""`hmc why` and the review's `unsaved` finding, measured side by side in one run (not part of the
test suite; issue 32's goals).

    python tests/bench/bench_why.py            # the 1,000,000-message state.db bench_search.py builds (cached)
    python tests/bench/bench_why.py --quick    # 100,000 messages, for a fast look

1. `why(curator, fact)` on a 1,000,000-message state.db, the history's cache warm, against the bare
   FTS5 query for the same words (the search it needs; for words unicode61 doesn't index, Chinese,
   the bare substring scan of what it needs: the user's and the agent's messages, newest first, 40
   of them — a scan from the oldest row of every role stops at its first 40 matches, which answers
   another question in less than half the time): goal (why - the cached history) <= 2x.
   The cached history's own time is printed beside it.
2. A review of the demo home with the `unsaved` finding against the same review without it:
   goal <= 1.2x.

Every pair is timed alternately; ratios are medians of the pairs' ratios.
"""

from __future__ import annotations

import argparse
import os
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

from tests.bench.bench_search import cache_dir, ensure_db, side_by_side  # noqa: E402

FACTS = ["export job retries", "postgres replication lag", "deploy staging friday", "部署 审批"]
HITS = 40  # the hits why reads (core.why.trace.MAX_HITS)


def home_on(db: Path, folder: Path) -> Path:
    """A home whose state.db is `db` (a link: the big file isn't copied), with the demo's memory."""
    from core.demo.build import DEMO_TODAY, demo_entries, write_entries

    home = folder / "home"
    if not home.exists():
        (home / "memories").mkdir(parents=True)
        entries = demo_entries(DEMO_TODAY)
        for target, name in (("memory", "MEMORY.md"), ("user", "USER.md")):
            write_entries(home / "memories" / name, [e.text for e in entries if e.target == target])
        (home / "config.yaml").write_text("memory:\n  memory_enabled: true\n", encoding="utf-8")
        os.symlink(db, home / "state.db")
    return home


def bench_why(home: Path, repeat: int) -> list[tuple]:
    from core.curator import open_curator
    from core.sessions.query import parse_query
    from core.timeline import build_timeline
    from core.why import why
    from core.review.facts import Fact

    curator = open_curator(home, None, date(2026, 11, 15))
    started = time.perf_counter()
    build_timeline(curator)  # the history's cache, built once (a first `hmc log` does the same)
    print(f"   (history cache built in {time.perf_counter() - started:.1f} s)")
    bare = sqlite3.connect(f"file:{home / 'state.db'}?mode=ro", uri=True)
    rows = []
    for text in FACTS:
        fact = Fact(text)
        query = parse_query(fact.query())
        if query.needs_substring:  # unicode61 doesn't index these words: the bare substring scan they need
            terms = [t.text for t in query.terms]
            sql = ("SELECT id FROM messages WHERE (" + " OR ".join("content LIKE ?" for _ in terms)
                   + ") AND role IN ('user', 'assistant') ORDER BY id DESC LIMIT ?")
            args = (*(f"%{t}%" for t in terms), HITS)
        else:
            sql = "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rank LIMIT ?"
            args = (query.fts5(), HITS)

        def run_bare(sql=sql, args=args):
            bare.execute(sql, args).fetchall()

        def run_why(t=text):
            why(open_curator(home, None, date(2026, 11, 15)), t, other_profiles=False)

        history = statistics.median(_timed(lambda: build_timeline(open_curator(home, None, date(2026, 11, 15))))
                                    for _ in range(3))
        t_bare, t_why, _ = side_by_side(run_bare, run_why, repeat)
        rows.append((text, t_bare, t_why, history, (t_why - history) / t_bare if t_bare else float("inf")))
    bare.close()
    return rows


def _timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def bench_review(repeat: int) -> tuple[float, float, float]:
    from core.curator import open_curator
    from core.demo.build import DEMO_TODAY, build_demo_home
    from core.review import findings, unsaved

    folder = Path(tempfile.mkdtemp(prefix="hmc-bench-why-"))
    try:
        home = build_demo_home(folder / ".hermes", DEMO_TODAY)
        curator = open_curator(home, None, DEMO_TODAY)
        real = unsaved.unsaved_findings

        def without():
            unsaved.unsaved_findings = lambda *a, **k: []
            try:
                findings.run_review(curator)
            finally:
                unsaved.unsaved_findings = real

        def with_it():
            findings.run_review(curator)

        return side_by_side(without, with_it, repeat)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100,000 messages instead of 1,000,000")
    parser.add_argument("--repeat", type=int, default=9, help="timed runs per side (default 9)")
    args = parser.parse_args(argv)
    os.environ.setdefault("XDG_CACHE_HOME", str(Path(tempfile.gettempdir()) / "hmc-bench-why-cache"))
    total = 100_000 if args.quick else 1_000_000
    big_session = 100_000 if not args.quick else 20_000
    homes = cache_dir() / ("quick" if args.quick else "full")
    (homes / "big").mkdir(parents=True, exist_ok=True)
    db = ensure_db(homes / "big" / "state.db", sessions=max(60, (total - big_session) // 100),
                   messages=total - big_session, big=big_session, rebuild=False)
    home = home_on(db, homes / "why")
    print(f"\nstate.db: {total:,} messages · SQLite {sqlite3.sqlite_version} · Python {sys.version.split()[0]} · "
          f"{os.cpu_count()} CPUs · medians of {args.repeat} alternating runs\n")
    print("1. hmc why vs the bare FTS5 query for the same words (goal: why minus the cached history <= 2x)")
    print(f"   {'fact':<28} {'bare FTS5':>10} {'why':>10} {'history':>10} {'ratio':>7}")
    worst = 0.0
    for text, t_bare, t_why, history, ratio in bench_why(home, args.repeat):
        worst = max(worst, ratio)
        print(f"   {text:<28} {t_bare * 1000:8.1f}ms {t_why * 1000:8.1f}ms {history * 1000:8.1f}ms {ratio:6.2f}x")
    print(f"   worst {worst:.2f}x -> {'ok' if worst <= 2 else 'OVER GOAL'}\n")
    t_without, t_with, ratio = bench_review(args.repeat)
    print("2. a review of the demo with the unsaved finding vs without it (goal <= 1.2x)")
    print(f"   without {t_without * 1000:.0f} ms, with {t_with * 1000:.0f} ms: {ratio:.2f}x -> "
          f"{'ok' if ratio <= 1.2 else 'OVER GOAL'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
