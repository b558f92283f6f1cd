"""The review's `unsaved` finding: promises the agent didn't keep (core.sessions.unsaved), in the
sessions since the last review (at most REVIEW_EVERY_DAYS back).

A claim is flagged when its turn has no memory write behind it, and cleared when the fact made it
anyway:
- an entry now holds the user's request, or the agent's claim (the background review saved it,
  or a later turn did: a later session's snapshot loads what the files hold);
- a pending record holds it (it is waiting for approval);
- an external provider is set (its own tools may have saved it: hmc can't see inside).

Each finding shows the claim, the user's request and what happened, and carries the request as
`fact`: the review offers to add it now (through the usual checks) or to keep the finding.

The scan of state.db is kept for the next review in the same process (the TUI reviews again after
every change to the files) while the database is unchanged: its files' identity, size and time, and
its last message id. What clears a claim (the files, the queue, the provider) is checked every time.
"""

from __future__ import annotations

import os
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from core.review.decisions import REVIEW_EVERY_DAYS
from core.scan.mask import clip

if TYPE_CHECKING:  # pragma: no cover
    from core.curator import Curator

_SCANNED: dict[Path, tuple[tuple, list]] = {}  # a database's last scan, by what it was read from


def _files(db: Path) -> tuple:
    """state.db's and its WAL's identity, size and time (a write changes one of them)."""
    out = []
    for path in (db, db.with_name(db.name + "-wal")):
        try:
            st = os.stat(path)
        except OSError:
            out.append(None)
            continue
        out.append((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns))
    return tuple(out)


def _scan(curator: "Curator", moment: float) -> list:
    """core.sessions.unsaved.scan of the messages since `moment`, kept while the database is as it was."""
    from core.sessions.unsaved import scan

    db = curator.home.state_db

    def read(conn, schema) -> list:
        last = conn.execute("SELECT max(id) FROM messages").fetchone()[0]
        key = (_files(db), last, moment)
        kept = _SCANNED.get(db)
        if kept is not None and kept[0] == key:
            return kept[1]
        found = scan(conn, since=moment)
        if _files(db) == key[0]:  # not written while it was read
            _SCANNED[db] = (key, found)
        return found

    return curator.sessions.read_with(read)


HAPPENED = {"no-call": "made no memory call", "refused": "its memory call was refused",
            "staged": "the write was only staged for approval"}


def unsaved_findings(curator: "Curator", since: date | None = None) -> list[tuple[str, str, str]]:
    """The `unsaved` findings in the sessions since `since` (default: REVIEW_EVERY_DAYS before today),
    as (rule: the session and message, detail, fact): core.review.findings makes them Findings."""
    from core.hermes.wording import for_person
    from core.timefmt import local_time
    from core.review.facts import Fact, FactError

    if not curator.home.state_db.is_file():
        return []
    start = since or (curator.today - timedelta(days=REVIEW_EVERY_DAYS))
    moment = datetime.combine(start, time()).timestamp()
    try:
        found = _scan(curator, moment)
    except Exception:  # noqa: BLE001 - an unreadable state.db: the status line says why, the review goes on
        return []
    if not found:
        return []
    setup = curator.memory_setup(["cli"])
    if setup.provider.name:
        return []
    entries = [e for store in curator.stores.values() for e in (store.last or store.read()).entries]
    try:
        staged = [op.content or "" for r in curator.pending.list() for op in r.ops]
    except Exception:  # noqa: BLE001 - an unreadable queue clears nothing
        staged = []
    out = []
    for u in found:
        fact_text = u.request or u.claim_text  # what the user said, else what the agent claimed
        try:
            fact = Fact(fact_text)
        except FactError:
            continue
        if any(fact.in_text(e) for e in entries) or any(fact.in_text(s) for s in staged if s):
            continue
        when = (local_time(u.timestamp) or "?")[:16]
        request = " ".join(u.request.split())
        request = clip(request, 159)  # never inside a secret: the finding is masked later
        happened = HAPPENED[u.outcome] + (f" ({u.detail})" if u.outcome == "staged" and u.detail else "")
        reply = " ".join(u.claim_text.split())
        reply = reply if 0 < len(reply) <= 120 else u.claim
        detail = (f"The agent answered \"{reply}\" ({u.source or '?'}, {when}), but {happened}: the fact is not in "
                  "memory." + (f" The user had said \"{request}\"" if request else ""))
        if u.outcome == "refused" and u.detail:
            detail += f" The tool said: {for_person(u.detail)[:300]}"
        out.append((f"{u.session_id}#{u.claim_id}", detail, fact_text))
    return out
