"""How `hmc pending list --subsystem skills` scales: 150 staged skill writes vs 15, and a skills/ tree
with 21,000 files in one unrelated skill's assets/ (plus a 3 GB sparse file) vs the same tree without.

    python tests/bench/bench_skills_scale.py              # 7 alternating pairs per comparison
    python tests/bench/bench_skills_scale.py --repeat 15

Each home has 40 skills and a ~400-line config.yaml (skills.write_approval on). The records are a
mix of write_file, patch, edit and batch records over those skills; the listing inspects each
record (files and diffs), masks what it prints and simulates "approve all". Each side runs the
command as a new process (what a person waits for, start-up included) and, to see the per-record
cost alone, in this process (`tui.cli.main.main`, output discarded); timed in alternating pairs, the
median of each side and of the pair ratios is printed. Not part of the test suite; nothing is asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def sandbox(folder: Path) -> None:
    os.environ.update(HOME=str(folder / "user"), XDG_STATE_HOME=str(folder / "state"),
                      XDG_CONFIG_HOME=str(folder / "config"), XDG_CACHE_HOME=str(folder / "cache"),
                      COLUMNS="200", NO_COLOR="1")


def config_yaml() -> str:
    """A config.yaml of real size: ~400 lines of sections like a long-used Hermes home's."""
    lines = ["model:", "  default: some-provider/some-model", "  provider: auto", ""]
    for s in range(38):
        lines.append(f"section_{s}:")
        for k in range(9):
            lines.append(f"  key_{k}: value {s}-{k}  # a comment about key {k}")
        lines.append("")
    lines += ["memory:", "  write_approval: true", "skills:", "  write_approval: true", "  creation_nudge_interval: 10"]
    return "\n".join(lines) + "\n"


def skill_md(name: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: Use when {name} is needed.\n---\n\n# {name}\n\n{body}\n"


def make_home(folder: Path, records: int, unrelated_files: int = 0) -> Path:
    home = folder / "home"
    for i in range(40):
        d = home / "skills" / ("tools" if i % 3 == 0 else "ops") / f"skill-{i}"
        (d / "references").mkdir(parents=True)
        (d / "SKILL.md").write_text(skill_md(f"skill-{i}", "\n".join(f"Step {n} of skill {i}." for n in range(60))))
        for r in range(5):
            (d / "references" / f"ref-{r}.md").write_text(f"reference {r} of skill {i}\n" * 40)
    if unrelated_files:
        assets = home / "skills" / "ops" / "skill-1" / "assets"
        for n in range(unrelated_files):
            sub = assets / f"batch-{n // 1000}"
            sub.mkdir(parents=True, exist_ok=True)
            (sub / f"a{n}.bin").write_bytes(b"x")
        with open(assets / "huge.bin", "wb") as fh:
            fh.truncate(3 << 30)  # sparse: costs no disk
    (home / "config.yaml").write_text(config_yaml())
    pending = home / "pending" / "skills"
    pending.mkdir(parents=True)
    for n in range(records):
        s = f"skill-{(n * 7) % 40}"
        kind = n % 4
        if kind == 0:
            payload = {"action": "write_file", "name": s, "file_path": f"references/new-{n}.md",
                       "file_content": f"new reference {n}\n" * 30}
        elif kind == 1:
            payload = {"action": "patch", "name": s, "old_string": f"Step {n % 60} of", "new_string": f"Step {n % 60} (revised) of"}
        elif kind == 2:
            payload = {"action": "edit", "name": s, "content": skill_md(s, f"Rewritten by record {n}.")}
        else:
            payload = {"action": "batch", "operations": [
                {"action": "write_file", "name": s, "file_path": f"scripts/run-{n}.sh", "file_content": "echo run\n"},
                {"action": "patch", "name": s, "file_path": "references/ref-0.md", "old_string": "reference 0 of",
                 "new_string": f"reference zero ({n}) of", "replace_all": True}]}
        rec = {"id": f"{n:08x}", "subsystem": "skills", "action": payload["action"], "summary": f"record {n}",
               "origin": "foreground", "created_at": 1_000_000.0 + n, "payload": payload}
        (pending / f"{n:08x}.json").write_text(json.dumps(rec))
    return home


def run_list(home: Path) -> float:
    from tui.cli.main import main

    sink = io.StringIO()
    t = time.perf_counter()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        code = main(["--home", str(home), "pending", "list", "--subsystem", "skills"])
    elapsed = time.perf_counter() - t
    if code != 0:
        raise SystemExit(f"hmc pending list failed ({code}): {sink.getvalue()[-2000:]}")
    return elapsed


def run_cli(home: Path) -> float:
    """`hmc pending list --subsystem skills` as a person runs it: a new process, start-up included."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "tui.cli", "--home", str(home), "pending", "list", "--subsystem",
                           "skills"], cwd=ROOT, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - t
    if done.returncode != 0:
        raise SystemExit(f"hmc pending list failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed


def compare(label: str, a: Path, b: Path, repeat: int, run=run_list) -> None:
    run(a), run(b)  # warm caches and imports
    ta, tb, ratios = [], [], []
    for _ in range(repeat):
        x, y = run(a), run(b)
        ta.append(x)
        tb.append(y)
        ratios.append(x / y)
    print(f"{label}: {statistics.median(ta) * 1000:.0f} ms vs {statistics.median(tb) * 1000:.0f} ms "
          f"(ratio of pairs, median {statistics.median(ratios):.2f}x; min {min(ratios):.2f}x, max {max(ratios):.2f}x)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="hmc-bench-skills-") as tmp:
        root = Path(tmp)
        sandbox(root)
        t = time.perf_counter()
        many = make_home(root / "many", 150)
        few = make_home(root / "few", 15)
        crowded = make_home(root / "crowded", 15, unrelated_files=21_000)
        print(f"built the homes in {time.perf_counter() - t:.1f} s; config.yaml is "
              f"{config_yaml().count(chr(10))} lines")
        compare("end to end (a new process each), 150 records vs 15", many, few, args.repeat, run_cli)
        compare("in this process (start-up left out), 150 records vs 15", many, few, args.repeat)
        compare("15 records, 21,000 files + a 3 GB sparse file in an unrelated skill's assets/ vs without",
                crowded, few, args.repeat)


if __name__ == "__main__":
    main()
