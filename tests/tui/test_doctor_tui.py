"""hmc doctor in the TUI: a release hmc doesn't know gets a notice offering the check, the check runs
in a worker and its result replaces the notice; a write under rules shown to differ asks first,
naming the difference. (A fake interpreter and a saved verdict: the real runs are in
tests/conformance/test_doctor.py.)"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from core.doctor import verdict as remembered
from core.doctor.check import Difference, Verdict, hmc_digest
from core.store.memory import serialize
from tests.tui.helpers import memory_text, settle, toasts, until, until_dialog
from tui.screens.dialogs import ConfirmDialog, EditEntryDialog


def install(home: Path, version: str) -> Path:
    co = home / "hermes-agent"
    (co / "venv" / "bin").mkdir(parents=True)
    (co / "pyproject.toml").write_text(f'[project]\nversion = "{version}"\n')
    py = co / "venv" / "bin" / "python"
    py.write_text("#!/bin/sh\necho 'no Hermes here' >&2\nexit 1\n")
    py.chmod(0o755)
    return py


@pytest.fixture
def home(hermes_home, monkeypatch) -> Path:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # no `hermes` command: the checkout decides
    (hermes_home / "memories").mkdir(parents=True)
    (hermes_home / "memories" / "MEMORY.md").write_text(serialize(["Project uses pnpm"]))
    return hermes_home


def notices(app) -> list[str]:
    return [f"{n.title}: {n.message}" for n in toasts(app)]


async def test_an_unknown_release_gets_a_notice_and_the_check_replaces_it(home, make_app):
    install(home, "0.23.1")
    app = make_app(home, greet=True)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await until(pilot, lambda: any("doesn't know" in n for n in notices(app)))
        offer = next(n for n in notices(app) if "doesn't know" in n)
        assert "Hermes 0.23.1 is newer than any release hmc knows" in offer
        assert "ctrl+p → app: Check hmc against your Hermes" in offer
        app.action_doctor()
        assert await until(pilot, lambda: any("can't check against your Hermes" in n for n in notices(app)))
        assert not any("doesn't know" in n for n in notices(app))  # the result replaced the notice
        assert any("the driver stopped (exit 1)" in n for n in notices(app))


def save_differing(python: Path) -> None:
    v = Verdict("differ", version="0.19.0", where="test", how="test", rules="0.19.0", python=str(python),
                hermes_digest="cd" * 32, hmc_digest=hmc_digest(), checked_at=time.time(),
                areas={"reading": {"agreed": 7, "run": 8, "skipped": 0}})
    v.differences.append(Difference("reading", "a byte-order mark before entry 1", "reads ['a']", "reads ['\\ufeffa']"))
    assert remembered.save(v)


async def test_a_write_under_rules_shown_to_differ_asks_first_naming_it(home, make_app):
    save_differing(install(home, "0.19.0"))
    app = make_app(home)
    assert app.curator.release.name == "0.19.0"
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("a", *"Tests run with pytest")
        await pilot.press("ctrl+s")
        dialog = await until_dialog(pilot, ConfirmDialog)
        body = str(dialog.body)
        assert dialog.title_text == "Your Hermes differs here"
        assert ("your Hermes 0.19.0 reads its files differently from what hmc expects "
                "(reading: a byte-order mark before entry 1)") in body
        await pilot.press("n")
        await settle(app, pilot)
        assert memory_text(home) == "Project uses pnpm"
        if isinstance(app.screen, EditEntryDialog):
            await pilot.press("ctrl+s")
        else:
            await pilot.press("a", *"Tests run with pytest", "ctrl+s")
        await until_dialog(pilot, ConfirmDialog)
        await pilot.press("y")
        await settle(app, pilot)
        assert memory_text(home).endswith("\n§\nTests run with pytest")


async def test_an_agreeing_release_writes_without_asking(home, make_app):
    install(home, "0.19.0")
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("a", *"Tests run with pytest", "ctrl+s")
        await settle(app, pilot)
        assert memory_text(home).endswith("\n§\nTests run with pytest")


@pytest.mark.parametrize("damage", ["areas-list", "differ-with-counts-as-text", "nested"])
async def test_a_damaged_differing_verdict_is_named_at_start_and_writes_go_ahead(home, make_app, damage):
    import json

    python = install(home, "0.19.0")
    save_differing(python)
    path = next(p for p in remembered.folder().iterdir() if p.name != remembered.INDEX)
    data = json.loads(path.read_text())
    if damage == "areas-list":
        data["areas"] = ["reading"]
    elif damage == "differ-with-counts-as-text":
        data["areas"]["reading"] = {"agreed": "7", "run": "8", "skipped": "0"}
    path.write_text("[" * 100_000 if damage == "nested" else json.dumps(data))
    app = make_app(home, greet=True)
    async with app.run_test(size=(120, 36)) as pilot:  # it starts (it died at start with a traceback)
        assert await until(pilot, lambda: any("is damaged" in n for n in notices(app)))
        assert any(f"hmc's remembered doctor verdict ({path}) is damaged" in n for n in notices(app))
        await pilot.press("a", *"Tests run with pytest", "ctrl+s")  # no verdict: nothing asks first
        await settle(app, pilot)
        assert memory_text(home).endswith("\n§\nTests run with pytest")


async def test_quitting_during_a_check_stops_it_at_once(home, make_app, tmp_path):
    """The check runs in a worker; quitting cancels it, and the worker stops the driver's whole
    process group within a moment (it used to hold the exit for up to 45 s on a blank screen)."""
    from tests.core.test_doctor_processes import gone, pid_in

    driver_pid, child_pid = tmp_path / "driver.pid", tmp_path / "child.pid"
    py = install(home, "0.23.1")
    py.write_text(f"#!/bin/sh\necho $$ > {driver_pid}\nsleep 300 &\necho $! > {child_pid}\nwait\n")
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        app.action_doctor()
        deadline = time.monotonic() + 20
        while not (child_pid.exists() and child_pid.read_text().strip()) and time.monotonic() < deadline:
            await pilot.pause(0.05)  # (not helpers.until: it waits for the workers to finish)
        workers = [w for w in app.workers if w.group == "doctor"]
        assert workers and child_pid.exists()
        quit_at = time.monotonic()
        app.exit()
        await pilot.pause()
    from textual.worker import WorkerCancelled

    for worker in workers:  # the worker has ended: nothing holds the process's exit
        with pytest.raises(WorkerCancelled):
            await worker.wait()
    assert time.monotonic() - quit_at < 20, "quitting waited for the check"  # (it held the exit up to 45 s)
    assert gone(pid_in(driver_pid), within=3) and gone(pid_in(child_pid), within=3)
