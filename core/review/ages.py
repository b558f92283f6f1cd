"""How long each entry has had its current text, from the memory history (core.timeline).

The review's `old` finding rests on this. An entry's age is the time of the write that produced its
current text (`Blame.origin`: an agent call or an hmc write). An entry no recorded write explains (a
hand edit, an unrecorded write) has the time the history first shows its text: the file as it is
now, a snapshot or a journal record saw it then, so it is at least that old. An entry with neither
has no age, and is never called old.

Ages come only from state.db: without one (or when it can't be read) there are none, and `Ages.note`
says why. The timeline's cache keeps this quick (a run after the first reads only new messages).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Callable, Mapping

from core.timefmt import local_datetime

if TYPE_CHECKING:  # pragma: no cover
    from core.curator import Curator
    from core.timeline import Timeline, Write

WRITE, SEEN = "write", "seen"  # what an age is based on
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


@dataclass(frozen=True)
class Age:
    """When an entry got its current text (at the latest, for `basis` SEEN)."""

    since: float  # Unix seconds
    basis: str  # WRITE: the write that produced the text; SEEN: when the history first shows it
    by: str = "unknown"  # agent | hmc | unknown
    action: str | None = None  # add, replace, batch; hmc's edit, approve…
    source: str | None = None  # the agent's session source (cli, telegram…)
    added: bool | None = None  # the write added the entry (True) or rewrote it (False); None: unknown
    who: str = ""  # the writer in memory mode's words (core.timeline.view.who): telegram, cli, hmc…

    @property
    def known_day(self) -> date | None:
        """The day the text was written, when the history knows it (None for SEEN: only "by then")."""
        return self.day() if self.basis == WRITE else None

    def written(self) -> str:
        """'written 5 Aug 2026 (telegram)' or, for a text no recorded write explains, 'there by 5 Aug
        2026 (no recorded call)': when the history first shows it, so maybe earlier."""
        day = self.day()
        if day is None:
            return "date unknown"
        who = f" ({self.who})" if self.who else ""
        return f"{'written' if self.basis == WRITE else 'there by'} {short_date(day)}{who}"

    def day(self) -> date | None:
        moment = local_datetime(self.since)
        return moment.date() if moment is not None else None

    def origin(self) -> str:
        """Who produced the text, for a finding's detail: 'added by the agent in a telegram session'."""
        if self.basis == SEEN:
            return "no recorded call wrote it"
        if self.by == "agent":
            verb = {True: "added", False: "rewritten"}.get(self.added) or \
                {"add": "added", "replace": "rewritten"}.get(self.action or "", "written")
            session = f" in a {self.source} session" if self.source and self.source not in ("unknown", "outside") \
                else ""
            return f"{verb} by the agent{session}"
        if self.by == "hmc":
            return f"written with hmc ({self.action})" if self.action else "written with hmc"
        return "written by an unknown writer"


@dataclass(frozen=True)
class Ages:
    """Each current entry's age by (target, text); `note` says why there are none (None: there are)."""

    by_text: Mapping[tuple[str, str], Age] = field(default_factory=dict)
    note: str | None = None

    def get(self, target: str, text: str) -> Age | None:
        return self.by_text.get((target, text))


def short_date(day: date) -> str:
    """'12 Mar 2026' (English month names whatever the locale)."""
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}"


class _Detached:
    """The curator with copies of its stores: the timeline reads the files itself, and reading the
    real stores would move the snapshots the TUI's file poll compares against (it would then miss a
    change). Everything else is the curator's."""

    def __init__(self, curator: "Curator"):
        self._curator = curator
        self.stores = {t: dataclasses.replace(s) for t, s in curator.stores.items()}

    def __getattr__(self, name: str):
        return getattr(self._curator, name)


def _age(write: "Write", basis: str, text: str | None = None) -> Age:
    """`text`'s age from `write`; whether the write added it or rewrote it comes from its changes
    (a batch can do either)."""
    added = next((before is None for before, after in write.changes if after == text), None) \
        if text is not None else None
    from core.timeline.view import who

    return Age(float(write.timestamp), basis, write.by, write.action, write.source, added, who(write))


def ages_from(timeline: "Timeline") -> dict[tuple[str, str], Age]:
    """Each current entry's age in `timeline` (entries with no age left out)."""
    out: dict[tuple[str, str], Age] = {}
    unexplained: dict[tuple[str, str], object] = {}
    for blame in timeline.blame():
        key = (blame.target, blame.text)
        if blame.origin is not None:
            out.setdefault(key, _age(blame.origin, WRITE, blame.text))
        else:
            unexplained.setdefault(key, blame)
    if not unexplained:
        return out
    # the outside write that produced each unexplained text: the newest one whose change ends in it
    wanted = set(unexplained)
    writes = timeline.writes
    for i in range(len(writes) - 1, -1, -1):
        w = writes[i]
        if w.by != "unknown":
            continue
        for _, after in w.changes:
            key = (w.target, after)
            if after is not None and key in wanted:
                out[key] = _age(w, SEEN)
                wanted.discard(key)
        if not wanted:
            break
    for key in wanted:  # no outside write names it: an entry seen once and never changed since
        blame = unexplained[key]
        first = blame.first_seen
        if first is not None and blame.revisions == 1:
            out[key] = _age(first, SEEN)
    return out


def entry_ages(curator: "Curator", progress: Callable[[int, int], None] | None = None) -> Ages:
    """The ages of the curator's current entries; none (and a note) without a readable state.db.

    Never raises: a history that can't be rebuilt means no ages, not a failed review."""
    db = curator.home.state_db
    try:
        if not db.is_file():
            return Ages(note="no state.db: no history, so no entry ages")
    except OSError as exc:
        return Ages(note=f"state.db can't be checked ({exc.strerror or exc}): no entry ages")
    try:
        from core.timeline import build_timeline

        timeline = build_timeline(_Detached(curator), cache=True, progress=progress)  # type: ignore[arg-type]
        return Ages(ages_from(timeline))
    except Exception as exc:  # noqa: BLE001 - any failure of the history only costs the `old` finding
        return Ages(note=f"state.db can't be read for entry ages ({exc})")
