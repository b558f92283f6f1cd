"""Promises the agent didn't keep: an assistant turn that says it saved or will remember something
(core.sessions.promises) with no memory write behind it in that turn.

A turn is a user message and everything after it up to the next user message. The claim is backed
when a memory tool call in the same turn wrote (its result succeeded and wasn't merely staged).
It is flagged when:
- no memory call was made in the turn (`no-call`: small models do this);
- every memory call of the turn was refused (`refused`, with the release's reason);
- the calls were only staged for approval (`staged`, with the record's id).

What clears a flagged claim is for the caller to decide (core.why, core.review): the fact may have
been saved since (the background review), be waiting in the queue, or sit in an external provider.

Rows are read from state.db (read-only): the replies since a time (found by bisecting the ids), or
those of a few sessions, at most MAX_ROWS (the newest), so a review or a `why` costs the same on a
database of any size; only the turns of the replies that claim a save are read whole.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Iterable

from core.sessions.memory_calls import Harvest, calls_in, parse_result
from core.sessions.model import flatten_content
from core.sessions.promises import claims, requests, scan_many

MAX_ROWS = 50_000  # of the newest replies read for one scan
MAX_TEXT = 20_000  # of a message's text read for claims (a claim sits in a reply's words, not in a pasted log)


@dataclass(frozen=True)
class Unsaved:
    session_id: str
    source: str
    claim_id: int  # the assistant message that claims the save
    claim: str  # the claim's words
    claim_text: str  # the assistant message (its first MAX_TEXT characters)
    timestamp: float | None
    request_id: int | None  # the user message of the turn
    request: str  # its text ("" when the turn has none)
    asked: bool  # the user message asks to remember (core.sessions.promises.requests)
    outcome: str  # no-call | refused | staged
    detail: str = ""  # the refusal's reason, or the staged record's id

    def to_json(self) -> dict:
        return {"session_id": self.session_id, "source": self.source, "claim_message_id": self.claim_id,
                "claim": self.claim, "timestamp": self.timestamp, "request_message_id": self.request_id,
                "request": self.request, "asked": self.asked, "outcome": self.outcome, "detail": self.detail}


_COLUMNS = ("m.id, m.session_id, m.role, m.content, m.tool_calls, m.tool_call_id, m.timestamp, "
            "COALESCE(s.source, '')")


def scan(conn: sqlite3.Connection, *, since: float | None = None, sessions: Iterable[str] | None = None,
         max_rows: int = MAX_ROWS, claimed_only: bool = True) -> list[Unsaved]:
    """The unkept promises in the messages since `since` (Unix seconds), or in `sessions` (ids),
    oldest first. `claimed_only=False`: also the turns where the user asked to remember and no
    write followed, though the agent claimed nothing (their `claim` is "").

    Only the assistant's messages (and the user's, for `claimed_only=False`) are read, at most
    `max_rows` of the newest; the turns of those that claim (or ask) are then read whole
    (scan_turns), so the cost follows the messages, not the tool traffic around them."""
    if sessions is not None:
        ids = sorted(set(sessions))
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        where, params = f"session_id IN ({marks})", list(ids)
    else:
        where, params = "id >= ?", [first_id_since(conn, since) if since else 0]
    roles = "'assistant'" if claimed_only else "'assistant', 'user'"
    rows = conn.execute(f"SELECT id, session_id, role, content FROM messages WHERE {where} AND role IN ({roles}) "
                        "ORDER BY id DESC LIMIT ?", (*params, max_rows)).fetchall()
    rows.reverse()
    anchors = []
    for role, found in (("assistant", False), ("user", True)):
        said = [(str(sid), int(mid), flatten_content(content)[:MAX_TEXT]) for mid, sid, r, content in rows
                if r == role and isinstance(content, str) and content]
        if said:
            anchors += [(sid, mid) for (sid, mid, _), hits in zip(said, scan_many([t for *_, t in said], user=found))
                        if hits]
    return scan_turns(conn, sorted(anchors, key=lambda a: a[1]), claimed_only=claimed_only)


MAX_TURN_ROWS = 400  # of one turn read around a message (a turn of tool calls can be long)


def scan_turns(conn: sqlite3.Connection, anchors: Iterable[tuple[str, int]], *,
               claimed_only: bool = True) -> list[Unsaved]:
    """The unkept promises in the turns holding these messages ((session id, message id)): each
    turn read from its user message to the next (a few index probes and rows each), so the cost
    follows the messages asked about, not the size of their sessions."""
    out: dict[int, Unsaved] = {}
    seen: set[tuple[str, int]] = set()
    for sid, mid in anchors:
        row = conn.execute("SELECT id FROM messages WHERE id <= ? AND session_id = ? AND role = 'user' "
                           "ORDER BY id DESC LIMIT 1", (mid, sid)).fetchone()
        start = int(row[0]) if row else mid
        if (sid, start) in seen:
            continue
        seen.add((sid, start))
        row = conn.execute("SELECT id FROM messages WHERE id > ? AND session_id = ? AND role = 'user' "
                           "ORDER BY id LIMIT 1", (start, sid)).fetchone()
        end = int(row[0]) if row else None
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM messages m LEFT JOIN sessions s ON s.id = m.session_id WHERE m.session_id = ? "
            "AND m.id >= ? AND (? IS NULL OR m.id < ?) AND m.role IN ('user', 'assistant', 'tool') ORDER BY m.id "
            "LIMIT ?", (sid, start, end, end, MAX_TURN_ROWS)).fetchall()
        for u in _session(sid, rows, claimed_only):
            out[u.claim_id] = u
    return sorted(out.values(), key=lambda u: u.claim_id)


def first_id_since(conn: sqlite3.Connection, since: float) -> int:
    """The first message id at or after time `since`, by bisecting the ids (messages are appended in
    time order; a row whose time isn't a number reads as old): a few index probes, not a scan."""
    row = conn.execute("SELECT MIN(id), MAX(id) FROM messages").fetchone()
    if not row or row[0] is None:
        return 0
    lo, hi = int(row[0]), int(row[1]) + 1
    while lo < hi:
        mid = (lo + hi) // 2
        probe = conn.execute("SELECT id, timestamp FROM messages WHERE id >= ? ORDER BY id LIMIT 1", (mid,)).fetchone()
        if probe is None:
            hi = mid
            continue
        ts = probe[1]
        if isinstance(ts, (int, float)) and ts >= since:
            hi = mid
        else:
            lo = int(probe[0]) + 1
    return lo


def _session(sid: str, rows: list[tuple], claimed_only: bool) -> list[Unsaved]:
    out = []
    turn: list[tuple] = []
    for row in rows:
        if row[2] == "user" and turn:
            out.extend(_turn(sid, turn, claimed_only))
            turn = []
        turn.append(row)
    if turn:
        out.extend(_turn(sid, turn, claimed_only))
    return out


def _turn(sid: str, rows: list[tuple], claimed_only: bool = True) -> list[Unsaved]:
    """The claims of one turn (its first row the user's, when it has one) and what backs them."""
    first = rows[0]
    user = first if first[2] == "user" else None
    request = flatten_content(user[3])[:MAX_TEXT] if user else ""
    said: list[tuple[tuple, str]] = []
    calls: dict[str, object] = {}  # call id -> None (no result yet) or the result dict
    anonymous: list[object] = []
    for row in rows:
        if row[2] == "assistant":
            text = flatten_content(row[3])[:MAX_TEXT] if isinstance(row[3], str) else ""
            if text:
                found = claims(text)
                if found:
                    said.append((row, found[0].phrase))
            if isinstance(row[4], str) and "memory" in row[4]:
                for cid, _ in _memory_calls(row[4]):
                    if cid:
                        calls[cid] = None
                    else:
                        anonymous.append(None)
        elif row[2] == "tool":
            cid = row[5] if isinstance(row[5], str) else ""
            if cid in calls:
                calls[cid] = parse_result(row[3]) or {}
            elif anonymous and None in anonymous:
                anonymous[anonymous.index(None)] = parse_result(row[3]) or {}
    asked = None
    if not said:
        if claimed_only or not request:
            return []
        asked = bool(requests(request))
        if not asked:
            return []
    results = [r for r in (*calls.values(), *anonymous) if isinstance(r, dict)]
    if any(r.get("success") is True and not r.get("staged") for r in results):
        return []  # a write landed in this turn: the promise was kept
    if any(r.get("staged") for r in results):
        staged = next(r for r in results if r.get("staged"))
        outcome, detail = "staged", str(staged.get("pending_id") or "")
    elif calls or anonymous:
        failed = next((r for r in results if r.get("success") is False), {})
        outcome, detail = "refused", str(failed.get("error") or "")[:2_000]
    else:
        outcome, detail = "no-call", ""
    if said:
        row, phrase = said[0]
        text = flatten_content(row[3])[:MAX_TEXT]
    else:  # asked, and nothing claimed: the user's turn is the evidence
        row, phrase, text = user, "", ""
    if asked is None:
        asked = bool(requests(request)) if request else False
    return [Unsaved(sid, str(row[7] or ""), int(row[0]), phrase, text,
                    row[6] if isinstance(row[6], (int, float)) else None,
                    int(user[0]) if user else None, request, asked, outcome, detail)]


def _memory_calls(tool_calls: str) -> list[tuple[str, object]]:
    from core.sessions.memory_calls import _loads

    try:
        parsed = _loads(tool_calls)
    except (ValueError, RecursionError):
        return []
    return calls_in(parsed, Harvest())
