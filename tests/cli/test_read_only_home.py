"""A home hmc can read but not write (a read-only mount or copy, a full disk): every write command
ends in one line that says why, exits 2 (the home can't be written: no other text or retry helps,
unlike a refusal's 1), shows no raw `[Errno 30]`, and changes nothing.

The read-only file system is simulated in-process: every call that would create, replace, rename
or remove something under the home raises EROFS, as the kernel does on a read-only mount (the same
run on a real `mount -o ro,bind` copy of the demo gave the same codes and lines)."""

from __future__ import annotations

import errno
import json
import os

import pytest

from tui.cli.main import main

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


@pytest.fixture
def home(demo_copy):
    return demo_copy


def read_only(monkeypatch, root) -> None:
    root = os.fsdecode(root)

    def inside(path) -> bool:
        return not isinstance(path, int) and os.fsdecode(os.path.abspath(path)).startswith(root + os.sep)

    def refuse(path):
        raise OSError(errno.EROFS, "Read-only file system", os.fsdecode(path))

    real_open = os.open

    def relative_to_a_folder(kwargs) -> bool:  # hmc opens folders in the home and writes through them
        return any(kwargs.get(k) is not None for k in ("dir_fd", "src_dir_fd", "dst_dir_fd"))

    def guarded_open(path, flags, *args, **kwargs):
        if flags & WRITE_FLAGS and (inside(path) or relative_to_a_folder(kwargs)):
            refuse(path)
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded_open)
    for name in ("rename", "replace", "unlink", "mkdir", "rmdir", "link", "symlink"):
        real = getattr(os, name)

        def guarded(src, *args, _real=real, **kwargs):
            if inside(src) or relative_to_a_folder(kwargs) or \
                    (args and isinstance(args[0], (str, bytes, os.PathLike)) and inside(args[0])):
                refuse(src)
            return _real(src, *args, **kwargs)

        monkeypatch.setattr(os, name, guarded)


def snapshot(root) -> dict[str, bytes]:
    out = {}
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                with open(path, "rb") as f:
                    out[os.path.relpath(path, root)] = f.read()
    return out


WRITES = [
    ("memory", "add", "-t", "memory", "A note that can't be written"),
    ("memory", "remove", "-t", "memory", "staging DB"),
    ("memory", "move", "-t", "memory", "staging DB", "--to", "ops"),
    ("pending", "approve", "all"),
    ("pending", "reject", "all"),
    ("pending", "approve", "all", "--subsystem", "skills"),
    ("pending", "reject", "all", "--subsystem", "skills"),
    ("pending", "approval", "off"),
]


@pytest.mark.parametrize("args", WRITES, ids=" ".join)
def test_every_write_to_a_read_only_home_says_why_in_one_line_and_exits_2(monkeypatch, capsys, home, args):
    before = snapshot(home)
    read_only(monkeypatch, home)
    code = main(["--home", str(home), "--today", "2026-11-15", *args])
    out, err = capsys.readouterr()
    assert code == 2, (code, out, err)
    said = out + err
    assert "read-only file system" in said
    assert "Errno" not in said and "Traceback" not in said and "unexpected error" not in said
    assert "refused:" not in said  # a refusal is 1; this is the home that can't be written
    monkeypatch.undo()
    assert snapshot(home) == before


@pytest.mark.parametrize("args", [WRITES[0], WRITES[3], WRITES[5]], ids=" ".join)
def test_the_json_form_names_the_unwritable_home_too(monkeypatch, capsys, home, args):
    read_only(monkeypatch, home)
    code = main(["--home", str(home), "--today", "2026-11-15", *args, "--json"])
    out, _err = capsys.readouterr()
    doc = json.loads(out)
    assert code == 2
    kinds = ([doc["refused"]["kind"]] if "refused" in doc else [f["reason_kind"] for f in doc["failed"]])
    assert "unwritable" in kinds, doc
    if "refused" in doc:
        assert doc["refused"]["exit"] == 2


# -- numbers and days past what a timestamp or SQLite can hold (issue 34's probe): one line, exit 2

BOUNDS = [
    ("session", "20261114_184346_4ec3f6", "--around", "99999999999999999999999"),
    ("search", "docker", "--offset", "99999999999999999999999"),
    ("search", "docker", "--limit", "-1"),
    ("sessions", "--limit", "99999999999999999999999"),
    ("memory", "list", "--at", "0001-01-01"),
    ("memory", "list", "--at", "0001-01-01T10:00"),
    ("log", "--since", "0001-01-01"),
    ("log", "--since", "300000y"),
    ("search", "docker", "--since", "0001-01-01"),
    ("search", "docker", "--until", "9999-12-31"),
    ("--today", "0001-01-01", "review"),
    ("--today", "9999-12-31", "sessions", "--stale"),
]


@pytest.mark.parametrize("args", BOUNDS, ids=" ".join)
def test_numbers_and_days_out_of_range_are_a_usage_error(capsys, demo_module, args):
    head = [] if args[0] == "--today" else ["--today", "2026-11-15"]
    try:
        code = main(["--home", str(demo_module), *head, *args])
    except SystemExit as exc:  # argparse's own refusal
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 2, (code, out, err)
    assert len(err.strip().splitlines()) == 1 and "unexpected error" not in err and "Traceback" not in err, err
    assert "range" in err or "whole number" in err or "not a date" in err, err


def _hmc(capsys, home, *args):
    code = main(["--home", str(home), "--today", "2026-11-15", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("how", ["undo", "rollback", "undo --json", "undo skills"])
def test_undoing_in_a_home_that_became_read_only_exits_2(monkeypatch, capsys, home, how):
    """An hmc write made while the home was writable, undone after it became read-only (a mount
    remounted, a backup copy): exit 2 and `unwritable`, as every write says it; nothing changes."""
    if how == "undo skills":
        code, out, err = _hmc(capsys, home, "pending", "approve", "all", "--subsystem", "skills")
        assert "approved" in out, (out, err)
        args = ["undo", "--subsystem", "skills"]
    else:
        assert _hmc(capsys, home, "memory", "add", "-t", "memory", "Build cache lives in /var/cache/ci")[0] == 0
        code, out, _ = _hmc(capsys, home, "log", "--json")
        write_id = next(w["id"] for w in reversed(json.loads(out)["writes"]) if w["by"] == "hmc")
        args = {"undo": ["undo"], "undo --json": ["undo", "--json"], "rollback": ["rollback", write_id]}[how]
    before = snapshot(home)
    read_only(monkeypatch, home)
    code, out, err = _hmc(capsys, home, *args)
    assert code == 2, (code, out, err)
    said = out + err
    assert "read-only file system" in said.lower() and "Errno" not in said and "part-way" not in said, said
    if how == "undo --json":
        assert json.loads(out)["refused"]["kind"] == "unwritable"
    monkeypatch.undo()
    assert snapshot(home) == before
