"""Special files where the history reads (issue 20): a FIFO, a folder or a symlink loop at state.db,
at hmc's journal and at the timeline cache files. No command hangs (each runs under an alarm), none
prints a traceback, and each says in one line what is wrong — state.db that can't be read is never
taken for "no state.db" (`hmc log` used to exit 0 with an empty history for a symlink loop)."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from core.store.journal import JOURNAL, state_dir
from core.timeline import cache as tl_cache
from tests.cli.test_own_files_fifo import special
from tests.core.test_timeline import add, make_home, write_files
from tui.cli.main import main

TIMEOUT = 20  # seconds: a hang fails the case (no command should take more than a fraction of it)
KINDS = ("fifo", "folder", "loop")


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


@pytest.fixture
def home(tmp_path) -> Path:
    root, db = make_home(tmp_path)
    db.session("s1", "cli")
    db.call("s1", add("Deploys on Fridays"))
    write_files(root, ["Deploys on Fridays"], [])
    return root


class Hung(Exception):
    pass


def hmc(capsys, home: Path, *args: str) -> tuple[int, str, str]:
    """`hmc` in-process under an alarm: a blocking open (a FIFO) is interrupted and fails the case."""
    def ring(signum, frame):
        raise Hung(f"hmc {' '.join(args)} hung (no answer in {TIMEOUT} s)")

    capsys.readouterr()
    old = signal.signal(signal.SIGALRM, ring)
    signal.alarm(TIMEOUT)
    try:
        code = main(["--home", str(home), "--today", "2026-11-15", *args])
    except Hung as exc:
        pytest.fail(str(exc))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err and "unexpected error" not in out.err, out.err
    return code, out.out, out.err


WHY = {"fifo": "not a file", "folder": "not a file", "loop": "Too many levels of symbolic links"}


@pytest.mark.parametrize("kind", KINDS)
def test_a_state_db_that_cant_be_read_is_said_so_and_exits_2(capsys, home, kind):
    special(home / "state.db", kind)
    for args in (("log",), ("log", "--json"), ("blame",), ("search", "deploy")):
        code, out, err = hmc(capsys, home, *args)
        assert code == 2, (args, code, out, err)
        assert len(err.strip().splitlines()) == 1 and WHY[kind] in err and "state.db" in err, (args, err)
        assert "No session database" not in err
    code, out, err = hmc(capsys, home, "status")
    line = next(x for x in out.splitlines() if x.startswith("state.db"))
    assert "not found" not in line and WHY[kind] in line, line


@pytest.mark.parametrize("kind", KINDS)
def test_a_journal_that_is_a_special_file(capsys, home, kind):
    assert hmc(capsys, home, "memory", "add", "--target", "memory", "Prefers short commits")[0] == 0
    special(state_dir(home) / JOURNAL, kind)
    code, out, err = hmc(capsys, home, "log")
    assert code == 0 and "Deploys on Fridays" in out
    assert len(err.strip().splitlines()) == 1 and "journal" in err, err
    code, out, err = hmc(capsys, home, "memory", "add", "--target", "memory", "Uses fish")
    assert code in (1, 2) and len(err.strip().splitlines()) == 1 and "journal" in err, err
    assert "Uses fish" not in (home / "memories" / "MEMORY.md").read_text(encoding="utf-8")
    code, out, err = hmc(capsys, home, "blame")
    assert code == 0 and len(err.strip().splitlines()) == 1 and "journal" in err, err


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("which", ["cache", "calls"])
def test_a_timeline_cache_that_is_a_special_file_is_gone_without(capsys, home, kind, which):
    assert hmc(capsys, home, "log")[0] == 0
    main_file = tl_cache.cache_path(home / "state.db")
    assert main_file.exists()
    special(main_file if which == "cache" else tl_cache.calls_path(main_file), kind)
    for args in (("log",), ("blame",), ("rollback", "x1")):
        code, out, err = hmc(capsys, home, *args)
        assert code in (0, 1), (args, err)
        assert len(err.strip().splitlines()) <= 1
    code, out, err = hmc(capsys, home, "log")
    assert code == 0 and "Deploys on Fridays" in out
