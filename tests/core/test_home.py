"""Finding the home, its profiles, and a config.yaml that may be missing or wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.curator import open_curator
from core.home import Config, HomeError, list_profiles, read_config, resolve_home


def test_home_from_argument_env_and_default(tmp_path, monkeypatch, isolated_user):
    explicit = tmp_path / "explicit"
    explicit.mkdir()
    assert resolve_home(explicit).root == explicit.resolve()
    env_home = tmp_path / "env"
    env_home.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(env_home))
    assert resolve_home().root == env_home.resolve()
    monkeypatch.setenv("HERMES_HOME", "   ")  # blank means unset
    (isolated_user / ".hermes").mkdir()
    assert resolve_home().root == (isolated_user / ".hermes").resolve()


def test_missing_home_is_a_clear_error(tmp_path):
    with pytest.raises(HomeError, match="no Hermes home"):
        resolve_home(tmp_path / "nope")
    (tmp_path / "file").write_text("x")
    with pytest.raises(HomeError, match="not a folder"):
        resolve_home(tmp_path / "file")


def test_profiles(tmp_path):
    (tmp_path / "profiles" / "work" / "memories").mkdir(parents=True)
    (tmp_path / "profiles" / "work" / "SOUL.md").write_text("x")  # as `hermes profile create` leaves it
    (tmp_path / "profiles" / ".deleted" / "old").mkdir(parents=True)
    assert list_profiles(tmp_path) == ["default", "work"]
    assert resolve_home(tmp_path, "work").root == (tmp_path / "profiles" / "work").resolve()
    assert resolve_home(tmp_path, "default").root == tmp_path.resolve()
    with pytest.raises(HomeError, match="no profile 'nope'"):
        resolve_home(tmp_path, "nope")
    with pytest.raises(HomeError, match=r"no profile 'wrok' .*\(did you mean work\?\)"):
        resolve_home(tmp_path, "wrok")
    assert resolve_home(tmp_path, " Work ").profile == "work"  # the release lower-cases and strips
    assert resolve_home(tmp_path, "DEFAULT").profile == "default"
    with pytest.raises(HomeError, match="not a profile name"):
        resolve_home(tmp_path, "../etc")


def test_active_profile_is_sticky_and_a_stale_one_falls_back(tmp_path):
    (tmp_path / "profiles" / "work").mkdir(parents=True)
    (tmp_path / "profiles" / "work" / "config.yaml").write_text("")
    (tmp_path / "active_profile").write_text("work\n")
    assert resolve_home(tmp_path).profile == "work"
    (tmp_path / "active_profile").write_text("gone")
    assert resolve_home(tmp_path).profile == "default"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_config_values(tmp_path):
    cfg = read_config(write(tmp_path, "memory:\n  memory_char_limit: 3000\n  user_char_limit: 500\n"
                                      "  write_approval: 'yes'\n  user_profile_enabled: off\n"))
    assert (cfg.memory_char_limit, cfg.user_char_limit, cfg.write_approval, cfg.user_profile_enabled) == (3000, 500, True, False)
    assert cfg.problems == ()


@pytest.mark.parametrize("text,problem", [
    (None, "not found"),
    ("memory: [unclosed", "not valid YAML"),
    ("- a\n- b\n", "not a mapping"),
    ("memory: 5\n", "memory section is not a mapping"),
    ("memory:\n  memory_char_limit: lots\n", "not a character count"),
    ("memory:\n  memory_char_limit: -5\n", "not a character count"),
    ("memory:\n  write_approval: maybe\n", "not on/off"),
])
def test_bad_config_falls_back_to_defaults_and_says_so(tmp_path, text, problem):
    path = tmp_path / "config.yaml" if text is None else write(tmp_path, text)
    cfg = read_config(path)
    assert any(problem in p for p in cfg.problems), cfg.problems
    assert cfg.memory_char_limit in (2200,) and cfg.user_char_limit == 1375


def test_invalid_utf8_config(tmp_path):
    (tmp_path / "config.yaml").write_bytes(b"memory:\n  x: \xff\n")
    assert "unreadable" in read_config(tmp_path / "config.yaml").problems[0]


def test_empty_config_is_fine(tmp_path):
    assert read_config(write(tmp_path, "")) == Config()


def test_limits_from_config_reach_the_stores(tmp_path):
    write(tmp_path, "memory:\n  memory_char_limit: 50\n  memory_enabled: false\n")
    curator = open_curator(tmp_path)
    assert curator.stores["memory"].limit == 50 and not curator.stores["memory"].enabled
    assert curator.stores["user"].limit == 1375


def test_importing_core_never_imports_textual():
    import subprocess
    import sys

    code = ("import pkgutil, importlib, sys, core\n"
            "for m in pkgutil.walk_packages(core.__path__, 'core.'):\n"
            "    importlib.import_module(m.name)\n"
            "bad = [n for n in sys.modules if n.split('.')[0] in ('textual', 'rich')]\n"
            "print(bad); sys.exit(1 if bad else 0)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_empty_switch_reads_as_off_like_hermes(tmp_path):
    cfg = read_config(write(tmp_path, "memory:\n  write_approval:\n  memory_enabled: 'on'\n"))
    assert cfg.write_approval is False and cfg.memory_enabled is True and cfg.problems == ()


@pytest.mark.parametrize("text,problem", [
    ("a: &x [1]\nb: [*x, *x, *x]\n", "aliases are not allowed"),
    ("".join(f"l{i}: &l{i} [" + ",".join([f"*l{i-1}"] * 9) + "]\n" for i in range(1, 10)).replace("*l0", "1"),
     "aliases are not allowed"),
    ("memory: " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
], ids=["alias", "alias-bomb", "deep-nesting"])
def test_hostile_yaml_is_a_problem_with_defaults_never_a_hang(tmp_path, text, problem):
    cfg = read_config(write(tmp_path, text))  # the alias bomb expanded to gigabytes before: a hang, then MemoryError
    assert cfg.memory_char_limit == 2200 and any(problem in p for p in cfg.problems), cfg.problems


def test_config_that_is_a_fifo_or_huge_never_blocks(tmp_path):
    import os

    os.mkfifo(tmp_path / "config.yaml")
    assert "named pipe" in read_config(tmp_path / "config.yaml").problems[0]
    (tmp_path / "config.yaml").unlink()
    (tmp_path / "config.yaml").write_text("# pad\n" * 100_000)
    assert "over hmc's" in read_config(tmp_path / "config.yaml").problems[0]


def test_values_read_as_the_release_reads_them(tmp_path):
    from core.hermes.release import for_version

    text = "memory:\n  memory_enabled: 'false'\n  write_approval: 1\n"
    cfg = read_config(write(tmp_path, text), for_version((0, 19, 0))[0])
    assert cfg.memory_enabled is True  # up to 0.20 any non-empty string is on, even 'false'
    assert cfg.write_approval is False  # an int 1 is not among the words Hermes reads as on
    assert any("non-empty string as on" in p for p in cfg.problems)
    new = read_config(write(tmp_path, text))
    assert new.memory_enabled is False and new.write_approval is False  # 0.22: a boolean reading
    odd = read_config(write(tmp_path, "memory:\n  memory_enabled: 'enabled'\n  user_profile_enabled: y\n"))
    assert odd.memory_enabled is False and odd.user_profile_enabled is True  # 'enabled' is no yes-word; bare y is
    assert any("not a yes/no word" in p for p in odd.problems)
    cfg = read_config(write(tmp_path, "memory:\n  write_approval: Approve\n"))
    assert cfg.write_approval is True
    old = read_config(write(tmp_path, "memory:\n  write_approval: true\n"), for_version((0, 16, 0))[0])
    assert old.write_approval is False and any("no write approval" in p for p in old.problems)


@pytest.mark.parametrize("text", ["memory: 5\n", "memory: [a]\n", "memory: true\n"])
def test_a_memory_section_hermes_cant_read_means_no_memory(tmp_path, text):
    from core.hermes.release import for_version

    cfg = read_config(write(tmp_path, text), for_version((0, 19, 0))[0])
    assert not cfg.memory_enabled and not cfg.user_profile_enabled and "starts without memory" in cfg.problems[0]
    new = read_config(write(tmp_path, text))  # 0.22 normalises it to {}: the defaults
    assert new.memory_enabled and new.user_profile_enabled and "uses its defaults" in new.problems[0]


def test_an_empty_memory_section_is_read_by_release(tmp_path):
    from core.hermes.release import for_version

    path = write(tmp_path, "memory:\n")
    assert read_config(path).memory_enabled  # 0.19 reads it as the defaults
    old = read_config(path, for_version((0, 18, 2))[0])
    assert not old.memory_enabled and not old.user_profile_enabled  # earlier releases start without memory
