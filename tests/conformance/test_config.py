"""config.yaml values as each release reads them: which memory_enabled / user_profile_enabled
values count as on (Python truthiness of the merged value), what write_approval is (0.17+: a bool,
or one of the release's words), and the character limits (a whole number is used as it is).

hmc reads config.yaml with `core.home.read_config(path, release)`. A limit that isn't a whole
number (the agent passes it raw and its writes then fail; 0.18's /memory handler int()s it) is a
listed deviation: hmc uses the default and says so (test_deviations.py).
"""

from __future__ import annotations

import pytest

from core.home import read_config
from tests.conformance import hmc_side as hmc

pytestmark = pytest.mark.area("config")

FLAG_VALUES = ["true", "false", "yes", "no", "on", "off", "'false'", "'no'", "'off'", "'0'", "0", "1",
               "''", "null", "~", "[]", "{}", "[x]", "'disabled'", "'  '", "2", "0.0", "'true'", "False",
               "TRUE", "y", "n"]
APPROVAL_VALUES = ["true", "false", "'on'", "'ON '", "' yes'", "'approve'", "'enabled'", "'enable'", "'1'",
                   "1", "0", "'true'", "'TRUE'", "'y'", "'off'", "null", "[]", "'approved'", "on", "off",
                   "yes", "no", "1.0", "'Enabled'", "{}"]


def _compare(oracle, home):
    release = hmc.release_of(oracle)
    out = oracle.config(home)
    cfg = read_config(home / "config.yaml", release)
    assert cfg.memory_enabled is out["memory_enabled"]["truthy"], out["memory_enabled"]
    assert cfg.user_profile_enabled is out["user_profile_enabled"]["truthy"], out["user_profile_enabled"]
    if out["write_approval"] is None:  # the release has no write approval
        assert not release.write_approval and cfg.write_approval is False
    else:
        assert cfg.write_approval is out["write_approval"]["memory"]
    for target, key in (("memory", "memory_char_limit"), ("user", "user_char_limit")):
        raw = (out["agent_limits"] or {}).get(target)
        if raw is not None and raw["type"] == "int":
            assert cfg.limit(target) == raw["value"], key
    return out, cfg


def test_enabled_flags(oracle, make_home):
    def check(value):
        home = make_home(config=f"memory:\n  memory_enabled: {value}\n  user_profile_enabled: {value}\n")
        out, cfg = _compare(oracle, home)
        assert out["store_created"] is (cfg.memory_enabled or cfg.user_profile_enabled)

    hmc.check_each(FLAG_VALUES, check)


def test_write_approval_values(oracle, make_home):
    hmc.check_each(APPROVAL_VALUES, lambda value: _compare(
        oracle, make_home(config=f"memory:\n  write_approval: {value}\n")))


@pytest.mark.parametrize("limits", [(3000, 500), (0, 1), (100000, 1375), (2200, 99)])
def test_whole_number_limits(oracle, make_home, limits):
    home = make_home(config=f"memory:\n  memory_char_limit: {limits[0]}\n  user_char_limit: {limits[1]}\n")
    out, cfg = _compare(oracle, home)
    assert (cfg.limit("memory"), cfg.limit("user")) == limits
    if out["load_on_disk_store_limits"] is not None:
        assert out["load_on_disk_store_limits"] == {"memory": limits[0], "user": limits[1]}


@pytest.mark.parametrize("text", [
    None, "", "\n", "# only a comment\n", "memory:\n", "memory: null\n", "memory: {}\n",
    "other: 1\n", "memory:\n  provider: ''\n", "memory: [this, is, not, a, mapping\n",
    "memory:\n\tmemory_enabled: false\n", "- a\n- list\n", "just text\n",
    "memory:\n  memory_enabled: false\nmemory:\n  user_profile_enabled: false\n",
    "memory:\n  memory_enabled: false\n  user_profile_enabled: false\n  write_approval: yes\n",
], ids=repr)
def test_odd_files_fall_back_like_the_release(oracle, make_home, text):
    _compare(oracle, make_home(config=text))


@pytest.mark.parametrize("text", ["memory: 5\n", "memory: [a, b]\n", "memory: 'text'\n", "memory: false\n",
                                  "memory: true\n"], ids=repr)
def test_a_memory_section_that_is_not_a_mapping(oracle, make_home, text):
    """Up to 0.20 the agent's init calls .get on it, raises, swallows the error and builds no store
    at all: both stores are off for the agent. 0.22 reads such a section as empty: the defaults."""
    out, _ = _compare(oracle, make_home(config=text))
    assert out["store_created"] is hmc.release_of(oracle).boolean_store_flags
