#!/usr/bin/env python3
"""Run the conformance suite against many Hermes releases; print agreement as a table.

    python tests/conformance/matrix.py                       # every release 0.13.0 .. 0.22.2
    python tests/conformance/matrix.py --releases 0.13.0 0.19.0
    python tests/conformance/matrix.py --output matrix.md -- -k scan   # extra pytest args

It runs pytest in-process on tests/conformance with HMC_CONFORMANCE_RELEASES set
to the chosen releases, records each test's outcome under its release and its
``@pytest.mark.area``, and prints a markdown table: one row per release, one
column per area, each cell "agreed/checked". Tests the release can't answer
(OracleUnsupported, e.g. drift on 0.13.0) are counted as n/a, never as agreed.
Exit status 0 only if every checked test agreed.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import pytest  # noqa: E402

from tests.conformance import releases  # noqa: E402
from tests.conformance.conftest import AREAS, DEVIATIONS, HARNESS, item_area  # noqa: E402

PASSED, FAILED, NA = "passed", "failed", "n/a"


class Recorder:
    """pytest plugin: one outcome per (test, release), filed under the test's area."""

    def __init__(self):
        self.tests: dict[str, dict] = {}

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        callspec = getattr(item, "callspec", None)
        report.hmc_release = callspec.params.get("hermes_release") if callspec else None
        report.hmc_area = item_area(item)

    def pytest_runtest_logreport(self, report):
        release = getattr(report, "hmc_release", None)
        if release is None:
            return  # not an oracle test (e.g. the release-installer unit tests)
        entry = self.tests.setdefault(report.nodeid, {"release": release,
                                                      "area": report.hmc_area,
                                                      "status": PASSED, "ran": False})
        if report.failed:
            entry["status"] = FAILED
        elif report.skipped and entry["status"] != FAILED:
            entry["status"] = NA
        if report.when == "call":
            entry["ran"] = True

    def cells(self) -> dict:
        out = defaultdict(lambda: {PASSED: 0, FAILED: 0, NA: 0})
        for t in self.tests.values():
            status = t["status"]
            if status == PASSED and not t["ran"]:
                status = NA
            out[(t["release"], t["area"])][status] += 1
        return out

    def failures(self) -> list:
        return sorted(n for n, t in self.tests.items() if t["status"] == FAILED)


def _cell(c: dict | None) -> str:
    if not c or (c[PASSED] + c[FAILED] + c[NA]) == 0:
        return "–"
    checked = c[PASSED] + c[FAILED]
    text = f"{c[PASSED]}/{checked}" if checked else "–"
    if c[NA]:
        text += f" (n/a {c[NA]})"
    return text


# Columns shown after "all areas" and not counted in it: the listed deviations (each asserts that
# hmc differs exactly as documented) and the harness's own tests.
APART = (DEVIATIONS, HARNESS)


def table(cells: dict, versions: list) -> str:
    used = {area for (_, area) in cells}
    areas = [a for a in AREAS if a in used and a not in APART] + sorted(used - set(AREAS) - set(APART))
    apart = [a for a in APART if a in used]
    cols = areas + ["all areas"] + apart
    lines = ["| release | " + " | ".join(cols) + " |",
             "|---|" + "---|" * len(cols)]
    for v in versions:
        row = []
        total = {PASSED: 0, FAILED: 0, NA: 0}
        for a in areas:
            c = cells.get((v, a))
            row.append(_cell(c))
            for k in total:
                total[k] += (c or {}).get(k, 0)
        row.append(_cell(total))
        row += [_cell(cells.get((v, a))) for a in apart]
        lines.append(f"| {v} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--releases", nargs="+", metavar="X.Y.Z",
                    help="releases to run (default, or 'all': every release 0.13.0 .. 0.22.2); "
                         "space or comma separated")
    ap.add_argument("--output", type=Path, help="also write the markdown table to this file")
    ap.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = parse(argv)
    if args.releases and [r.strip().lower() for r in args.releases] != ["all"]:
        versions = [releases.check_version(v.strip())
                    for part in args.releases for v in part.split(",") if v.strip()]
    else:
        versions = list(releases.ALL_RELEASES)
    os.environ[releases.SELECT_ENV] = ",".join(versions)
    rec = Recorder()
    os.chdir(REPO)
    code = pytest.main([str(REPO / "tests" / "conformance"), "-q", "-p", "no:cacheprovider",
                        *args.pytest_args], plugins=[rec])
    md = table(rec.cells(), versions)
    print("\n## Agreement with Hermes releases (agreed/checked per area; deviations: "
          "differences that hold exactly as documented)\n")
    print(md)
    if rec.failures():
        print("\nDisagreements:")
        for n in rec.failures():
            print(f"- {n}")
    if args.output:
        args.output.write_text(md + "\n", encoding="utf-8")
    if code == pytest.ExitCode.NO_TESTS_COLLECTED:
        return 1
    return 0 if code == pytest.ExitCode.OK and not rec.failures() else 1


if __name__ == "__main__":
    sys.exit(main())
