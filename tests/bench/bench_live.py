"""The live screen: how long an external change to MEMORY.md takes to reach the screen, at 18, 1,000
and 15,000 entries, side by side in one run (issue 35).

    python tests/bench/bench_live.py                  # 18, 1,000 and 15,000 entries, 12 changes each
    python tests/bench/bench_live.py --sizes 18 1000 --changes 20
    python tests/bench/bench_live.py --profile 1000   # also a cProfile of the changes at that size

Each size gets its own copy of the demo home, MEMORY.md filled to that many entries (the limit raised
so it stays valid for Hermes) with the demo's state.db beside it. hmc runs in this process,
headless on a 120x36 screen, with its real file polling (every 0.5 s). Each change is what Hermes
does to the file (a new text for the first entry, written to a temporary file and renamed over
MEMORY.md); the clock stops when MEMORY.md's entry list paints the new text. The next change comes
once everything that followed has finished (origin and loaded lines) and 1-1.5 s has passed (seeded:
where a change lands in the poll's half second varies the same way at every size). Goals (issue 35): at 1,000 entries within 1.5x the 18-entry time, at 15,000
within 3x. The figures include the poll's wait (0-0.5 s, 0.25 s on average, the same at every size).
Runs with HOME and the XDG folders in a temporary folder: nothing of the user's is read or written.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import random
import shutil
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

DELIMITER = "\n§\n"


def fill(home: Path, entries: int) -> None:
    """MEMORY.md with `entries` entries (the demo's first, then numbered facts), its limit raised."""
    memory = home / "memories" / "MEMORY.md"
    first = memory.read_text(encoding="utf-8").split(DELIMITER)
    texts = (first + [f"Fact {i}: service-{i % 97} builds with flag --opt-{i % 13} on runner {i % 7}"
                      for i in range(entries)])[:entries]
    memory.write_text(DELIMITER.join(texts), encoding="utf-8")
    config = home / "config.yaml"
    text = config.read_text(encoding="utf-8").replace("memory_char_limit: 2200",
                                                       f"memory_char_limit: {max(2200, len(DELIMITER.join(texts)) * 2)}")
    config.write_text(text, encoding="utf-8")


def external_write(memory: Path, n: int) -> str:
    """What Hermes does: the whole file written to a temporary file and renamed over it."""
    texts = memory.read_text(encoding="utf-8").split(DELIMITER)
    texts[0] = f"Live change {n}: the deploy window moved to {n % 24:02d}:00 UTC"
    tmp = memory.with_name(f".MEMORY.md.{n}.tmp")
    tmp.write_text(DELIMITER.join(texts), encoding="utf-8")
    os.replace(tmp, memory)
    return texts[0]


async def measure(home: Path, changes: int, profile: bool, seed: int) -> list[float]:
    from core.curator import open_curator
    from tests.tui.helpers import settle, shown
    from tui.app import CuratorApp
    from tui.widgets.entries import EntryList

    curator = open_curator(home, today=date(2026, 11, 15))
    app = CuratorApp(curator, greet=False)
    took: list[float] = []
    rng = random.Random(seed)  # when a change lands in the poll's half second varies, the same at every size
    profiler = cProfile.Profile() if profile else None
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause(1.0)
        await settle(app, pilot)  # the first screen, the origins and loaded lines, the off-screen builds
        await pilot.pause(1.0)
        await settle(app, pilot)
        pane = app.screen.query_one("#entries-memory", EntryList)
        memory = home / "memories" / "MEMORY.md"
        for n in range(changes):
            if profiler:
                profiler.enable()
            text = external_write(memory, n)
            started = time.perf_counter()
            while text[:40] not in shown(pane):
                await pilot.pause(0.01)
                if time.perf_counter() - started > 60:
                    raise SystemExit(f"change {n} never reached the screen")
            took.append(time.perf_counter() - started)
            if profiler:
                profiler.disable()
            await settle(app, pilot)  # what follows the change (origin and loaded lines) finishes first
            await pilot.pause(1.0 + rng.random() * 0.5)
    if profiler:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)
    return took


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[18, 1000, 15000])
    parser.add_argument("--changes", type=int, default=12)
    parser.add_argument("--profile", type=int, default=None, help="profile the changes at this size")
    parser.add_argument("--seed", type=int, default=35, help="seeds the pauses between changes")
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="hmc-bench-live-"))
    for name in ("HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        os.environ[name] = str(scratch / name.lower())
    from core.demo.build import DEMO_TODAY, build_demo_home

    base = build_demo_home(scratch / "demo", DEMO_TODAY)
    results = {}
    print(f"seed {args.seed}; the poll's wait (0-0.5 s) is in every figure", flush=True)
    try:
        for size in args.sizes:
            home = scratch / f"home-{size}"
            shutil.copytree(base, home, symlinks=True)
            fill(home, size)
            took = asyncio.run(measure(home, args.changes, args.profile == size, args.seed))
            results[size] = statistics.median(took)
            print(f"{size:>6,} entries: median {results[size] * 1000:7.0f} ms  "
                  f"(min {min(took) * 1000:.0f}, max {max(took) * 1000:.0f}, {len(took)} changes)", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    base_size = min(results)
    goals = {1000: 1.5, 15000: 3.0}
    for size, t in sorted(results.items()):
        if size == base_size:
            continue
        ratio = t / results[base_size]
        goal = goals.get(size)
        verdict = "" if goal is None else f"  goal <= {goal}x: {'met' if ratio <= goal else 'NOT MET'}"
        print(f"{size:,} vs {base_size:,} entries: {ratio:.2f}x{verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
