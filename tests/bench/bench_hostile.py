"""Worst cases from issue 9, each timed against the same command on the demo home in the same run.

    python tests/bench/bench_hostile.py                 # every case, 3 runs each (median)
    python tests/bench/bench_hostile.py --repeat 5      # steadier
    python tests/bench/bench_hostile.py --only batch    # cases whose name contains "batch"
    python tests/bench/bench_hostile.py --timeout 60    # give up on a command after 60 s (shown as ">60")

Each case is the `hmc` command a person would run, as a subprocess (start-up included, as they feel
it), on a copy of the demo home changed to hold one hostile input:

| case            | input                                                      | command                 |
|-----------------|------------------------------------------------------------|-------------------------|
| 10mb-entry      | MEMORY.md is one 10 MB entry                               | review                  |
| 900k-list       | MEMORY.md holds 900,000 short entries                      | memory list             |
| 900k-show       | the same                                                   | pending show <demo id>  |
| 900k-review     | the same                                                   | review                  |
| 20k-batch-show  | a pending batch of 20,000 operations (compact JSON, <1 MB) | pending show <id>       |
| 1k-batch-show   | a pending batch of 1,000 operations (hmc's MAX_OPS)        | pending show <id>       |
| deep-list       | a record nested 100,000 levels deep                        | pending list            |
| fifo-status     | a FIFO where a pending record should be                    | status                  |

The baseline is the same command on the unchanged demo home, timed in the same run, alternating
with the hostile case; the ratio is hostile / baseline. Not part of the test suite: nothing is
asserted, numbers are printed. HOME and the XDG folders point into the temp folder.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DELIMITER = "\n§\n"
CLI = "import sys; from tui.cli.main import main; sys.exit(main())"


def sandbox(folder: Path) -> dict[str, str]:
    home = folder / "user"
    env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_CACHE_HOME=str(home / ".cache"), XDG_DATA_HOME=str(home / ".local" / "share"),
               XDG_STATE_HOME=str(home / ".local" / "state"), PYTHONPATH=str(ROOT))
    for key in ("HERMES_HOME", "HERMES_PROFILE"):
        env.pop(key, None)
    return env


def hmc(env: dict[str, str], home: Path, args: list[str], timeout: float) -> tuple[float | None, int | None]:
    """Seconds the command took (None when it ran past `timeout`) and its exit code."""
    start = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-c", CLI, "--home", str(home), *args], env=env, cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None
    took = time.perf_counter() - start
    if b"Traceback" in proc.stderr:
        sys.stderr.write(proc.stderr.decode(errors="replace")[-2000:])
    return took, proc.returncode


def demo_home(folder: Path, env: dict[str, str]) -> Path:
    home = folder / "demo"
    subprocess.run([sys.executable, "-c", CLI, "demo", "--dir", str(home), "--no-tui"], env=env, cwd=ROOT,
                   check=True, stdout=subprocess.DEVNULL)
    return home


def copy(demo: Path, folder: Path, name: str) -> Path:
    home = folder / name
    shutil.copytree(demo, home, symlinks=True)
    return home


def first_pending(home: Path) -> str:
    return sorted(p.stem for p in (home / "pending" / "memory").glob("*.json"))[0]


def write_record(home: Path, rid: str, text: str) -> None:
    (home / "pending" / "memory" / f"{rid}.json").write_text(text, encoding="utf-8")


def batch(n: int) -> str:
    ops = [{"action": "add", "content": f"n{i}"} for i in range(n)]
    return json.dumps({"id": "0000ba7c", "subsystem": "memory", "action": "batch", "summary": "", "origin": "foreground",
                       "created_at": time.time(), "payload": {"action": "batch", "target": "memory", "operations": ops}},
                      separators=(",", ":"))


def build_cases(demo: Path, folder: Path) -> list[tuple[str, Path, list[str]]]:
    cases: list[tuple[str, Path, list[str]]] = []
    big = copy(demo, folder, "10mb-entry")
    (big / "memories" / "MEMORY.md").write_text("x" * (10 << 20), encoding="utf-8")
    cases.append(("10mb-entry", big, ["review"]))

    many = copy(demo, folder, "900k")
    (many / "memories" / "MEMORY.md").write_text(DELIMITER.join(f"entry {i}" for i in range(900_000)),
                                                 encoding="utf-8")
    cases += [("900k-list", many, ["memory", "list", "--target", "memory"]),
              ("900k-show", many, ["pending", "show", first_pending(demo)]),
              ("900k-review", many, ["review"])]

    for n, name in ((20_000, "20k-batch-show"), (1_000, "1k-batch-show")):
        home = copy(demo, folder, name)
        write_record(home, "0000ba7c", batch(n))
        cases.append((name, home, ["pending", "show", "0000ba7c"]))

    deep = copy(demo, folder, "deep")
    write_record(deep, "0000dee9", '{"payload": ' + "[" * 100_000 + "]" * 100_000 + "}")
    cases.append(("deep-list", deep, ["pending", "list"]))

    fifo = copy(demo, folder, "fifo")
    os.mkfifo(fifo / "pending" / "memory" / "0000f1f0.json")
    cases.append(("fifo-status", fifo, ["status"]))
    return cases


def baseline_args(args: list[str], demo: Path) -> list[str]:
    if args[:2] == ["pending", "show"]:
        return ["pending", "show", first_pending(demo)]
    return args


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side (the median is shown)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds before a command counts as hung")
    parser.add_argument("--only", default="", help="run only cases whose name contains this")
    parser.add_argument("--dir", type=Path, default=None, help="where to build the homes (default: a temp folder)")
    opts = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=opts.dir) as tmp:
        folder = Path(tmp)
        env = sandbox(folder)
        demo = demo_home(folder, env)
        cases = [c for c in build_cases(demo, folder) if opts.only in c[0]]
        print(f"{'case':<16} {'command':<34} {'hostile s':>10} {'demo s':>8} {'ratio':>7}  exit")
        for name, home, args in cases:
            hostile, base, code = [], [], None
            for _ in range(opts.repeat):
                took, code = hmc(env, home, args, opts.timeout)
                hostile.append(took)
                base.append(hmc(env, demo, baseline_args(args, demo), opts.timeout)[0])
                if took is None:
                    break  # hung once: no need to wait again
            b = statistics.median(t for t in base if t is not None)
            if any(t is None for t in hostile):
                shown, ratio = f">{opts.timeout:g}", f">{opts.timeout / b:.0f}×"
            else:
                h = statistics.median(hostile)  # type: ignore[type-var]
                shown, ratio = f"{h:.2f}", f"{h / b:.1f}×"
            print(f"{name:<16} {' '.join(args)[:34]:<34} {shown:>10} {b:>8.2f} {ratio:>7}  {code}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
