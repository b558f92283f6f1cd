"""The write_approval toggle changes one line of config.yaml and nothing else."""

from __future__ import annotations

import os

import pytest
import yaml

from core.pending.config_edit import ConfigEditError, read_write_approval, set_write_approval
from core.home import read_config

RICH = """\
# Hermes config — hand-edited, keep my comments
model:
  provider: openrouter   # the cheap one
  name: "nous/hermes-4"

memory:
  # memory settings
  memory_enabled: true
  user_profile_enabled: true      # aligned comment
  write_approval: false   # was off on purpose
  memory_char_limit: 2_200
  user_char_limit: 1375
  provider: ""

sessions:
  auto_prune: true
  retention_days: 90
# trailing comment without newline at EOF"""


def changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    a, b = before.splitlines(), after.splitlines()
    assert len(a) == len(b)
    return [(x, y) for x, y in zip(a, b) if x != y]


def test_toggle_changes_only_the_value_and_keeps_everything_else(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(RICH, encoding="utf-8")
    edit = set_write_approval(path, True)
    after = path.read_text(encoding="utf-8")
    assert changed_lines(RICH, after) == [
        ("  write_approval: false   # was off on purpose", "  write_approval: true   # was off on purpose"),
    ]
    assert not after.endswith("\n")  # no newline added at EOF
    assert edit.before is False and edit.after is True and edit.line == 10 and not edit.added
    assert read_config(path).write_approval is True
    set_write_approval(path, False)
    assert path.read_bytes() == RICH.encode("utf-8")  # a round trip is byte-for-byte


@pytest.mark.parametrize("value", ["on", "yes", "1", "'true'", '"on"', "True", ""])
def test_any_spelling_of_the_value_is_replaced(tmp_path, value):
    path = tmp_path / "config.yaml"
    path.write_text(f"memory:\n  write_approval: {value}\n  memory_char_limit: 2200\n", encoding="utf-8")
    set_write_approval(path, False)
    assert path.read_text() == "memory:\n  write_approval: false\n  memory_char_limit: 2200\n"


def test_absent_key_is_added_under_memory_with_the_blocks_indent(tmp_path):
    path = tmp_path / "config.yaml"
    text = "model: x\nmemory:\n    # four-space file\n    memory_char_limit: 3000\nother: 1\n"
    path.write_text(text, encoding="utf-8")
    edit = set_write_approval(path, True)
    assert path.read_text() == "model: x\nmemory:\n    write_approval: true\n    # four-space file\n    memory_char_limit: 3000\nother: 1\n"
    assert edit.added and edit.line == 3
    assert read_config(path).memory_char_limit == 3000


def test_absent_memory_section_is_appended(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("model: x  # no newline", encoding="utf-8")
    set_write_approval(path, True)
    assert path.read_text() == "model: x  # no newline\nmemory:\n  write_approval: true\n"


def test_missing_file_is_created(tmp_path):
    path = tmp_path / "config.yaml"
    edit = set_write_approval(path, True)
    assert edit.created and path.read_text() == "memory:\n  write_approval: true\n"


def test_crlf_and_bom_survive(tmp_path):
    path = tmp_path / "config.yaml"
    raw = "\ufeffmemory:\r\n  write_approval: off # c\r\n  user_char_limit: 1000\r\n".encode("utf-8")
    path.write_bytes(raw)
    set_write_approval(path, True)
    assert path.read_bytes() == raw.replace(b"off # c", b"true # c")
    assert read_write_approval(path) is True


def test_nested_or_block_scalar_lookalikes_are_not_touched(tmp_path):
    path = tmp_path / "config.yaml"
    text = ("memory:\n  notes: |\n    write_approval: false\n  plugin:\n    write_approval: false\n"
            "  write_approval: false\nwrite_approval: false\n")
    path.write_text(text)
    set_write_approval(path, True)
    assert changed_lines(text, path.read_text()) == [("  write_approval: false", "  write_approval: true")]
    data = yaml.safe_load(path.read_text())
    assert data["memory"]["notes"] == "write_approval: false\n" and data["memory"]["plugin"]["write_approval"] is False


def test_duplicate_keys_edit_the_one_yaml_uses(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("memory:\n  write_approval: true\n  write_approval: false\n")
    set_write_approval(path, True)
    assert path.read_text() == "memory:\n  write_approval: true\n  write_approval: true\n"


@pytest.mark.parametrize("text, words", [
    ("memory: [\n  broken", "not valid YAML at line"),
    ("- just\n- a list\n", "not a mapping"),
    ("memory: 5\n", "'memory' is not a mapping"),
    ("memory: {write_approval: false}\n", "inline"),
])
def test_unparsable_or_odd_files_are_refused_and_untouched(tmp_path, text, words):
    path = tmp_path / "config.yaml"
    path.write_text(text)
    before = os.stat(path).st_mtime_ns
    with pytest.raises(ConfigEditError) as err:
        set_write_approval(path, True)
    assert words in str(err.value)
    assert path.read_text() == text and os.stat(path).st_mtime_ns == before


def test_not_utf8_is_refused(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_bytes(b"memory:\n  x: \xff\n")
    with pytest.raises(ConfigEditError, match="not UTF-8"):
        set_write_approval(path, True)


def test_no_change_writes_nothing(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("memory:\n  write_approval: true\n")
    os.utime(path, ns=(1, 1))
    edit = set_write_approval(path, True)
    assert not edit.changed and os.stat(path).st_mtime_ns == 1


def test_file_mode_is_kept(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("memory:\n  write_approval: false\n")
    os.chmod(path, 0o600)
    set_write_approval(path, True)
    assert os.stat(path).st_mode & 0o777 == 0o600
