"""Tiny state.db files in each of Hermes's schema generations, with one known data set.

Layouts (HERMES-FORMATS.md §5):
- ``current``  schema 30: external-content ``messages_fts(content, tool_name, tool_calls)`` on a
  view, trigram table over user/assistant rows of non-cron sessions, every later column;
- ``inline``   schema 15: inline ``messages_fts(content)`` (content + tool name + tool calls) and an
  inline trigram table; ``active`` but no ``compacted``/``display_kind``; no titles;
- ``external`` schema 2: ``messages_fts(content)`` external content on ``messages``; only the
  original columns; an index on (session_id, timestamp) only;
- ``none``     the current columns without any FTS table.

The DDL is our own, written from the documented shapes.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

DAY = 86_400.0
T0 = 1_792_000_000.0  # 2026-10-14 (UTC)

MARKUP = "[bold red]not bold[/] [link=https://x.test]click[/link] \x1b[31mred?\x1b[0m end"


@dataclass(frozen=True)
class Msg:
    role: str
    content: str | None
    tool_name: str | None = None
    tool_calls: str | None = None
    active: int = 1
    compacted: int = 0
    display_kind: str | None = None


def memory_call(content: str, action: str = "add", target: str = "memory") -> str:
    args = json.dumps({"action": action, "target": target, "content": content})
    return json.dumps([{"id": "call_1", "type": "function", "function": {"name": "memory", "arguments": args}}])


ENTRY = "User deploys the staging server with deploy.sh on Fridays"

# (session id, source, title, hidden, start offset in days, messages)
SESSIONS: list[tuple[str, str, str | None, int, float, list[Msg]]] = [
    ("20261014_090000_aaaaaa", "cli", "Deploying the staging server", 0, 0.0, [
        Msg("system", "system prompt that mentions deploy"),
        Msg("user", "How do I deploy the staging server?"),
        Msg("assistant", "Run deploy.sh with the staging flag.", tool_calls=json.dumps(
            [{"id": "c0", "type": "function", "function": {"name": "terminal", "arguments": "{\"cmd\": \"./deploy.sh\"}"}}])),
        Msg("tool", "deploy finished: staging is green", tool_name="terminal"),
        Msg("assistant", "rewound deploy attempt", active=0, compacted=0),
        Msg("assistant", "compacted deploy summary", active=0, compacted=1),
        Msg("user", "hidden scaffolding deploy", display_kind="hidden"),
        Msg("assistant", "I'll remember that.", tool_calls=memory_call(ENTRY)),
        Msg("tool", "{\"success\": true}", tool_name="memory"),
        Msg("user", "Thanks! Le café est prêt."),
    ]),
    ("20261015_100000_bbbbbbbb", "telegram", None, 0, 1.0, [
        Msg("user", "漓江 trip planning: 桂林山水甲天下"),
        Msg("assistant", MARKUP),
        Msg("user", "launch 🚀 tomorrow, after the deploy"),
        Msg("assistant", "Okay: launch at noon."),
    ]),
    ("20261016_030000_cccccc", "cron", "Nightly report", 0, 2.0, [
        Msg("user", "nightly deploy report"),
        Msg("assistant", "deploy deploy deploy: all green"),
    ]),
    ("20261016_040000_dddddd", "subagent", "Subagent run", 0, 2.1, [
        Msg("user", "subagent deploy chores"),
    ]),
    ("20261016_050000_eeeeee", "kanban", "Board", 0, 2.2, [
        Msg("user", "kanban deploy card"),
    ]),
    ("20261017_060000_ffffff", "cli", "Hidden session", 1, 3.0, [
        Msg("user", "secretly hidden deploy"),
    ]),
    ("20261018_070000_abcdef", "cli", "Prefix things", 0, 4.0, [
        Msg("user", "deployment pipelines and redeploying"),
        Msg("assistant", "OR NOT AND NEAR( are just words here * and \"quotes\""),
    ]),
]


def _session_ddl(cols: str) -> str:
    return f"CREATE TABLE sessions ({cols})"


CURRENT_SESSIONS = (
    "id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, model TEXT, model_config TEXT, "
    "system_prompt TEXT, parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL, end_reason TEXT, "
    "message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0, input_tokens INTEGER DEFAULT 0, "
    "output_tokens INTEGER DEFAULT 0, title TEXT, last_activity_at REAL, archived INTEGER NOT NULL DEFAULT 0, "
    "pinned INTEGER NOT NULL DEFAULT 0, hidden INTEGER NOT NULL DEFAULT 0, profile_name TEXT"
)
CURRENT_MESSAGES = (
    "id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL, "
    "content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL, "
    "token_count INTEGER, finish_reason TEXT, reasoning TEXT, active INTEGER NOT NULL DEFAULT 1, "
    "compacted INTEGER NOT NULL DEFAULT 0, display_kind TEXT"
)
OLD_SESSIONS = (
    "id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, model TEXT, model_config TEXT, system_prompt TEXT, "
    "parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL, end_reason TEXT, "
    "message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0, input_tokens INTEGER DEFAULT 0, "
    "output_tokens INTEGER DEFAULT 0"
)
OLD_MESSAGES = (
    "id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL, content TEXT, "
    "tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL, token_count INTEGER, "
    "finish_reason TEXT"
)

CURRENT_FTS = """
CREATE VIEW messages_fts_src AS
    SELECT id, CASE WHEN role = 'tool' THEN substr(COALESCE(content, ''), 1, 8192) ELSE content END AS content,
           tool_name, tool_calls
    FROM messages;
CREATE VIRTUAL TABLE messages_fts USING fts5(
    content, tool_name, tool_calls, content='messages_fts_src', content_rowid='id');
CREATE VIEW messages_fts_trigram_src AS
    SELECT m.id, m.content, m.tool_name FROM messages m JOIN sessions s ON s.id = m.session_id
    WHERE m.role IN ('user', 'assistant') AND s.source NOT IN ('cron', 'subagent');
CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(
    content, tool_name, content='messages_fts_trigram_src', content_rowid='id', tokenize='trigram');
"""


def build_db(
    path: Path,
    layout: str = "current",
    *,
    wal: bool = True,
    stale: bool = False,
    trigram: bool = True,
    extra: list[tuple[str, str, list[Msg]]] | None = None,
    late: list[tuple[str, str, list[Msg]]] | None = None,
) -> Path:
    """Write a state.db at *path* in *layout*; returns *path*. Leaves no -wal/-shm behind.

    *extra* sessions are indexed like the others; *late* ones are written after the index was
    built (as if the index had gone stale), so only a scan finds them.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.unlink()
    conn = sqlite3.connect(path)
    current = layout in ("current", "none")
    c = conn.cursor()
    c.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    c.execute("INSERT INTO schema_version VALUES (?)", ({"current": 30, "none": 30, "inline": 15, "external": 2}[layout],))
    if current:
        c.execute(_session_ddl(CURRENT_SESSIONS))
        c.execute(f"CREATE TABLE messages ({CURRENT_MESSAGES})")
        c.execute("CREATE INDEX idx_messages_session ON messages(session_id, timestamp)")
        c.execute("CREATE INDEX idx_messages_session_id ON messages(session_id, id)")
    elif layout == "inline":
        c.execute(_session_ddl(OLD_SESSIONS + ", title TEXT"))
        c.execute(f"CREATE TABLE messages ({OLD_MESSAGES}, active INTEGER NOT NULL DEFAULT 1)")
        c.execute("CREATE INDEX idx_messages_session ON messages(session_id, timestamp)")
    else:
        c.execute(_session_ddl(OLD_SESSIONS))
        c.execute(f"CREATE TABLE messages ({OLD_MESSAGES})")
        c.execute("CREATE INDEX idx_messages_session ON messages(session_id, timestamp)")
    c.execute("CREATE TABLE state_meta (key TEXT PRIMARY KEY, value TEXT)")
    scols = {r[1] for r in c.execute("PRAGMA table_info(sessions)")}
    mcols = {r[1] for r in c.execute("PRAGMA table_info(messages)")}

    def insert(sessions) -> None:
        for sid, source, title, hidden, start, msgs in sessions:
            started = T0 + start * DAY
            row = {"id": sid, "source": source, "started_at": started, "message_count": len(msgs),
                   "title": title, "hidden": hidden, "last_activity_at": started + len(msgs) * 60}
            row = {k: v for k, v in row.items() if k in scols}
            c.execute(f"INSERT INTO sessions ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                      list(row.values()))
            for i, m in enumerate(msgs):
                mrow = {"session_id": sid, "role": m.role, "content": m.content, "tool_name": m.tool_name,
                        "tool_calls": m.tool_calls, "timestamp": started + i * 60, "active": m.active,
                        "compacted": m.compacted, "display_kind": m.display_kind}
                mrow = {k: v for k, v in mrow.items() if k in mcols}
                c.execute(f"INSERT INTO messages ({', '.join(mrow)}) VALUES ({', '.join('?' * len(mrow))})",
                          list(mrow.values()))

    insert(SESSIONS)
    if extra:
        insert([(sid, src, None, 0, 5.0, msgs) for sid, src, msgs in extra])
    if layout == "current":
        c.executescript(CURRENT_FTS if trigram else CURRENT_FTS.split("CREATE VIEW messages_fts_trigram_src")[0])
        c.execute("INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')")
        if trigram:
            c.execute("INSERT INTO messages_fts_trigram(messages_fts_trigram) VALUES ('rebuild')")
    elif layout == "inline":
        c.execute("CREATE VIRTUAL TABLE messages_fts USING fts5(content)")
        c.execute("INSERT INTO messages_fts(rowid, content) SELECT id, COALESCE(content, '') || ' ' || "
                  "COALESCE(tool_name, '') || ' ' || COALESCE(tool_calls, '') FROM messages")
        if trigram:
            c.execute("CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(content, tokenize='trigram')")
            c.execute("INSERT INTO messages_fts_trigram(rowid, content) SELECT rowid, content FROM messages_fts")
    elif layout == "external":
        c.execute("CREATE VIRTUAL TABLE messages_fts USING fts5(content, content='messages', content_rowid='id')")
        c.execute("INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')")
    if late:
        insert([(sid, src, None, 0, 6.0, msgs) for sid, src, msgs in late])
    if stale:
        c.execute("INSERT INTO state_meta VALUES ('fts_stale', '1')")
    conn.commit()
    if wal:
        conn.execute("PRAGMA journal_mode=WAL")
    conn.close()
    for suffix in ("-wal", "-shm"):
        assert not os.path.exists(f"{path}{suffix}")
    return path


def fingerprint(path: Path) -> tuple[str, tuple[str, ...]]:
    """sha256 of the db file and the names in its folder (to catch new -wal/-shm files; hmc's identity
    marker, which its first write of its own state makes, is no side file of the database)."""
    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest() if Path(path).is_file() else ""
    return digest, tuple(sorted(n for n in os.listdir(Path(path).parent) if n != ".hmc-home"))


def message_id(path: Path, content_start: str) -> int:
    conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    try:
        row = conn.execute("SELECT id FROM messages WHERE content LIKE ? ORDER BY id LIMIT 1",
                           (content_start + "%",)).fetchone()
    finally:
        conn.close()
    assert row, content_start
    return int(row[0])
