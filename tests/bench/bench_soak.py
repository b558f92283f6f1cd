"""Soak: an open hmc beside a live writer for half an hour; does it keep up, and does its memory stay
flat? (issue 35)

    python tests/bench/bench_soak.py                  # 30 minutes, 1,000 entries
    python tests/bench/bench_soak.py --minutes 3      # a quick run
    python tests/bench/bench_soak.py --minutes 10 --growth 3   # also what grew from minute 3, by type

hmc runs in this process, headless on a 120x36 screen, with its real file polling (every 0.5 s), on
a copy of the demo home whose MEMORY.md holds --entries entries (fill_varied: the limit raised so
the store stays valid). Every mode is visited once before the clock starts (a screen's first build
is not growth). A writer plays Hermes at a realistic cadence (a write every 1-3 s, seeded;
the issue's 15-minute soak of the real memory tool made 430 writes, one every 2.1 s):
- MEMORY.md: adds (most), removes and replaces; USER.md: an add now and then. Each is what the
  memory tool does: an exclusive flock on the sidecar `<file>.lock`, the file re-read under it, a
  `.mem_*.tmp` file in the same folder, fsync, os.replace (HERMES-FORMATS §2.6). The entry count stays
  within 40 of where it started (a remove when over), so the store's size is the same at the end;
- pending/memory/<id>.json: staged writes (write approval), written as Hermes stages them (pretty JSON,
  temp file + rename); the oldest is dropped when more than 40 wait (as if approved in Hermes).
Between writes, keys are driven as a person would: the cursor moves (j/k, G/g, the other pane) and
the other modes are visited (2 pending with j/k, 3 search with a query, 4 review, 5 profiles), always
coming back to memory mode (1).

What is measured:
- latency: from a write to memory mode showing it (each write happens with memory mode on screen):
  the store pane's painted gauge shows the new usage and its list holds the new number of entries;
  for a replace (of the entry under the cursor), its new text is painted; for a staged write, the header's
  painted pending count. Median, p90 and max per 5-minute window;
- RSS (VmRSS of this process, which is hmc plus a writer of a few KB) once a minute.
It prints RSS at the end vs at 1 minute (goal <= 1.3x) and latency over time. With --growth, also
the Python objects whose count grew most from that minute to the end (gc.get_objects, by type).
HOME and the XDG folders point into a temporary folder: nothing of the user's is read or written.
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import gc
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "bench"))

from bench_live import DELIMITER, fill  # noqa: E402

WINDOW = 300.0  # seconds per latency window
KEEP_PENDING = 40
DRIFT = 40  # entries the writer lets the store grow or shrink by


WORDS = ("deploy staging runner cache flag build nightly export token rota backup region queue worker "
         "schema index replica metric alert budget release branch review editor shell docker proxy cron "
         "ledger invoice webhook retry timeout socket bucket mirror vault locale font theme keyboard").split()


def fill_varied(home: Path, entries: int, seed: int) -> None:
    """MEMORY.md as bench_live.fill makes it, but with entries as varied as a person's (a few words
    from a vocabulary each): bench_live's near-identical lines make the review's duplicate finder
    report every pair, which no real store does."""
    fill(home, entries)
    rng = random.Random(seed)
    memory = home / "memories" / "MEMORY.md"
    texts = memory.read_text(encoding="utf-8").split(DELIMITER)
    for i in range(18, len(texts)):
        texts[i] = f"Fact {i}: " + " ".join(rng.sample(WORDS, 6)) + f" ({rng.randrange(10_000)})"
    memory.write_text(DELIMITER.join(texts), encoding="utf-8")


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


class Writer:
    """Hermes's side: the memory tool's locked atomic writes, and staged records."""

    def __init__(self, home: Path, rng: random.Random) -> None:
        self.home, self.rng = home, rng
        self.n = 0
        self.start_count = len(self.entries("MEMORY.md"))

    def entries(self, name: str) -> list[str]:
        text = (self.home / "memories" / name).read_text(encoding="utf-8")
        return list(dict.fromkeys(e.strip() for e in text.split(DELIMITER) if e.strip()))  # as Hermes reads it

    def write(self, name: str, change) -> list[str]:
        """Lock, re-read, change, temp file + fsync + replace: returns the entries written."""
        folder = self.home / "memories"
        lock = os.open(folder / f"{name}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            entries = change(self.entries(name))
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".mem_", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(DELIMITER.join(entries))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, folder / name)
            return entries
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
            os.close(lock)

    def memory(self, visible: int = 0) -> tuple[str, list[str], str | None]:
        """One change to MEMORY.md: (kind, entries after, a text that must be painted or None). A
        replace changes entry `visible` (the one under the cursor: on screen)."""
        self.n += 1
        n, rng = self.n, self.rng
        count = len(self.entries("MEMORY.md"))
        roll = rng.random()
        if count > self.start_count + DRIFT or (roll < 0.2 and count > max(1, self.start_count - DRIFT)):
            at = rng.randrange(count)
            return "remove", self.write("MEMORY.md", lambda e: e[:at] + e[at + 1:]), None
        if roll < 0.35:
            at = min(visible, count - 1)
            text = f"Soak replace {n}: the on-call rota moved to team {n % 11} from week {n % 52}"
            return "replace", self.write("MEMORY.md", lambda e: e[:at] + [text] + e[at + 1:]), text
        text = f"Soak add {n}: cache key prefix for job {n % 89} is v{n % 7}-{n}"
        return "add", self.write("MEMORY.md", lambda e: e + [text]), None

    def user(self) -> list[str]:
        self.n += 1
        n = self.n

        def change(entries: list[str]) -> list[str]:
            soak = [e for e in entries if e.startswith("Soak:")]
            kept = [e for e in entries if not e.startswith("Soak:")]
            return kept + soak[-2:] + [f"Soak: prefers answers {n} lines long"]  # USER.md stays small; each text new

        return self.write("USER.md", change)

    def stage(self) -> int:
        """A staged add, as Hermes writes it; the oldest goes when too many wait. Returns the count."""
        self.n += 1
        n = self.n
        folder = self.home / "pending" / "memory"
        folder.mkdir(parents=True, exist_ok=True)
        rid = f"{0x50a00000 + n:08x}"
        content = f"Soak staged {n}: the nightly export runs at {n % 24:02d}:15"
        record = {"id": rid, "subsystem": "memory", "action": "add", "summary": f"add to memory: {content}"[:120],
                  "origin": "background_review" if n % 3 else "foreground", "created_at": time.time(),
                  "payload": {"action": "add", "target": "memory", "content": content}}
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".part")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(record, indent=2, ensure_ascii=False))
        os.replace(tmp, folder / f"{rid}.json")
        staged = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
        for old in staged[:max(0, len(staged) - KEEP_PENDING)]:
            old.unlink()
        return min(len(staged), KEEP_PENDING)


async def soak(home: Path, minutes: float, seed: int, growth: float | None) -> tuple[list, list, Counter | None]:
    from core.curator import open_curator
    from core.store.memory import usage
    from tests.tui.helpers import settle, shown
    from tui.app import CuratorApp
    from tui.widgets.entries import EntryList
    from tui.widgets.header import HmcHeader

    rng = random.Random(seed)
    writer = Writer(home, rng)
    curator = open_curator(home, today=date(2026, 11, 15))
    app = CuratorApp(curator, greet=False)
    samples: list[tuple[float, str, float]] = []  # (seconds since start, kind, latency)
    rss: list[tuple[float, float]] = []
    types_at_1: Counter | None = None
    grew: Counter | None = None

    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause(1.0)
        await settle(app, pilot)

        visits = [("2", "j", "j", "k"), ("3", *"deploy", "enter", "escape"), ("4", "j"), ("5", "j")]

        async def press(*keys: str) -> None:
            for key in keys:
                await pilot.press(key)
                await pilot.pause(0.05)
            await pilot.pause(0.2)

        async def to_memory() -> None:
            if app.screen.MODE != "memory" or getattr(app.screen, "is_modal", False):
                await press("escape") if getattr(app.screen, "is_modal", False) else None
                if app.current_mode == "search":
                    await press("escape")  # out of the query box first (where 1 types a 1)
                await press("1")
            await settle(app, pilot)

        async def wait(condition, what: str, explain=None) -> float:
            began = time.perf_counter()
            while not condition():
                await pilot.pause(0.01)
                if time.perf_counter() - began > 120:
                    raise SystemExit(f"{what} never reached the screen" + (f": {explain()}" if explain else ""))
            return time.perf_counter() - began

        def explain(target: str, entries: list[str]):
            def say() -> str:
                screen = app.screen
                if getattr(screen, "MODE", "") != "memory":
                    return f"{screen!r} is on screen"
                listed = screen.query_one(f"#entries-{target}", EntryList)
                limit = app.curator.stores[target].limit
                return (f"wanted {usage(entries):,}/{limit:,} and {len(entries)} rows; the gauge paints "
                        f"{shown(screen.query_one(f'#gauge-{target}'))!r}, the list has {len(listed.numbers)} rows; "
                        f"the store has {len(app.curator.stores[target].last.entries)} entries")
            return say

        def pane_shows(target: str, entries: list[str], text: str | None) -> bool:
            screen = app.screen
            if getattr(screen, "MODE", "") != "memory":
                return False
            listed = screen.query_one(f"#entries-{target}", EntryList)
            painted = shown(screen.query_one(f"#gauge-{target}")) + "\n" + shown(listed)
            limit = app.curator.stores[target].limit
            return (f"{usage(entries):,}/{limit:,}" in painted and len(listed.numbers) == len(entries)
                    and (text is None or text[:30] in painted))

        def header_shows(count: int) -> bool:
            return f"{count} pending" in shown(app.screen.query_one(HmcHeader))

        # a tour of every mode first: a screen's first build is not growth (the review of a big
        # store is the largest); the clock and the RSS minutes start after it
        for visit in visits:
            await press(*visit)
            await settle(app, pilot)
            await to_memory()
        started = time.perf_counter()
        next_rss = 60.0
        end = minutes * 60
        while (now := time.perf_counter() - started) < end:
            if now >= next_rss:
                rss.append((now / 60, rss_mb()))
                recent = sorted(t for at, _, t in samples if at >= now - 60)
                print(f"   minute {now / 60:4.0f}: RSS {rss[-1][1]:6.1f} MB · {len(recent)} changes in the last minute"
                      + (f", median {statistics.median(recent) * 1000:.0f} ms, max {recent[-1] * 1000:.0f} ms"
                         if recent else ""), flush=True)
                next_rss += 60.0
            if growth is not None and types_at_1 is None and now >= growth * 60:
                gc.collect()
                types_at_1 = Counter(type(o).__name__ for o in gc.get_objects())
            await to_memory()
            roll = rng.random()
            if roll < 0.7:
                listed = app.screen.query_one("#entries-memory", EntryList)
                kind, entries, text = writer.memory(listed.entry_at(listed.highlighted) or 0)
                at = time.perf_counter()
                took = await wait(lambda: pane_shows("memory", entries, text), kind, explain("memory", entries))
            elif roll < 0.8:
                kind, entries = "user", writer.user()
                at = time.perf_counter()
                took = await wait(lambda: pane_shows("user", entries, None), kind, explain("user", entries))
            else:
                kind, count = "staged", writer.stage()
                at = time.perf_counter()
                took = await wait(lambda: header_shows(count), kind)
            samples.append((at - started, kind, took))
            # a person meanwhile: the cursor, the other pane, now and then another mode
            gap_ends = time.perf_counter() + 1.0 + rng.random() * 2.0
            await settle(app, pilot)
            if rng.random() < 0.3:
                await press(*rng.choice(visits))
            else:
                await press(*rng.choice([("j", "j"), ("k",), ("G",), ("g",), ("tab", "j", "tab")]))
            while time.perf_counter() < gap_ends:
                await pilot.pause(0.1)
        rss.append(((time.perf_counter() - started) / 60, rss_mb()))
        if types_at_1 is not None:
            gc.collect()
            now_types = Counter(type(o).__name__ for o in gc.get_objects())
            now_types.subtract(types_at_1)
            grew = now_types
    return samples, rss, grew


def report(samples: list, rss: list, grew: Counter | None) -> None:
    print("\nchange -> screen latency per 5-minute window (ms)")
    windows: dict[int, list[float]] = {}
    for at, _, took in samples:
        windows.setdefault(int(at // WINDOW), []).append(took * 1000)
    for w, took in sorted(windows.items()):
        took.sort()
        p90 = took[min(len(took) - 1, int(0.9 * len(took)))]
        print(f"   {w * 5:>3}-{w * 5 + 5:<3} min: {len(took):4} changes  median {statistics.median(took):6.0f}  "
              f"p90 {p90:6.0f}  max {max(took):6.0f}")
    kinds = Counter(kind for _, kind, _ in samples)
    print("   writes: " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())))
    print("\nRSS (MB) each minute: " + "  ".join(f"{m:.0f}:{mb:.0f}" for m, mb in rss))
    first = next((mb for m, mb in rss if m >= 0.99), rss[0][1] if rss else float("nan"))
    last = rss[-1][1] if rss else float("nan")
    ratio = last / first
    print(f"RSS at the end ({rss[-1][0]:.0f} min) vs at 1 min: {last:.0f} / {first:.0f} MB = {ratio:.2f}x  "
          f"goal <= 1.3x: {'met' if ratio <= 1.3 else 'NOT MET'}")
    if grew is not None:
        print("\nPython objects that grew most from the --growth minute to the end:")
        for name, n in grew.most_common(15):
            if n > 0:
                print(f"   {n:>8,}  {name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--growth", type=float, default=None, metavar="MINUTE",
                        help="also count the Python objects that grew from this minute to the end, by type "
                             "(from a minute when every mode has been visited: a first visit builds its screen)")
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="hmc-bench-soak-"))
    for name in ("HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        os.environ[name] = str(scratch / name.lower())
    os.environ.pop("HERMES_HOME", None)
    os.environ.pop("HERMES_PROFILE", None)
    from core.demo.build import DEMO_TODAY, build_demo_home

    home = build_demo_home(scratch / "demo", DEMO_TODAY)
    if args.entries != 18:
        fill_varied(home, args.entries, args.seed)
    print(f"soak: {args.minutes:g} min, {args.entries:,} entries, seed {args.seed} · {os.cpu_count()} CPUs · "
          f"load {os.getloadavg()[0]:.2f}", flush=True)
    try:
        samples, rss, grew = asyncio.run(soak(home, args.minutes, args.seed, args.growth))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    report(samples, rss, grew)
    print(f"load now {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
