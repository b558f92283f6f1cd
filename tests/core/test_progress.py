"""core.progress: when long work is worth showing, what its line says, and the jobs running now."""

from __future__ import annotations

import threading

import pytest

from core.progress import PROGRESS_AFTER, Jobs, Tracker, after_seconds


@pytest.mark.parametrize("value, expected", [("", PROGRESS_AFTER), ("0", 0.0), ("2.5", 2.5), ("-3", 0.0),
                                             ("soon", PROGRESS_AFTER), ("nan", PROGRESS_AFTER), (" 4 ", 4.0)])
def test_the_threshold_comes_from_the_environment(monkeypatch, value, expected):
    monkeypatch.setenv("HMC_PROGRESS_AFTER", value)
    assert after_seconds() == expected


def test_the_default_threshold_is_ten_seconds(monkeypatch):
    monkeypatch.delenv("HMC_PROGRESS_AFTER", raising=False)
    assert after_seconds() == 10.0


def test_a_tracker_is_due_after_its_threshold_until_it_finishes():
    t = Tracker("rebuilding", after=10.0, started=100.0)
    assert not t.due(109.9) and t.due(110.0)
    t.finish()
    assert not t.due(500.0)


def test_the_line_names_the_work_and_how_far_it_got():
    t = Tracker("rebuilding the memory history", after=0)
    assert t.line() == "rebuilding the memory history: starting"
    t(12_345, 50_000)
    assert t.snapshot() == (12_345, 50_000)
    assert t.line() == "rebuilding the memory history: 12,345 of 50,000 events (24%)"
    t(60_000, 50_000)  # a count past its total never says more than 100%
    assert t.line().endswith("(100%)")
    t(-1, -5)
    assert t.snapshot() == (0, 0)


def test_jobs_show_the_oldest_due_job_and_forget_ended_ones(monkeypatch):
    monkeypatch.setenv("HMC_PROGRESS_AFTER", "0")
    jobs = Jobs()
    assert jobs.shown() is None
    with jobs("first") as first:
        with jobs("second"):
            assert jobs.shown() is first
        assert jobs.shown() is first
    assert jobs.shown() is None and first.finished


def test_a_job_that_fails_still_ends(monkeypatch):
    monkeypatch.setenv("HMC_PROGRESS_AFTER", "0")
    jobs = Jobs()
    with pytest.raises(RuntimeError):
        with jobs("doomed"):
            raise RuntimeError("boom")
    assert jobs.shown() is None


def test_jobs_started_and_ended_from_threads(monkeypatch):
    monkeypatch.setenv("HMC_PROGRESS_AFTER", "0")
    jobs = Jobs()
    started, release = threading.Barrier(5), threading.Event()

    def work(i):
        with jobs(f"job {i}") as progress:
            progress(i, 10)
            started.wait(10)
            release.wait(10)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    started.wait(10)
    assert jobs.shown() is not None
    release.set()
    for t in threads:
        t.join(10)
    assert jobs.shown() is None
