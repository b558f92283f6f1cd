"""core.hermes.toolsets and what `hmc status` says with it: the memory tool per platform, bad values
named (never a traceback), the provider and its markers. (Against the releases' own resolvers:
tests/conformance/test_toolsets.py.)"""

from __future__ import annotations

import json

import pytest

from core.hermes.release import for_version
from core.hermes.toolsets import ToolSettings, memory_tool, provider
from core.home import read_tool_settings

R22, R19 = for_version((0, 22, 2))[0], for_version((0, 19, 0))[0]


def settings(text: str, tmp_path, release=R22) -> ToolSettings:
    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8")
    return read_tool_settings(path, release)


@pytest.mark.parametrize("text, on, key", [
    ("", True, None),
    ("agent:\n  disabled_toolsets: [memory]\n", False, "agent.disabled_toolsets"),
    ("agent:\n  disabled_toolsets: '[\"memory\"]'\n", False, "agent.disabled_toolsets"),
    ("agent:\n  disabled_toolsets: [hermes-cli]\n", True, None),
    ("agent:\n  disabled_toolsets: 5\n", True, None),
    ("platform_toolsets:\n  cli: [terminal]\n", False, "platform_toolsets.cli"),
    ("platform_toolsets:\n  cli: \"['memory']\"\n", True, None),
    ("platform_toolsets: [cli]\n", None, "platform_toolsets"),
    ("agent: 7\n", None, "agent"),
    ("memory:\n  memory_enabled: false\n  user_profile_enabled: false\n", False, "memory.memory_enabled"),
])
def test_the_memory_tool_on_the_cli(tmp_path, text, on, key):
    got = memory_tool(settings(text, tmp_path), "cli", R22,
                      (False, False) if "memory_enabled: false" in text else (True, True))
    assert got.on is on and got.key == key
    assert (got.why is None) == (on is True)


def test_0_19_reads_a_string_character_by_character_and_a_number_stops_it(tmp_path):
    assert memory_tool(settings("agent:\n  disabled_toolsets: '[\"memory\"]'\n", tmp_path, R19), "cli", R19).on is True
    stop = memory_tool(settings("agent:\n  disabled_toolsets: 5\n", tmp_path, R19), "cli", R19)
    assert stop.on is None and "stops at start" in stop.why
    assert memory_tool(settings("agent:\n  disabled_toolsets: {memory: 1}\n", tmp_path, R19), "cli", R19).on is False


def test_platforms_their_defaults_and_unknown_ones(tmp_path):
    s = settings("platform_toolsets:\n  telegram: []\n", tmp_path)
    assert memory_tool(s, "telegram", R22).on is False
    assert memory_tool(s, "discord", R22).on is True
    assert memory_tool(s, "webhook", R22).on is False  # its default bundle has no memory tool
    assert memory_tool(s, "api_server", R22).on is True
    unknown = memory_tool(s, "subagent", R22)
    assert unknown.on is None and "doesn't know" in unknown.why


def test_a_long_or_hostile_platform_list_is_shown_short(tmp_path):
    s = settings("platform_toolsets:\n  cli: [" + ", ".join(f"t{i}" for i in range(40)) + "]\n", tmp_path)
    got = memory_tool(s, "cli", R22)
    assert got.on is False and got.why.count(",") == 7 and "…" in got.why  # 6 names, then the rest
    s = settings('platform_toolsets:\n  cli: ["a\\nb\\x1b[31m", "' + "x" * 5000 + '"]\n', tmp_path)
    got = memory_tool(s, "cli", R22)
    assert "\n" not in got.why and "\x1b" not in got.why and len(got.why) < 200


@pytest.mark.parametrize("text", ["{", "- a\n- b\n", "agent: [1, 2]\n", "memory: 5\n", "\x00", "a: &x 1\nb: *x\n"])
def test_a_config_hermes_cant_read_sets_nothing_and_never_raises(tmp_path, text):
    s = settings(text, tmp_path)
    got = memory_tool(s, "cli", R22)
    assert got.on in (True, None)


def test_the_provider(tmp_path):
    home = tmp_path
    assert provider(settings("", tmp_path), home, R22).name is None
    assert provider(settings("memory:\n  provider: ' none '\n", tmp_path), home, R22).name is None
    assert provider(settings("memory:\n  provider: none\n", tmp_path, R19), home, R19).name == "none"  # 0.19: a plugin named none
    bad = provider(settings("memory:\n  provider: [a]\n", tmp_path), home, R22)
    assert bad.name is None and "not a name" in bad.problem
    for bad_name in ("../x", '"a\\0b"', "y" * 300):
        got = provider(settings(f"memory:\n  provider: {bad_name}\n", tmp_path), home, R22)
        assert "not a plugin name" in got.problem, bad_name
    p = provider(settings("memory:\n  provider: mem0\n", tmp_path), home, R22)
    assert p.name == "mem0" and p.folder is None and p.failed_install is None
    (home / "plugins" / "mem0").mkdir(parents=True)
    (home / "cache").mkdir()
    (home / "cache" / "left-core-mem0.failed").write_text("2")
    p = provider(settings("memory:\n  provider: mem0\n", tmp_path), home, R22)
    assert p.folder == home / "plugins" / "mem0" and p.failed_install is not None


def test_status_tells_the_truth_about_the_tool_and_the_provider(tmp_path, capsys, monkeypatch):
    from tui.cli.main import main

    monkeypatch.setenv("COLUMNS", "200")
    home = tmp_path / "home"
    (home / "memories").mkdir(parents=True)
    (home / "memories" / "MEMORY.md").write_text("a fact", encoding="utf-8")
    (home / "config.yaml").write_text("memory:\n  provider: honcho\nagent:\n  disabled_toolsets: [memory]\n"
                                      "platform_toolsets:\n  telegram: [terminal]\n", encoding="utf-8")
    assert main(["--home", str(home), "status", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["targets"]["memory"]["enabled"] is False and data["targets"]["memory"]["loaded"] is True
    assert data["memory_setup"]["platforms"]["cli"]["key"] == "agent.disabled_toolsets"
    assert data["memory_setup"]["provider"]["name"] == "honcho"
    assert main(["--home", str(home), "status"]) == 0
    out = capsys.readouterr().out
    assert "loaded, but the agent can't write it" in out
    assert "memory     off on cli: agent.disabled_toolsets turns the memory toolset off" in out
    assert "off on telegram: platform_toolsets.telegram lists [terminal], without memory" in out
    assert "provider   honcho: an external memory plugin" in out


@pytest.mark.parametrize("text, release, words", [
    ("agent:\n  disabled_toolsets: '[\"memory\"]'\n", R19, "character by character"),
    ("agent:\n  disabled_toolsets: '[memory]'\n", R22, "doesn't read as a list"),
    ("agent:\n  disabled_toolsets: 'memory,terminal'\n", R22, "doesn't split on commas"),
    ("agent:\n  disabled_toolsets: 5\n", R22, "is ignored"),
    ("agent:\n  disabled_toolsets: 5\n", R19, "stops Hermes at start"),
    ("agent:\n  disabled_toolsets: {memory: 1}\n", R19, "read by its keys"),
    ("platform_toolsets: [x]\n", R22, "not a mapping"),
    ("platform_toolsets:\n  telegram: terminal\n", R22, "default toolsets"),
    ("agent: 3\n", R22, "agent section is not a mapping"),
])
def test_wrong_types_are_named(tmp_path, text, release, words):
    from core.hermes.toolsets import problems

    found = problems(settings(text, tmp_path, release), release)
    assert len(found) == 1 and words in found[0] and "\n" not in found[0]


@pytest.mark.parametrize("text", ["", "agent:\n  disabled_toolsets: [memory]\n", "agent:\n  disabled_toolsets: memory\n",
                                  "platform_toolsets:\n  telegram: [terminal]\n  cli: null\n"])
def test_good_values_are_no_problem(tmp_path, text):
    from core.hermes.toolsets import problems

    assert problems(settings(text, tmp_path), R22) == []


def test_status_names_a_wrong_type(tmp_path, capsys, monkeypatch):
    from tui.cli.main import main

    monkeypatch.setenv("COLUMNS", "200")
    home = tmp_path / "home"
    (home / "memories").mkdir(parents=True)
    (home / "config.yaml").write_text("agent:\n  disabled_toolsets: 'memory,terminal'\n", encoding="utf-8")
    assert main(["--home", str(home), "status"]) == 0
    assert "config: config.yaml: agent.disabled_toolsets = 'memory,terminal' is one name" in capsys.readouterr().out
