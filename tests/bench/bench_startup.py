"""Start-up benchmark: hmc's first screen vs a minimal Textual app's, side by side in one run.

    python tests/bench/bench_startup.py              # 20 alternating pairs (well under 2 minutes)
    python tests/bench/bench_startup.py --runs 40    # more pairs, steadier figures
    python tests/bench/bench_startup.py --imports    # also list the modules only hmc imports
    python tests/bench/bench_startup.py --journal 1000  # a long-used hmc: 1,000 records in its journal
    python tests/bench/bench_startup.py --sessions 100000  # a state.db of 100,000 more sessions: also
                                                           # when the loaded-memory lines arrive

Goal (DESIGN.md, "Performance"): the TUI on the demo home paints its first screen within 1.3x the
time a minimal Textual app (a Static and a Footer) takes on the same machine.

How "first paint" is measured: each app runs in a fresh subprocess (so interpreter start and every
import count) on a pseudo-terminal of 120x36, through its real driver and entry point (`hmc --home
<demo>` is the installed console script). The clock starts just before the process is spawned and
stops when the terminal has received every piece of text that makes the first screen: for the
minimal app its Static's text and the Footer's `^p palette`; for hmc the first entry of MEMORY.md
and of USER.md, both panes' "used/limit" counts and the Footer (`Prompt` and `palette`) - memory mode
with both panes filled (every entry that fits on screen is in that frame; the header's pending count,
which reads every staged record, and the scan badges fill in a moment later). The process is then
killed. Nothing is patched or instrumented inside
either app, and both are measured the same way.

With --sessions N, the demo's state.db gets N more ended sessions (a new stored prompt every 40,
each holding the demo's memory), and each hmc run is also timed until its first memory entry's
"loaded by N sessions" line is on screen: that line is read from every session's stored prompt
(core.snapshots), after the first frame, and must never delay it. Runs alternate a cold hmc cache
(deleted before the run: every prompt read and parsed) and a warm one (the cache of the run
before).

The demo home is built once in a temporary folder; HOME and the XDG folders point inside it, so
nothing reads or touches the real user's files (this process's own HOME and XDG variables too).
Bytecode is cached as for an installed app (in the temp folder, via PYTHONPYCACHEPREFIX, even when
PYTHONDONTWRITEBYTECODE is set): without it every hmc module would be compiled from source at each
start, which no installed hmc does. Runs alternate (a b, b a, ...) after one warm-up each (which
also fills that cache); the ratio reported is the median of the pairs' ratios, which is steadier
than a ratio of medians on a shared machine.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import re
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

GOAL = 1.3

MINIMAL_APP = '''\
from textual.app import App
from textual.widgets import Footer, Static


class Minimal(App):
    def compose(self):
        yield Static("A minimal Textual app: one Static and a Footer.")
        yield Footer()


if __name__ == "__main__":
    Minimal().run()
'''
MINIMAL_MARKERS = ("A minimal Textual app", "palette")

# Escape sequences a Textual frame is made of (CSI, OSC, charset and keypad selects) and line ends:
# what is left is the text that the terminal shows.
ESCAPES = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]|[\r\n]")


# Variables that would make one start slower or different from a person's (debug modes, tracing,
# a terminal size that overrides the pty's).
SKEWING_VARS = ("COLUMNS", "LINES", "NO_COLOR", "PYTHONPROFILEIMPORTTIME", "PYTHONDEVMODE", "PYTHONASYNCIODEBUG",
                "PYTHONTRACEMALLOC", "PYTHONMALLOC", "PYTHONMALLOCSTATS", "PYTHONWARNINGS", "PYTHONINSPECT",
                "PYTHONVERBOSE", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")


class BenchError(Exception):
    pass


@dataclass(frozen=True)
class Subject:
    name: str
    command: list[str]
    markers: tuple[str, ...]
    later: tuple[str, ...] = ()  # text that comes after the first screen, timed too


# --------------------------------------------------------------------------------------------
# The sandbox: a demo home and an environment that never reaches the real user's files


@contextmanager
def sandboxed(env: dict[str, str]):
    """This process's HOME and XDG folders pointed at `env`'s (no HERMES_HOME or HERMES_PROFILE) while
    it builds or reads a bench home, so nothing touches the real user's; restored on the way out."""
    from tests.user_folders import environ

    names = ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")
    with environ({**{key: env[key] for key in names}, "HERMES_HOME": None, "HERMES_PROFILE": None}):
        yield


def sandbox_env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TEXTUAL", "HERMES_", "XDG_")) and k not in SKEWING_VARS}
    home = tmp / "home"
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        TERM="xterm-256color",
        COLORTERM="truecolor",
        LANG=env.get("LANG") if "UTF-8" in env.get("LANG", "").upper() else "C.UTF-8",
    )
    # Bytecode as an installed app has it: compiled once (in the warm-up run), then read from cache,
    # even where PYTHONDONTWRITEBYTECODE is set. The cache lives in the temp folder, so the checkout
    # gets no __pycache__ folders.
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    # hmc resolves from the installed package when there is one; the checkout is the fallback.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return env


def build_home(tmp: Path) -> Path:
    from core.demo.build import build_demo_home

    demo = tmp / "home" / ".hermes"
    build_demo_home(demo)
    return demo


def hmc_command(demo: Path) -> list[str]:
    """The installed console script beside this interpreter (the real entry point), else -m tui.cli."""
    script = Path(sys.executable).with_name("hmc")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script), "--home", str(demo)]
    return [sys.executable, "-m", "tui.cli", "--home", str(demo)]


def hmc_markers(demo: Path) -> tuple[str, ...]:
    """Text that is on screen only once memory mode has painted with both panes filled."""
    from core.curator import open_curator
    from core.store.memory import usage

    curator = open_curator(demo)
    markers = []
    for target in ("memory", "user"):
        store = curator.stores[target]
        snap = store.read()
        if not snap.entries:
            raise BenchError(f"the demo home's {target} store is empty")
        first_line = snap.entries[0].splitlines()[0]
        markers.append(prefix_words(first_line, 24))
        markers.append(f"{usage(snap.entries):,}/{store.limit:,}")  # the gauge's "used/limit chars"
    markers += ["Prompt", "palette"]  # memory mode's Footer
    return tuple(markers)


def prefix_words(text: str, width: int) -> str:
    """The leading whole words of `text` within `width` characters (so a wrap can't split them)."""
    if len(text) <= width:
        return text.strip()
    cut = text[:width].rsplit(" ", 1)[0]
    return (cut or text[:width]).strip()


# --------------------------------------------------------------------------------------------
# One measured start


def first_paint(subject: Subject, env: dict[str, str], cwd: Path, size: tuple[int, int],
                timeout: float) -> float:
    """Seconds from spawning `subject` on a fresh pty until all its markers have reached the terminal."""
    return start(subject, env, cwd, size, timeout)[0]


def paint_then_later(subject: Subject, env: dict[str, str], cwd: Path, size: tuple[int, int],
                     timeout: float) -> tuple[float, float]:
    """(seconds to the first screen, seconds to the `later` text) for one fresh start."""
    with spawned(subject, env, cwd, size) as (proc, master, started):
        raw = bytearray()
        wait_for_markers(subject, proc, master, raw, started + timeout, timeout)
        first = time.perf_counter() - started
        later = Subject(subject.name, subject.command, subject.later)
        wait_for_markers(later, proc, master, raw, started + timeout, timeout)
        return first, time.perf_counter() - started


def add_sessions(demo: Path, count: int, per_prompt: int = 40) -> None:
    """`count` more ended sessions in the demo's state.db, each loading the demo's memory: the last
    stored prompt again, a new copy (its own hash) every `per_prompt` sessions, as a home where the
    memory changes sometimes and many sessions share a prompt."""
    import hashlib
    import sqlite3

    con = sqlite3.connect(demo / "state.db")
    try:
        (template,) = con.execute("SELECT p.prompt FROM sessions s JOIN system_prompts p ON p.hash = "
                                  "s.system_prompt_hash ORDER BY s.started_at DESC LIMIT 1").fetchone()
        (first,) = con.execute("SELECT MIN(started_at) FROM sessions").fetchone()
        prompts, rows = [], []
        for n in range(count):
            if n % per_prompt == 0:
                text = f"{template}\n\n(bench prompt {n // per_prompt})"
                digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
                prompts.append((digest, text))
            started = first - (count - n) * 600.0
            rows.append((f"bench-{n:07d}", "cli", started, started + 300.0, "user_exit", digest, f"bench {n}"))
        con.executemany("INSERT INTO system_prompts (hash, prompt) VALUES (?, ?)", prompts)
        con.executemany("INSERT INTO sessions (id, source, started_at, ended_at, end_reason, system_prompt_hash, "
                        "title) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        con.commit()
    finally:
        con.close()


def start(subject: Subject, env: dict[str, str], cwd: Path, size: tuple[int, int],
          timeout: float) -> tuple[float, bytes]:
    """(seconds to first paint, everything the terminal received until then) for one fresh start."""
    with spawned(subject, env, cwd, size) as (proc, master, started):
        raw = bytearray()
        wait_for_markers(subject, proc, master, raw, started + timeout, timeout)
        return time.perf_counter() - started, bytes(raw)


@contextmanager
def spawned(subject: Subject, env: dict[str, str], cwd: Path, size: tuple[int, int]):
    """`subject` in a fresh process on a new pty of `size` (columns, rows), the pty its controlling
    terminal: yields (process, the pty's master fd, perf_counter at spawn). Killed on the way out."""
    columns, rows = size
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))

    def controlling_tty() -> None:  # runs in the child after setsid(): the pty becomes its terminal
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    started = time.perf_counter()
    proc = subprocess.Popen(subject.command, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd,
                            start_new_session=True, preexec_fn=controlling_tty, close_fds=True)
    os.close(slave)
    try:
        yield proc, master, started
    finally:
        if proc.poll() is None:
            proc.kill()  # our own child, by its id
        proc.wait()
        os.close(master)


def read_chunk(subject: Subject, proc: subprocess.Popen, master: int, raw: bytearray) -> bytes:
    """One read from the pty (call when select says it is readable); the child exiting is an error."""
    try:
        chunk = os.read(master, 1 << 16)
    except OSError:  # EIO: the child closed the terminal (it exited)
        chunk = b""
    if not chunk:
        proc.wait(timeout=5)
        raise BenchError(f"{subject.name} exited ({proc.returncode}); output: {tail(raw)}")
    raw += chunk
    return chunk


def wait_for_markers(subject: Subject, proc: subprocess.Popen, master: int, raw: bytearray,
                     deadline: float, timeout: float) -> None:
    """Read the pty into `raw` until every one of the subject's markers is on screen."""
    while True:
        left = deadline - time.perf_counter()
        if left <= 0:
            raise BenchError(f"{subject.name}: no first screen within {timeout:.0f} s; "
                             f"missing {missing(raw, subject.markers)}; screen text so far: {tail(raw)}")
        ready, _, _ = select.select([master], [], [], min(left, 0.5))
        if not ready:
            continue
        try:
            read_chunk(subject, proc, master, raw)
        except BenchError as exc:
            raise BenchError(f"{exc} (before its first screen; missing {missing(raw, subject.markers)})") from None
        if select.select([master], [], [], 0)[0]:
            continue  # more of this write is waiting: read it all before looking (cheaper)
        if not missing(raw, subject.markers):
            return


def screen_text(raw: bytes | bytearray) -> str:
    return ESCAPES.sub(b"", bytes(raw)).decode("utf-8", "replace")


def missing(raw: bytes | bytearray, markers: tuple[str, ...]) -> list[str]:
    text = screen_text(raw)
    return [m for m in markers if m not in text]


def tail(raw: bytes | bytearray, n: int = 400) -> str:
    text = " ".join(screen_text(raw).split())
    return repr(text[-n:]) if text else "(nothing)"


# --------------------------------------------------------------------------------------------
# Side by side


def side_by_side(a, b, pairs: int, progress=None) -> tuple[list[float], list[float], list[float]]:
    """Times of a() and b() in alternating pairs (a b, b a, ...) after one warm-up each, and b/a per pair."""
    a()
    b()
    ta, tb, ratios = [], [], []
    for i in range(pairs):
        if i % 2:
            y = b()
            x = a()
        else:
            x = a()
            y = b()
        ta.append(x)
        tb.append(y)
        ratios.append(y / x)
        if progress:
            progress(i + 1, pairs)
    return ta, tb, ratios


def quartiles(values: list[float]) -> tuple[float, float]:
    if len(values) < 4:
        return min(values), max(values)
    q = statistics.quantiles(values, n=4)
    return q[0], q[2]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def describe(label: str, times: list[float]) -> str:
    q1, q3 = quartiles(times)
    return (f"   {label:<34} median {ms(statistics.median(times))}   "
            f"middle half {q1 * 1000:.0f}-{q3 * 1000:.0f} ms   range {min(times) * 1000:.0f}-{max(times) * 1000:.0f} ms")


# --------------------------------------------------------------------------------------------
# --imports: what hmc imports beyond the minimal app (python -X importtime)


IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)([\w.]+)")


def import_times(subject: Subject, env: dict[str, str], cwd: Path,
                 size: tuple[int, int]) -> dict[str, tuple[int, int]]:
    """{module: (self us, cumulative us)} for one start of `subject`, from python -X importtime."""
    # Textual draws on stderr, where -X importtime writes too: the import lines arrive on the pty
    # ahead of the first frame, and are picked out of the stream.
    _, raw = start(subject, dict(env, PYTHONPROFILEIMPORTTIME="1"), cwd, size, timeout=60)
    out: dict[str, tuple[int, int]] = {}
    for m in IMPORT_LINE.finditer(raw.decode("utf-8", "replace")):
        out[m.group(4)] = (int(m.group(1)), int(m.group(2)))
    return out


def print_imports(minimal: Subject, hmc: Subject, env, cwd, size, top: int = 15) -> None:
    base = import_times(minimal, env, cwd, size)
    mine = import_times(hmc, env, cwd, size)
    extra = {k: v for k, v in mine.items() if k not in base}
    total = sum(v[0] for v in extra.values())
    print(f"\nmodules only hmc imports before its first screen: {len(extra)}, {total / 1000:.0f} ms of import "
          "time (python -X importtime inflates it; modules loaded by importlib.import_module, e.g. the "
          "mode screens and CLI commands, are not listed themselves, only what they import)")
    print(f"   {'self':>8} {'with children':>14}  module")
    for name, (self_us, cum_us) in sorted(extra.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"   {self_us / 1000:6.1f} ms {cum_us / 1000:11.1f} ms  {name}")


# --------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="alternating pairs to time (default 20)")
    parser.add_argument("--size", default="120x36", help="terminal size COLUMNSxROWS (default 120x36)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds one start may take (default 30)")
    parser.add_argument("--imports", action="store_true", help="also list the modules only hmc imports")
    parser.add_argument("--journal", type=int, default=0, metavar="N",
                        help="give the demo home a journal of N records of hmc's own writes (default 0: none)")
    parser.add_argument("--sessions", type=int, default=0, metavar="N",
                        help="give the demo's state.db N more sessions, and time the loaded-memory lines too")
    args = parser.parse_args(argv)
    try:
        columns, rows = (int(n) for n in args.size.lower().split("x"))
    except ValueError:
        parser.error(f"--size {args.size!r} is not COLUMNSxROWS")
    size = (columns, rows)
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    with tempfile.TemporaryDirectory(prefix="hmc-bench-startup-") as folder:
        tmp = Path(folder)
        env = sandbox_env(tmp)
        for key in ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
            os.environ[key] = env[key]  # reading the demo home here must not touch the real user's either
        for key in ("HERMES_HOME", "HERMES_PROFILE"):
            os.environ.pop(key, None)
        demo = build_home(tmp)
        if args.journal > 0:
            from bench_memory import fill_journal  # tests/bench/ (this script's folder) is on sys.path
            from core.curator import open_curator

            store = open_curator(demo).stores["memory"]
            fill_journal(store.history, store.path, store.target, args.journal)
        if args.sessions > 0:
            add_sessions(demo, args.sessions)
        script = tmp / "minimal_app.py"
        script.write_text(MINIMAL_APP, encoding="utf-8")
        minimal = Subject("minimal Textual app", [sys.executable, str(script)], MINIMAL_MARKERS)
        hmc = Subject("hmc --home <demo>", hmc_command(demo), hmc_markers(demo),
                      ("loaded by",) if args.sessions > 0 else ())
        if args.sessions > 0:
            return loaded_lines(minimal, hmc, env, tmp, size, args)
        import textual

        print(f"first paint on a {columns}x{rows} pty · Textual {textual.__version__} · Python "
              f"{sys.version.split()[0]} · {os.cpu_count()} CPUs · load {os.getloadavg()[0]:.2f} · "
              f"{args.runs} alternating pairs"
              + (f" · hmc journal of {args.journal:,} records" if args.journal > 0 else ""), flush=True)
        print(f"   hmc: {' '.join(Path(c).name if i == 0 else c for i, c in enumerate(hmc.command))}", flush=True)
        print(f"   first screen = the terminal has shown all of {list(hmc.markers)} (hmc), "
              f"{list(minimal.markers)} (minimal)\n", flush=True)

        def run(subject: Subject):
            return lambda: first_paint(subject, env, tmp, size, args.timeout)

        def progress(done: int, total: int) -> None:
            if done % 5 == 0 and done < total:
                print(f"   {done}/{total} pairs…", file=sys.stderr, flush=True)

        try:
            t_min, t_hmc, ratios = side_by_side(run(minimal), run(hmc), args.runs, progress)
        except BenchError as exc:
            print(f"bench failed: {exc}", file=sys.stderr)
            return 2
        ratio = statistics.median(ratios)
        print("process start -> first screen painted")
        print(describe(minimal.name, t_min))
        print(describe(hmc.name + " (memory mode)", t_hmc))
        q1, q3 = quartiles(ratios)
        print(f"   ratio hmc/minimal: median of pairs {ratio:.2f}x (middle half {q1:.2f}-{q3:.2f}x), "
              f"ratio of medians {statistics.median(t_hmc) / statistics.median(t_min):.2f}x")
        print(f"   goal <= {GOAL}x -> {'ok' if ratio <= GOAL else 'OVER GOAL'}"
              f" (hmc's own start-up budget at this machine's speed: "
              f"{(GOAL - 1) * statistics.median(t_min) * 1000:.0f} ms on top of Textual's; it uses "
              f"{(statistics.median(t_hmc) - statistics.median(t_min)) * 1000:.0f} ms)")
        if args.imports:
            print_imports(minimal, hmc, env, tmp, size)
    return 0


def loaded_lines(minimal: Subject, hmc: Subject, env: dict[str, str], tmp: Path, size: tuple[int, int],
                 args) -> int:
    """--sessions: hmc's first screen against the minimal app's with a big state.db, and when the
    loaded-memory lines arrive after it, with a cold and a warm hmc cache."""
    import shutil

    snapshots_cache = Path(env["XDG_CACHE_HOME"]) / "hmc" / "snapshots"
    print(f"first paint, and the loaded-memory lines, on a {size[0]}x{size[1]} pty · demo state.db "
          f"+ {args.sessions:,} sessions · {os.cpu_count()} CPUs · load {os.getloadavg()[0]:.2f} · "
          f"{args.runs} rounds", flush=True)
    first_paint(minimal, env, tmp, size, args.timeout)  # warm-ups (bytecode, page cache)
    paint_then_later(hmc, env, tmp, size, args.timeout * 4)
    t_min, cold, warm = [], [], []
    try:
        for i in range(args.runs):
            shutil.rmtree(snapshots_cache, ignore_errors=True)
            cold.append(paint_then_later(hmc, env, tmp, size, args.timeout * 4))
            t_min.append(first_paint(minimal, env, tmp, size, args.timeout))
            warm.append(paint_then_later(hmc, env, tmp, size, args.timeout * 4))
            if (i + 1) % 5 == 0 and i + 1 < args.runs:
                print(f"   {i + 1}/{args.runs} rounds…", file=sys.stderr, flush=True)
    except BenchError as exc:
        print(f"bench failed: {exc}", file=sys.stderr)
        return 2
    print(describe(minimal.name, t_min))
    for label, runs in (("cold cache", cold), ("warm cache", warm)):
        firsts, laters = [r[0] for r in runs], [r[1] for r in runs]
        ratio = statistics.median(f / m for f, m in zip(firsts, t_min))
        print(describe(f"hmc, {label}: first screen", firsts))
        print(f"   {'':<34} first screen / minimal: median {ratio:.2f}x (goal <= {GOAL}x: "
              f"{'ok' if ratio <= GOAL else 'OVER GOAL'})")
        print(describe(f"hmc, {label}: loaded-memory lines", laters))
        print(f"   {'':<34} they arrive a median {statistics.median(l - f for f, l in runs) * 1000:.0f} ms "
              "after the first screen")
    return 0


if __name__ == "__main__":
    sys.exit(main())
