"""When hmc is done with Hermes, for any reason, nothing it started is left running and no scratch
folder is left: the driver's children after a success, a driver whose child holds its stdout, a
driver that floods stdout, a check stopped by hmc, hmc itself stopped by SIGTERM, and hmc gone
before its driver (the driver's own watch). Fake interpreters stand in for Hermes (shell scripts),
except for the last test, which runs hmc's real driver."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from core.doctor.check import doctor
from core.hermes import probe
from core.hermes.probe import Installed, ProbeError, ProbeStopped
from tests.cli.runner import ROOT


def fake(tmp_path: Path, body: str) -> Installed:
    exe = tmp_path / "fake-python"
    exe.write_text("#!/bin/sh\n" + body)
    exe.chmod(0o755)
    return Installed("0.22.2", exe, "a fake", "a test")


def gone(pid: int, within: float = 5.0) -> bool:
    """Whether process `pid` has ended (a zombie no one reaps counts as ended) within `within` s."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            state = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
        else:
            if "\nState:\tZ" in state:
                return True
        time.sleep(0.05)
    return False


def pid_in(path: Path, within: float = 10.0) -> int:
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            text = path.read_text().strip()
            if text:
                return int(text)
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    raise AssertionError(f"no pid in {path}")


def test_the_driver_s_children_are_stopped_after_a_success(tmp_path):
    child = tmp_path / "child.pid"
    driver = fake(tmp_path, f"sleep 300 >/dev/null 2>&1 &\necho $! > {child}\ncat >/dev/null\necho '{{\"id\": 1}}'\n")
    assert probe.run(driver, [{"op": "hello"}], tmp_path / "scratch") == [{"id": 1}]
    assert gone(pid_in(child)), "a child of the driver outlived the check"


def test_a_driver_whose_child_holds_its_stdout_is_not_waited_for(tmp_path):
    child = tmp_path / "child.pid"
    driver = fake(tmp_path, f"sleep 300 &\necho $! > {child}\ncat >/dev/null\necho '{{\"id\": 1}}'\n")
    started = time.monotonic()
    assert probe.run(driver, [{"op": "hello"}], tmp_path / "scratch", timeout=30) == [{"id": 1}]
    assert time.monotonic() - started < 10, "waited for the child that held stdout"
    assert gone(pid_in(child))


def test_a_driver_that_floods_stdout_is_stopped_with_the_reason(tmp_path):
    child = tmp_path / "child.pid"
    driver = fake(tmp_path, f"echo $$ > {child}\ncat >/dev/null\nyes '{'x' * 200}'\n")
    with pytest.raises(ProbeError, match=r"printed more than 64 MB \(it was stopped\)"):
        probe.run(driver, [{"op": "hello"}], tmp_path / "scratch", timeout=60)
    assert gone(pid_in(child))


def test_a_check_hmc_stops_ends_at_once_and_leaves_nothing(tmp_path):
    child = tmp_path / "child.pid"
    driver = fake(tmp_path, f"sleep 300 &\necho $! > {child}\nwait\n")
    started = time.monotonic()
    with pytest.raises(ProbeStopped):
        probe.run(driver, [{"op": "hello"}], tmp_path / "scratch", timeout=60,
                  should_stop=lambda: time.monotonic() - started > 0.5)
    assert time.monotonic() - started < 5
    assert gone(pid_in(child))


def test_the_doctor_stopped_removes_its_scratch_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", None)  # TMPDIR read again
    driver = fake(tmp_path, "sleep 300\n")
    started = time.monotonic()
    with pytest.raises(ProbeStopped):
        doctor(tmp_path, installed=driver, timeout=60, should_stop=lambda: time.monotonic() - started > 0.5)
    assert not list((tmp_path / "tmp").glob("hmc-doctor-*"))


def test_malformed_answers_are_the_doctor_s_one_line_naming_the_case(tmp_path):
    """Every answer lacks what hmc reads (`{"id": n}` only): an error verdict naming the case, never
    'unexpected error: KeyError'."""
    driver = fake(tmp_path, 'i=0\nwhile read line; do i=$((i+1)); echo "{\\"id\\": $i}"; done\n')
    verdict = doctor(tmp_path, installed=driver, timeout=60)
    assert verdict.status == "error" and verdict.exit_code() == 2
    assert verdict.error.startswith("Hermes answered something hmc can't read (reading, "), verdict.error
    assert "no 'memory_entries'" in verdict.error


def test_wrong_types_in_answers_too(tmp_path):
    driver = fake(tmp_path, 'i=0\nwhile read line; do i=$((i+1)); '
                            'echo "{\\"id\\": $i, \\"memory_entries\\": 7, \\"search\\": 3, \\"steps\\": 1}"; done\n')
    verdict = doctor(tmp_path, installed=driver, timeout=60)
    assert verdict.status == "error" and "answered something hmc can't read" in verdict.error


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_hmc_stopped_by_a_signal_leaves_no_driver_and_no_scratch(tmp_path, sig):
    """`timeout -s TERM hmc doctor`, or a closed terminal: the driver's group is stopped and the
    scratch folder removed on the way out, and hmc says it was interrupted."""
    home = tmp_path / "home"
    (home / "memories").mkdir(parents=True)
    co = home / "hermes-agent"
    (co / "venv" / "bin").mkdir(parents=True)
    (co / "pyproject.toml").write_text('[project]\nversion = "0.22.2"\n')
    driver_pid, child_pid = tmp_path / "driver.pid", tmp_path / "child.pid"
    py = co / "venv" / "bin" / "python"
    py.write_text(f"#!/bin/sh\necho $$ > {driver_pid}\nsleep 300 &\necho $! > {child_pid}\nwait\n")
    py.chmod(0o755)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, PATH="/usr/bin:/bin", TMPDIR=str(tmp),
               PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p))
    proc = subprocess.Popen([sys.executable, "-m", "tui.cli", "--home", str(home), "doctor"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        driver, child = pid_in(driver_pid), pid_in(child_pid)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and "interrupted" in err, (proc.returncode, out, err)
    assert gone(driver) and gone(child), "a process of the check outlived hmc"
    assert not list(tmp.glob("hmc-doctor-*")), "the scratch folder outlived hmc"


@pytest.mark.parametrize("busy", [False, True], ids=["waiting for requests", "in the middle of one"])
def test_the_driver_cleans_up_when_hmc_is_gone_first(tmp_path, busy):
    """hmc killed outright (SIGKILL: no handler runs): hmc's real driver sees its parent gone, removes
    the scratch folder it was given and stops its process group. What nothing can catch: a
    grandchild that left the group itself (setsid) — README says so."""
    scratch = tmp_path / "hmc-doctor-test"
    (scratch / "homes").mkdir(parents=True)
    (scratch / "homes" / "a-file").write_text("x")
    stand_in = (
        "import os, subprocess, sys, time\n"
        f"p = subprocess.Popen([sys.executable, {str(probe.DRIVER)!r}], stdin=subprocess.PIPE, stdout=subprocess.PIPE,\n"
        "                     start_new_session=True,\n"
        f"                     env={{'PATH': '/usr/bin:/bin', 'HMC_DOCTOR_SCRATCH': {str(scratch)!r},\n"
        "                          'HMC_DOCTOR_PARENT': str(os.getpid())})\n"
        + ("p.stdin.write(b'{\"id\": 1, \"op\": \"sleep\", \"seconds\": 300}\\n'); p.stdin.flush()\n" if busy else "")
        + "print(p.pid, flush=True)\n"
        "time.sleep(300)\n")
    hmc_stand_in = subprocess.Popen([sys.executable, "-c", stand_in], stdout=subprocess.PIPE, text=True)
    try:
        driver = int(hmc_stand_in.stdout.readline())
        os.kill(hmc_stand_in.pid, signal.SIGKILL)
        hmc_stand_in.wait(timeout=10)
    finally:
        if hmc_stand_in.poll() is None:
            hmc_stand_in.kill()
    assert gone(driver, within=10), "the driver outlived hmc"
    end = time.monotonic() + 10
    while scratch.exists() and time.monotonic() < end:
        time.sleep(0.05)
    assert not scratch.exists(), "the scratch folder outlived hmc"
