"""Mode keys at scale: pressing 1-5 on a home with 1,000 entries shows the new mode fully painted in
one frame, as on the 18-entry demo (issue 35). Side by side in one run:

    python tests/bench/bench_modes.py                     # 18 and 1,000 entries, 5 runs each
    python tests/bench/bench_modes.py --sizes 18 1000 5000 --runs 3
    python tests/bench/bench_modes.py --trace             # also every frame of each size's last run

How it is measured: bench_keys.py's way, through a real terminal. hmc runs in a fresh process on a
120x36 pseudo-terminal (its real entry point; nothing patched), the terminal answers Textual's
query for synchronized output, so each frame arrives between "begin update" and "end update" marks
and frames are counted exactly. Each size gets the demo home with MEMORY.md filled to that many
entries (bench_live.fill: the limit raised so the store stays valid). After the first screen the
bench waits until the start-up toasts are gone and the terminal is quiet, then presses each key of
KEYS in turn, each once the terminal has been quiet for --idle seconds (0.3; the search box's cursor blinks every
0.5 s) after the key's first frame.

For each key and size: frames (goal: 1; the most any run took is shown too), the first repaint
(key to the first frame's first byte) and the settle time (first frame's first byte to the last
frame's last byte; 0 when there is one frame). Figures are medians over the runs. The 1,000-entry
first repaint is also shown as a ratio of the 18-entry one, measured in the same run.

On a loaded box (load over ~4 on 2 CPUs) a frame can come later than the quiet that ends its key and
is then counted as the next key's: read --trace (each frame's size tells which screen it painted:
memory mode ~22.9 KB, pending ~15.3 KB, search ~17.4 KB, review ~21 KB, profiles ~11.6-12 KB) before
believing a "2 frames", and prefer figures from a quiet box.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

from bench_keys import IDLE, START_QUIET, SYNC_START, Terminal  # noqa: E402
from bench_live import fill  # noqa: E402
from bench_startup import (BenchError, Subject, build_home, hmc_command, hmc_markers, sandbox_env, sandboxed,  # noqa: E402
                           spawned)

# every mode from memory mode and back: first visits (built ahead or not), then visits again
KEYS: tuple[tuple[str, bytes], ...] = (
    ("2  pending, first visit", b"2"),
    ("1  memory, back", b"1"),
    ("3  search, first visit", b"3"),
    ("esc  out of the search box", b"\x1b"),  # 3 puts the keyboard in the query box, where 1 types a 1
    ("1  memory, back from search", b"1"),
    ("4  review, first visit", b"4"),
    ("1  memory, back from review", b"1"),
    ("5  profiles, first visit", b"5"),
    ("1  memory, back from profiles", b"1"),
    ("2  pending, again", b"2"),
    ("4  review, again", b"4"),
    ("3  search, again", b"3"),
    ("esc  out of the search box again", b"\x1b"),
    ("1  memory, again", b"1"),
)


def one_run(subject: Subject, env: dict[str, str], cwd: Path, size: tuple[int, int], timeout: float,
            idle: float = IDLE):
    with spawned(subject, env, cwd, size) as (proc, master, started):
        from bench_startup import wait_for_markers

        term = Terminal(subject, proc, master)
        wait_for_markers(subject, proc, master, term.raw, started + timeout, timeout)
        term.answer()
        term.read_until_quiet(2.0, at_least=START_QUIET, limit=60.0)  # start-up's late lines (origins, loaded) done
        if SYNC_START not in term.raw:
            raise BenchError(f"{subject.name} never marked a frame (synchronized output)")
        return [(label, term.press(key, idle)) for label, key in KEYS]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[18, 1000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--trace", action="store_true")
    parser.add_argument("--idle", type=float, default=IDLE,
                        help="seconds of quiet that end a key's frames (under 0.5: the search box's cursor "
                             "blinks every 0.5 s)")
    args = parser.parse_args(argv)
    size = (120, 36)
    tmp = Path(tempfile.mkdtemp(prefix="hmc-bench-modes-"))
    env = sandbox_env(tmp)
    print(f"mode keys, hmc on the demo home at {', '.join(f'{s:,}' for s in args.sizes)} entries, 120x36 pty · "
          f"{os.cpu_count()} CPUs · load {os.getloadavg()[0]:.2f} · {args.runs} runs · goal: 1 frame", flush=True)
    results: dict[int, dict[str, list]] = {}
    with sandboxed(env):  # building the homes here must not touch the real user's folders
        try:
            demo = build_home(tmp)
            homes = {}
            for n in args.sizes:
                home = tmp / f"home-{n}" / ".hermes"
                shutil.copytree(demo, home, symlinks=True)
                if n != 18:
                    fill(home, n)
                homes[n] = Subject(f"hmc at {n:,} entries", hmc_command(home), hmc_markers(home))
            one_run(homes[args.sizes[0]], env, tmp, size, args.timeout)  # warm-up: the bytecode cache
            for _ in range(args.runs):
                for n in args.sizes:  # sizes alternate: the box's load falls on both alike
                    for label, press in one_run(homes[n], env, tmp, size, args.timeout, args.idle):
                        results.setdefault(n, {}).setdefault(label, []).append(press)
        except BenchError as exc:
            print(f"bench failed: {exc}", file=sys.stderr)
            return 2
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    base = min(results)
    print(f"\n{'key':<32}" + "".join(f"{f'{n:,} entries: frames (max)  first  settle':>46}" for n in sorted(results)))
    over = []
    for label, _ in KEYS:
        line = f"{label:<32}"
        for n in sorted(results):
            presses = results[n][label]
            seen = [p for p in presses if p.frames]
            frames = statistics.median(p.frames for p in presses)
            most = max(p.frames for p in presses)
            first = statistics.median(p.first for p in seen) * 1000 if seen else float("nan")
            settle = statistics.median(p.settle for p in seen) * 1000 if seen else float("nan")
            ratio = "" if n == base else f" {first / (statistics.median(p.first for p in results[base][label] if p.frames) * 1000):4.1f}x"
            line += f"{frames:>20g} ({most}) {first:7.0f} ms{ratio:>6} {settle:6.0f} ms"
            if most > 1 and not label.startswith("esc"):
                over.append(f"{label.split()[0]}@{n:,}")
        print(line)
    if args.trace:
        for n in sorted(results):
            print(f"\nframes of the last run at {n:,} entries (ms from the key: start-end, bytes)")
            for label, _ in KEYS:
                press = results[n][label][-1]
                print(f"   {label:<32} " + "  ".join(f"{a * 1000:.0f}-{b * 1000:.0f} ({c:,} B)" for a, b, c in press.times))
    print(f"\ngoal (one frame per key): {'met by every key' if not over else 'NOT MET: ' + ', '.join(over)}"
          f" · load now {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
