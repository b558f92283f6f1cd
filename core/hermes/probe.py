"""Find the Hermes installed on this machine and the Python it runs on, and run hmc's driver
(driver.py) in that Python, in a subprocess, with a timeout (`hmc doctor`, issue #18).

Where Hermes is found (the same places as release.installed_version):
1. the distribution beside the `hermes` (or `hermesx`) command on PATH, run by the interpreter
   named in the command's shebang;
2. a checkout at `<home>/hermes-agent` with its own `venv/` or `.venv/` interpreter.

The driver never imports hmc: it is copied into a fresh scratch folder and run from there, so
nothing of hmc (or of the user's working directory) is on its path. Its environment is built
from nothing: a scratch HOME and HERMES_HOME, PYTHONHASHSEED=0, UTC, C.UTF-8. Its answers are
parsed as JSON, never evaluated. Standard library only, like the rest of core.hermes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from core.hermes.release import COMMANDS, _dist_versions, _site_packages, found_version

DRIVER = Path(__file__).with_name("driver.py")
TIMEOUT = 45.0  # the whole probe: the doctor's cases take a few seconds
MAX_SHEBANG = 4096
MAX_PYPROJECT = 1 << 20
Reader = Callable[[Path, int], bytes]


class ProbeError(RuntimeError):
    """Hermes could not be found or run, or it answered something that isn't the protocol."""


@dataclass(frozen=True)
class Installed:
    """A Hermes hmc can run: its version, the interpreter, and why hmc thinks so."""

    version: str
    python: Path
    where: str                      # for people: where it was found
    how: str                        # for people: why this interpreter
    pythonpath: tuple[str, ...] = ()  # folders the interpreter needs to see Hermes

    def as_dict(self) -> dict:
        return {"version": self.version, "python": str(self.python), "where": self.where,
                "how": self.how, "pythonpath": list(self.pythonpath)}


def _shebang(command: Path, read_file: Reader) -> Path | None:
    """The interpreter a script's `#!` line names (`#!/usr/bin/env python3` is looked up)."""
    try:
        first = read_file(command, MAX_SHEBANG)[:MAX_SHEBANG].split(b"\n", 1)[0]
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    if not words:
        return None
    if Path(words[0]).name == "env" and len(words) > 1:
        found = shutil.which(words[-1])
        return Path(found) if found else None
    return Path(words[0])


def _no_reader(path: Path, max_bytes: int) -> bytes:
    raise OSError(f"no reader was given for {path}")


def _checkout_python(checkout: Path) -> Path | None:
    for venv in ("venv", ".venv"):
        for name in ("python", "python3"):
            p = checkout / venv / "bin" / name
            if p.is_file() and os.access(p, os.X_OK):
                return p
    return None


def _checkout_version(checkout: Path, read_file: Reader) -> str | None:
    import re

    versions = _dist_versions(checkout)
    if versions:
        return versions[0]
    try:
        text = read_file(checkout / "pyproject.toml", MAX_PYPROJECT).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    m = re.search(r'(?m)^\s*version\s*=\s*"([^"]+)"', text)
    return found_version(m.group(1)) if m else None


def find(home: Path | None, path: str | None = None, read_file: Reader | None = None) -> Installed:
    """The installed Hermes hmc can run. Raises ProbeError saying what was found and what is missing.
    `path` stands in for $PATH; `read_file(path, max_bytes)` reads a small regular file without ever
    blocking (core.store.atomic.read_regular, passed in: a FIFO in a checkout can't hang hmc)."""
    read_file = read_file or _no_reader
    problems = []
    for name in COMMANDS:
        command = shutil.which(name, path=path)
        if not command:
            continue
        for cmd in dict.fromkeys((Path(command), Path(command).resolve())):
            for site in _site_packages(cmd.parent.parent):
                versions = _dist_versions(site)
                if not versions:
                    continue
                python = _shebang(cmd, read_file)
                if python is None or not python.is_file():
                    problems.append(f"{cmd} names no interpreter hmc can run"
                                    + (f" ({python})" if python else ""))
                    continue
                extra = (str(site),) if site == cmd.parent.parent else ()  # a `pip --target` folder
                return Installed(versions[0], python, f"Hermes {versions[0]} installed beside {cmd}",
                                 f"the interpreter named in {cmd.name}'s first line", extra)
    if home is not None:
        checkout = Path(home) / "hermes-agent"
        if checkout.is_dir():
            version = _checkout_version(checkout, read_file)
            python = _checkout_python(checkout)
            if version is None:
                problems.append(f"{checkout} has no version (no pyproject.toml version line)")
            elif python is None:
                problems.append(f"the checkout {checkout} (Hermes {version}) has no venv/bin/python "
                                f"or .venv/bin/python")
            else:
                return Installed(version, python, f"the hermes-agent checkout in {checkout} (version {version})",
                                 f"its own {python.parent.parent.name}/ interpreter", (str(checkout),))
    if problems:
        raise ProbeError("can't run Hermes: " + "; ".join(problems))
    where = f"no `hermes` command on PATH and no {Path(home) / 'hermes-agent'}" if home else "no `hermes` command on PATH"
    raise ProbeError(f"can't find Hermes: {where}")


def _env(scratch: Path, pythonpath: tuple[str, ...]) -> dict:
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "PYTHONHASHSEED": "0",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "HERMES_HOME": str(scratch / "hermes-home"),
        "HOME": str(scratch / "user"),
        "TZ": "UTC",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
    }
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(pythonpath)
    if os.environ.get("TMPDIR"):
        env["TMPDIR"] = os.environ["TMPDIR"]
    return env


def run(installed: Installed, requests: list[dict], scratch: Path, *, timeout: float = TIMEOUT,
        driver: Path = DRIVER) -> list[dict]:
    """Send every request to one driver process and return its answers, in order.

    `scratch` is a folder of hmc's (the homes named in the requests live there). Raises ProbeError
    when the process can't start, dies, outlasts `timeout`, or prints anything but one JSON object
    per request."""
    scratch = Path(scratch)
    for sub in ("user", "hermes-home", "cwd", "driver"):
        (scratch / sub).mkdir(parents=True, exist_ok=True)
    script = scratch / "driver" / "hmc_driver.py"
    shutil.copyfile(driver, script)
    lines = "".join(json.dumps({"id": i, **req}, ensure_ascii=True) + "\n"
                    for i, req in enumerate(requests, 1))
    # whatever Hermes prints goes to an anonymous file in the scratch folder: only its last line is shown
    err_file = tempfile.TemporaryFile(dir=scratch / "driver")
    with err_file:
        return _talk(installed, script, scratch, requests, lines, err_file, timeout)


def _talk(installed, script: Path, scratch: Path, requests: list, lines: str, err_file, timeout: float) -> list:
    try:
        proc = subprocess.Popen([str(installed.python), str(script)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=err_file, text=True, encoding="utf-8",
                                errors="replace", cwd=scratch / "cwd", env=_env(scratch, installed.pythonpath),
                                start_new_session=True)  # its own process group: a timeout stops all of it
    except OSError as exc:
        raise ProbeError(f"can't start {installed.python}: {exc.strerror or exc}") from None
    try:
        out, _ = proc.communicate(lines, timeout=timeout)
    except subprocess.TimeoutExpired:
        _stop(proc)
        raise ProbeError(f"Hermes did not answer within {timeout:g}s (timeout; the driver was stopped)") from None
    except BaseException:
        _stop(proc)
        raise
    answers = []
    for line in out.splitlines():
        if not line.strip():
            continue
        try:
            answer = json.loads(line)
        except ValueError:
            raise ProbeError(f"the driver printed something that isn't JSON: {line[:120]!r}") from None
        if not isinstance(answer, dict):
            raise ProbeError(f"the driver printed something that isn't an answer: {line[:120]!r}")
        answers.append(answer)
    if len(answers) < len(requests) or proc.returncode != 0:
        tail = _tail(err_file).strip().splitlines()[-1:] or [""]
        raise ProbeError(f"the driver stopped (exit {proc.returncode}) after {len(answers)} of "
                         f"{len(requests)} answers" + (f": {tail[0][:200]}" if tail[0] else ""))
    for i, answer in enumerate(answers[:len(requests)], 1):
        if answer.get("id") != i:
            raise ProbeError(f"the driver answered out of turn (expected {i}, got {answer.get('id')!r})")
    return answers[:len(requests)]


def _tail(err_file, size: int = 4096) -> str:
    """The end of what the driver printed on stderr (its file, still open)."""
    try:
        end = err_file.seek(0, os.SEEK_END)
        err_file.seek(max(0, end - size))
        return err_file.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _stop(proc: subprocess.Popen) -> None:
    """Kill the driver's whole process group (Hermes may have started children), then reap it."""
    import signal

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        proc.kill()
    try:
        proc.communicate(timeout=5)
    except (subprocess.TimeoutExpired, ValueError, OSError):
        pass


def scratch_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="hmc-doctor-"))
