"""The memory calls the tool refused, said for a person.

state.db keeps every call the agent made and the tool's answer. A call answered `{"success":
false, "error": …}` wrote nothing, and it is the commonest real answer to "I told it and it forgot":
the store was full, the text to change matched no entry or several, the scan blocked it, memory was
off, or the turn's failed writes passed the release's consolidation cap (3 a turn in 0.19-0.22, after
which the release tells the agent to stop and answer). core.sessions.memory_calls keeps them (the
newest MAX_REFUSED) with the release's reason, word for word; this module gives each its kind and
core.hermes.wording's sentence, and filters them as `hmc log` filters writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from core.hermes.wording import explain
from core.timeline.model import as_epoch
from core.store.memory import FILE_NAMES

if TYPE_CHECKING:  # pragma: no cover
    from core.sessions.memory_calls import Call
    from core.sessions.search import Message

# a kind for each reason a person can act on; what core.hermes.wording doesn't know is "other"
KIND_WORDS = {
    "limit": "the store was full", "consolidation-cap": "the turn's failed writes passed the cap",
    "no-match": "no entry matched", "ambiguous": "several entries matched", "span-twice": "the span was ambiguous",
    "blocked": "the scan blocked it", "disabled": "memory was off", "drift": "the file wasn't in Hermes's form",
    "empties-store": "it would have emptied the store", "unreadable": "the file couldn't be read",
    "empty": "the text was empty", "unknown": "an operation the release doesn't have", "no-op": "it changed nothing",
    "already": "it was already there",
}


@dataclass(frozen=True)
class Refusal:
    call: "Call"
    reason: str  # the release's text, word for word
    kind: str  # one of core.hermes.wording.KINDS, or "other"
    said: str  # the reason for a person (core.hermes.wording)

    @property
    def texts(self) -> tuple[str, ...]:
        """Every text the call carried (what a search for the fact looks in)."""
        c = self.call
        out = [t for t in (c.content, c.old_text) if t]
        for op in c.operations or ():
            out.extend(t for t in (op.get("content"), op.get("old_text")) if isinstance(t, str) and t)
        return tuple(out)

    def to_json(self, source: str | None = None) -> dict:
        c = self.call
        return {"session_id": c.session_id, "message_id": c.message_id, "result_id": c.result_id,
                "timestamp": c.timestamp, "source": source, "target": c.target, "action": c.action,
                "content": c.content, "old_text": c.old_text,
                "operations": list(c.operations) if c.operations is not None else None,
                "kind": self.kind, "reason": self.reason, "reason_plain": self.said}


def refusal(call: "Call", reason: str) -> Refusal:
    explained = explain(reason, FILE_NAMES[call.target])
    kind = explained.kind or "other"
    said = explained.text if explained.kind else (reason or "the tool gave no reason")
    return Refusal(call, reason, kind, said)


def matching(call: "Call", target: str | None = None, since=None, until=None, session: str | None = None) -> bool:
    """Whether a refused call is in the target, the days (a date, a datetime or Unix seconds; an
    until day counts whole) and the session asked for."""
    if target and call.target != target:
        return False
    if session and call.session_id != session:
        return False
    start, end, ts = as_epoch(since), as_epoch(until, end_of_day=True), call.timestamp
    return not ((start is not None and (ts is None or ts < start)) or (end is not None and (ts is None or ts > end)))


def select(refused: Iterable[tuple["Call", str]], target: str | None = None, since=None, until=None,
           session: str | None = None) -> list[Refusal]:
    """The refusals among `refused` ((call, reason), oldest first) in the target, the days and the
    session asked for, oldest first."""
    return [refusal(call, reason) for call, reason in refused if matching(call, target, since, until, session)]


def refusal_said(message: "Message") -> str | None:
    """What a transcript shows under a memory tool result that says no: the release's reason said
    for a person (core.hermes.wording); None for any other message."""
    if message.role != "tool" or message.tool_name != "memory":
        return None
    from core.hermes.wording import for_person
    from core.sessions.memory_calls import parse_result

    result = parse_result(message.content)
    if result is None or result.get("success") is not False:
        return None
    reason = result.get("error")
    return for_person(reason) if isinstance(reason, str) and reason else "it gave no reason"
