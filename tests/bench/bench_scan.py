"""What hmc's wider scan costs per entry: core.scan.scanner.scan vs Hermes's own pattern list.

    python tests/bench/bench_scan.py              # 200 alternating pairs
    python tests/bench/bench_scan.py --repeat 1000

Both sides scan the same full 2,200-char entry built from the benign English corpus (the common case:
nothing found). The baseline is the release's own check as hmc models it (core.hermes.scan: the 17
invisible characters, NFKC, every pattern of the newest release's table); hmc's side adds the
secret shapes, the six-language injections, tag characters and the false-positive explanations.
Timed in alternating pairs; the median of the per-pair ratios is printed. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from core.hermes import scan as hermes_scan  # noqa: E402
from core.hermes.release import NEWEST  # noqa: E402
from core.scan.scanner import scan  # noqa: E402
from tests.corpora.benign import BENIGN  # noqa: E402


def entry() -> str:
    pool = [t for lang, t in BENIGN if lang == "en"]
    rng = random.Random(11)
    text = ""
    while len(text) < 2200:
        text += rng.choice(pool) + " "
    return text[:2200]


def timed(fn, text: str) -> float:
    t0 = time.perf_counter()
    fn(text)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    text = entry()
    base = lambda t: hermes_scan.threat_ids(t, NEWEST)  # noqa: E731
    base(text), scan(text)  # compile both sides' patterns before timing
    ratios, hmc_times, base_times = [], [], []
    for _ in range(args.repeat):
        b, h = timed(base, text), timed(scan, text)
        base_times.append(b), hmc_times.append(h), ratios.append(h / b)
    print(f"entry: {len(text):,} chars, {args.repeat} alternating pairs")
    print(f"Hermes's own scan (baseline): {statistics.median(base_times) * 1000:.2f} ms median")
    print(f"hmc's wider scan:             {statistics.median(hmc_times) * 1000:.2f} ms median")
    print(f"ratio hmc / Hermes: {statistics.median(ratios):.2f}x (median of per-pair ratios)")


if __name__ == "__main__":
    main()
