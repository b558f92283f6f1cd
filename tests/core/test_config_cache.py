"""config.yaml read through hmc's config cache: a hit gives exactly what a parse gives (without
importing PyYAML), and every cache that isn't what hmc wrote, or can't be written, only costs a parse."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import core.yaml_load
from core import config_cache
from core.hmc_cache import frame, hmc_cache
from core.hermes.release import for_version
from core.home import read_config

OLD = for_version((0, 19, 0))[0]  # PyYAML's safe policy (0.22, the newest, reads YAML 1.1)
CONFIGS = [
    "",
    "# only a comment\n",
    "memory:\n  memory_char_limit: 3000\n  user_char_limit: 500\n  write_approval: 'yes'\n  user_profile_enabled: off\n",
    "memory:\n  memory_enabled: 'false'\n  write_approval: 1\n",
    "memory:\n  memory_enabled: 'enabled'\n  user_profile_enabled: y\n  write_approval: n\n",
    "memory:\n  memory_char_limit: 2.5\n  user_char_limit: -5\n  write_approval: maybe\n",
    "memory:\n  memory_char_limit: 12345678901234567890123\n  memory_enabled: ~\n  other: [1, 2]\n",
    "memory:\n  memory_char_limit: .nan\n  user_char_limit: -.inf\n",
    "memory:\n",
    "memory: 5\n",
    "memory: [a]\n",
    "memory: true\n",
    "- a\n- b\n",
    "just a string\n",
    "model: x\nskills:\n  write_approval: true\n",
    "memory:\n  memory_char_limit: [1, 2]\n",  # lists and nested mappings are kept as they are
    "memory:\n  write_approval: {a: 1, b: [x, {c: null}]}\n",
    "memory:\n  memory_char_limit: 10\n  memory_char_limit: 20\n",  # 0.22 refuses the repeated key
]
NOT_PLAIN = [  # values the cache doesn't keep: parsed every time
    "memory:\n  memory_char_limit: 2024-01-01\n",
    "memory:\n  user_char_limit: !!binary aGk=\n",
    "memory:\n  write_approval: [2024-01-01]\n",  # a date inside a list
    "memory:\n  write_approval: " + "[" * 20 + "]" * 20 + "\n",  # deeper than the cache keeps
]


def write(folder: Path, text: str) -> Path:
    path = folder / "config.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def parses(monkeypatch):
    """How many times config text was parsed by PyYAML."""
    count = [0]
    real = core.yaml_load.load

    def counting(raw, yaml11=False):
        count[0] += 1
        return real(raw, yaml11)

    monkeypatch.setattr(core.yaml_load, "load", counting)
    return count


def uncached(path: Path, release=None):
    """read_config as it reads without any cache."""
    real_load, real_save = config_cache.load, config_cache.save
    config_cache.load, config_cache.save = (lambda *a: None), (lambda *a: False)
    try:
        return read_config(path, release)
    finally:
        config_cache.load, config_cache.save = real_load, real_save


def cache_files() -> list[Path]:
    folder = hmc_cache() / "config"
    return sorted(folder.iterdir()) if folder.is_dir() else []


@pytest.mark.parametrize("text", CONFIGS + NOT_PLAIN)
@pytest.mark.parametrize("release", [None, OLD], ids=["newest", "0.19"])
def test_a_hit_reads_exactly_what_a_parse_reads(tmp_path, parses, text, release):
    path = write(tmp_path, text)
    expected = uncached(path, release)
    before = parses[0]
    assert read_config(path, release) == expected  # a miss: parsed, then cached
    assert read_config(path, release) == expected  # a hit
    refused = release is None and text == CONFIGS[-1]  # not valid YAML 1.1 for 0.22: never cached
    cached = text not in NOT_PLAIN and not refused
    assert parses[0] - before == (1 if cached else 2)
    assert len(cache_files()) == (1 if cached else 0)


def test_each_yaml_policy_has_its_own_entry(tmp_path, parses):
    path = write(tmp_path, "memory:\n  memory_enabled: n\n")  # 0.22: bare n is false; 0.19: a string, so on
    assert not read_config(path).memory_enabled
    assert read_config(path, OLD).memory_enabled
    assert not read_config(path).memory_enabled and read_config(path, OLD).memory_enabled
    assert parses[0] == 2 and len(cache_files()) == 2


def test_a_changed_config_is_parsed_again(tmp_path, parses):
    path = write(tmp_path, "memory:\n  memory_char_limit: 3000\n")
    assert read_config(path).memory_char_limit == 3000
    write(tmp_path, "memory:\n  memory_char_limit: 3001\n")  # same size, same path
    assert read_config(path).memory_char_limit == 3001
    write(tmp_path, "memory:\n  memory_char_limit: 3000\n")  # back again: parsed again, not an older entry
    assert read_config(path).memory_char_limit == 3000
    assert parses[0] == 3 and len(cache_files()) == 1


def test_a_missing_config_writes_no_cache(tmp_path, parses):
    cfg = read_config(tmp_path / "config.yaml")
    assert cfg.problems == ("config.yaml not found: using Hermes's defaults",)
    assert parses[0] == 0 and cache_files() == []


@pytest.mark.parametrize("text", ["memory: [unclosed", "a: &x [1]\nb: *x\n", "memory: " + "[" * 5000 + "]" * 5000])
@pytest.mark.parametrize("release", [None, OLD], ids=["newest", "0.19"])
def test_a_config_that_fails_to_parse_says_the_same_every_time(tmp_path, parses, text, release):
    path = write(tmp_path, text)
    expected = uncached(path, release)
    assert any(word in expected.problems[0] for word in ("not valid YAML", "nested too deeply"))
    assert read_config(path, release) == expected
    assert read_config(path, release) == expected
    assert parses[0] == 3 and cache_files() == []  # never cached: parsed each time, as before


def damage_every_way(good: bytes) -> dict[str, bytes]:
    head, body = good.split(b"\n", 1)
    flipped = bytearray(body)
    flipped[len(flipped) // 2] ^= 0xFF
    import hashlib
    import marshal

    def signed(obj) -> bytes:
        data = marshal.dumps(obj)
        return frame(data) + data

    key = marshal.loads(body)["key"]
    return {
        "empty": b"",
        "garbage": bytes((i * 73 + 41) % 256 for i in range(200)),  # fixed: no unseeded randomness in tests
        "truncated": good[:-1],
        "longer": good + b"\0",
        "body-flipped": head + b"\n" + bytes(flipped),
        "head-only": head + b"\n",
        "no-newline": good.replace(b"\n", b" ", 1),
        "signed-list": signed([1, 2]),
        "signed-not-marshal": (lambda d: f"{hashlib.sha256(d).hexdigest()} {len(d)}\n".encode() + d)(b"\xffnot"),
        "signed-other-key": signed({"key": dict(key, sha256="0" * 64), "value": {"memory_char_limit": 1}}),
        "signed-non-plain": signed({"key": key, "value": {"memory_char_limit": b"1"}}),
        "signed-unknown-key": signed({"key": key, "value": {"memory_char_limt": 1}}),
        "signed-unknown-string": signed({"key": key, "value": "something else"}),
        "signed-no-value": signed({"key": key}),
        "huge": good + b"#" * config_cache.MAX_CACHE_BYTES,
    }


def test_a_cache_that_isnt_what_hmc_wrote_is_a_miss_and_is_written_again(tmp_path, parses):
    path = write(tmp_path, "memory:\n  memory_char_limit: 3000\n  write_approval: true\n")
    expected = read_config(path)
    [cached] = cache_files()
    good = cached.read_bytes()
    for name, bad in damage_every_way(good).items():
        cached.write_bytes(bad)
        before = parses[0]
        assert read_config(path) == expected, name
        assert parses[0] == before + 1, name  # parsed, as without a cache
        assert cached.read_bytes() == good, name  # and the cache is hmc's again
        assert read_config(path) == expected and parses[0] == before + 1, name  # a hit


@pytest.mark.parametrize("what", ["fifo", "folder", "link"])
def test_a_cache_file_that_isnt_a_file_is_a_miss(tmp_path, parses, what):
    path = write(tmp_path, "memory:\n  memory_char_limit: 3000\n")
    expected = read_config(path)
    [cached] = cache_files()
    cached.unlink()
    if what == "fifo":
        os.mkfifo(cached)  # never blocks
    elif what == "folder":
        cached.mkdir()
    else:
        target = tmp_path / "elsewhere"
        target.write_bytes(b"x")
        cached.symlink_to(target)
    assert read_config(path) == expected and read_config(path) == expected
    # the write replaces a FIFO or a link (then a hit); a folder stays: parsed each time
    assert parses[0] == (3 if what == "folder" else 2)
    assert cached.is_dir() if what == "folder" else cached.is_file() and not cached.is_symlink()
    if what == "link":
        assert (tmp_path / "elsewhere").read_bytes() == b"x"  # what it pointed to is left alone


def test_an_unwritable_cache_folder_only_costs_a_parse(tmp_path, parses):
    root = hmc_cache()
    root.parent.mkdir(parents=True, exist_ok=True)
    root.write_bytes(b"a file where hmc's cache folder goes")
    path = write(tmp_path, "memory:\n  memory_char_limit: 3000\n")
    assert read_config(path) == uncached(path) and read_config(path).memory_char_limit == 3000
    assert parses[0] == 3 and root.read_bytes() == b"a file where hmc's cache folder goes"


def test_an_unwritable_cache_file_only_costs_a_parse(tmp_path, parses, monkeypatch):
    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(config_cache, "write_private", refuse)
    path = write(tmp_path, "memory:\n  memory_char_limit: 3000\n")
    assert read_config(path).memory_char_limit == 3000 and read_config(path).memory_char_limit == 3000
    assert parses[0] == 2 and cache_files() == []


def test_another_pyyaml_is_a_miss(tmp_path, parses, monkeypatch):
    path = write(tmp_path, "memory:\n  memory_char_limit: 3000\n")
    read_config(path)
    origin, size, mtime = config_cache._parser()
    monkeypatch.setattr(config_cache, "_PARSER", [[origin, size, mtime + 1]])  # upgraded or reinstalled
    assert read_config(path).memory_char_limit == 3000
    assert parses[0] == 2
    monkeypatch.setattr(config_cache, "_PARSER", [None])  # no PyYAML found: no cache at all
    assert read_config(path).memory_char_limit == 3000 and parses[0] == 3


def test_the_cache_is_private_and_never_in_the_hermes_home(tmp_path):
    home = tmp_path / "hermes"
    home.mkdir()
    path = write(home, "memory:\n  memory_char_limit: 3000\n")
    read_config(path)
    read_config(path, OLD)
    assert sorted(p.name for p in home.iterdir()) == ["config.yaml"]
    files = cache_files()
    assert len(files) == 2 and all(not f.is_relative_to(home) for f in files)
    assert {stat.S_IMODE(f.stat().st_mode) for f in files} == {0o600}
    assert stat.S_IMODE(files[0].parent.stat().st_mode) == 0o700


def test_a_hit_does_not_import_yaml(tmp_path):
    """In a fresh interpreter, as a start-up reads it: the first read parses (and imports PyYAML),
    the next start reads the cache and never imports it."""
    from core.demo.build import build_demo_home

    home = tmp_path / "demo"
    build_demo_home(home)
    code = ("import sys\n"
            "from core.curator import open_curator\n"
            f"curator = open_curator({str(home)!r})\n"
            "print(curator.home.config.write_approval, curator.stores['memory'].limit, 'yaml' in sys.modules)\n")
    env = dict(os.environ)
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
            for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], [r.stderr for r in runs]
    assert [r.stdout.split() for r in runs] == [["True", "2200", "True"], ["True", "2200", "False"]]
