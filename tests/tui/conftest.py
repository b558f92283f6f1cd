"""TUI fixtures: a fresh demo home at ~/.hermes (so paths show as `~/.hermes`), a frozen clock."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from core.curator import open_curator
from tools.shots import NOW, TODAY, frozen_clock, steady_cursors  # noqa: F401  (NOW, TODAY for tests)
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
        return CuratorApp(curator, **kwargs)

    return factory
