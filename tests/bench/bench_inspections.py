"""The pending screen's inspections, kept until a record or its store changes (issue 35): what the
screen's reload costs after each kind of change, against inspecting the whole queue afresh, side by
side in one run.

    python tests/bench/bench_inspections.py                 # 200 staged records, 1,000 entries
    python tests/bench/bench_inspections.py --records 500 --rounds 9

A copy of the demo home, MEMORY.md filled to --entries entries (bench_live.fill), and --records
staged adds (half to MEMORY.md, half to USER.md, as Hermes stages them). Each round times
PendingQueue.inspect_all (what PendingScreen.reload calls) after:
- nothing changed (a visit, the poll);
- one record staged;
- USER.md changed (Hermes wrote it): the records that write it are inspected again;
- and, as the baseline, the same queue with its memo emptied first (what every reload did before).
Figures are medians over the rounds, each also as a ratio of the fresh inspection.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "bench"))

from bench_live import DELIMITER, fill  # noqa: E402


def stage(home: Path, n: int, target: str) -> None:
    folder = home / "pending" / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    content = f"Bench staged {n}: the nightly export of shard {n % 17} runs at {n % 24:02d}:15"
    record = {"id": f"{0xbe000000 + n:08x}", "subsystem": "memory", "action": "add", "origin": "background_review",
              "summary": f"add to {target}: {content}"[:120], "created_at": 1_763_000_000 + n,
              "payload": {"action": "add", "target": target, "content": content}}
    tmp = folder / f".tmp-{n}.part"
    tmp.write_text(json.dumps(record, indent=2, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, folder / f"{record['id']}.json")


def timed(call) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=200)
    parser.add_argument("--entries", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="hmc-bench-inspections-"))
    for name in ("HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        os.environ[name] = str(scratch / name.lower())
    try:
        from core.curator import open_curator
        from core.demo.build import DEMO_TODAY, build_demo_home
        from core.pending.inspection import InspectionMemo

        home = build_demo_home(scratch / "demo", DEMO_TODAY)
        fill(home, args.entries)
        for n in range(args.records):
            stage(home, n, "memory" if n % 2 else "user")
        queue = open_curator(home, today=date(2026, 11, 15)).pending
        queue.inspect_all()
        rows: dict[str, list[float]] = {"fresh (no memo)": [], "nothing changed": [], "one record staged": [],
                                        "USER.md changed": []}
        user = home / "memories" / "USER.md"
        for r in range(args.rounds):
            queue._inspections = InspectionMemo()  # forgets every inspection: the whole queue afresh
            rows["fresh (no memo)"].append(timed(queue.inspect_all))
            rows["nothing changed"].append(timed(queue.inspect_all))
            stage(home, args.records + r, "memory")
            rows["one record staged"].append(timed(queue.inspect_all))
            texts = user.read_text(encoding="utf-8").split(DELIMITER)
            tmp = user.with_name(".mem_bench.tmp")
            tmp.write_text(DELIMITER.join(texts[:-1] + [f"Bench: answers in {r + 2} lines"]), encoding="utf-8")
            os.replace(tmp, user)
            rows["USER.md changed"].append(timed(queue.inspect_all))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    base = statistics.median(rows["fresh (no memo)"])
    print(f"inspect_all over {args.records:,} staged records (+1 each round), MEMORY.md at {args.entries:,} entries, "
          f"{args.rounds} rounds · load {os.getloadavg()[0]:.2f}")
    for label, took in rows.items():
        t = statistics.median(took)
        print(f"   {label:<20} median {t * 1000:8.1f} ms  (min {min(took) * 1000:.1f}, max {max(took) * 1000:.1f})  "
              f"{t / base:5.2f}x fresh")
    return 0


if __name__ == "__main__":
    sys.exit(main())
