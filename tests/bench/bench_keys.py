"""Key latency benchmark: how long after a key hmc's screen settles, and in how many frames.

    python tests/bench/bench_keys.py              # 10 runs (a fresh hmc each), about two minutes
    python tests/bench/bench_keys.py --runs 20    # steadier figures
    python tests/bench/bench_keys.py --trace      # also print every frame of the last run

Goal (issue 19): after a key, the screen is complete in one frame: it settles within 50 ms of its
first repaint, and nothing repaints twice.

How it is measured: hmc runs on the demo home in a fresh process on a 120x36 pseudo-terminal,
through its real entry point (bench_startup.py's sandbox and pty helpers: nothing is patched or
instrumented inside hmc). The terminal answers Textual's query for synchronized output (as kitty,
WezTerm, iTerm2, foot, Ghostty and Windows Terminal do), so every frame reaches the pty between
"begin update" and "end update" marks and frames can be counted exactly. After the first screen the
bench waits until the start-up toasts are gone and the terminal is quiet, then presses each key of
KEYS in turn; after each one it reads until, once the key's first frame has begun, the terminal
has been quiet for IDLE seconds.

For each key:
- first repaint: from writing the key to the first frame's first byte (Textual reads keys in a
  thread; Escape alone waits for a possible escape sequence first);
- settle: from that first byte to the last frame's last byte: 0 when one frame is all there is;
- frames: how many frames the key caused (the goal: 1).
Each figure is the median over the runs; frames also says the most any run took.
"""

from __future__ import annotations

import argparse
import os
import select
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script or imported from bench_scale.py

from bench_startup import (  # noqa: E402  (the pty helpers: one copy of them)
    BenchError,
    Subject,
    build_home,
    hmc_command,
    hmc_markers,
    read_chunk,
    sandbox_env,
    sandboxed,
    spawned,
    tail,
    wait_for_markers,
)

SETTLE_GOAL = 0.050  # seconds from a key's first repaint to its last
FRAMES_GOAL = 1
IDLE = 0.3  # seconds of quiet that end a key's repaints (counted from its first frame)
FIRST_FRAME_WITHIN = 10.0  # seconds a key may take to its first frame (a mode's first visit builds it)
START_QUIET = 7.0  # seconds after the first screen: the greeting toast (6 s) has come and gone

SYNC_QUERY = b"\x1b[?2026$p"  # Textual asks whether the terminal does synchronized output
SYNC_REPLY = b"\x1b[?2026;2$y"  # supported (currently off): Textual then marks every frame
SYNC_START = b"\x1b[?2026h"
SYNC_END = b"\x1b[?2026l"

ESC, CTRL_P = b"\x1b", b"\x10"

# (label, key): pressed in this order in every run, each once the terminal is quiet again. The
# first visit to a mode builds its screen; later visits show the one already built.
KEYS: tuple[tuple[str, bytes], ...] = (
    ("2  pending mode, first visit", b"2"),
    ("1  memory mode, back", b"1"),
    ("2  pending mode, again", b"2"),
    ("1  memory mode, back", b"1"),
    ("e  edit dialog on an entry", b"e"),
    ("esc  close a dialog", ESC),
    ("?  help", b"?"),
    ("esc  close a dialog", ESC),
    ("ctrl+p  palette", CTRL_P),
    ("esc  close a dialog", ESC),
    ("t  timeline", b"t"),
    ("esc  close a dialog", ESC),
    ("4  review mode, first visit", b"4"),
    ("3  search mode, first visit", b"3"),
)


@dataclass(frozen=True)
class Press:
    first: float  # seconds from the key to its first frame's first byte (nan: no frame)
    settle: float  # seconds from the first frame's first byte to the last one's last byte
    frames: int
    times: tuple[tuple[float, float, int], ...]  # each frame: (start, end, bytes), from the key


@dataclass(frozen=True)
class Row:
    label: str
    first_ms: float  # medians over the runs
    settle_ms: float
    frames: float
    frames_max: int
    runs: int

    @property
    def ok(self) -> bool:
        return self.settle_ms <= SETTLE_GOAL * 1000 and self.frames_max <= FRAMES_GOAL

    def line(self) -> str:
        verdict = "ok" if self.ok else "OVER GOAL"
        return (f"   {self.label:<32} first repaint {self.first_ms:6.1f} ms   settles {self.settle_ms:6.1f} ms "
                f"({self.settle_ms / (SETTLE_GOAL * 1000):4.2f}x goal)   frames {self.frames:g} (max {self.frames_max})"
                f"   {verdict}")


class Terminal:
    """The bench's side of the pty: answers the sync query, splits what arrives into frames."""

    def __init__(self, subject: Subject, proc, master: int) -> None:
        self.subject, self.proc, self.master = subject, proc, master
        self.raw = bytearray()
        self.answered = False

    def answer(self) -> None:
        if not self.answered and SYNC_QUERY in self.raw:
            os.write(self.master, SYNC_REPLY)
            self.answered = True

    def read_until_quiet(self, idle: float, at_least: float = 0.0, limit: float = 30.0,
                         first_frame: float = 0.0) -> list[tuple[float, bytes]]:
        """(perf_counter, chunk) for everything that arrives until `idle` seconds pass with nothing
        (and at least `at_least` seconds in all); with `first_frame`, the quiet counts only once a
        frame has begun (or that many seconds have passed without one)."""
        chunks: list[tuple[float, bytes]] = []
        began = time.perf_counter()
        last = began
        framed = not first_frame
        while True:
            now = time.perf_counter()
            if now - began > limit:
                raise BenchError(f"{self.subject.name}: never quiet for {idle} s within {limit:.0f} s: {tail(self.raw)}")
            wait = max(idle - (now - last), at_least - (now - began))
            if not framed:
                wait = max(wait, first_frame - (now - began))
            if wait <= 0:
                return chunks
            ready, _, _ = select.select([self.master], [], [], wait)
            if ready:
                chunk = read_chunk(self.subject, self.proc, self.master, self.raw)
                last = time.perf_counter()
                chunks.append((last, chunk))
                self.answer()
                framed = framed or SYNC_START in chunk

    def press(self, key: bytes, idle: float) -> Press:
        os.write(self.master, key)
        pressed = time.perf_counter()
        return frames_of(self.read_until_quiet(idle, first_frame=FIRST_FRAME_WITHIN), pressed)


def frames_of(chunks: list[tuple[float, bytes]], pressed: float) -> Press:
    """The frames in `chunks` (each between SYNC_START and SYNC_END) and when each began and ended.

    A chunk's time is when it was read; a frame begins when the chunk holding its SYNC_START
    arrived. Bytes outside frames (the pointer shape, OSC 22) are not repaints."""
    frames: list[list[float]] = []
    open_frame: list[float] | None = None
    for at, chunk in chunks:
        pos = 0
        while True:
            if open_frame is None:
                start = chunk.find(SYNC_START, pos)
                if start < 0:
                    break
                open_frame = [at - pressed, at - pressed, 0]
                pos = start + len(SYNC_START)
            end = chunk.find(SYNC_END, pos)
            if end < 0:
                open_frame[2] += len(chunk) - pos
                open_frame[1] = at - pressed
                break
            open_frame[2] += end - pos
            open_frame[1] = at - pressed
            frames.append(open_frame)
            open_frame = None
            pos = end + len(SYNC_END)
    if open_frame is not None:
        frames.append(open_frame)
    if not frames:
        return Press(float("nan"), 0.0, 0, ())
    return Press(frames[0][0], frames[-1][1] - frames[0][0], len(frames),
                 tuple((a, b, int(n)) for a, b, n in frames))


def one_run(subject: Subject, env: dict[str, str], cwd: Path, size: tuple[int, int], timeout: float,
            idle: float = IDLE) -> list[tuple[str, Press]]:
    with spawned(subject, env, cwd, size) as (proc, master, started):
        term = Terminal(subject, proc, master)
        wait_for_markers(subject, proc, master, term.raw, started + timeout, timeout)
        term.answer()
        term.read_until_quiet(1.0, at_least=START_QUIET)
        if SYNC_START not in term.raw:
            raise BenchError(f"{subject.name} never marked a frame (synchronized output): frames can't be counted")
        return [(label, term.press(key, idle)) for label, key in KEYS]


def summarize(runs: list[list[tuple[str, Press]]]) -> list[Row]:
    by_label: dict[str, list[Press]] = {}
    for run in runs:
        for label, press in run:
            by_label.setdefault(label, []).append(press)
    rows = []
    for label, presses in by_label.items():
        seen = [p for p in presses if p.frames]
        if not seen:
            raise BenchError(f"{label}: the key never repainted")
        rows.append(Row(label, statistics.median(p.first for p in seen) * 1000,
                        statistics.median(p.settle for p in seen) * 1000,
                        statistics.median(p.frames for p in presses), max(p.frames for p in presses), len(presses)))
    return rows


def run(runs: int = 10, size: tuple[int, int] = (120, 36), timeout: float = 30.0, progress=None,
        trace: bool = False) -> list[Row]:
    """One row per key of KEYS (medians over `runs` fresh starts of hmc on the demo home)."""
    with tempfile.TemporaryDirectory(prefix="hmc-bench-keys-") as folder:
        tmp = Path(folder)
        env = sandbox_env(tmp)
        with sandboxed(env):  # reading the demo home here must not touch the real user's
            demo = build_home(tmp)
            hmc = Subject("hmc --home <demo>", hmc_command(demo), hmc_markers(demo))
        one_run(hmc, env, tmp, size, timeout)  # warm-up: fills the bytecode cache
        results = []
        for i in range(runs):
            results.append(one_run(hmc, env, tmp, size, timeout))
            if progress:
                progress(i + 1, runs)
        if trace:
            print_trace(results[-1])
        return summarize(results)


def print_trace(run_: list[tuple[str, Press]]) -> None:
    print("\nframes of the last run (ms from the key: start-end, bytes)")
    for label, press in run_:
        frames = "  ".join(f"{a * 1000:.1f}-{b * 1000:.1f} ({n:,} B)" for a, b, n in press.times)
        print(f"   {label:<32} {frames or '(none)'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="fresh starts of hmc to measure (default 10)")
    parser.add_argument("--size", default="120x36", help="terminal size COLUMNSxROWS (default 120x36)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds a start may take (default 30)")
    parser.add_argument("--trace", action="store_true", help="also print every frame of the last run")
    args = parser.parse_args(argv)
    try:
        columns, rows = (int(n) for n in args.size.lower().split("x"))
    except ValueError:
        parser.error(f"--size {args.size!r} is not COLUMNSxROWS")
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    import textual

    print(f"key -> screen settled, hmc on the demo home, {columns}x{rows} pty · Textual {textual.__version__} · "
          f"Python {sys.version.split()[0]} · {os.cpu_count()} CPUs · load {os.getloadavg()[0]:.2f} · "
          f"{args.runs} runs · quiet = {IDLE * 1000:.0f} ms · goal: settles <= {SETTLE_GOAL * 1000:.0f} ms after "
          f"the first repaint, {FRAMES_GOAL} frame", flush=True)

    def progress(done: int, total: int) -> None:
        if done % 5 == 0 and done < total:
            print(f"   {done}/{total} runs…", file=sys.stderr, flush=True)

    try:
        rows_ = run(args.runs, (columns, rows), args.timeout, progress, trace=args.trace)
    except BenchError as exc:
        print(f"bench failed: {exc}", file=sys.stderr)
        return 2
    print("\nkey -> first repaint, and from it until the screen settles (medians)")
    for row in rows_:
        print(row.line())
    over = [r.label for r in rows_ if not r.ok]
    print(f"   goal: {'met by every key' if not over else 'not met by ' + ', '.join(o.strip() for o in over)}"
          f" · load now {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
