"""Every test runs in its own user folders: HOME, every XDG folder and the zone are isolated.

The whole run does too, from before the first fixture (tests/user_folders.py): whatever HOME and
XDG variables the user has, nothing outside the run's temporary folders is written, and the run
fails if the user's real hmc folders changed."""

from __future__ import annotations

import os
import shutil
import tempfile
import time

import pytest
from hypothesis import settings

from tests import user_folders

user_folders.isolate()  # at import: before any fixture, module- and session-scoped ones included

# No Textual animations in the tests (a scroll or a toast jumps to where it ends): the frames in
# between cost a tenth of the TUI tests' CPU and no test looks at them (every snapshot is the same
# either way). A run that wants them sets the variable itself.
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

# Hypothesis draws the same examples on every run (derandomize): no test fails one run in 500 on an
# example it happened to draw. HMC_HYPOTHESIS=explore draws fresh ones (a deeper search); a failure
# then prints the @reproduce_failure blob that replays it. Rare shapes a test must always meet are
# given to it with @example, whatever is drawn.
settings.register_profile("hmc", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", derandomize=False, database=None, print_blob=True)
settings.load_profile("explore" if os.environ.get("HMC_HYPOTHESIS") == "explore" else "hmc")


# -- bytecode for the subprocesses the tests start (hmc, Hermes releases, crash children) ----------
# Where PYTHONDONTWRITEBYTECODE is set (as on the CI box), every `hmc` subprocess compiled every hmc
# module from source again: ~70 ms of its ~350 ms, in each of the suite's thousand-odd subprocesses.
# An installed hmc has its bytecode; the tests' subprocesses now get theirs from a folder of this run
# (never the checkout or the shared Hermes releases), removed at the end. Only the subprocesses:
# with a cache prefix, Python no longer reads the stdlib's and site-packages' own bytecode, so
# pytest's processes (which import textual, hypothesis, ... once) are left as they were.

_PYCACHE = user_folders.PYCACHE_ENV
DATACLASS_CODE = "HMC_DATACLASS_CODE"  # core.dataclass_code.PATH_ENV
_CREATED: list[str] = []


def pytest_configure(config):
    if hasattr(config, "workerinput"):
        return  # a worker: it inherits the controller's folder
    # the `hmc` subprocesses share the code dataclasses compile (core.dataclass_code), as an installed
    # hmc keeps it in its cache from one run to the next: each test's cache folder is a fresh one
    if not os.environ.get(DATACLASS_CODE):
        _CREATED.append(tempfile.mkdtemp(prefix="hmc-tests-dataclass-code-"))
        os.environ[DATACLASS_CODE] = os.path.join(_CREATED[-1], "dataclass-code.cache")
    if "PYTHONDONTWRITEBYTECODE" not in os.environ or os.environ.get("PYTHONPYCACHEPREFIX"):
        return  # bytecode is written as usual, or the user chose where it goes
    _CREATED.append(tempfile.mkdtemp(prefix="hmc-tests-pycache-"))
    os.environ[_PYCACHE] = _CREATED[-1]


def pytest_sessionfinish(session, exitstatus):
    if hasattr(session.config, "workerinput"):
        return
    touched = user_folders.changed()
    if touched:
        session.config.get_terminal_writer().line(
            "the run changed the user's real folders (a test escaped its temporary ones):\n  "
            + "\n  ".join(touched[:20]), red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_unconfigure(config):
    while _CREATED:
        shutil.rmtree(_CREATED.pop(), ignore_errors=True)
    root = user_folders.run_root()
    if root is not None and not hasattr(config, "workerinput"):
        shutil.rmtree(root, ignore_errors=True)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Tests marked `long` (10-35 s: the real agent loop, the 1,000-entry homes) run first, each on
    the first free worker; the short ones then fill in around them. Last in the queue, one long test
    held a parallel run for its whole length after the other workers had finished."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


@pytest.fixture(autouse=True, scope="session")
def subprocesses_keep_their_bytecode():
    """In the process that runs the tests, once: what it starts from now on inherits the folder."""
    if os.environ.get(_PYCACHE):
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = os.environ[_PYCACHE]
    yield


@pytest.fixture(autouse=True)
def isolated_user(tmp_path, monkeypatch):
    home = tmp_path / "user"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))  # where platformdirs puts it unset
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "xdg-runtime"))
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
