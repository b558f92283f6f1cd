"""What hmc's write safety costs: MemoryStore.apply vs a bare Hermes-like write of the same file.

    python tests/bench/bench_memory.py               # 60 alternating pairs per comparison
    python tests/bench/bench_memory.py --repeat 200  # steadier
    python tests/bench/bench_memory.py --dir ~/x     # put the home on another file system

Both sides replace one entry of the demo home's MEMORY.md (the same file, taking turns, so every
write changes it and its size stays put):

- bare (what Hermes's memory tool does, HERMES-FORMATS.md 2.6): flock on MEMORY.md.lock, read, split
  into entries, replace the entry, write a `.mem_*.tmp` in the folder, flush, fsync, os.replace.
  Hermes also runs its own short scan; that is left out here, so the bare side is a floor.
- hmc (MemoryStore.apply): the security scan of the new text, the same lock, a re-read with the
  drift check, the plan (Hermes's rules and messages), hmc's journal (read to number the record,
  append, fsync), the atomic write (fsync, and an fsync of the folder), and a re-read for the UI.

Comparisons, each timed in alternating pairs with the ratio of every pair; the median is printed:
1. hmc with an empty journal vs bare;
2. hmc with a journal of --journal records (default 1,000: a long-used hmc) vs bare;
3. hmc without a journal (history=None) vs bare: what the journal adds, by difference.
Not part of the test suite; nothing is asserted. HOME and the XDG folders point into the temp folder.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

DELIMITER = "\n§\n"  # as core.store.memory.DELIMITER (Hermes's entry separator)
TEXTS = (
    "Benchmark note A: the staging deploy window is Tuesday 10:00-12:00 CET; ask in #ops first.",
    "Benchmark note B: the staging deploy window is Thursday 14:00-16:00 CET; ask in #ops first.",
)


def sandbox(folder: Path) -> None:
    """Point this process's HOME and XDG folders into `folder` (hmc's journal lives under XDG_STATE_HOME)."""
    home = folder / "home"
    os.environ.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
    )
    for key in ("HERMES_HOME", "HERMES_PROFILE"):
        os.environ.pop(key, None)


def fs_type(path: Path) -> str:
    """The file system `path` is on, from /proc/mounts (longest mount point that contains it)."""
    try:
        best, kind = "", "?"
        resolved = str(path.resolve())
        for line in Path("/proc/mounts").read_text().splitlines():
            parts = line.split()
            if len(parts) > 2 and (resolved == parts[1] or resolved.startswith(parts[1].rstrip("/") + "/")):
                if len(parts[1]) > len(best):
                    best, kind = parts[1], parts[2]
        return f"{kind} at {best}" if best else kind
    except OSError:
        return "?"


# --------------------------------------------------------------------------------------------
# The two writers


def bare_replace(path: Path, old: str, new: str) -> None:
    """A Hermes-like write: flock the sidecar, read, replace the entry, temp file, fsync, replace."""
    lock = path.with_name(path.name + ".lock")
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        entries = [e.strip() for e in path.read_text(encoding="utf-8").split(DELIMITER)]
        index = next(i for i, e in enumerate(entries) if old in e)
        entries[index] = new
        data = DELIMITER.join(entries).encode("utf-8")
        tfd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".mem_", suffix=".tmp")
        try:
            with os.fdopen(tfd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    finally:
        os.close(fd)


class Toggle:
    """Whose turn it is: the file holds TEXTS[state]; each write flips it (both writers share this)."""

    def __init__(self) -> None:
        self.state = 0

    def next(self) -> tuple[str, str]:
        old, new = TEXTS[self.state], TEXTS[1 - self.state]
        self.state = 1 - self.state
        return old, new


# --------------------------------------------------------------------------------------------
# Timing


def side_by_side(a, b, pairs: int, setup_b=None) -> tuple[float, float, float]:
    """Medians of a() and b() run in alternating pairs, and the median of the pairs' ratios b/a.

    `setup_b` runs (untimed) before every b().
    """
    def tb_once() -> float:
        if setup_b:
            setup_b()
        started = time.perf_counter()
        b()
        return time.perf_counter() - started

    def ta_once() -> float:
        started = time.perf_counter()
        a()
        return time.perf_counter() - started

    ta_once()
    tb_once()
    ta, tb, ratios = [], [], []
    for i in range(pairs):
        if i % 2:
            y = tb_once()
            x = ta_once()
        else:
            x = ta_once()
            y = tb_once()
        ta.append(x)
        tb.append(y)
        ratios.append(y / x)
    return statistics.median(ta), statistics.median(tb), statistics.median(ratios)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.2f} ms"


# --------------------------------------------------------------------------------------------


def fill_journal(history, path: Path, target: str, records: int) -> None:
    """Write `records` journal lines in hmc's format directly (appending them one by one is O(n^2))."""
    from core.store.journal import Record

    text = path.read_text(encoding="utf-8")
    history.folder.mkdir(parents=True, exist_ok=True)
    now = time.time()
    with open(history.path, "w", encoding="utf-8") as fh:
        for i in range(records):
            rec = Record(id=i + 1, ts=now - (records - i) * 3600, target=target, path=str(path),
                         action="replace", detail="benchmark filler", before=text, after=text)
            fh.write(json.dumps(asdict(rec), ensure_ascii=False) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=60, help="alternating pairs per comparison (default 60)")
    parser.add_argument("--journal", type=int, default=1000, help="records in the long journal (default 1,000)")
    parser.add_argument("--dir", type=Path, default=None, help="where the temp home goes (default: the temp folder)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.dir is not None:
        args.dir.mkdir(parents=True, exist_ok=True)

    with tempfile.TemporaryDirectory(prefix="hmc-bench-memory-", dir=args.dir) as folder:
        tmp = Path(folder)
        sandbox(tmp)
        from core.curator import open_curator
        from core.demo.build import build_demo_home, write_entries
        from core.store.memory import MemoryStore, Op

        demo = build_demo_home(tmp / "home" / ".hermes")
        curator = open_curator(demo)
        store = curator.stores["memory"]
        entries = list(store.read().entries)
        write_entries(store.path, entries + [TEXTS[0]])
        snap = store.read()
        if snap.drift or snap.error:
            print(f"bench failed: the demo MEMORY.md is not writable ({snap.drift or snap.error})", file=sys.stderr)
            return 2
        bare_store = MemoryStore(store.target, store.path, store.limit, store.enabled, history=None)
        history = store.history
        turn = Toggle()

        def bare() -> None:
            bare_replace(store.path, *turn.next())

        def hmc(which: MemoryStore):
            def run() -> None:
                old, new = turn.next()
                which.apply([Op("replace", content=new, old_text=old)])
            return run

        size = len(store.path.read_bytes())
        print(f"MEMORY.md of the demo home: {len(snap.entries)} entries, {size:,} bytes · file system "
              f"{fs_type(tmp)} · Python {sys.version.split()[0]} · {os.cpu_count()} CPUs · "
              f"medians of {args.repeat} alternating pairs\n", flush=True)
        hmc(store)()  # first use: imports and compiles the scanner (not what a write costs)

        rows = []
        empty = lambda: history.path.unlink(missing_ok=True)  # noqa: E731
        rows.append(("hmc apply, empty journal", *side_by_side(bare, hmc(store), args.repeat, empty)))

        fill_journal(history, store.path, store.target, args.journal)
        journal_size = history.path.stat().st_size

        def long_journal() -> None:
            os.truncate(history.path, journal_size)  # back to exactly --journal records

        rows.append((f"hmc apply, {args.journal:,}-record journal", *side_by_side(bare, hmc(store), args.repeat,
                                                                                 long_journal)))
        rows.append(("hmc apply, no journal", *side_by_side(bare, hmc(bare_store), args.repeat)))

        long_journal()
        started = time.perf_counter()
        for _ in range(5):
            history.undoable()
        undoable_time = (time.perf_counter() - started) / 5

        from core.scan import scanner

        started = time.perf_counter()
        for _ in range(50):
            scanner.scan(TEXTS[0])
        scan_time = (time.perf_counter() - started) / 50

        print("replace one entry of MEMORY.md (lock, read, write, fsync, rename)")
        print(f"   {'':<34} {'bare (Hermes-like)':>18} {'hmc':>11} {'ratio':>7}")
        for label, t_bare, t_hmc, ratio in rows:
            print(f"   {label:<34} {ms(t_bare):>18} {ms(t_hmc)} {ratio:6.2f}x")
        print(f"\n   of which the security scan of the new text (warm): {ms(scan_time).strip()}")
        print(f"   journal of {args.journal:,} records: {journal_size / 2**20:,.1f} MiB; hmc reads it whole to "
              "number each new record, and History.undoable() reads it whole too "
              f"({ms(undoable_time).strip()}; memory mode's check_action('undo') calls it on every bindings refresh)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
