"""TUI fixtures: a fresh demo home at ~/.hermes (so paths show as `~/.hermes`), a frozen clock."""

from __future__ import annotations

import os
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
def demo_home(hermes_home) -> Path:
    from core.demo.build import build_demo_home

    build_demo_home(hermes_home, TODAY)
    return hermes_home


@pytest.fixture
def make_app(hermes_home):
    """make_app(home=None, hermes_version=None, greet=False, poll=True) -> CuratorApp on the home
    (default ~/.hermes); `hermes_version` pins the release whose rules apply."""

    def factory(home: Path | None = None, hermes_version: str | None = None, **kwargs) -> CuratorApp:
        kwargs.setdefault("greet", False)
        curator = open_curator(home or hermes_home, today=TODAY, clock=frozen_clock, hermes_version=hermes_version)
        return CuratorApp(curator, **kwargs)

    return factory
