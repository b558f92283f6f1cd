"""Client for the Hermes oracle: one long-lived subprocess per release.

Hermes is never imported here. HermesOracle starts hmc's driver (core/hermes/driver.py) with
``python -P``, ``PYTHONPATH=<release folder>``, ``PYTHONHASHSEED=0`` and a
scratch folder as cwd, HOME and default HERMES_HOME, then talks JSON lines.
The process starts on the first request, is reused by every test of the
session, is restarted after a crash or a timeout, and is closed at session end.

Results that reach a test:
- a dict (shapes in each method's docstring);
- OracleUnsupported (a pytest skip) when the release lacks the feature; its
  reason names the release, so the matrix counts it as "n/a", never a pass;
- OracleError (a test failure) when the harness itself went wrong.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from tests.conformance import releases

SERVER = Path(__file__).resolve().parents[2] / "core" / "hermes" / "driver.py"
DEFAULT_TIMEOUT = 30.0
STORE_FILES = ("MEMORY.md", "USER.md")
FEATURE_NAMES = {
    "drift": "drift guard",
    "batch": "batch (operations)",
    "write_approval": "write approval",
    "load_on_disk_store": "load_on_disk_store()",
    "consolidation_cap": "consolidation-failure cap",
    "threat_patterns": "tools.threat_patterns scanner",
    "skill_batch": "skill_manage batch (operations)",
}


class OracleError(RuntimeError):
    """The oracle could not answer (crash, timeout, harness bug). Always a failure."""


class OracleUnsupported(pytest.skip.Exception):
    """The release has no such feature. A skip whose reason names the release.

    It derives from pytest's Skipped (a BaseException): ``except Exception``
    does not catch it. Use ``oracle.has(feature)`` to branch instead.
    """

    def __init__(self, version: str, reason: str):
        self.version = version
        self.reason = reason
        super().__init__(msg=f"hermes {version} can't answer: {reason}", pytrace=False,
                         _use_item_location=True)


def _b64(value):
    return None if value is None else base64.b64decode(value)


def _decode_files(resp: dict) -> dict:
    if "files" in resp:
        resp["files"] = {name: _b64(v) for name, v in resp["files"].items()}
    if "skills_files" in resp:
        resp["skills_files"] = {name: _b64(v) for name, v in resp["skills_files"].items()}
    return resp


def _limits(limits):
    return None if limits is None else [limits[0], limits[1]]


class HermesOracle:
    """One Hermes release behind a JSON-lines subprocess."""

    def __init__(self, version: str, folder: Path, *, timeout: float = DEFAULT_TIMEOUT,
                 python: str | None = None):
        self.version = version
        self.folder = Path(folder)
        self.timeout = timeout
        self.python = python or sys.executable
        self.restarts = 0
        self._proc: subprocess.Popen | None = None
        self._lines: queue.Queue | None = None
        self._reader: threading.Thread | None = None
        self._scratch: Path | None = None
        self._stderr = None
        self._ids = itertools.count(1)
        self._hello: dict | None = None

    def __repr__(self) -> str:
        return f"HermesOracle({self.version!r}, {str(self.folder)!r})"

    # ------------------------------------------------------------------ process

    def _env(self) -> dict:
        start = releases._START_ENV
        env = {
            "PATH": start.get("PATH", os.defpath),
            "PYTHONPATH": str(self.folder),
            "PYTHONHASHSEED": "0",
            "PYTHONIOENCODING": "utf-8",
            "HERMES_HOME": str(self._scratch / "hermes-home"),
            "HOME": str(self._scratch / "user"),
            "TZ": "UTC",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
        }
        if start.get("TMPDIR"):
            env["TMPDIR"] = start["TMPDIR"]
        if os.name == "nt":  # pragma: no cover - CI is Linux
            env["SYSTEMROOT"] = start.get("SYSTEMROOT", "")
        return env

    def start(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            return
        self._discard()
        self._scratch = Path(tempfile.mkdtemp(prefix=f"hmc-oracle-{self.version}-"))
        (self._scratch / "user").mkdir()
        (self._scratch / "cwd").mkdir()
        self._stderr = open(self._scratch / "stderr.log", "wb")
        self._proc = subprocess.Popen(
            [self.python, "-P", str(SERVER)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
            cwd=self._scratch / "cwd", env=self._env(),
            text=True, encoding="utf-8", bufsize=1,
        )
        self._lines = queue.Queue()
        self._reader = threading.Thread(target=self._pump, args=(self._proc.stdout, self._lines),
                                        daemon=True, name=f"oracle-{self.version}")
        self._reader.start()
        hello = self._roundtrip({"op": "hello"}, self.timeout)
        if "error" in hello:
            raise OracleError(f"hermes {self.version} oracle failed to start: {hello}")
        expected = releases.package(self.version).dist_version
        if hello.get("version") != expected:
            raise OracleError(f"{self.folder} holds {hello.get('dist')} {hello.get('version')}, "
                              f"not Hermes {self.version} ({releases.package(self.version).requirement})")
        hello = {**hello, "version": self.version, "dist_version": hello["version"]}
        self._hello = hello

    @staticmethod
    def _pump(stream, lines: queue.Queue) -> None:
        for line in stream:
            lines.put(line)
        lines.put(None)

    def _stderr_tail(self, n: int = 3000) -> str:
        if self._scratch is None:
            return ""
        try:
            return (self._scratch / "stderr.log").read_text("utf-8", "replace")[-n:]
        except OSError:
            return ""

    def _discard(self) -> None:
        """Drop a dead or stuck process and its scratch folder."""
        if self._proc is not None:
            if self._proc.poll() is None:
                self._proc.kill()
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:  # pragma: no cover
                pass
            if self._reader is not None:  # it sees EOF once the process is gone
                self._reader.join(timeout=5)
            for pipe in (self._proc.stdin, self._proc.stdout):
                try:
                    pipe.close()
                except (OSError, ValueError):
                    pass
        if self._stderr is not None:
            self._stderr.close()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
        self._proc = self._lines = self._scratch = self._stderr = self._reader = None

    def close(self) -> None:
        proc = self._proc
        if proc is not None and proc.poll() is None:
            try:
                proc.stdin.write(json.dumps({"op": "shutdown"}) + "\n")
                proc.stdin.flush()
                proc.stdin.close()
                proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self._discard()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    # ------------------------------------------------------------------ protocol

    def _roundtrip(self, req: dict, timeout: float) -> dict:
        req = {"id": next(self._ids), **req}
        proc, lines = self._proc, self._lines
        try:
            proc.stdin.write(json.dumps(req, ensure_ascii=True) + "\n")
            proc.stdin.flush()
        except OSError as exc:
            tail = self._stderr_tail()
            self._discard()
            self.restarts += 1
            raise OracleError(f"hermes {self.version} oracle is gone ({exc}).\n{tail}") from None
        try:
            line = lines.get(timeout=timeout)
        except queue.Empty:
            tail = self._stderr_tail()
            self._discard()
            self.restarts += 1
            raise OracleError(f"hermes {self.version} oracle: no answer to {req['op']!r} "
                              f"within {timeout:g}s; restarted.\n{tail}") from None
        if line is None:
            proc.wait(timeout=5)
            tail = self._stderr_tail()
            code = proc.returncode
            self._discard()
            self.restarts += 1
            raise OracleError(f"hermes {self.version} oracle died (exit {code}) on "
                              f"{req['op']!r}; it restarts on the next request.\n{tail}")
        resp = json.loads(line)
        if resp.get("id") != req["id"]:
            self._discard()
            raise OracleError(f"hermes {self.version} oracle answered out of turn: {resp}")
        del resp["id"]
        return resp

    def request(self, req: dict, *, timeout: float | None = None) -> dict:
        """Send one raw request; return the raw answer (may hold "unsupported" or "error")."""
        self.start()
        return self._roundtrip(req, self.timeout if timeout is None else timeout)

    def _call(self, op: str, *, timeout: float | None = None, **fields) -> dict:
        resp = self.request({"op": op, **fields}, timeout=timeout)
        if "unsupported" in resp:
            raise OracleUnsupported(self.version, resp["unsupported"])
        if "error" in resp:
            raise OracleError(f"hermes {self.version} oracle: {op} failed: {resp['error']}: "
                              f"{resp.get('message')}\n{resp.get('traceback', '')}")
        return _decode_files(resp)

    # ------------------------------------------------------------------ features

    def hello(self) -> dict:
        """{"version", "python", "hashseed", "schema_version", "features": {name: bool}}."""
        self.start()
        return self._hello

    @property
    def features(self) -> dict:
        """drift, batch, load_on_disk_store, consolidation_cap, threat_patterns, write_approval."""
        return self.hello()["features"]

    def has(self, feature: str) -> bool:
        feats = self.features
        if feature not in feats:
            raise KeyError(f"unknown oracle feature {feature!r}; known: {sorted(feats)}")
        return bool(feats[feature])

    def require(self, feature: str) -> None:
        """Skip (as n/a, naming the release) unless the release has the feature."""
        if not self.has(feature):
            what = FEATURE_NAMES.get(feature, feature)
            raise OracleUnsupported(self.version, f"this release has no {what}")

    # ------------------------------------------------------------------ requests

    def read(self, home, *, limits=None) -> dict:
        """MemoryStore(limits).load_from_disk().

        {"memory_entries": [str], "user_entries": [str],
         "snapshot": {"memory": str, "user": str}  (the frozen prompt blocks, "" when empty),
         "raised": None | {"type", "message"}}   (e.g. UnicodeDecodeError)
        """
        return self._call("read", home=str(home), limits=_limits(limits))

    def drift(self, home, target: str, *, limits=None, keep_backup: bool = False) -> dict:
        """The release's own _detect_external_drift(target) (0.15.0+; else unsupported).

        {"drift": bool | None (None when it raised), "backup": "MEMORY.md.bak.<ts>" | None,
         "backup_failed": bool, "backup_path": str | None, "backup_text": str | None,
         "raised": None | {"type", "message"}}
        The .bak file is deleted unless keep_backup.
        """
        return self._call("drift", home=str(home), target=target, limits=_limits(limits),
                          keep_backup=keep_backup)

    def apply(self, home, *, limits=None, origin: str | None = None, **call) -> dict:
        """memory_tool(store=<fresh store loaded from disk>, **call), e.g.
        apply(home, action="add", target="memory", content="x").

        Only the keywords given are passed (so target can be left to its default
        or passed as None). ``operations`` on a release without batch is unsupported.
        {"result": dict | None (the parsed JSON), "raw": str | None (the exact JSON text),
         "raised": None | {"type", "message"}, "load_raised": None | {...},
         "results": [{"result", "raw", "raised"}],
         "files": {"MEMORY.md": bytes | None, "USER.md": bytes | None},
         "listing": [names in memories/], "modes": {name: int}}
        """
        return self.apply_ops(home, [call], limits=limits, origin=origin)

    def apply_ops(self, home, ops: list, *, limits=None, origin: str | None = None) -> dict:
        """Several memory_tool calls in order on ONE store (one agent turn); stops at a raise.

        Same shape as apply(); "result"/"raw"/"raised" are the last call's.
        """
        return self._call("apply", home=str(home), ops=list(ops), limits=_limits(limits),
                          origin=origin)

    def prompt(self, home, *, limits=None, agent: bool = False) -> dict:
        """Fresh MemoryStore(limits).load_from_disk(), then format_for_system_prompt.

        {"memory": str | None, "user": str | None, "raised": None | {...}}
        agent=True reads config.yaml as the agent's init does (flags, raw limits) and
        adds "joined" (the two blocks as the agent joins them) and "store_created".
        """
        return self._call("prompt", home=str(home), limits=_limits(limits), agent=agent)

    def scan(self, text: str) -> dict:
        """The release's memory scan of one string.

        {"ids": [finding ids; invisible ids first, by code point, then patterns in order],
         "raw_ids": [as the release returned them (PYTHONHASHSEED=0)],
         "message": str | None  (_scan_memory_content: the first threat's message),
         "source": "threat_patterns" | "memory_tool" (0.13/0.14: ids rebuilt from its lists)}
        """
        return self._call("scan", text=text)

    def scan_many(self, texts: list) -> list:
        """scan() for many strings in one request: a list of the same dicts."""
        return self._call("scan", texts=list(texts), timeout=max(self.timeout, 120))["results"]

    def config(self, home) -> dict:
        """What the release reads from <home>/config.yaml.

        {"memory_section": typed (the merged `memory` mapping),
         "memory_enabled": typed + {"truthy": bool}, "user_profile_enabled": same,
         "store_created": bool (the agent builds a store iff either flag is truthy),
         "agent_limits": {"memory": typed, "user": typed} | None (raw, as the agent passes them),
         "load_on_disk_store_limits": {"memory": int, "user": int} | None (0.18.0+),
         "load_on_disk_store_raised": None | {...},
         "write_approval": {"memory": bool, "skills": bool} | None (0.17.0+),
         "config_raised", "agent_raised": None | {...}}
        where typed = {"type": python type name, "value": JSON value}.
        """
        return self._call("config", home=str(home))

    def memory_tool(self, home, platforms: list) -> dict:
        """Whether a session on each platform has the memory tool, by the release's own resolvers:
        {"platforms": {platform: {"tool": bool} | {"raised": {...}}}} or {"config_raised": {...}}."""
        return self._call("memory_tool", home=str(home), platforms=list(platforms))

    def stage(self, home, writes: list, *, limits=None) -> dict:
        """memory_tool calls with write approval on (config.yaml must say so), each
        write a dict of memory_tool keywords plus "origin" ("foreground" default, or
        "background_review"). 0.17.0+.

        {"results": [{"result", "raw", "raised"}], "pending_ids": [str],
         "records": [pending records, oldest first], "gate": bool, "load_raised",
         "files", "listing", "modes"}
        """
        return self._call("stage", home=str(home), writes=list(writes), limits=_limits(limits))

    def pending(self, home, args: list, *, limits=None) -> dict:
        """handle_pending_subcommand("memory", args, memory_store=store). 0.17.0+.

        The store is the one the release's /memory handler builds: load_on_disk_store()
        where it exists (0.18.0+), else MemoryStore(); limits=(m, u) overrides.
        {"output": str | None, "store": how it was built, "raised", "load_raised",
         "pending": [records left], "files", "listing", "modes"}
        """
        return self._call("pending", home=str(home), args=list(args), limits=_limits(limits))

    def approve_all(self, home, **kw) -> dict:
        return self.pending(home, ["approve", "all"], **kw)

    def approve(self, home, pending_id: str, **kw) -> dict:
        return self.pending(home, ["approve", pending_id], **kw)

    def reject(self, home, pending_id: str, **kw) -> dict:
        return self.pending(home, ["reject", pending_id], **kw)

    def reject_all(self, home, **kw) -> dict:
        return self.pending(home, ["reject", "all"], **kw)

    def skills_stage(self, home, writes: list) -> dict:
        """skill_manage(**write) for each write (config.yaml must set skills.write_approval);
        "origin" in a write sets the write origin. 0.17.0+.

        {"results": [{"result", "raw", "raised"}], "pending_ids": [str], "records": [pending
         skill records, oldest first], "gate": bool, "skills_files": {posix path below skills/:
         bytes | None (a symlink)}, "skills_dirs": [posix paths of folders]}
        """
        return self._call("skills_stage", home=str(home), writes=list(writes))

    def skills_pending(self, home, args: list) -> dict:
        """handle_pending_subcommand("skills", args): the release's /skills approve|reject|pending.

        {"output": str | None, "raised", "pending": [records left], "skills_files", "skills_dirs"}
        """
        return self._call("skills_pending", home=str(home), args=list(args))

    def sessions(self, home, *, build=(), search=(), get=(), sql=()) -> dict:
        """Build <home>/state.db with the release's SessionDB, then query it.

        build: [{"id", "source"="cli", "kwargs": {create_session kwargs},
                 "started_at": float?, "messages": [{"role", "content", "tool_name",
                 "tool_calls", "timestamp", ... append_message kwargs}]}]
          (a timestamp/started_at the release's API can't take is set by SQL and
          listed in "patched"); sql: extra statements run after building.
        search: [{"query", ...search_messages kwargs}]; get: [{"session_id", ...}].
        {"schema_version": int, "built": {session_id: [message ids]}, "patched": [...],
         "search": [{"hits": [dict], "raised"} | {"unsupported": str}],
         "get": [{"rows": [dict], "raised"} | {"unsupported": str}]}
        """
        return self._call("sessions", home=str(home), build=list(build), search=list(search),
                          get=list(get), sql=list(sql), timeout=max(self.timeout, 120))


# ---------------------------------------------------------------------- homes


def _as_bytes(value) -> bytes:
    return value if isinstance(value, bytes) else value.encode("utf-8")


def write_home(home, *, memory=None, user=None, config=None, files=None) -> Path:
    """Create a Hermes home. memory/user/config: str (UTF-8, written byte for byte, no
    newline translation) or bytes; None leaves the file out. files: {relpath: str|bytes}."""
    home = Path(home)
    home.mkdir(parents=True, exist_ok=True)
    if memory is not None or user is not None:
        (home / "memories").mkdir(exist_ok=True)
    if memory is not None:
        (home / "memories" / "MEMORY.md").write_bytes(_as_bytes(memory))
    if user is not None:
        (home / "memories" / "USER.md").write_bytes(_as_bytes(user))
    if config is not None:
        (home / "config.yaml").write_bytes(_as_bytes(config))
    for rel, data in (files or {}).items():
        p = home / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(_as_bytes(data))
    return home


def home_files(home, under: str = "memories") -> dict:
    """{relative path: bytes} for every file below home/under (sorted)."""
    root = Path(home) / under
    if not root.is_dir():
        return {}
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def copy_home(home, dest) -> Path:
    """A byte-identical copy of a home (to hand the same input to hmc and to Hermes)."""
    shutil.copytree(home, dest, symlinks=True)
    return Path(dest)


# ---------------------------------------------------------------------- fixtures


class OraclePool:
    """One lazily started HermesOracle per release, for the whole session."""

    def __init__(self):
        self._clients: dict[str, HermesOracle] = {}

    def get(self, version: str) -> HermesOracle:
        client = self._clients.get(version)
        if client is None:
            try:
                folder = releases.release_dir(version)
            except releases.ReleaseUnavailable as exc:
                pytest.fail(str(exc), pytrace=False)
            client = self._clients[version] = HermesOracle(version, folder)
        return client

    def close(self) -> None:
        for client in self._clients.values():
            client.close()
        self._clients.clear()


@pytest.fixture(scope="session")
def oracle_pool():
    pool = OraclePool()
    yield pool
    pool.close()


@pytest.fixture(scope="session")
def hermes_release(request) -> str:
    """The release under test; conftest parametrises it from HMC_CONFORMANCE_RELEASES."""
    return request.param


@pytest.fixture(scope="session")
def oracle(hermes_release, oracle_pool) -> HermesOracle:
    """The oracle for the release under test (one test run per selected release)."""
    return oracle_pool.get(hermes_release)


@pytest.fixture
def make_home(tmp_path):
    """Factory: make_home(memory=..., user=..., config=..., files=...) -> a fresh home."""
    counter = itertools.count(1)

    def make(**kw) -> Path:
        return write_home(tmp_path / f"hermes-home-{next(counter)}", **kw)

    return make
