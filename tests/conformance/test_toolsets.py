"""Whether the agent has its memory tool, per platform: hmc's reading of agent.disabled_toolsets,
platform_toolsets and the stores' switches (core.hermes.toolsets) against each release's own
resolvers (hermes_cli.tools_config, model_tools), on a matrix of config.yaml files."""

from __future__ import annotations

import pytest

from core.hermes.toolsets import memory_tool
from core.home import read_config, read_tool_settings
from tests.conformance import hmc_side as hmc

pytestmark = pytest.mark.area("config")

PLATFORMS = ["cli", "telegram", "discord", "webhook"]
CONFIGS = [
    "",
    "agent:\n  disabled_toolsets: [memory]\n",
    "agent:\n  disabled_toolsets: '[\"memory\"]'\n",
    "agent:\n  disabled_toolsets: \"['memory']\"\n",
    "agent:\n  disabled_toolsets: memory\n",
    "agent:\n  disabled_toolsets: 'memory,terminal'\n",
    "agent:\n  disabled_toolsets: '[memory]'\n",
    "agent:\n  disabled_toolsets: [' memory ']\n",
    "agent:\n  disabled_toolsets: {memory: true}\n",
    "agent:\n  disabled_toolsets: []\n",
    "agent:\n  disabled_toolsets: ''\n",
    "agent:\n  disabled_toolsets: null\n",
    "agent:\n  disabled_toolsets: 0\n",
    "agent:\n  disabled_toolsets: [hermes-cli, coding]\n",
    "agent:\n  disabled_toolsets: [terminal, web]\n",
    "platform_toolsets:\n  telegram: [terminal, file]\n",
    "platform_toolsets:\n  telegram: []\n",
    "platform_toolsets:\n  telegram: [hermes-telegram]\n",
    "platform_toolsets:\n  telegram: [memory, terminal]\n",
    "platform_toolsets:\n  telegram: [' memory ']\n",
    "platform_toolsets:\n  telegram: \"['terminal']\"\n",
    "platform_toolsets:\n  telegram: \"['memory']\"\n",
    "platform_toolsets:\n  telegram: terminal\n",
    "platform_toolsets:\n  telegram: null\n",
    "platform_toolsets:\n  cli: [terminal]\n  discord: [hermes-discord]\n",
    "platform_toolsets:\n  cli: [coding]\n",
    "platform_toolsets: {}\n",
    "platform_toolsets: null\n",
    "memory:\n  memory_enabled: false\n  user_profile_enabled: false\n",
    "memory:\n  memory_enabled: false\n",
    "memory:\n  memory_enabled: false\n  user_profile_enabled: false\nagent:\n  disabled_toolsets: [memory]\n",
    "agent:\n  disabled_toolsets: 5\n",
    "agent:\n  disabled_toolsets: 2026-01-01\n",
    "platform_toolsets: [memory]\n",
    "platform_toolsets: telegram\n",
    "agent: x\n",
    "agent: null\n",
]


@pytest.mark.parametrize("config", CONFIGS, ids=[f"c{i}" for i in range(len(CONFIGS))])
def test_the_memory_tool_per_platform_agrees(oracle, make_home, config):
    release = hmc.release_of(oracle)
    home = make_home(memory="a fact", config=config)
    theirs = oracle.memory_tool(home, PLATFORMS)
    settings = read_tool_settings(home / "config.yaml", release)
    cfg = read_config(home / "config.yaml", release)
    stores = (cfg.memory_enabled, cfg.user_profile_enabled)
    if "config_raised" in theirs:  # Hermes can't load this config at all
        assert all(memory_tool(settings, p, release, stores).on is None for p in PLATFORMS), theirs
        return
    for platform in PLATFORMS:
        answer = theirs["platforms"][platform]
        if answer.get("raised", {}).get("type") == "ModuleNotFoundError":  # 0.13-0.18 import httpx there
            pytest.skip(f"this release's resolver needs a package its --no-deps install lacks: {answer['raised']}")
        mine = memory_tool(settings, platform, release, stores)
        if "raised" in answer:
            assert mine.on is None, (platform, answer, mine)
            continue
        expected = answer["tool"]
        if not release.boolean_store_flags and not any(stores):
            # 0.19-0.20 keep the tool with both stores off, and it answers "Memory is not available"
            # to every call: nothing can be written, which is what hmc reports
            expected = False
        assert mine.on is expected, (platform, config, answer, mine)
