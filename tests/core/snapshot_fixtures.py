"""State.db files holding stored prompts, for the loaded-memory tests (core and CLI)."""

from __future__ import annotations

import hashlib
import sqlite3

from core.hermes.memory import prompt_block

HEAD = "You are Hermes.\n\n"
TAIL = "\n\nActive Hermes profile: default.\n\nConversation started: Friday"


def prompt(memory=(), user=(), head=HEAD, tail=TAIL, limits=(2200, 1375)) -> str:
    """A prompt as 0.22 lays it out around the blocks of these entries."""
    parts = [b for b in (prompt_block("memory", list(memory), limits[0]),
                         prompt_block("user", list(user), limits[1])) if b]
    return head + "\n\n".join(parts) + tail


def sha(text) -> str:
    return hashlib.sha256(text.encode("utf-8") if isinstance(text, str) else text).hexdigest()


def make_db(path, rows, prompts=(), inline=False, meta=()):
    """sessions (0.22's prompt columns, or 0.19's inline one), messages, system_prompts, state_meta."""
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE state_meta (key TEXT PRIMARY KEY, value TEXT)")
    conn.executemany("INSERT INTO state_meta VALUES (?, ?)", meta)
    conn.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, title TEXT, started_at REAL, "
                 "ended_at REAL, end_reason TEXT, parent_session_id TEXT, last_activity_at REAL, "
                 "display_name TEXT, system_prompt TEXT" + ("" if inline else ", system_prompt_hash TEXT, tool_names TEXT") + ")")
    conn.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content TEXT, "
                 "tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL)")
    if not inline:
        conn.execute("CREATE TABLE system_prompts (hash TEXT PRIMARY KEY, prompt TEXT NOT NULL)")
        conn.executemany("INSERT INTO system_prompts VALUES (?, ?)", prompts)
    for row in rows:
        keys = ", ".join(row)
        conn.execute(f"INSERT INTO sessions ({keys}) VALUES ({', '.join('?' * len(row))})", list(row.values()))
    conn.commit()
    return conn
