"""A history build running past a threshold (10 s; HMC_PROGRESS_AFTER sets it, 0 here so no test
waits) shows its progress on stderr, in `hmc log` and in `hmc review`; the output itself is untouched.
A terminal gets one line that updates in place (checked on the reporter with a fake terminal)."""

from __future__ import annotations

import io
import json

import pytest

from tests.cli.runner import hmc
from tests.core.test_timeline import add, make_home, write_files
from tui.cli.progress import Progress


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


@pytest.fixture
def home(tmp_path):
    home, db = make_home(tmp_path)
    db.session("s1")
    for i in range(150):
        db.call("s1", add(f"fact {i}"))
    write_files(home, [f"fact {i}" for i in range(150)])
    return home


def test_no_progress_under_the_threshold_nor_when_nothing_is_replayed(home, monkeypatch):
    quiet = hmc("log", "--json", home=home)  # under the 10 s threshold: no progress
    assert quiet.returncode == 0 and "rebuilding" not in quiet.stderr
    monkeypatch.setenv("HMC_PROGRESS_AFTER", "0")
    warm = hmc("blame", "--json", home=home)  # the cache is warm: nothing to replay, nothing shown
    assert warm.returncode == 0 and "rebuilding" not in warm.stderr


@pytest.mark.long
def test_progress_appears_when_the_threshold_is_passed(home, tmp_path, monkeypatch):
    monkeypatch.setenv("HMC_PROGRESS_AFTER", "0")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "another-cache"))  # a cold build
    out = hmc("log", "--json", home=home)
    assert out.returncode == 0, out.stderr
    assert "hmc: rebuilding the memory history: 150 of 150 events (100%)" in out.stderr
    assert len(json.loads(out.stdout)["writes"]) == 150
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "a-third-cache"))
    review = hmc("review", "--json", home=home)
    assert review.returncode in (0, 1), review.stderr
    assert "rebuilding the memory history for entry ages: 150 of 150 events (100%)" in review.stderr
    json.loads(review.stdout)


def test_a_bad_threshold_falls_back_to_ten_seconds(home, tmp_path, monkeypatch):
    monkeypatch.setenv("HMC_PROGRESS_AFTER", "soon")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "another-cache"))
    out = hmc("log", "--json", home=home)
    assert out.returncode == 0 and "rebuilding" not in out.stderr


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_line_updates_in_place(monkeypatch):
    monkeypatch.setenv("HMC_PROGRESS_AFTER", "0")
    monkeypatch.setattr("tui.cli.progress.EVERY_TTY", 0.0)
    stream = Tty()
    p = Progress("rebuilding the memory history", stream)
    for done in (64, 128, 200):
        p(done, 200)
    p.close()
    text = stream.getvalue()
    assert text.count("\r") == 3 and text.endswith("(100%)\x1b[K\n") and text.count("\n") == 1
    assert "128 of 200 events (64%)" in text
    silent = Tty()
    monkeypatch.setenv("HMC_PROGRESS_AFTER", "3600")
    q = Progress("x", silent)
    q(1, 2)
    q.close()
    assert silent.getvalue() == ""
