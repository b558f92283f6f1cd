"""One row per profile: what the profiles view (mode 5) and `hmc profiles` show.

A row comes in two parts, so the view paints at once and fills in after:
- `quick(curator)`: what the profile's own small files say (both stores' usage, both queues' counts,
  the review's state, memory switched off or a provider set, the doctor's remembered verdict);
- `sessions(curator)`: what its state.db says (the last session, when and where; the sessions of
  the last 30 days), two index lookups, whatever the database's size.

Nothing here raises for a damaged profile: each part that can't be read is None, with its reason in
`problems`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from core.store.memory import TARGETS, usage

if TYPE_CHECKING:  # pragma: no cover
    from core.curator import Curator

RECENT_DAYS = 30


@dataclass(frozen=True)
class Gauge:
    chars: int | None  # None: unreadable
    limit: int
    loaded: bool  # memory_enabled / user_profile_enabled
    entries: int = 0

    def to_json(self) -> dict:
        return {"chars": self.chars, "limit": self.limit, "loaded": self.loaded, "entries": self.entries}


@dataclass(frozen=True)
class Row:
    name: str
    root: str
    active: bool  # the one a bare `hermes` uses (active_profile, as the release reads it)
    default: bool  # the root home's own profile
    gauges: dict[str, Gauge]
    pending: int | None  # staged memory writes (None: unreadable)
    skills: int | None  # staged skill writes
    review: str  # "review due (last 2026-10-01)" | "reviewed 2026-11-02" | "never reviewed" | "nothing to review"
    review_due: bool
    memory_off: tuple[str, ...]  # where the agent can't write memory ("memory: disabled", "cli", "telegram"…)
    provider: str | None  # memory.provider
    doctor: str | None  # the remembered verdict: agree | differ | unchecked; None: no Hermes to check
    last_session: tuple[float, str] | None = None  # (started, source); filled by sessions()
    recent: int | None = None  # sessions started in the last RECENT_DAYS days
    sessions_known: bool = False  # sessions() has run (None above then means "no state.db")
    problems: tuple[str, ...] = field(default=())
    known: bool = True  # False: only the name is known yet (placeholder(): the view's first frame)

    @property
    def empty(self) -> bool:
        """Nothing in either store and nothing queued: a profile with no memory to curate."""
        return all(not g.chars for g in self.gauges.values()) and not self.pending and not self.skills

    def to_json(self) -> dict:
        from core.sessions.model import iso_time

        return {"name": self.name, "root": self.root, "active": self.active, "default": self.default,
                "stores": {t: g.to_json() for t, g in self.gauges.items()}, "pending": self.pending,
                "skills_pending": self.skills, "review": self.review, "review_due": self.review_due,
                "memory_off": list(self.memory_off), "provider": self.provider, "doctor": self.doctor,
                "last_session": ({"started_at": iso_time(self.last_session[0]), "source": self.last_session[1]}
                                 if self.last_session else None),
                "sessions_last_30_days": self.recent, "problems": list(self.problems)}


@dataclass(frozen=True)
class Files:
    """What a profile's own small files say: both stores' usage, both queues' counts, the review's
    state (the row's first part, and `hmc status --short`'s figures: core.attention)."""

    gauges: dict[str, Gauge]
    pending: int | None
    skills: int | None
    review: str
    review_due: bool
    problems: tuple[str, ...]


def files(curator: "Curator") -> Files:
    problems: list[str] = []
    gauges = {}
    for target in TARGETS:
        store = curator.stores[target]
        snap = store.read()
        if snap.error:
            problems.append(f"{store.name}: {snap.error}")
        gauges[target] = Gauge(None if snap.error else usage(snap.entries), store.limit, store.enabled,
                               len(snap.entries))
    from core.pending import staged  # (counted by name: neither queue's machinery is loaded)

    pending = skills = None
    try:
        pending = staged.count(curator.home.pending_dir)
    except OSError as exc:  # an unreadable queue is named, the row goes on
        problems.append(f"pending: {staged.problem(curator.home.pending_dir, exc)}")
    try:
        skills = staged.count(curator.home.skills_pending_dir)
    except OSError:  # as the skills queue counts: a folder it can't list holds nothing it can show
        skills = 0
    review, due = _review(curator, gauges)
    return Files(gauges, pending, skills, review, due, tuple(problems))


def quick(curator: "Curator", active: bool) -> Row:
    """The row from the profile's files (no state.db)."""
    part = files(curator)
    gauges, pending, skills, review, due = part.gauges, part.pending, part.skills, part.review, part.review_due
    problems = list(part.problems)
    off: list[str] = [f"{curator.stores[t].name}: disabled" for t in TARGETS if not curator.stores[t].enabled]
    provider = None
    try:
        setup = curator.memory_setup()
        off += [a.platform for a in setup.tool_off if a.on is False]
        provider = setup.provider.name or None
    except Exception as exc:  # noqa: BLE001 - a config hmc can't read: named
        problems.append(f"config.yaml: {exc}")
    return Row(curator.home.profile, str(curator.home.root), active, curator.home.profile == "default", gauges,
               pending, skills, review, due, tuple(off), provider, _doctor(curator), problems=tuple(problems))


def _review(curator: "Curator", gauges: dict[str, Gauge]) -> tuple[str, bool]:
    from core.review.decisions import ReviewStore, review_due_on
    from core.store.journal import state_dir

    try:
        last = ReviewStore(state_dir(curator.home.root)).last_review()
    except Exception:  # noqa: BLE001 - unreadable decisions: as if never reviewed
        last = None
    if all(not g.chars for g in gauges.values()):
        return "nothing to review", False
    if review_due_on(last, curator.today):
        return "review due" + (f" (last {last.isoformat()})" if last else ""), True
    return f"reviewed {last.isoformat()}", False


def _doctor(curator: "Curator") -> str | None:
    from core.doctor.verdict import for_home

    try:
        installed, (verdict, _damaged) = for_home(curator.home.root)
    except Exception:  # noqa: BLE001
        return None
    if installed is None:
        return None
    return verdict.status if verdict is not None else "unchecked"


def sessions(curator: "Curator", row: Row) -> Row:
    """`row` with its state.db part: the last session and the count of the last RECENT_DAYS days
    (an index lookup each; a missing state.db leaves both None, a damaged one names why)."""
    from core.sessions.db import present

    if not present(curator.home.state_db):
        return replace(row, sessions_known=True)
    since = curator.now() - RECENT_DAYS * 86400

    def go(conn, schema):
        last = conn.execute("SELECT started_at, source FROM sessions WHERE typeof(started_at) IN ('real', 'integer') "
                            "ORDER BY started_at DESC LIMIT 1").fetchone()
        recent = conn.execute("SELECT COUNT(*) FROM sessions WHERE started_at >= ?", (since,)).fetchone()[0]
        return last, recent

    try:
        last, recent = curator.sessions.read_with(go)
    except Exception as exc:  # noqa: BLE001 - a damaged state.db: named, the row stays
        return replace(row, sessions_known=True, problems=(*row.problems, f"state.db: {exc}"))
    return replace(row, sessions_known=True, recent=int(recent),
                   last_session=(float(last[0]), str(last[1] or "?")) if last else None)


def unreadable(name: str, root: str, why: str, active: bool) -> Row:
    """The row of a profile hmc couldn't open: its name, and why."""
    return Row(name, root, active, name == "default", {}, None, None, "?", False, (), None, None,
               sessions_known=True, problems=(why,))


def placeholder(name: str, root: str, active: bool) -> Row:
    """A row with only its name (from the folders alone): what the profiles view paints first."""
    return Row(name, root, active, name == "default", {}, None, None, "", False, (), None, None, known=False)
