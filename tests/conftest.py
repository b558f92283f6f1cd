"""Every test runs in its own user folders: HOME, hmc's state dir and the zone are isolated."""

from __future__ import annotations

import time

import pytest


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
