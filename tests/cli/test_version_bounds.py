"""A Hermes version hmc can't read is a VersionError, whatever its size or characters: Python's int()
refuses a number of over 4,300 digits with a plain ValueError, which used to break every command.
What hmc prints of such a version is cut and shows its control characters."""

from __future__ import annotations

import json

import pytest

from core.hermes.release import NEWEST, VersionError, parse_version
from tests.cli.runner import hmc

HUGE = "1" * 5000 + ".2.3"


@pytest.mark.parametrize("text", [HUGE, "0." + "9" * 5000, "0.1." + "9" * 13, "0.1\nchecked against your Hermes: 56/56"])
def test_an_unreadable_version_is_a_version_error_named_short(text):
    with pytest.raises(VersionError) as err:
        parse_version(text)
    message = str(err.value)
    assert len(message) < 120 and "\n" not in message


@pytest.mark.parametrize("text,want", [("0.20.20260101", (0, 20, 20260101)), ("v0.22.2", (0, 22, 2)),
                                       ("0.20.1.post1", (0, 20, 1)), ("9" * 12 + ".0", (10**12 - 1, 0, 0))])
def test_the_versions_people_have_still_read(text, want):
    assert parse_version(text) == want


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no `hermes` command: the checkout decides
    home = tmp_path / "home"
    (home / "memories").mkdir(parents=True)
    (home / "memories" / "MEMORY.md").write_text("alpha", encoding="utf-8")
    co = home / "hermes-agent"
    (co / "venv" / "bin").mkdir(parents=True)
    (co / "venv" / "bin" / "python").write_text("#!/bin/sh\nexit 1\n")
    (co / "venv" / "bin" / "python").chmod(0o755)
    return home


def test_an_installed_version_of_5000_digits_falls_back_to_the_newest_rules(home):
    (home / "hermes-agent" / "pyproject.toml").write_text(f'[project]\nversion = "{HUGE}"\n')
    out = hmc("status", "--json", home=home)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)["hermes"]
    assert data["version"] == NEWEST.name
    assert data["notice"] == f"can't read the version '{'1' * 40}…'; using {NEWEST.name}'s rules"
    assert len(max(out.stdout.splitlines(), key=len)) < 400
    assert hmc("memory", "list", home=home).returncode == 0


@pytest.mark.parametrize("how", ["flag", "env"])
def test_a_5000_digit_version_asked_for_is_refused_in_one_line(home, how, monkeypatch):
    (home / "hermes-agent" / "pyproject.toml").write_text('[project]\nversion = "0.22.2"\n')
    if how == "flag":
        out = hmc("--hermes-version", HUGE, "status", home=home)
    else:
        monkeypatch.setenv("HMC_HERMES_VERSION", HUGE)
        out = hmc("status", home=home)
    assert out.returncode == 2
    assert "unexpected error" not in out.stderr and "Traceback" not in out.stderr
    assert "is not a Hermes version" in out.stderr and len(out.stderr) < 300
