"""A FIFO (or another special file) at every path hmc reads of its own — the journal and its lock,
the timeline caches, the settings, the review decisions, a pending record it claims — and at the
few small files of the home it reads (active_profile): no command hangs (each runs with a timeout),
none prints a traceback, and each says what is there or goes on without it.

Opening a FIFO for reading blocks until a writer comes: a plain open() of one of these paths
would hang `hmc` forever. Every such open goes through core.store.atomic's one reader."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from core.settings import settings_path
from core.store.journal import JOURNAL, LOCK, state_dir
from core.timeline import cache as tl_cache

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 30  # seconds: a hang fails the case (it is never how long a command should take)


@pytest.fixture
def home(demo_copy) -> Path:
    return demo_copy


def hmc(home: Path, *args: str) -> tuple[int, str, str]:
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    try:
        proc = subprocess.run([sys.executable, "-m", "tui.cli", "--home", str(home), "--today", "2026-11-15", *args],
                              capture_output=True, text=True, env=env, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hmc {' '.join(args)} hung (no answer in {TIMEOUT} s)")
    assert "Traceback" not in proc.stderr + proc.stdout, proc.stderr
    return proc.returncode, proc.stdout, proc.stderr


def special(path: Path, kind: str = "fifo") -> None:
    """Replace `path` with a FIFO (or a socket, a folder, a symlink to itself), making its folder if needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "loop":
        os.symlink(path.name, path)
    else:
        sock, cwd = socket.socket(socket.AF_UNIX), os.getcwd()
        try:
            os.chdir(path.parent)  # a socket's path is limited to ~100 bytes: bind it by its name
            sock.bind(path.name)
        finally:
            os.chdir(cwd)
            sock.close()


def journal_of(home: Path) -> Path:
    return state_dir(home) / JOURNAL


@pytest.mark.parametrize("kind", ["fifo", "socket"])
def test_a_journal_that_is_a_special_file(home, kind):
    assert hmc(home, "memory", "add", "--target", "memory", "Prefers short commit messages")[0] == 0
    special(journal_of(home), kind)
    rc, out, err = hmc(home, "memory", "add", "--target", "memory", "Uses fish as the shell")
    assert rc == 1 and "journal" in err and "not a regular file" in err and "nothing was written" in err
    assert "Uses fish" not in (home / "memories" / "MEMORY.md").read_text(encoding="utf-8")
    for subsystem in ("memory", "skills"):
        rc, out, err = hmc(home, "undo", "--subsystem", subsystem)
        assert rc == 2 and "journal" in err and "not a regular file" in err, (subsystem, err)
    rc, out, err = hmc(home, "log")
    assert rc == 0 and "journal" in err and "not a regular file" in err
    assert hmc(home, "memory", "list", "--target", "memory")[0] == 0
    assert hmc(home, "status")[0] == 0


def test_a_journal_lock_that_is_a_fifo(home):
    special(state_dir(home) / LOCK)
    rc, out, err = hmc(home, "memory", "add", "--target", "memory", "Uses fish as the shell")
    assert rc in (0, 2)
    if rc == 2:
        assert "journal" in err


@pytest.mark.parametrize("which", ["cache", "calls"])
def test_a_timeline_cache_that_is_a_fifo(home, which):
    assert hmc(home, "log")[0] == 0
    main = tl_cache.cache_path(home / "state.db")
    assert main.exists()
    special(main if which == "cache" else tl_cache.calls_path(main))
    rc, out, err = hmc(home, "log")
    assert rc == 0 and out.strip()
    assert hmc(home, "blame")[0] == 0
    assert hmc(home, "memory", "list", "--target", "memory", "--at", "2026-11-01")[0] == 0


@pytest.mark.parametrize("kind", ["fifo", "socket", "folder", "loop"])
def test_a_status_summary_that_is_a_special_file(home, kind):
    from core import attention

    rc, line, _ = hmc(home, "status", "--short")
    assert rc == 0 and line.startswith("hmc ")
    [summary] = (Path(os.environ["XDG_CACHE_HOME"]) / "hmc" / "attention").iterdir()
    special(summary, kind)
    assert attention.load(summary.name[:-6]) is None
    assert hmc(home, "status", "--short") == (0, line, "")  # read again, the summary left as it is


def test_settings_that_are_a_fifo(home):
    special(settings_path())
    rc, out, err = hmc(home, "review")
    assert rc in (0, 1) and "not a regular file" in err


def test_review_decisions_that_are_a_fifo(home):
    special(state_dir(home) / "review.json")
    assert hmc(home, "review")[0] in (0, 1)


def test_a_pending_record_that_is_a_fifo_is_claimed_without_hanging(home):
    folder = home / "pending" / "memory"
    special(folder / "ffff0001.json")
    rc, out, err = hmc(home, "pending", "list")
    assert rc == 0 and "ffff0001" in out + err
    rc, out, err = hmc(home, "pending", "approve", "ffff0001")
    assert rc in (1, 2) and "ffff0001" in out + err and ".claim-" not in out + err
    rc, out, err = hmc(home, "pending", "approve", "all")
    assert "ffff0001" in out + err and ".claim-" not in out + err
    assert (folder / "ffff0001.json").exists()  # left as it was, for a person to look at


def test_a_skill_record_that_is_a_fifo(home):
    special(home / "pending" / "skills" / "ffff0002.json")
    rc, out, err = hmc(home, "pending", "list", "--subsystem", "skills")
    assert rc == 0 and "ffff0002" in out + err
    rc, out, err = hmc(home, "pending", "approve", "all", "--subsystem", "skills")
    assert "ffff0002" in out + err and ".claim-" not in out + err


def test_an_active_profile_file_that_is_a_fifo(home):
    special(home / "active_profile")
    assert hmc(home, "status")[0] == 0


def test_a_skill_file_that_is_a_fifo_in_the_review(home):
    skills = sorted((home / "skills").rglob("SKILL.md"))
    assert skills
    special(skills[0])
    assert hmc(home, "review")[0] in (0, 1)


def test_a_hermes_checkout_whose_pyproject_is_a_fifo(home):
    """Release detection reads ~/.hermes/hermes-agent/pyproject.toml when no release is installed."""
    special(home / "hermes-agent" / "pyproject.toml")
    rc, out, err = hmc(home, "status")
    assert rc == 0


def test_a_state_db_that_is_a_fifo(home):
    special(home / "state.db")
    for args in (("log",), ("search", "deploy"), ("status",)):
        rc, out, err = hmc(home, *args)
        assert rc in (0, 2), args
