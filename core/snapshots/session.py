"""One session and the memory it loaded, as hmc reads it from state.db (core.snapshots.loaded),
and why what it loaded may not be known."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from core.snapshots.blocks import Loaded

# Sources whose sessions run once and end (no one chats on in them).
ONE_SHOT_SOURCES = frozenset({"cron", "subagent", "tool", "kanban", "batch"})

NO_PROMPT = "no prompt stored"
MISSING_ROW = "its stored prompt is gone from state.db"
NOT_UTF8 = "its stored prompt is not UTF-8"
TOO_LONG = "its stored prompt is too long to be Hermes's"
NO_BLOCKS = "its stored prompt holds no memory blocks hmc can check"
RETRY = frozenset({NO_PROMPT, MISSING_ROW})  # not known yet: a later turn (or row) may tell


class SessionLoad(NamedTuple):
    """One session, and the memory it loaded (None: not known, `unknown` says why). A named tuple:
    one is made per session of state.db (100,000 and more), and a tuple is the cheapest to make."""

    id: str
    source: str
    title: str
    started_at: float | None
    ended_at: float | None
    end_reason: str | None
    last_active: float | None
    parent_session_id: str | None
    chat: str  # a gateway chat's name or id ("" elsewhere)
    loaded: Loaded | None
    unknown: str | None = None

    @property
    def open(self) -> bool:
        return self.ended_at is None

    @property
    def where(self) -> str:
        """The source, and the chat when it has one: `telegram · Ops room`."""
        return f"{self.source} · {self.chat}" if self.chat else self.source


@dataclass(frozen=True)
class EntryLoads:
    """Which sessions loaded one entry (as shown in the prompt)."""

    first_session: str
    first_at: float | None
    sessions: int

    def to_json(self) -> dict:
        from core.sessions.model import iso_time

        return {"first_session": self.first_session or None, "first_at": iso_time(self.first_at),
                "sessions": self.sessions}
