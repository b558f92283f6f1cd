#!/usr/bin/env python3
"""Record real sessions with a Hermes release: its SessionDB stores the messages, its memory_tool
really writes the files. Runs in a subprocess with PYTHONPATH=<release> (never imported by hmc or
the test process; tests/conformance/timeline_support.py drives it).

stdin: one JSON object `{"home": path, "steps": [...]}`. Steps, in order:
- `{"session": id, "source": "cli"}`: start a session;
- `{"call": {memory_tool kwargs}, "session": id, "ts": t, "call_id"?: str, "limits"?: [m, u]}`:
  the agent calls the memory tool (a fresh store loaded from disk, as at session start); the
  assistant message carrying the call and the tool message carrying its JSON result are appended
  at `ts`;
- `{"hand": {"target": "memory"|"user", "text": str}}`: a person edits the file;
- `{"raw_message": {append_message kwargs}, "session": id, "ts": t}`: any other row.
stdout: `{"steps": [{"result"?, "ids"?, "files": {"memory": text|None, "user": …}}], "schema": n}`.
"""

from __future__ import annotations

import inspect
import json
import os
import sqlite3
import sys
from pathlib import Path

_OUT = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)
sys.stdout = sys.stderr


def _files(home: Path) -> dict:
    out = {}
    for target, name in (("memory", "MEMORY.md"), ("user", "USER.md")):
        p = home / "memories" / name
        out[target] = p.read_bytes().decode("utf-8", "surrogateescape") if p.is_file() else None
    return out


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


def main() -> int:
    req = json.loads(sys.stdin.read())
    home = Path(req["home"])
    os.environ["HERMES_HOME"] = str(home)
    import hermes_state
    from tools import memory_tool as mt

    db_path = home / "state.db"
    db = hermes_state.SessionDB(db_path=db_path)
    takes_ts = "timestamp" in inspect.signature(db.append_message).parameters
    out = []

    def append(sid, role, ts, **kw):
        mid = db.append_message(sid, role, **({"timestamp": ts, **kw} if takes_ts else kw))
        if not takes_ts:
            con = sqlite3.connect(db_path)
            with con:
                con.execute("UPDATE messages SET timestamp = ? WHERE id = ?", (ts, mid))
            con.close()
        return mid

    n = 0
    try:
        for step in req["steps"]:
            rec: dict = {}
            if "session" in step and "call" not in step and "raw_message" not in step:
                db.create_session(step["session"], step.get("source", "cli"))
            elif "call" in step:
                n += 1
                limits = step.get("limits") or [2200, 1375]
                store = mt.MemoryStore(memory_char_limit=limits[0], user_char_limit=limits[1])
                store.load_from_disk()
                args = _in_release_verbs(mt, store, dict(step["call"]))
                raw = mt.memory_tool(store=store, **args)
                cid = step.get("call_id", f"call_{n}")
                ts = step["ts"]
                call = {"id": cid, "type": "function", "function": {"name": "memory", "arguments": json.dumps(args)}}
                a = append(step["session"], "assistant", ts, content="", tool_calls=[call])
                t = append(step["session"], "tool", ts, content=raw, tool_call_id=cid, tool_name="memory")
                rec = {"result": json.loads(raw), "ids": [a, t]}
            elif "hand" in step:
                p = home / "memories" / ("MEMORY.md" if step["hand"]["target"] == "memory" else "USER.md")
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(step["hand"]["text"], encoding="utf-8")
            elif "raw_message" in step:
                kw = dict(step["raw_message"])
                role = kw.pop("role")
                rec = {"ids": [append(step["session"], role, step["ts"], **kw)]}
            rec["files"] = _files(home)
            out.append(rec)
    finally:
        db.close()
    _OUT.write(json.dumps({"steps": out, "schema": getattr(hermes_state, "SCHEMA_VERSION", None)}) + "\n")
    _OUT.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
