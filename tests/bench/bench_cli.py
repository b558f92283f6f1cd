"""The command line's start: each command, end to end in a fresh process, side by side with the bare
baseline of issue 35 (`python -c` opening the demo's state.db read-only and counting its messages).

    python tests/bench/bench_cli.py              # 15 alternating pairs per command
    python tests/bench/bench_cli.py --runs 31    # steadier figures

Goals (issue 35): `hmc --version` at most 1.5x the baseline, `hmc status --short` at most 2x (the
line a shell prompt runs: from the summary hmc keeps, every file it came from checked), `hmc status
--json` at most 3x, every other read-only command at most 4x plus its own work. `status --short`
is also timed right after a change to MEMORY.md (the summary is read again: the line's worst case,
once per change), without a goal.

Each command runs as the installed `hmc` console script does (`python -m tui.cli`, the same
interpreter), on a demo home built once in a temporary folder; HOME and the XDG folders point inside
it, so nothing reads or touches the real user's files. Bytecode is cached as for an installed app
(PYTHONPYCACHEPREFIX in the temp folder, even when PYTHONDONTWRITEBYTECODE is set). Runs alternate
(baseline, command; command, baseline; …) after a warm-up of each; the ratio reported is the median
of the pairs' ratios, steadier on a shared machine than a ratio of medians. The `cpu` column is the
same for the CPU time each process used (user + sys), which another job on the box moves less.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from core.demo.build import build_demo_home  # noqa: E402

# (name, hmc's arguments after --home, goal: a ratio, or None)
COMMANDS = [
    ("hmc --version", ["--version"], 1.5),
    ("hmc status --short", ["status", "--short"], 2.0),
    ("hmc status --json", ["status", "--json"], 3.0),
    ("hmc pending list --json", ["pending", "list", "--json"], 4.0),
    ("hmc memory list --json", ["memory", "list", "--json"], 4.0),
    ("hmc sessions --json", ["sessions", "--json"], 4.0),
    ("hmc profiles --json", ["profiles", "--json"], 4.0),
]


CPU = [0.0]  # the CPU time (user + sys) of the last command run


def run(cmd: list[str], env: dict, before=None) -> float:
    if before is not None:
        before()
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU[0] = (after.ru_utime - used.ru_utime) + (after.ru_stime - used.ru_stime)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr.decode(errors='replace')}")
    return took


def pairs(a: list[str], b: list[str], env: dict, n: int, before_b=None) -> tuple[float, float, float, float]:
    """(baseline's median time, the command's, the median of the pairs' time ratios, the median of
    their CPU-time ratios)."""
    run(a, env), run(b, env, before_b)
    ta, tb, ratios, cpu_ratios = [], [], [], []
    for i in range(n):
        if i % 2:
            y = run(b, env, before_b)
            cy = CPU[0]
            x = run(a, env)
            cx = CPU[0]
        else:
            x = run(a, env)
            cx = CPU[0]
            y = run(b, env, before_b)
            cy = CPU[0]
        ta.append(x)
        tb.append(y)
        ratios.append(y / x)
        cpu_ratios.append(cy / cx if cx else float("nan"))
    return statistics.median(ta), statistics.median(tb), statistics.median(ratios), statistics.median(cpu_ratios)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed pairs per command (default 15)")
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="hmc-bench-cli-"))
    env = dict(os.environ, HOME=str(scratch / "user"), XDG_CACHE_HOME=str(scratch / "cache"),
               XDG_STATE_HOME=str(scratch / "state"), XDG_CONFIG_HOME=str(scratch / "config"),
               XDG_DATA_HOME=str(scratch / "data"), PYTHONPYCACHEPREFIX=str(scratch / "pyc"),
               PYTHONPATH=str(ROOT), COLUMNS="120")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    home = build_demo_home(scratch / "home")
    db = home / "state.db"
    baseline = [sys.executable, "-c", "import sqlite3; c = sqlite3.connect(" + repr(f"file:{db}?mode=ro")
                + ", uri=True); c.execute('SELECT count(*) FROM messages').fetchone()"]
    hmc = [sys.executable, "-m", "tui.cli", "--home", str(home)]
    time.sleep(2.2)  # the demo's files were just written: a summary trusts them from 2 s on (core.attention)
    print(f"Python {sys.version.split()[0]} · {os.cpu_count()} CPUs · load {os.getloadavg()[0]:.1f} · "
          f"medians of {args.runs} alternating pairs\n")
    print(f"{'command':<34} {'baseline':>10} {'command':>10} {'ratio':>7} {'cpu':>7}  goal (on the time ratio)")
    for name, words, goal in COMMANDS:
        t_base, t_cmd, ratio, cpu = pairs(baseline, hmc + words, env, args.runs)
        verdict = "" if goal is None else f"<= {goal}x {'met' if ratio <= goal else 'NOT MET'}"
        print(f"{name:<34} {t_base * 1000:8.1f} ms {t_cmd * 1000:8.1f} ms {ratio:6.2f}x {cpu:6.2f}x  {verdict}")
    memory = home / "memories" / "MEMORY.md"
    text = memory.read_text(encoding="utf-8")
    flip = [0]

    def change() -> None:  # one character, so the summary must be read again
        flip[0] ^= 1
        memory.write_text(text + ("." if flip[0] else ""), encoding="utf-8")

    t_base, t_cmd, ratio, cpu = pairs(baseline, hmc + ["status", "--short"], env, args.runs, before_b=change)
    print(f"{'hmc status --short, after a change':<34} {t_base * 1000:8.1f} ms {t_cmd * 1000:8.1f} ms {ratio:6.2f}x "
          f"{cpu:6.2f}x  (no goal: once per change)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
