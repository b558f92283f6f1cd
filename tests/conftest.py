"""Every test runs in its own user folders: HOME, hmc's state dir and the zone are isolated."""

from __future__ import annotations

import os
import shutil
import tempfile
import time

import pytest
from hypothesis import settings

# Hypothesis draws the same examples on every run (derandomize): no test fails one run in 500 on an
# example it happened to draw. HMC_HYPOTHESIS=explore draws fresh ones (a deeper search); a failure
# then prints the @reproduce_failure blob that replays it. Rare shapes a test must always meet are
# given to it with @example, whatever is drawn.
settings.register_profile("hmc", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", derandomize=False, database=None, print_blob=True)
settings.load_profile("explore" if os.environ.get("HMC_HYPOTHESIS") == "explore" else "hmc")


# -- bytecode for the subprocesses the tests start (hmc, Hermes releases, crash children) ----------
# Where PYTHONDONTWRITEBYTECODE is set (as on the CI box), every `hmc` subprocess compiled every hmc
# module from source again: ~80 ms of its ~350 ms, in each of the suite's thousand-odd subprocesses.
# An installed hmc has its bytecode; so do the tests' processes now, cached in a folder of this
# run (never the checkout or the shared Hermes releases), removed at the end. The workers and the
# subprocesses inherit it from the controller's environment.

_PYCACHE: list[str] = []


def pytest_configure(config):
    if hasattr(config, "workerinput") or "PYTHONDONTWRITEBYTECODE" not in os.environ:
        return
    if os.environ.get("PYTHONPYCACHEPREFIX"):
        return  # the user chose where bytecode goes
    _PYCACHE.append(tempfile.mkdtemp(prefix="hmc-tests-pycache-"))
    os.environ.pop("PYTHONDONTWRITEBYTECODE")
    os.environ["PYTHONPYCACHEPREFIX"] = _PYCACHE[0]


def pytest_unconfigure(config):
    while _PYCACHE:
        shutil.rmtree(_PYCACHE.pop(), ignore_errors=True)


@pytest.fixture(autouse=True)
def isolated_user(tmp_path, monkeypatch):
    home = tmp_path / "user"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.delenv("HERMES_HOME", raising=False)
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield home
    monkeypatch.undo()
    time.tzset()


# -- the conformance agreement, printed at the end of every run that has conformance tests -----------
# (here, not in tests/conformance/conftest.py: with pytest-xdist only this file is loaded where the
# reports are gathered; each report carries its release and area in user_properties)

_AGREEMENT: dict[str, dict[str, int]] = {}


def pytest_runtest_logreport(report):
    tag = dict(report.user_properties).get("hmc_conformance")
    if not tag or (report.when != "call" and not (report.skipped or report.failed)):
        return
    release, area = tag.split("|", 1)
    counts = _AGREEMENT.setdefault(release, {"agreed": 0, "disagreed": 0, "n/a": 0, "deviations": 0})
    if report.failed:
        counts["disagreed"] += 1
    elif report.skipped:
        counts["n/a"] += 1
    elif area == "deviations":
        counts["deviations"] += 1
    else:
        counts["agreed"] += 1


def pytest_terminal_summary(terminalreporter):
    if not _AGREEMENT:
        return
    terminalreporter.section("agreement with the Hermes releases (tests/conformance)")
    for release in sorted(_AGREEMENT, key=lambda v: tuple(int(p) for p in v.split(".") if p.isdigit())):
        c = _AGREEMENT[release]
        checked = c["agreed"] + c["disagreed"]
        pct = 100 * c["agreed"] // checked if checked else 100
        terminalreporter.write_line(
            f"hermes {release}: {c['agreed']}/{checked} checks agree ({pct}%), {c['deviations']} deliberate "
            f"deviations hold, {c['n/a']} n/a")
