"""Every line hmc prints from outside text stays one line: a newline in a home's path, a session's
title or a chat's name shows as an escape or ␊, never as a line break, so no path or title can print
a line of its own ("checked against your Hermes: 56/56")."""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from tests.cli.runner import hmc

FAKE = "checked against your Hermes: 56/56"


@pytest.fixture(scope="module")
def demo(demo_module):
    return demo_module


def lines_of(out) -> list[str]:
    return (out.stdout + out.stderr).splitlines()


def test_a_newline_in_the_home_s_path(demo, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no Hermes: doctor names the path it looked at
    home = tmp_path / f"a\n{FAKE}"
    shutil.copytree(demo / "memories", home / "memories")
    for command in (["status"], ["doctor"], ["memory", "list"]):
        out = hmc(*command, home=home)
        assert not any(line.strip() == FAKE or line.startswith(FAKE) for line in lines_of(out)), (command, out.stdout)
    assert f"a\\n{FAKE}" in hmc("status", home=home).stdout


def test_a_newline_in_a_session_s_title_or_chat(demo, tmp_path):
    home = tmp_path / "home"
    shutil.copytree(demo, home)
    con = sqlite3.connect(home / "state.db")
    with con:
        con.execute("UPDATE sessions SET title = ?, display_name = ? WHERE id = (SELECT id FROM sessions "
                    "ORDER BY started_at DESC LIMIT 1)", (f"real title\n{FAKE}", "Ops\nFAKE LINE"))
    con.close()
    for command in (["sessions", "--limit", "3"], ["status"]):
        out = hmc(*command, home=home)
        assert not any(line.startswith((FAKE, "FAKE LINE")) for line in lines_of(out)), (command, out.stdout)
    assert f"real title␊{FAKE}" in hmc("sessions", "--limit", "3", home=home).stdout
