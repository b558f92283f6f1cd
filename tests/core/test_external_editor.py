"""ctrl+e's core: the text in $VISUAL / $EDITOR through a private temporary file, and every way
that can go wrong ending in a message and no change."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from core.external_editor import NOT_SET, edit_text, editor_command, safe_name

FAKE = Path(__file__).resolve().parents[1] / "fake_editor.py"


def fake(*args: str) -> str:
    return " ".join(shlex.quote(a) for a in (sys.executable, str(FAKE), *args))


def run(argv: list[str]) -> int:
    return subprocess.call(argv)


def edit(tmp_path, text: str, *args: str, written: bytes | None = None, **kwargs):
    if written is not None:
        source = tmp_path / "source"
        source.write_bytes(written)
        args = ("copy", str(source))
    env = {"EDITOR": fake(*args), "PATH": "/usr/bin:/bin"}
    return edit_text(text, run, environ=kwargs.pop("environ", env), **kwargs)


def test_the_saved_text_comes_back_and_the_private_file_is_gone(tmp_path, monkeypatch):
    log = tmp_path / "log.json"
    monkeypatch.setenv("FAKE_EDITOR_LOG", str(log))
    got = edit(tmp_path, "Project uses pnpm", written="Project uses pnpm 9\n".encode())
    assert got.text == "Project uses pnpm 9"  # the final newline the editor added is dropped
    assert got.ok and "nothing is saved until you confirm" in got.message
    seen = json.loads(log.read_text())
    assert seen["text"] == "Project uses pnpm"
    assert seen["file_mode"] == 0o600 and seen["dir_mode"] == 0o700
    assert seen["path"].endswith("/entry.md")
    assert not Path(seen["path"]).parent.exists()


def test_a_text_that_ended_with_a_newline_keeps_the_editors_exactly(tmp_path):
    assert edit(tmp_path, "# Skill\n", written=b"# Skill\nbody\n").text == "# Skill\nbody\n"


def test_crlf_and_a_bom_from_the_editor_become_the_text_as_typed(tmp_path):
    assert edit(tmp_path, "a\nb", written="\ufeffa\r\nc\r\n".encode()).text == "a\nc"


def test_visual_wins_over_editor_and_a_command_with_arguments_is_split():
    env = {"VISUAL": "python3 -c 'pass' --wait", "EDITOR": "ed", "PATH": "/usr/bin:/bin"}
    assert editor_command(env) == ("VISUAL", ["python3", "-c", "pass", "--wait"])
    assert editor_command({"VISUAL": "  ", "EDITOR": "python3 -q", "PATH": "/usr/bin:/bin"})[0] == "EDITOR"


def test_arguments_reach_the_editor_before_the_file(tmp_path, monkeypatch):
    log = tmp_path / "log.json"
    monkeypatch.setenv("FAKE_EDITOR_LOG", str(log))
    edit(tmp_path, "x", "keep", "--wait")
    assert json.loads(log.read_text())["argv"][:2] == ["keep", "--wait"]


@pytest.mark.parametrize("env", [{}, {"VISUAL": "", "EDITOR": "   "}])
def test_no_editor_set_says_how_and_changes_nothing(tmp_path, env):
    got = edit(tmp_path, "x", environ=env)
    assert got.text is None and not got.ok and got.message == NOT_SET


def test_an_editor_that_isnt_a_command(tmp_path):
    got = edit(tmp_path, "x", environ={"EDITOR": "no-such-editor-hmc --wait", "PATH": str(tmp_path)})
    assert got.text is None and not got.ok
    assert "'no-such-editor-hmc'" in got.message and "isn't a command" in got.message


def test_an_editor_command_with_an_open_quote(tmp_path):
    got = edit(tmp_path, "x", environ={"EDITOR": "vim 'oops", "PATH": "/usr/bin:/bin"})
    assert got.text is None and "$EDITOR can't be read as a command" in got.message


def test_an_editor_that_cant_be_started(tmp_path):
    def refuse(argv):
        raise PermissionError(13, "Permission denied")

    got = edit_text("x", refuse, environ={"EDITOR": "python3", "PATH": "/usr/bin:/bin"})
    assert got.text is None and "couldn't be started: Permission denied" in got.message


def test_a_non_zero_exit_keeps_the_text(tmp_path):
    got = edit(tmp_path, "x", "exit", "3")
    assert got.text is None and not got.ok and got.message == "The editor exited with status 3; the text is unchanged."


def test_an_unchanged_file(tmp_path):
    got = edit(tmp_path, "same text", "keep")
    assert got.text is None and got.ok and got.message == "No change from the editor."


@pytest.mark.parametrize("written", [b"", b"\n", b"  \n\n"])
def test_a_file_made_empty_keeps_the_text(tmp_path, written):
    got = edit(tmp_path, "something", written=written)
    assert got.text is None and not got.ok and "left the file empty" in got.message


def test_invalid_utf8_keeps_the_text(tmp_path):
    got = edit(tmp_path, "café", written=b"caf\xe9 au lait")
    assert got.text is None and not got.ok and "aren't UTF-8 (at byte 3)" in got.message


def test_a_file_the_editor_removed(tmp_path):
    def remove(argv):
        Path(argv[-1]).unlink()
        return 0

    got = edit_text("x", remove, environ={"EDITOR": "python3", "PATH": "/usr/bin:/bin"})
    assert got.text is None and "couldn't be read back" in got.message


@pytest.mark.parametrize("name, safe", [("SKILL.md", "SKILL.md"), ("../../etc/passwd", "passwd"),
                                        (".bashrc", "bashrc"), ("a b\x00c.py", "a_b_c.py"), ("", "entry.md"),
                                        ("..", "entry.md"), ("x" * 100 + ".md", "x" * 61 + ".md")])
def test_the_temporary_files_name_is_always_plain(name, safe):
    assert safe_name(name) == safe
