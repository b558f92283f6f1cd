"""`hmc doctor` and the remembered verdict from a shell, without a real Hermes: a checkout with a
fake interpreter, and a verdict saved as the doctor would (the real runs are in
tests/conformance/test_doctor.py). A write that depends on an area shown to differ is refused,
naming the difference, unless --force."""

from __future__ import annotations

import json
import time

import pytest

from core.doctor import verdict as remembered
from core.doctor.check import Difference, Verdict, hmc_digest
from tests.cli.runner import hmc


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no `hermes` command
    home = tmp_path / "home"
    (home / "memories").mkdir(parents=True)
    (home / "memories" / "MEMORY.md").write_text("alpha\n§\nbeta", encoding="utf-8")
    co = home / "hermes-agent"
    (co / "venv" / "bin").mkdir(parents=True)
    (co / "pyproject.toml").write_text('[project]\nversion = "0.19.0"\n')
    py = co / "venv" / "bin" / "python"
    py.write_text("#!/bin/sh\nexit 1\n")
    py.chmod(0o755)
    return home


def remember(home, status="differ") -> Verdict:
    v = Verdict(status, version="0.19.0", where="test", how="test", rules="0.19.0",
                python=str(home / "hermes-agent" / "venv" / "bin" / "python"), hermes_digest="ab" * 32,
                hmc_digest=hmc_digest(), checked_at=time.time(),
                areas={"reading": {"agreed": 7, "run": 8, "skipped": 0}, "ops": {"agreed": 12, "run": 12, "skipped": 0},
                       "pending": {"agreed": 3, "run": 3, "skipped": 0}})
    if status == "differ":
        v.differences.append(Difference("reading", "a byte-order mark before entry 1",
                                        "reads ['alpha', 'beta']", "reads ['\\ufeffalpha', 'beta']"))
    else:
        v.areas["reading"]["agreed"] = 8
    assert remembered.save(v) is not None
    return v


def test_status_offers_the_check_then_shows_the_verdict(home):
    assert "not checked against your Hermes 0.19.0 yet: run `hmc doctor`" in hmc("status", home=home).stdout
    remember(home, "agree")
    assert "hermes     checked against your Hermes 0.19.0: 23/23\n" in hmc("status", home=home).stdout
    remember(home, "differ")
    out = hmc("status", "--json", home=home)
    doctor = json.loads(out.stdout)["hermes"]["doctor"]
    assert doctor["status"] == "differ" and doctor["differing_areas"] == ["reading"]
    assert doctor["summary"] == "checked against your Hermes 0.19.0: 22/23 — differs in reading"


def test_a_write_under_rules_shown_to_differ_is_refused_naming_the_difference(home):
    remember(home)
    out = hmc("memory", "add", "-t", "memory", "gamma", home=home)
    assert out.returncode == 1
    assert ("refused: your Hermes 0.19.0 reads its files differently from what hmc expects "
            "(reading: a byte-order mark before entry 1) (see `hmc doctor`; pass --force to write anyway)") in out.stderr
    assert (home / "memories" / "MEMORY.md").read_text(encoding="utf-8") == "alpha\n§\nbeta"
    out = hmc("memory", "remove", "-t", "memory", "beta", home=home)
    assert out.returncode == 1 and "reads its files differently" in out.stderr
    out = hmc("pending", "approve", "all", home=home)
    assert out.returncode == 1 and "approve by id with --force to apply it anyway" in out.stderr
    for args in (("memory", "add", "-t", "memory", "gamma"), ("pending", "approve", "all")):
        out = hmc(*args, "--json", home=home)  # a refused write's document, as the other refusals give
        doc = json.loads(out.stdout)
        assert out.returncode == 1 and doc["changed"] is False and doc["exit"] == 1
        assert doc["refused"]["kind"] == "rules-differ" and doc["refused"]["exit"] == 1
        assert "reads its files differently" in doc["refused"]["reason_plain"]
    ok = hmc("memory", "add", "-t", "memory", "gamma", "--force", home=home)
    assert ok.returncode == 0, ok.stderr
    assert (home / "memories" / "MEMORY.md").read_text(encoding="utf-8") == "alpha\n§\nbeta\n§\ngamma"
    writes = json.loads(hmc("log", "--json", home=home).stdout)
    last = writes[-1] if isinstance(writes, list) else writes["writes"][-1]
    out = hmc("rollback", last["id"], home=home)  # a rollback is an edit under hmc's rules too
    assert out.returncode == 1 and "reads its files differently" in out.stderr
    assert (home / "memories" / "MEMORY.md").read_text(encoding="utf-8").endswith("gamma")


def test_a_verdict_for_other_rules_or_an_agreeing_one_lets_writes_through(home):
    remember(home)
    out = hmc("--hermes-version", "0.22.2", "memory", "add", "-t", "memory", "gamma", home=home)
    assert out.returncode == 0, out.stderr  # checked under 0.19's rules, not these
    remember(home, "agree")
    assert hmc("memory", "add", "-t", "memory", "delta", home=home).returncode == 0


def test_a_verdict_from_an_older_hmc_is_due_again(home):
    v = remember(home)
    path = remembered.folder() / remembered.file_name(v)
    data = json.loads(path.read_text())
    data["hmc_digest"] = "0" * 64
    path.write_text(json.dumps(data))
    assert "not checked against your Hermes 0.19.0 yet" in hmc("status", home=home).stdout
    assert hmc("memory", "add", "-t", "memory", "gamma", home=home).returncode == 0


def test_a_damaged_verdict_file_is_no_verdict(home):
    v = remember(home)
    (remembered.folder() / remembered.file_name(v)).write_text("{not json")
    out = hmc("status", home=home).stdout
    assert "not checked against your Hermes 0.19.0 yet" in out and "is damaged (it can't be read as JSON)" in out
    (remembered.folder() / remembered.INDEX).write_text(json.dumps({v.python: "../../etc/passwd"}))
    assert remembered.load(v.python, "0.19.0") == (None, f"hmc's doctor index ({remembered.folder() / 'index.json'}) "
                                                         "names no verdict file")


def _damage(data: dict, how: str) -> str:
    """A saved verdict changed one way (what the probes found, and the neighbours of each)."""
    if how == "nested":
        return "[" * 100_000
    if how == "areas-list":
        data["areas"] = list(data["areas"])
    elif how == "count-text":
        data["areas"]["reading"]["agreed"] = "7"
    elif how == "count-bool":
        data["areas"]["ops"]["run"] = True
    elif how == "count-missing":
        del data["areas"]["ops"]["skipped"]
    elif how == "agreed-over-run":
        data["areas"]["ops"]["agreed"] = 13
    elif how == "area-unknown":
        data["areas"]["ghost"] = {"agreed": 1, "run": 1, "skipped": 0}
    elif how == "status-missing":
        del data["status"]
    elif how == "status-error":
        data["status"] = "error"
    elif how == "differ-with-no-difference":
        data["differences"] = []
    elif how == "agree-with-differing-counts":
        data["status"] = "agree"
    elif how == "difference-shape":
        data["differences"] = [{"area": "reading", "case": 3}]
    elif how == "differences-dict":
        data["differences"] = {"reading": "x"}
    elif how == "version-number":
        data["version"] = 19
    elif how == "checked-nan":
        return json.dumps(data).replace('"checked_at": ', '"checked_at": NaN, "x": ', 1)
    elif how == "top-list":
        return json.dumps([data])
    elif how == "huge-case":  # a refusal printed all 100 KB of it
        data["differences"][0]["case"] = "x" * 100_000
    elif how == "huge-answer":
        data["differences"][0]["hermes"] = "y" * 1_000_000
    elif how == "huge-version":
        data["version"] = "0." * 5_000
    elif how == "many-differences":
        data["differences"] = data["differences"] * 5_000
    return json.dumps(data)


DAMAGES = ["nested", "areas-list", "count-text", "count-bool", "count-missing", "agreed-over-run", "area-unknown",
           "status-missing", "status-error", "differ-with-no-difference", "agree-with-differing-counts",
           "difference-shape", "differences-dict", "version-number", "checked-nan", "top-list", "huge-case",
           "huge-answer", "huge-version", "many-differences"]


@pytest.mark.parametrize("how", DAMAGES)
def test_a_verdict_that_doesnt_validate_in_every_field_is_ignored_and_named(home, how):
    v = remember(home)  # "differ": writes would be refused under it
    path = remembered.folder() / remembered.file_name(v)
    path.write_text(_damage(json.loads(path.read_text()), how))
    verdict, damaged = remembered.load(v.python, "0.19.0")
    assert verdict is None and damaged.startswith(f"hmc's remembered doctor verdict ({path}) is damaged (")
    out = hmc("status", "--json", home=home)
    assert out.returncode == 0, out.stderr
    doctor = json.loads(out.stdout)["hermes"]["doctor"]
    assert doctor["status"] == "unchecked" and doctor["damaged"] == damaged
    text = hmc("status", home=home)
    assert text.returncode == 0 and "is damaged" in text.stdout and "run `hmc doctor`" in text.stdout
    ok = hmc("memory", "add", "-t", "memory", "gamma", home=home)  # no verdict: nothing refuses the write
    assert ok.returncode == 0, ok.stderr


def test_the_verdicts_hmc_saves_validate(home):
    for status in ("agree", "differ"):
        v = remember(home, status)
        verdict, damaged = remembered.load(v.python, "0.19.0")
        assert damaged is None and verdict.status == status and verdict.areas == v.areas


def test_doctor_when_hermes_cant_run_exits_2_in_one_line(home):
    out = hmc("doctor", home=home)
    assert out.returncode == 2
    assert out.stdout.splitlines()[-1].startswith("can't check against your Hermes: the driver stopped (exit 1)")
    data = json.loads(hmc("doctor", "--json", home=home).stdout)
    assert data["status"] == "error" and data["version"] == "0.19.0"


def test_doctor_with_nothing_installed(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    (tmp_path / "h" / "memories").mkdir(parents=True)
    out = hmc("doctor", home=tmp_path / "h")
    assert out.returncode == 2 and "can't find Hermes: no `hermes` command on PATH" in out.stdout


def test_what_a_broken_hermes_prints_is_shown_literally_and_masked(home):
    """The last line a crashing Hermes printed reaches the terminal as text: escapes made visible,
    a secret masked (unless --reveal)."""
    from tests.cli.test_hostile_cli_literal import key

    secret = key("sk-proj-", 48)
    py = home / "hermes-agent" / "venv" / "bin" / "python"
    py.write_text(f"#!/bin/sh\nprintf '\\033]52;c;x\\007 token {secret}\\n' >&2\nexit 1\n")
    out = hmc("doctor", home=home)
    assert out.returncode == 2
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout and "␛]52;c;x␇" in out.stdout
    assert secret not in out.stdout and "sk-" in out.stdout
    assert secret in hmc("doctor", "--reveal", home=home).stdout
    data = hmc("doctor", "--json", home=home).stdout
    assert "\x1b" not in data and secret not in data
