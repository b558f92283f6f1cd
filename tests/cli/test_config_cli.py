"""`hmc config [--json]` and `hmc config set KEY VALUE` as a subprocess, on an isolated config folder."""

from __future__ import annotations

import json
import os

from tests.cli.runner import hmc


def config_file():
    return os.path.join(os.environ["XDG_CONFIG_HOME"], "hmc", "config.toml")


def write_config(text: str) -> None:
    os.makedirs(os.path.dirname(config_file()))
    with open(config_file(), "w", encoding="utf-8") as f:
        f.write(text)


def test_config_lists_defaults_without_a_file_or_a_hermes_home():
    result = hmc("config", today=None)
    assert result.returncode == 0, result.stderr
    assert config_file() in result.stdout and "not created yet" in result.stdout
    for key in ("theme", "poll_interval", "review.stale_days", "review.old_days"):
        assert key in result.stdout
    data = json.loads(hmc("config", "--json", today=None).stdout)
    assert data["path"] == config_file() and data["exists"] is False and data["problems"] == []
    assert {s["key"]: s["source"] for s in data["settings"]} == {
        "theme": "default", "poll_interval": "default", "review.stale_days": "default", "review.old_days": "default"}


def test_config_set_then_list_shows_the_value_and_its_source():
    result = hmc("config", "set", "review.stale_days", "45", today=None)
    assert result.returncode == 0 and "set review.stale_days = 45" in result.stdout
    out = json.loads(hmc("config", "set", "poll_interval", "2", "--json", today=None).stdout)
    assert out["set"] == {"key": "poll_interval", "value": 2.0, "source": "file"}
    data = {s["key"]: s for s in json.loads(hmc("config", "--json", today=None).stdout)["settings"]}
    assert data["review.stale_days"]["value"] == 45 and data["review.stale_days"]["source"] == "file"
    assert data["poll_interval"]["value"] == 2.0 and data["review.old_days"]["source"] == "default"
    assert "file (default 90)" in hmc("config", today=None).stdout


def test_config_set_refuses_a_bad_key_or_value_with_exit_2_and_one_line():
    write_config("# mine\npoll_interval = 1\n")
    for args in (("poll_interval", "0"), ("colour", "red"), ("review.old_days", "soon"), ("keys.memory.add", "")):
        result = hmc("config", "set", *args, today=None)
        assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, (args, result.stderr)
        assert "Traceback" not in result.stderr and result.stdout == ""
    with open(config_file(), encoding="utf-8") as f:
        assert f.read() == "# mine\npoll_interval = 1\n"


def test_config_lists_the_problems_of_a_bad_file():
    write_config("poll_interval = 999\nfrobnicate = 1\n")
    result = hmc("config", today=None)
    assert result.returncode == 0 and "problem:" in result.stdout and "frobnicate" in result.stdout
    data = json.loads(hmc("config", "--json", today=None).stdout)
    assert len(data["problems"]) == 2
    assert {s["key"]: s["source"] for s in data["settings"]}["poll_interval"] == "default"


def test_config_set_refuses_to_rewrite_a_file_that_does_not_parse():
    write_config("theme = [\n")
    result = hmc("config", "set", "theme", "nord", today=None)
    assert result.returncode == 2 and "not valid TOML" in result.stderr


def test_config_set_checks_theme_names_and_binding_ids_as_the_app_does():
    assert hmc("config", "set", "theme", "nord", today=None).returncode == 0
    bad = hmc("config", "set", "theme", "no-such-theme", today=None)
    assert bad.returncode == 2 and "there is no theme named 'no-such-theme'" in bad.stderr
    assert hmc("config", "set", "keys.pending.approve_all", "ctrl+a", today=None).returncode == 0
    typo = hmc("config", "set", "keys.pending.aprove_all", "ctrl+a", today=None)
    assert typo.returncode == 2 and "is not a binding id" in typo.stderr
    with open(config_file(), encoding="utf-8") as f:
        assert f.read() == 'theme = "nord"\n\n[keys]\n"pending.approve_all" = "ctrl+a"\n'


def test_config_lists_an_unknown_theme_or_binding_id_as_a_problem():
    write_config('theme = "zzz"\n[keys]\n"x.y" = "a"\n')
    problems = json.loads(hmc("config", "--json", today=None).stdout)["problems"]
    assert any("no theme named 'zzz'" in p for p in problems) and any("'x.y' is not a binding id" in p for p in problems)
