"""The demo home for CLI tests: built once per test process, copied for each use.

A build takes ~1.5 s and a copy ~50 ms. The template itself is never handed to a test: even a
read-only command may leave hmc's marker in the home it reads, so every test (or module) gets a copy
of its own and no test can see another's traces."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from core.demo.build import build_demo_home


def copy_home(template: Path, dest: Path) -> Path:
    shutil.copytree(template, dest, symlinks=True)
    return dest


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory) -> Path:
    return build_demo_home(tmp_path_factory.mktemp("demo-template") / "home")


@pytest.fixture(scope="module")
def demo_module(demo_template, tmp_path_factory) -> Path:
    """A copy shared by one module's tests (for modules whose tests only read)."""
    return copy_home(demo_template, tmp_path_factory.mktemp("demo") / "home")


@pytest.fixture
def demo_copy(demo_template, tmp_path) -> Path:
    """A copy of one's own, for a test that writes."""
    return copy_home(demo_template, tmp_path / "home")
