"""Memory mode's entry list at size: what showing a store again costs when one entry changed, at 18,
1,000 and 15,000 entries, side by side in one run (issue 35: lists of thousands of entries render
only what is visible).

    python tests/bench/bench_entry_list.py                     # 18, 1,000, 15,000 entries, 15 shows each
    python tests/bench/bench_entry_list.py --sizes 18 15000 --shows 30

The list is hmc's EntryList alone in a headless Textual app (56x30 cells, memory mode's pane at
120x36), given entries as memory mode gives them (bench_live.py's numbered facts). Each measured
show follows a change to entry 1 (a new text: the row on screen), as an external change does;
the clock covers EntryList.show and the paint of the lines on screen that follows it
(render_lines of the visible region, what the compositor asks the list for). The figures are
medians; each size is also shown as a ratio of the 18-entry figure measured in the same run.
What stays the same from show to show (a row's body, its wrapped lines, its Option and visual) is
kept; what grows with the store is one look-up per row.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def entries_of(size: int) -> list[str]:
    return [f"Fact {i}: service-{i % 97} builds with flag --opt-{i % 13} on runner {i % 7}" for i in range(size)]


async def measure(size: int, shows: int) -> list[float]:
    from textual.app import App
    from textual.geometry import Region

    from tui.widgets.entries import EntryList

    class One(App):
        def compose(self):
            yield EntryList(id="list")

    app = One()
    took = []
    entries = entries_of(size)
    limit = sum(map(len, entries)) * 2
    async with app.run_test(size=(56, 30)) as pilot:
        listed = app.query_one(EntryList)
        listed.show(entries, limit)
        await pilot.pause(0.2)
        listed.show(entries, limit)
        await pilot.pause(0.1)
        for n in range(shows):
            entries = list(entries)
            entries[0] = f"Live change {n}: the deploy window moved to {n % 24:02d}:00 UTC"
            started = time.perf_counter()
            listed.show(entries, limit)
            listed.render_lines(Region(0, 0, listed.size.width, listed.size.height))
            took.append(time.perf_counter() - started)
            await pilot.pause(0.02)
    return took


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[18, 1000, 15000])
    parser.add_argument("--shows", type=int, default=15)
    args = parser.parse_args(argv)
    results = {}
    for size in args.sizes:
        took = asyncio.run(measure(size, args.shows))
        results[size] = statistics.median(took)
        print(f"{size:>7,} entries: show + paint median {results[size] * 1000:8.2f} ms  "
              f"(min {min(took) * 1000:.2f}, max {max(took) * 1000:.2f}, {len(took)} shows)", flush=True)
    base = min(results)
    for size, t in sorted(results.items()):
        if size != base:
            print(f"{size:,} vs {base:,} entries: {t / results[base]:.1f}x  ({t / size * 1e6:.1f} µs per entry)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
