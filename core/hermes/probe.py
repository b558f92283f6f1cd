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
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from core.hermes.oneline import one_line
from core.hermes.release import COMMANDS, _dist_versions, _site_packages, found_version

if TYPE_CHECKING:  # pragma: no cover
    import subprocess
# subprocess and tempfile are imported where the driver runs: `hmc status` and the TUI only find
# Hermes (find), and every command that shows the doctor's verdict would pay for them.

DRIVER = Path(__file__).with_name("driver.py")
TIMEOUT = 45.0  # the whole probe: the doctor's cases take a few seconds
MAX_SHEBANG = 4096
MAX_PYPROJECT = 1 << 20
Reader = Callable[[Path, int], bytes]


class ProbeError(RuntimeError):
    """Hermes could not be found or run, or it answered something that isn't the protocol.
    `shown` is what the driver printed, whole: whoever shows it masks its secrets first, then
    cuts it (core.doctor.check.probe_error), as a key cut short can't be masked."""

    def __init__(self, message: str, shown: str | None = None, quoted: bool = True):
        super().__init__(message)
        self.message, self.shown, self.quoted = message, shown, quoted

    def __str__(self) -> str:
        return self.said()

    def said(self, show: Callable[[str], str] = lambda text: text[:200]) -> str:
        """The message, with what the driver printed passed through `show` (a mask, then a cut)."""
        if self.shown is None:
            return self.message
        shown = show(self.shown)
        return f"{self.message}: {shown!r}" if self.quoted else f"{self.message}: {shown}"


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
                    problems.append(f"{one_line(cmd)} names no interpreter hmc can run"
                                    + (f" ({one_line(python)})" if python else ""))
                    continue
                extra = (str(site),) if site == cmd.parent.parent else ()  # a `pip --target` folder
                return Installed(versions[0], python, f"Hermes {versions[0]} installed beside {one_line(cmd)}",
                                 f"the interpreter named in {one_line(cmd.name)}'s first line", extra)
    if home is not None:
        checkout = Path(home) / "hermes-agent"
        if checkout.is_dir():
            version = _checkout_version(checkout, read_file)
            python = _checkout_python(checkout)
            if version is None:
                problems.append(f"{one_line(checkout)} has no version (no pyproject.toml version line)")
            elif python is None:
                problems.append(f"the checkout {one_line(checkout)} (Hermes {version}) has no venv/bin/python "
                                f"or .venv/bin/python")
            else:
                return Installed(version, python, f"the hermes-agent checkout in {one_line(checkout)} (version {version})",
                                 f"its own {one_line(python.parent.parent.name)}/ interpreter", (str(checkout),))
    if problems:
        raise ProbeError("can't run Hermes: " + "; ".join(problems))
    where = f"no `hermes` command on PATH and no {one_line(Path(home) / 'hermes-agent')}" if home else "no `hermes` command on PATH"
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
        driver: Path = DRIVER, should_stop: Callable[[], bool] | None = None,
        cleanup: Path | None = None) -> list[dict]:
    """Send every request to one driver process and return its answers, in order.

    `scratch` is a folder of hmc's (the homes named in the requests live there). Raises ProbeError
    when the process can't start, dies, outlasts `timeout`, prints more than MAX_OUTPUT, or prints
    anything but one JSON object per request; ProbeStopped when `should_stop()` turns true. When
    it returns or raises, nothing the driver started is left running (its process group is
    stopped). Should hmc itself be gone first (killed, its terminal closed), the driver stops its
    group and removes `cleanup` (a scratch folder `hmc-doctor-…`, scratch_dir's) by itself."""
    import subprocess
    import tempfile

    scratch = Path(scratch)
    for sub in ("user", "hermes-home", "cwd", "driver"):
        (scratch / sub).mkdir(parents=True, exist_ok=True)
    script = scratch / "driver" / "hmc_driver.py"
    shutil.copyfile(driver, script)
    lines = "".join(json.dumps({"id": i, **req}, ensure_ascii=True) + "\n"
                    for i, req in enumerate(requests, 1)).encode("ascii")
    env = _env(scratch, installed.pythonpath)
    if cleanup is not None:
        env[CLEANUP_VAR] = str(cleanup)
        env[PARENT_VAR] = str(os.getpid())
    # whatever Hermes prints goes to an anonymous file in the scratch folder: only its last line is shown
    err_file = tempfile.TemporaryFile(dir=scratch / "driver")
    with err_file:
        try:
            proc = subprocess.Popen([str(installed.python), str(script)], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=err_file, cwd=scratch / "cwd", env=env,
                                    start_new_session=True)  # its own process group: stopped whole
        except OSError as exc:
            raise ProbeError(f"can't start {one_line(installed.python)}: {exc.strerror or exc}") from None
        try:
            out = _exchange(proc, lines, timeout, should_stop or (lambda: False))
        finally:
            _stop(proc)  # always: Hermes may have started children, done or not
        return _answers(out.decode("utf-8", "replace"), requests, proc.returncode, err_file)


class ProbeStopped(ProbeError):
    """hmc asked the driver to stop (the TUI quitting during a check)."""


CLEANUP_VAR = "HMC_DOCTOR_SCRATCH"  # the scratch folder the driver removes if hmc is gone (driver.py)
PARENT_VAR = "HMC_DOCTOR_PARENT"  # hmc's pid: the driver's parent, until hmc is gone
MAX_OUTPUT = 64 << 20  # bytes of answers: the doctor's are a few MB at most
EXIT_GRACE = 0.5  # seconds to read what is left once the driver exited (a child may hold its stdout)


def _exchange(proc: subprocess.Popen, data: bytes, timeout: float, should_stop: Callable[[], bool]) -> bytes:
    """Write `data` to the driver and read its stdout until it closes, within `timeout` and
    MAX_OUTPUT bytes. Once the driver has exited, only EXIT_GRACE more: a child of Hermes that
    kept the driver's stdout open is not waited for."""
    import select
    import subprocess
    import time

    deadline = time.monotonic() + timeout
    stdin, stdout = proc.stdin.fileno(), proc.stdout.fileno()
    os.set_blocking(stdin, False)
    out = bytearray()
    writing, exited_at = bool(data), None
    if not data:
        proc.stdin.close()
    while True:
        if should_stop():
            raise ProbeStopped("the check was stopped")
        now = time.monotonic()
        if now >= deadline:
            raise ProbeError(f"Hermes did not answer within {timeout:g}s (timeout; the driver was stopped)")
        if exited_at is None and proc.poll() is not None:
            exited_at = now
        if exited_at is not None and now - exited_at > EXIT_GRACE:
            return bytes(out)
        ready, can_write, _ = select.select([stdout], [stdin] if writing else [], [], min(0.2, deadline - now))
        if can_write:
            try:
                sent = os.write(stdin, data[:65536])
            except (BrokenPipeError, OSError):  # the driver stopped reading (it died, or answered early)
                sent = len(data)
            data = data[sent:]
            if not data:
                writing = False
                proc.stdin.close()
        if ready:
            chunk = os.read(stdout, 1 << 16)
            if not chunk:  # all said: give the driver a moment to exit by itself (its exit code counts)
                try:
                    proc.wait(timeout=max(0.0, min(5.0, deadline - time.monotonic())))
                except subprocess.TimeoutExpired:
                    pass
                return bytes(out)
            out += chunk
            if len(out) > MAX_OUTPUT:
                raise ProbeError(f"the driver printed more than {MAX_OUTPUT >> 20} MB (it was stopped): "
                                 "that isn't hmc's protocol")


def _answers(out: str, requests: list, returncode: int | None, err_file) -> list[dict]:
    answers = []
    for line in out.splitlines():
        if not line.strip():
            continue
        try:
            answer = json.loads(line)
        except ValueError:
            raise ProbeError("the driver printed something that isn't JSON", shown=line) from None
        if not isinstance(answer, dict):
            raise ProbeError("the driver printed something that isn't an answer", shown=line)
        answers.append(answer)
    if len(answers) < len(requests) or returncode not in (0, None):
        tail = _tail(err_file).strip().splitlines()[-1:] or [""]
        raise ProbeError(f"the driver stopped (exit {returncode}) after {len(answers)} of {len(requests)} answers",
                         shown=tail[0] or None, quoted=False)
    for i, answer in enumerate(answers[:len(requests)], 1):
        if answer.get("id") != i:
            raise ProbeError(f"the driver answered out of turn (expected {i}, got {answer.get('id')!r:.40})")
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
    """Stop the driver's whole process group (Hermes may have started children, and they may
    outlive the driver), then reap the driver."""
    import signal
    import subprocess

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:  # the group is gone already (nothing left), or not ours
        if proc.poll() is None:
            proc.kill()
    for stream in (proc.stdin, proc.stdout):
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def scratch_dir() -> Path:
    import tempfile

    return Path(tempfile.mkdtemp(prefix="hmc-doctor-"))
