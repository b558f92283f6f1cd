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
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING

from core.review.decisions import REVIEW_EVERY_DAYS
from core.scan.mask import clip

if TYPE_CHECKING:  # pragma: no cover
    from core.curator import Curator

HAPPENED = {"no-call": "made no memory call", "refused": "its memory call was refused",
            "staged": "the write was only staged for approval"}


def unsaved_findings(curator: "Curator", since: date | None = None) -> list[tuple[str, str, str]]:
    """The `unsaved` findings in the sessions since `since` (default: REVIEW_EVERY_DAYS before today),
    as (rule: the session and message, detail, fact): core.review.findings makes them Findings."""
    from core.hermes.wording import for_person
    from core.sessions.unsaved import scan
    from core.timefmt import local_time
    from core.review.facts import Fact, FactError

    if not curator.home.state_db.is_file():
        return []
    start = since or (curator.today - timedelta(days=REVIEW_EVERY_DAYS))
    moment = datetime.combine(start, time()).timestamp()
    try:
        found = curator.sessions.read_with(lambda conn, schema: scan(conn, since=moment))
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
