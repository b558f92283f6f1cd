"""A seeded, deterministic demo Hermes home, and large state.db files for the search benchmarks.

`build_demo_home(root)` writes a complete home as Hermes 0.22.2 writes it (config.yaml, AGENTS.md,
memories, pending records of every kind, skills, state.db in 0.22.2's layout: core.demo.layout;
one record is older, an unpinned replace staged by 0.20.1) whose content gives every hmc screen
something to show: memory near capacity with a duplicate, a conflict, a stale and a relative
date, scanner hits; writes that can and cannot apply; four months of sessions in six languages
with provenance for the entries; the guides' two profiles, `contenu` (the French articles) and `ops`
(a provider, the memory tool off), with contenu's repository line leaked into ops's MEMORY.md, and a
stale `profiles/default/` folder, so that `hmc why` has an instance of every cause and the review a
cross-profile finding.
`build_state_db(path, sessions=…, messages=…)` builds the same layout at any size (200,000
messages take ~15-20 s on 2 CPUs, so 1,000,000 well under two minutes: bulk inserts first, then
FTS5 'rebuild', then triggers).

Same seed + same `today` => byte-identical files and identical rows. Only `random.Random(seed)`
is used, never the global generator or the wall clock. Times are UTC; session ids are formatted
from `started_at` in UTC; logs/agent.log is in local time, as Hermes writes it (the same bytes in the
same time zone). The story also has writes state.db doesn't hold: the background review's (in
agent.log), a record approved inside Hermes (its staging call only), and two entries typed by hand.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import sqlite3
import string
import time
import uuid
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Callable

from core.demo import content as C
from core.demo import conversations as V
from core.demo import layout
from core.demo.sessions import (APPROVAL_ON_DAYS, BIG_SESSION_ID, RARE_TERM, SMALL_SESSION_ID,
                                SMALL_SESSION_MESSAGES, SessionPlanner, system_prompt)

__all__ = ["DEMO_TODAY", "RARE_TERM", "RARE_TERM_MESSAGES", "BIG_SESSION_ID", "SMALL_SESSION_ID",
           "SMALL_SESSION_MESSAGES", "PENDING_IDS", "PENDING_SKILL_ID", "PENDING_SKILL_IDS", "MALFORMED_ID", "APPROVAL_ON_DAYS",
           "DemoEntry", "demo_entries", "pending_records", "skill_records", "write_entries", "build_demo_home",
           "build_state_db"]

DEMO_TODAY: date = date(2026, 11, 15)
SCHEMA_VERSION = layout.SCHEMA_VERSION  # Hermes 0.22.2
RARE_TERM_MESSAGES = 5  # messages holding RARE_TERM outside the big session (+1 inside it)
DEMO_SESSIONS, DEMO_MESSAGES = 200, 5000
PENDING_IDS = dict(C.PENDING_IDS)
PENDING_SKILL_ID, MALFORMED_ID = C.PENDING_SKILL_ID, C.MALFORMED_ID
PENDING_SKILL_IDS = dict(C.PENDING_SKILL_IDS)
LIMITS = {"memory": 2200, "user": 1375}
DELIMITER = "\n§\n"


@dataclass(frozen=True)
class DemoEntry:
    """One entry of the demo MEMORY.md / USER.md and what a curator should find about it."""

    key: str
    target: str  # "memory" | "user"
    text: str
    finding: str
    provenance: bool  # a `memory` tool call in state.db landed exactly this text

    @property
    def how(self) -> str:
        """Who wrote it: "call" (provenance), "hand", "review" or "approved in Hermes"."""
        return "hand" if self.key in C.HAND else "review" if self.key in C.REVIEWED else \
            "approved in Hermes" if self.key in C.APPROVED_IN_HERMES else "call"


def demo_entries(today: date = DEMO_TODAY) -> list[DemoEntry]:
    """Every entry of both stores, in file order (memory first)."""
    out = [DemoEntry(k, "memory", t, f, k not in C.NO_PROVENANCE) for k, t, f in C.memory_entries(today)]
    out += [DemoEntry(k, "user", t, f, k not in C.NO_PROVENANCE) for k, t, f in C.user_entries(today)]
    return out


def write_entries(path: Path, entries: list[str]) -> None:
    """Write a store in Hermes's canonical form: "\\n§\\n" joins, no trailing newline, UTF-8, LF."""
    Path(path).write_bytes(DELIMITER.join(entries).encode("utf-8"))


# --------------------------------------------------------------------------------------------
# The home


def build_demo_home(root: Path, today: date = DEMO_TODAY, *, seed: int = 7) -> Path:
    """Create `root` as a full demo Hermes home and return it; refuse a non-empty `root`."""
    root = Path(root)
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise FileExistsError(f"{root} exists and is not empty")
    root.parent.mkdir(parents=True, exist_ok=True)
    work = root.parent / f".{root.name}.building"
    shutil.rmtree(work, ignore_errors=True)
    try:
        _write_home(work, today, seed, final=root.resolve())
        os.replace(work, root)  # an empty existing `root` is replaced atomically
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return root


PROJECTS = "demo-projects"  # the folders the demo's command-line sessions ran in (sessions.cwd)
DEMO_CWD = "/home/ines/code/"  # the story's own paths, which the built home points at its PROJECTS


def _write_home(home: Path, today: date, seed: int, final: Path | None = None) -> None:
    for sub in ("memories", "pending/memory", "pending/skills", "skills"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_bytes(C.CONFIG_YAML.encode("utf-8"))
    # the projects the sessions ran in, inside the home so the demo is one folder: Hermes loads a
    # project's AGENTS.md from the folder it runs in, never from its home
    for project in V.PROJECTS:
        (home / PROJECTS / project).mkdir(parents=True)
    (home / PROJECTS / "tideway" / "AGENTS.md").write_bytes(C.AGENTS_MD.encode("utf-8"))
    entries = demo_entries(today)
    for target, name in (("memory", "MEMORY.md"), ("user", "USER.md")):
        write_entries(home / "memories" / name, [e.text for e in entries if e.target == target])
    for name, body in C.SKILLS.items():
        (home / "skills" / name).mkdir()
        (home / "skills" / name / "SKILL.md").write_bytes(body.encode("utf-8"))
    for folder, record in pending_records(today, seed):
        _write_json(home / "pending" / folder / f"{record['id']}.json", record)
    good = json.dumps(pending_records(today, seed)[0][1] | {"id": MALFORMED_ID}, indent=2,
                      ensure_ascii=False)
    (home / "pending" / "memory" / f"{MALFORMED_ID}.json").write_bytes(
        good[: len(good) * 3 // 5].encode("utf-8"))  # half-written: truncated mid-record
    ops = home / "profiles" / "ops"
    (ops / "memories").mkdir(parents=True)
    (ops / "config.yaml").write_bytes(C.OPS_CONFIG_YAML.encode("utf-8"))
    write_entries(ops / "memories" / "MEMORY.md", C.OPS_MEMORY)
    contenu = home / "profiles" / "contenu"
    (contenu / "memories").mkdir(parents=True)
    (contenu / "config.yaml").write_bytes(C.CONTENU_CONFIG_YAML.encode("utf-8"))
    write_entries(contenu / "memories" / "MEMORY.md", C.CONTENU_MEMORY)
    write_entries(contenu / "memories" / "USER.md", C.CONTENU_USER)
    stale = home / "profiles" / "default" / "memories"  # the trap: Hermes's default profile is the home itself
    stale.mkdir(parents=True)
    write_entries(stale / "MEMORY.md", C.STALE_DEFAULT_MEMORY)
    reviews = build_state_db(home / "state.db", sessions=DEMO_SESSIONS, messages=DEMO_MESSAGES, seed=seed,
                             today=today)
    projects = f"{final or home}/{PROJECTS}/"
    conn = sqlite3.connect(home / "state.db")
    try:
        conn.execute("UPDATE sessions SET cwd = ? || substr(cwd, ?) WHERE substr(cwd, 1, ?) = ?",
                     (projects, len(DEMO_CWD) + 1, len(DEMO_CWD), DEMO_CWD))
        conn.commit()
    finally:
        conn.close()
    (home / "logs").mkdir()
    (home / "logs" / "agent.log").write_bytes(agent_log(reviews).encode("utf-8"))


def agent_log(reviews: list[tuple[float, str]]) -> str:
    """logs/agent.log as 0.22.2 writes it (local times) for the background review's memory writes
    (core.timeline.agent_log reads it): the fork's turn under the parent session's tag, its memory
    tool's completion, the turn's end and the review's summary."""
    def line(ts: float, sid: str, logger: str, message: str) -> str:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts)) + f",{int(round(ts * 1000)) % 1000:03d}"
        return f"{stamp} INFO [{sid}] {logger}: {message}\n"

    out = []
    for ts, sid in reviews:
        out += [line(ts - 6.2, sid, "agent.turn_context", f"conversation turn: session={sid} model=anthropic/claude-"
                     "sonnet-4.6 provider=openrouter platform=cli history=6 msg='Review the conversation above and "
                     "consider saving to memory if appropriate....' origin=background_review"),
                line(ts, sid, "agent.tool_executor", "tool memory completed (0.01s, 312 chars)"),
                line(ts + 1.4, sid, "agent.turn_finalizer", f"Turn ended: reason=text_response(finish_reason=stop) "
                     f"model=anthropic/claude-sonnet-4.6 api_calls=2/16 budget=2/16 tool_turns=1 "
                     f"last_msg_role=assistant response_len=38 session={sid} origin=background_review"),
                line(ts + 1.5, sid, "agent.background_review", "Background review complete: thread=bg-review "
                     "calls=2 in=9184 out=212 cache_read=8120 result=memory")]
    return "".join(out)


def _write_json(path: Path, obj: dict) -> None:
    path.write_bytes(json.dumps(obj, indent=2, ensure_ascii=False).encode("utf-8"))


def _epoch(day: date, hh: int = 0, mm: int = 0, ss: float = 0.0) -> float:
    return datetime(day.year, day.month, day.day, tzinfo=timezone.utc).timestamp() + hh * 3600 + mm * 60 + ss


def _op_line_22(o: dict) -> str:
    """0.22.2's one-line description of a memory op (tools/memory_tool.py, _batch_op_line)."""
    if o["action"] == "remove":
        return f"- remove: {o.get('old_text', '')}"
    if o["action"] == "patch":
        return f"- patch span '{o.get('old_text', '')}' -> '{o.get('content') or ''}' (rest of the entry is kept)"
    return f"- {o['action']}: {o.get('content') or ''}"


def summary_22(payload: dict, origin: str = "foreground") -> str:
    """The summary 0.22.2's memory tool stages a write with (tools/memory_tool.py): "<what>: <detail>",
    the detail cut at 120 characters; a destructive write of the background review has its own line,
    cut at 200 (it is staged even with write approval off)."""
    label = "user profile" if payload["target"] == "user" else "memory"
    content, old = payload.get("content"), payload.get("old_text")
    ops = payload.get("operations") or [payload]
    if origin == "background_review" and any(o["action"] in ("replace", "remove", "patch") for o in ops):
        return (f"background review consolidation ({payload['action']} on {payload['target']}): "
                f"{'; '.join(_op_line_22(o) for o in ops)}")[:200].strip()
    if payload["action"] == "batch":
        head, detail = f"apply {len(ops)} op(s) to {label}", "\n".join(_op_line_22(o) for o in ops)
    elif payload["action"] == "add":
        head, detail = f"add to {label}", content or ""
    elif payload["action"] == "remove":
        head, detail = f"remove from {label}", old or ""
    else:  # patch
        head = f"patch in {label}"
        detail = f"entry matching: {old}\nspan '{old}' becomes: {content} (rest of the entry is kept)"
    return f"{head}: {detail[:120]}".strip()


def summary_20(payload: dict) -> str:
    """The summary 0.20.1 (like 0.19) staged a single replace with (tools/memory_tool.py)."""
    label = "user profile" if payload["target"] == "user" else "memory"
    detail = f"old: {payload['old_text']}\nnew: {payload['content']}"
    return f"replace in {label}: {detail[:120]}".strip()


def pending_records(today: date = DEMO_TODAY, seed: int = 7) -> list[tuple[str, dict]]:
    """(folder, record) for every pending write of the demo home, oldest first, shaped as 0.22.2
    stages them: a destructive write (patch, remove, and each such op of a batch) carries the entry
    it was staged against (`matched_entry`). One record is older: `replace_unpinned`, a whole-entry
    replace staged by 0.20.1 before the upgrade, without a pin (0.22.2 refuses to apply it until it
    is re-staged or edited)."""
    by_key = {e.key: e.text for e in demo_entries(today)}
    d6 = (today - timedelta(days=6)).isoformat()
    stale = C.stale_date(today).isoformat()
    key_rng = random.Random(seed * 7919 + 17)
    secret = "sk-" + "proj-" + "".join(key_rng.choice(string.ascii_letters + string.digits) for _ in range(40))

    def op(action, target="memory", content=None, old_text=None, pin=None):
        p = {"action": action, "target": target, "content": content, "old_text": old_text}
        if pin is not None:
            p["matched_entry"] = pin
        return p

    stale_old, stale_new = C.PENDING_STALE_PATCH
    rate_old, rate_new = C.PENDING_BATCH_PATCH
    rows = [  # (key, days ago, hh, mm, origin, payload)
        ("replace_unpinned", 20, 8, 5, "foreground",
         op("replace", "user", C.PENDING_USER_REPLACEMENT, "Weekdays 09:00–18:30")),
        ("add", 18, 14, 12, "foreground", op("add", content=C.PENDING_ADD)),
        ("stale_pin", 17, 9, 40, "foreground",
         op("patch", content=C.PENDING_STALE_PIN_PATCH[1], old_text=C.PENDING_STALE_PIN_PATCH[0],
            pin=C.OLD_MACHINE)),
        ("bg_duplicate", 17, 22, 5, "background_review", op("add", content=by_key["pnpm_a"])),
        ("group_a", 14, 16, 30, "foreground", op("add", content=C.PENDING_GROUP)),
        ("over_limit", 11, 18, 45, "background_review", op("add", content=C.PENDING_OVER_LIMIT.format(d6=d6))),
        ("group_b", 9, 11, 20, "background_review", op("add", content=C.PENDING_GROUP)),
        ("scanner", 7, 21, 10, "background_review", op("add", content=C.PENDING_SCANNER)),
        ("remove_pinned", 6, 19, 0, "background_review",
         op("remove", old_text="Always use pnpm instead of npm", pin=by_key["pnpm_b"])),
        ("patch_pinned", 5, 10, 30, "foreground",
         op("patch", content=stale_new.format(d6=d6), old_text=stale_old.format(stale=stale), pin=by_key["stale"])),
        ("batch", 3, 15, 45, "foreground",
         {"action": "batch", "target": "memory", "operations": [
             {"action": "patch", "content": rate_new.format(d6=d6), "old_text": rate_old,
              "matched_entry": by_key["rate_100"]},
             {"action": "add", "content": C.PENDING_BATCH_ADD}]}),
        ("secret", 1, 20, 15, "foreground", op("add", content=C.PENDING_SECRET.format(secret=secret))),
    ]
    out = []
    for key, days, hh, mm, origin, payload in rows:
        pid = C.PENDING_IDS[key]
        out.append(("memory", {"id": pid, "subsystem": "memory", "action": payload["action"],
                               "summary": summary_20(payload) if key == "replace_unpinned" else summary_22(payload, origin),
                               "origin": origin,
                               "created_at": _epoch(today - timedelta(days=days), hh, mm, 17.25),
                               "payload": payload}))
    out.extend(("skills", r) for r in skill_records(today))
    return sorted(out, key=lambda fr: fr[1]["created_at"])


def skill_gist(action: str, name: str, payload: dict) -> str:
    """The one-line summary the release stages with a skill write (its `skill_gist` facts)."""
    content = payload.get("content") or ""
    if action in ("create", "edit") and content:
        found = re.search(r"^description:\s*(.+)$", content, re.MULTILINE)
        desc = found.group(1).strip().strip("'\"")[:140] if found else ""
        size = f"{len(content) // 1024 + 1} KB" if len(content) >= 1024 else f"{len(content)} chars"
        verb = "create" if action == "create" else "rewrite"
        return f"{verb} '{name}' — {desc} ({size})" if desc else f"{verb} '{name}' ({size})"
    if action == "patch":
        old, new = payload.get("old_string") or "", payload.get("new_string") or ""
        return (f"patch '{name}' {payload.get('file_path') or 'SKILL.md'} "
                f"(+{new.count(chr(10)) + 1 if new else 0}/-{old.count(chr(10)) + 1 if old else 0} lines)")
    if action == "write_file":
        return f"write {payload.get('file_path') or ''} in '{name}'"
    if action == "remove_file":
        return f"remove {payload.get('file_path') or ''} from '{name}'"
    if action == "delete":
        return f"delete skill '{name}'"
    return f"{action} '{name}'"


def skill_records(today: date = DEMO_TODAY) -> list[dict]:
    """The demo's staged skill writes, shaped as the release stages them: the payload is the
    skill_manage call (action, name, then every keyword that isn't None, replace_all included)."""
    ids = C.PENDING_SKILL_IDS

    def call(action, name, content=None, category=None, file_path=None, file_content=None,
             old_string=None, new_string=None, replace_all=False, absorbed_into=None):
        kw = dict(content=content, category=category, file_path=file_path, file_content=file_content,
                  old_string=old_string, new_string=new_string, replace_all=replace_all,
                  absorbed_into=absorbed_into)
        return {"action": action, "name": name, **{k: v for k, v in kw.items() if v is not None}}

    rows = [  # (key, days ago, hh, mm, origin, payload)
        ("patch_stale", 12, 10, 2, "background_review",
         call("patch", "paylane-webhook-debug", old_string=C.SKILL_STALE_OLD, new_string=C.SKILL_STALE_NEW)),
        ("patch", 8, 16, 41, "foreground",
         call("patch", "tideway-release", old_string=C.SKILL_PATCH_OLD, new_string=C.SKILL_PATCH_NEW)),
        ("edit", 6, 9, 15, "background_review", call("edit", "weekly-ops-report", content=C.SKILL_EDIT_BODY)),
        ("write_file", 5, 14, 30, "foreground",
         call("write_file", "paylane-webhook-debug", file_path=C.SKILL_SCRIPT_PATH, file_content=C.SKILL_SCRIPT)),
        ("create", 4, 23, 0, "background_review",
         call("create", "paylane-webhook-replay", content=C.SKILL_PENDING_BODY)),
        ("delete", 3, 11, 20, "foreground", call("delete", "csv-export-v1")),
        ("escape", 2, 22, 48, "background_review",
         call("write_file", "weekly-ops-report", file_path=C.SKILL_ESCAPE_PATH, file_content=C.SKILL_ESCAPE_CONTENT)),
    ]
    out = []
    for key, days, hh, mm, origin, payload in rows:
        out.append({"id": ids[key], "subsystem": "skills", "action": payload["action"],
                    "summary": skill_gist(payload["action"], payload["name"], payload), "origin": origin,
                    "created_at": _epoch(today - timedelta(days=days), hh, mm, 3.5), "payload": payload})
    return out


# --------------------------------------------------------------------------------------------
# state.db: Hermes 0.22.2's layout (core.demo.layout) and the rows its SessionDB writes

_SESSION_COLS = ("id", "source", "created_source", "user_id", "session_key", "chat_id", "chat_type",
                 "display_name", "model", "model_config", "system_prompt", "parent_session_id", "started_at",
                 "ended_at", "end_reason", "message_count", "tool_call_count", "input_tokens", "output_tokens",
                 "cache_read_tokens", "reasoning_tokens", "cwd", "git_branch", "estimated_cost_usd", "title",
                 "title_source", "last_activity_at", "api_call_count", "profile_name", "archived", "pinned",
                 "hidden", "system_prompt_hash")
# what the planner yields per message (core.demo.sessions), then what SessionDB.append_message adds
_MESSAGE_COLS = ("session_id", "role", "content", "tool_call_id", "tool_calls", "tool_name", "timestamp",
                 "token_count", "finish_reason", "reasoning", "active", "compacted", "display_kind")
_STORED_COLS = ("id", *_MESSAGE_COLS, "observed", "_compressed_summary", "display_identity", "display_order",
                "message_uid", "tool_call_uids")
_INSERT_SESSION = f"INSERT INTO sessions ({', '.join(_SESSION_COLS)}) VALUES ({', '.join('?' * len(_SESSION_COLS))})"
_INSERT_MESSAGE = f"INSERT INTO messages ({', '.join(_STORED_COLS)}) VALUES ({', '.join('?' * len(_STORED_COLS))})"
_FLUSH = 50_000
_NUMBERED_TITLE = re.compile(r"^(.*?) #(\d+)$")


def _uid(rng: random.Random) -> str:
    """A message or tool-call uid as the release mints one (uuid4().hex), drawn from `rng`."""
    return uuid.UUID(int=rng.getrandbits(128), version=4).hex


def display_identity(role: str, content, timestamp: float, tool_call_id, tool_calls, tool_name) -> bytes:
    """0.22.2's display identity of a row (SessionDB._display_identity of _display_dedupe_key): the
    sha256 of the repr of its key; a tool-calling assistant row is keyed by its call ids, not its text."""
    key: tuple = (role, content, timestamp, tool_call_id, tool_calls, tool_name)
    if role == "assistant" and tool_calls:
        ids = tuple(c.get("id") for c in json.loads(tool_calls))
        if ids and all(ids):
            key = ("assistant", None, timestamp, tool_call_id, ids, tool_name)
    return hashlib.sha256(repr(key).encode("utf-8", "surrogatepass")).digest()


class _Rows:
    """Numbers the planner's message rows and adds the columns 0.22.2's append_message fills:
    a message_uid per row, a uid per tool call (on the assistant row), the display identity, and the
    display order (the id of the first visible row with the same identity in the session, else its own)."""

    def __init__(self, seed: int):
        self.next_id, self.rng = 1, random.Random(f"{seed}:uids")
        self.session: str | None = None
        self.first: dict[bytes, int] = {}

    def stored(self, rows: list[tuple]) -> list[tuple]:
        out = []
        for row in rows:
            sid, role, content, call_id, calls, tool, ts = row[:7]
            if sid != self.session:
                self.session, self.first = sid, {}
            mid, self.next_id = self.next_id, self.next_id + 1
            identity = display_identity(role, content, ts, call_id, calls, tool)
            order = self.first.setdefault(identity, mid) if row[10] or row[11] else mid
            uid = _uid(self.rng)
            call_uids = None
            if role == "assistant" and calls:
                ids = dict.fromkeys(c["id"] for c in json.loads(calls) if c.get("id"))
                call_uids = json.dumps({i: _uid(self.rng) for i in ids}, sort_keys=True) if ids else None
            out.append((mid, *row, 0, 0, identity, order, uid, call_uids))
        return out


def _unique_titles(session_rows: list[tuple]) -> list[tuple]:
    """0.22.2 keeps titles unique (a UNIQUE index): a repeated title becomes '<title> #N', N one more
    than the highest number its lineage has (its next_title_in_lineage); rows come oldest first."""
    at = _SESSION_COLS.index("title")
    taken: set[str] = set()
    highest: dict[str, int] = {}
    out = []
    for row in session_rows:
        title = row[at]
        if title is not None:
            m = _NUMBERED_TITLE.match(title)
            base, number = (m.group(1), int(m.group(2))) if m else (title, 1)
            if title in taken:
                number = highest.get(base, 1) + 1
                title = f"{base} #{number}"
                row = row[:at] + (title,) + row[at + 1:]
            taken.add(title)
            highest[base] = max(highest.get(base, 1), number)
        out.append(row)
    return out


def _state_meta(seed: int, created: float, pruned: float) -> list[tuple[str, str]]:
    """The keys a fresh 0.22.2 store writes, with seeded ids and the store's creation time, and the
    last auto-prune run (`pruned`: Unix seconds, written as the release writes it, str(time.time()))."""
    rng = random.Random(f"{seed}:store")
    stamp = datetime.fromtimestamp(created, tz=timezone.utc).isoformat(timespec="microseconds")
    return [("store_instance_id", str(uuid.UUID(int=rng.getrandbits(128), version=4))),
            ("store_created_at_utc", stamp), ("message_uid_backfill", "1"),
            ("db_file_generation", _uid(rng)), ("last_auto_prune", str(pruned))]


def _script(statements) -> str:
    return "".join(f"{sql};\n" for _, sql in statements)


def build_state_db(path: Path, *, sessions: int, messages: int, seed: int = 7, today: date = DEMO_TODAY,
                   big_session_messages: int = 0, progress: Callable[[int, int], None] | None = None) -> list[tuple[float, str]]:
    """Build a state.db in Hermes 0.22.2's layout (schema_version 31, core.demo.layout), its rows as
    0.22.2's SessionDB writes them (message uids, display identity and order; unique titles).

    `sessions`/`messages` are exact totals for the ordinary sessions, the fixed story included (31
    sessions, about 410 messages, so ask for at least ~32 and ~600; smaller raises ValueError).
    `big_session_messages` > 0 adds BIG_SESSION_ID on top, with RARE_TERM once in its middle.
    `progress(done, total)` is called every 50,000 messages and at the end. Refuses an existing
    `path`; builds `<path>.building` and renames it, so a crash never leaves a half-built file.
    Returns the background review's memory writes the story makes ((time, session): no rows in
    state.db, lines in logs/agent.log).
    """
    path = Path(path)
    if path.exists():
        raise FileExistsError(f"{path} already exists")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".building")
    for stale in (tmp, Path(f"{tmp}-journal"), Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
        stale.unlink(missing_ok=True)
    planner = SessionPlanner(seed=seed, today=today)
    plans = planner.plan(sessions=sessions, messages=messages, big=big_session_messages)
    total = messages + big_session_messages
    conn = sqlite3.connect(tmp, isolation_level=None)
    try:
        for pragma in ("journal_mode=OFF", "synchronous=OFF", "temp_store=MEMORY", "cache_size=-131072",
                       "locking_mode=EXCLUSIVE"):
            conn.execute(f"PRAGMA {pragma}")
        conn.executescript(_script(layout.TABLES))
        conn.execute("BEGIN")
        rows = _Rows(seed)
        buffer: list[tuple] = []
        session_rows: list[tuple] = []
        prompts: dict[str, str] = {}
        done = 0
        for plan in plans:
            for chunk in planner.generate(plan):
                buffer.extend(rows.stored(chunk))
                if len(buffer) >= _FLUSH:
                    conn.executemany(_INSERT_MESSAGE, buffer)
                    done += len(buffer)
                    buffer.clear()
                    if progress:
                        progress(done, total)
            prompt = system_prompt(plan)  # stored once per text, as 0.22.2's SessionDB does
            digest = hashlib.sha256(prompt.encode("utf-8")).hexdigest()
            prompts[digest] = prompt
            session_rows.append(plan.session_row() + (digest,))
        conn.executemany(_INSERT_MESSAGE, buffer)
        done += len(buffer)
        conn.executemany(_INSERT_SESSION, _unique_titles(session_rows))
        conn.executemany("INSERT INTO system_prompts(hash, prompt) VALUES (?, ?)", sorted(prompts.items()))
        conn.execute("INSERT INTO schema_version(version) VALUES (?)", (SCHEMA_VERSION,))
        conn.executemany("INSERT INTO state_meta(key, value) VALUES (?, ?)",
                         _state_meta(seed, min(p.start for p in plans) - 3600,
                                     _epoch(today - timedelta(days=1), 8, 12, 4.25)))
        conn.execute("COMMIT")
        # the rest in the release's order, the triggers last (executescript commits first: no BEGIN
        # around it), so the bulk rows are indexed once by FTS5's 'rebuild'
        conn.executescript(_script(layout.INDEXES) + _script(layout.VIEWS_AND_FTS))
        conn.execute("BEGIN")
        conn.execute("INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')")
        conn.execute("INSERT INTO messages_fts_trigram(messages_fts_trigram) VALUES ('rebuild')")
        conn.execute("COMMIT")
        conn.executescript(_script(layout.TRIGGERS))
        conn.execute("PRAGMA locking_mode=NORMAL")
        conn.execute("PRAGMA journal_mode=WAL")
        if progress:
            progress(done, total)
    finally:
        conn.close()
    os.replace(tmp, path)
    return list(planner.reviews)
