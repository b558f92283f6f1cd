"""TUI fixtures: a fresh demo home at ~/.hermes (so paths show as `~/.hermes`), a frozen clock."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from core.curator import open_curator
from tools.shots import NOW, TODAY, frozen_clock, steady_cursors  # noqa: F401  (NOW, TODAY for tests)
from tests.tui.helpers import record_toasts
from tui.app import CuratorApp


@pytest.fixture(autouse=True)
def no_cursor_blink():
    """Cursors don't blink in tests, so snapshots are the same on every run."""
    restore = steady_cursors()
    yield
    restore()


@pytest.fixture
def hermes_home() -> Path:
    return Path(os.environ["HOME"]) / ".hermes"


@pytest.fixture
def demo_home(hermes_home, demo_template) -> Path:
    """A fresh copy of the demo home (built once per test process: a build takes ~0.5 s, a copy
    ~0.02 s; the copy gets fresh timestamps, as a build would give it)."""
    shutil.copytree(demo_template, hermes_home, symlinks=True, copy_function=shutil.copy)
    return hermes_home


_TEMPLATES: dict[Path, Path] = {}


@pytest.fixture
def demo_template(tmp_path_factory) -> Path:
    """The demo home every `demo_home` copies, built on first use inside a test (so under the
    test's isolated HOME and TZ, as before). tests/tui/test_demo_template.py checks it is what a
    build gives."""
    from core.demo.build import build_demo_home

    base = tmp_path_factory.getbasetemp()
    if base not in _TEMPLATES:
        _TEMPLATES[base] = build_demo_home(base / "demo-template" / ".hermes", TODAY)
    return _TEMPLATES[base]


@pytest.fixture
def make_app(hermes_home):
    """make_app(home=None, hermes_version=None, greet=False, poll=True) -> CuratorApp on the home
    (default ~/.hermes); `hermes_version` pins the release whose rules apply."""

    def factory(home: Path | None = None, hermes_version: str | None = None, **kwargs) -> CuratorApp:
        kwargs.setdefault("greet", False)
        curator = open_curator(home or hermes_home, today=TODAY, clock=frozen_clock, hermes_version=hermes_version)
        app = CuratorApp(curator, **kwargs)
        record_toasts(app)
        return app

    return factory


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A snapshot that didn't match gets the two screens' text, line by line, in its report: CI
    keeps only its output (the HTML report stays in the clone it deletes), and a mismatch that
    happens once in many runs must be readable from there."""
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed or "snap_compare" not in getattr(item, "fixturenames", ()):
        return
    try:
        report.sections.append(("snapshot text diff", snapshot_text_diff(item)))
    except Exception as exc:  # the diagnosis must never hide the failure itself
        report.sections.append(("snapshot text diff", f"(not available: {exc!r})"))


def snapshot_text_diff(item) -> str:
    import difflib
    import pickle

    from pytest_textual_snapshot import node_to_report_path

    data = pickle.loads(node_to_report_path(item).read_bytes())
    expected, actual = svg_lines(data[1]), svg_lines(data[2])
    diff = list(difflib.unified_diff(expected, actual, "expected", "actual", lineterm="", n=1))
    return "\n".join(diff) if diff else "the text is the same: the difference is in colours or styles only"


def svg_lines(svg: str) -> list[str]:
    """A Textual SVG screenshot's text, one string per terminal row."""
    import html
    import re

    svg = re.sub(r"<style>.*?</style>", "", svg, flags=re.DOTALL)
    rows: dict[float, list[tuple[float, str]]] = {}
    for m in re.finditer(r'<text[^>]*\bx="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg, flags=re.DOTALL):
        text = html.unescape(m.group(3)).replace("\xa0", " ")
        rows.setdefault(float(m.group(2)), []).append((float(m.group(1)), text))
    return ["".join(t for _, t in sorted(parts)).rstrip() for _, parts in sorted(rows.items())]
