"""Unreadable folders and files, homes that aren't homes, and the CLI items of issue 12.

Permission errors are made two ways: for real with chmod when the tests don't run as root (root
reads anything), and in-process by making the OS calls for one path raise PermissionError exactly
as a mode-000 folder or file does.
"""

from __future__ import annotations

import builtins
import io
import json
import os
import shutil
import sqlite3
import stat
from pathlib import Path

import pytest

from tests.cli.runner import hmc
from tui.cli.main import main

ROOT_USER = hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.fixture
def home(demo_copy) -> Path:
    return demo_copy


def deny(monkeypatch, target: Path) -> None:
    """Make `target` behave as mode 000 for this process: opening, listing or looking inside it fails."""
    target = str(target)

    def denied(path) -> bool:
        try:
            p = os.fsdecode(path) if not isinstance(path, int) else ""
        except TypeError:
            return False
        p = os.path.abspath(p) if p else p
        return bool(p) and (p == target or p.startswith(target + os.sep))

    def inside(path) -> bool:  # a mode-000 folder or file can be stat'ed; what is inside the folder can't
        try:
            p = os.path.abspath(os.fsdecode(path))
        except TypeError:
            return False
        return p.startswith(target + os.sep)

    def err(path):
        return PermissionError(13, "Permission denied", os.fsdecode(path))

    def wrap(fn, test):
        def guarded(path, *args, **kwargs):
            if not isinstance(path, int) and test(path):
                raise err(path)
            return fn(path, *args, **kwargs)
        return guarded

    for name in ("open", "scandir", "listdir"):
        monkeypatch.setattr(os, name, wrap(getattr(os, name), denied))
    for name in ("stat", "lstat"):
        monkeypatch.setattr(os, name, wrap(getattr(os, name), inside))
    monkeypatch.setattr(builtins, "open", wrap(builtins.open, denied))
    monkeypatch.setattr(io, "open", wrap(io.open, denied))


def run_inproc(capsys, home: Path, *args: str) -> tuple[int, str, str]:
    code = main(["--home", str(home), "--today", "2026-11-15", *args])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line(err: str) -> None:
    assert len(err.strip().splitlines()) == 1, err
    assert "unexpected error" not in err and "Traceback" not in err and "PermissionError" not in err, err


PENDING_COMMANDS = [
    ("pending", "list"), ("pending", "list", "--json"), ("pending", "show", "5b2e7d41"),
    ("pending", "approve", "all"), ("pending", "approve", "5b2e7d41"), ("pending", "reject", "all"),
    ("pending", "reject", "invalid"), ("status",),
]


@pytest.mark.parametrize("args", PENDING_COMMANDS, ids=" ".join)
def test_mode_000_pending_folder_gives_one_line(monkeypatch, capsys, home, args):
    folder = home / "pending" / "memory"
    memory = (home / "memories" / "MEMORY.md").read_bytes()
    deny(monkeypatch, folder)
    code, out, err = run_inproc(capsys, home, *args)
    monkeypatch.undo()
    assert code == 2, (code, out, err)
    assert_one_line(err)
    assert "pending" in err
    assert (home / "memories" / "MEMORY.md").read_bytes() == memory


def test_unreadable_store_status_2_and_write_2(monkeypatch, capsys, home):
    path = home / "memories" / "MEMORY.md"
    before = path.read_bytes()
    deny(monkeypatch, path)
    code, out, err = run_inproc(capsys, home, "status")
    assert code == 2 and "MEMORY.md" in out and "can't be read" in out
    code, out, err = run_inproc(capsys, home, "status", "--json")
    assert code == 2 and json.loads(out)["targets"]["memory"]["error"]
    code, out, err = run_inproc(capsys, home, "memory", "list", "--target", "memory")
    assert code == 2
    assert_one_line(err)
    code, out, err = run_inproc(capsys, home, "memory", "add", "--target", "memory", "A new note")
    assert code == 2, (code, err)
    assert_one_line(err)
    code, out, err = run_inproc(capsys, home, "memory", "list", "--target", "user")
    assert code == 0  # the other store still reads
    code, out, err = run_inproc(capsys, home, "memory", "list")
    assert code == 2 and "Name: Inès" in out  # both: the readable one listed, the reason on stderr
    assert_one_line(err)
    code, out, err = run_inproc(capsys, home, "memory", "list", "--json")
    assert code == 2 and json.loads(out)[0]["error"]
    assert_one_line(err)
    monkeypatch.undo()
    assert path.read_bytes() == before


@pytest.mark.skipif(ROOT_USER, reason="root reads a mode-000 folder; covered in-process above")
def test_mode_000_for_real(home):
    folder = home / "pending" / "memory"
    folder.chmod(0)
    try:
        for args in (("pending", "list"), ("pending", "approve", "all"), ("status",)):
            result = hmc(*args, home=home)
            assert result.returncode == 2
            assert_one_line(result.stderr)
    finally:
        folder.chmod(stat.S_IRWXU)
    store = home / "memories" / "MEMORY.md"
    store.chmod(0)
    try:
        assert hmc("status", home=home).returncode == 2
        write = hmc("memory", "add", "--target", "memory", "A new note", home=home)
        assert write.returncode == 2
        assert_one_line(write.stderr)
    finally:
        store.chmod(stat.S_IRUSR | stat.S_IWUSR)


# -- a folder that isn't a Hermes home -------------------------------------------------------------------


def test_a_folder_that_is_not_a_home_is_refused_unless_init(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    for args in (("status",), ("memory", "add", "--target", "memory", "note"), ("search", "x")):
        result = hmc(*args, home=empty)
        assert result.returncode == 2 and "is not a Hermes home" in result.stderr and "--init" in result.stderr
        assert_one_line(result.stderr)
    assert list(empty.iterdir()) == []  # nothing was created
    made = hmc("--init", "memory", "add", "--target", "memory", "First note", home=empty)
    assert made.returncode == 0 and (empty / "memories" / "MEMORY.md").read_text() == "First note"
    assert hmc("status", home=empty).returncode == 0  # a home now
    fresh = tmp_path / "new" / "home"
    assert hmc("--init", "status", home=fresh).returncode == 0 and fresh.is_dir()


def test_unknown_profile_lists_the_profiles(home):
    (home / "profiles" / "work").mkdir(parents=True)
    (home / "profiles" / "work" / "SOUL.md").write_text("x")  # a profile as `hermes profile create` leaves it
    result = hmc("--profile", "nope", "status", home=home)
    assert result.returncode == 2 and "profiles: default, contenu, ops, work" in result.stderr  # the demo's two
    assert "hmc demo" not in result.stderr
    assert_one_line(result.stderr)


def test_version():
    result = hmc("--version", today=None)
    assert result.returncode == 0 and result.stdout.startswith("hmc ") and result.stdout.split()[1][0].isdigit()


# -- search ----------------------------------------------------------------------------------------------


def test_limit_says_how_many_hits_there_are(home):
    every = json.loads(hmc("search", "deploy", "--limit", "500", "--json", home=home).stdout)
    total = len(every["hits"])
    assert every["total"] == total and total > 2
    result = hmc("search", "deploy", "--limit", "2", home=home)
    assert result.returncode == 0 and f"2 of {total:,} hits (1-2)" in result.stdout
    one = hmc("search", "zebracornquux", home=home)
    assert one.returncode == 0 and "No hits." in one.stdout


def test_all_profiles_marks_each_hit(home):
    work = home / "profiles" / "work"
    work.mkdir(parents=True)
    shutil.copy2(home / "state.db", work / "state.db")
    (home / "profiles" / "empty").mkdir()
    (home / "profiles" / "empty" / "SOUL.md").write_text("x")  # a profile (0.22: a marker file), no state.db
    data = json.loads(hmc("search", "deploy", "--all-profiles", "--json", "--limit", "4", home=home).stdout)
    assert [h["profile"] for h in data["hits"]] == ["default", "work", "default", "work"]
    assert data["profiles"] == ["default", "work"] and data["missing"] == ["contenu", "empty", "ops"]  # no state.db
    assert data["hits"][1]["link"].startswith("@session:work/")
    single = json.loads(hmc("search", "deploy", "--json", "--limit", "4", home=home).stdout)
    assert data["total"] == 2 * single["total"]
    assert all("profile" not in h for h in single["hits"])
    text = hmc("search", "deploy", "--all-profiles", "--limit", "2", home=home).stdout
    assert "[default]" in text and "[work]" in text and "in 2 profiles" in text


def test_since_with_text_timestamps(home):
    db = sqlite3.connect(home / "state.db")
    db.execute("UPDATE messages SET timestamp = '2026-11-01T10:00:00' WHERE id IN "
               "(SELECT id FROM messages WHERE content LIKE '%deploy%' LIMIT 3)")
    db.execute("UPDATE messages SET timestamp = 'not a time' WHERE id IN "
               "(SELECT id FROM messages WHERE content LIKE '%deploy%' LIMIT 2 OFFSET 3)")
    db.commit()
    db.close()
    for args in (("--since", "1y"), ("--since", "2026-10-31"), ("--until", "2026-01-01"), ()):
        result = hmc("search", "deploy", *args, home=home)
        assert result.returncode == 0 and "Traceback" not in result.stderr and not result.stderr, result.stderr
    recent = json.loads(hmc("search", "deploy", "--since", "2026-10-31", "--json", "--limit", "500", home=home).stdout)
    assert any(h["timestamp"].startswith("2026-11-01T10:00") for h in recent["hits"])


def test_is_hermes_home(tmp_path):
    from core.home import is_hermes_home

    assert not is_hermes_home(tmp_path / "missing")
    assert not is_hermes_home(tmp_path)  # empty
    (tmp_path / "README.md").write_text("a project checkout")
    assert not is_hermes_home(tmp_path) and not is_hermes_home(tmp_path / "README.md")
    for name in ("config.yaml", "state.db"):
        (tmp_path / name).write_text("")
        assert is_hermes_home(tmp_path)
        (tmp_path / name).unlink()
    for name in ("memories", "profiles"):
        (tmp_path / name).mkdir()
        assert is_hermes_home(tmp_path)
        (tmp_path / name).rmdir()
