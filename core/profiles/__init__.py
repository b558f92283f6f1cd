"""A Hermes home's profiles as one thing to see and keep apart (issue 33).

- discovery: which profiles there are and which one a bare `hermes` uses, by the release's rules;
- overview: one row per profile (gauges, queues, review, sessions, switches, the doctor);
- compare: two profiles' store side by side (what they share, what only one holds);
- transfer: move or copy an entry to another profile, one undo for both sides.
The cross-profile review findings (`cross-profile`, `default-trap`) are core.review.profiles.

May import: the standard library, core.hermes (the release's rules), core.store (every write goes
through it), core.sessions (each profile's state.db, read-only), core.review and core.doctor (a row's
review state and verdict), core.curator (one curator per profile). Never Textual.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

from core.profiles.discovery import Discovery, discover

if TYPE_CHECKING:  # pragma: no cover
    from core.curator import Curator
    from core.profiles.overview import Row

MAX_PROFILES = 200  # profiles opened for one view or review (a home with more is named, not read whole)


@dataclass(frozen=True)
class Trap:
    """A stale `profiles/default/` folder: Hermes never reads it (the default's memory is
    `<home>/memories`), yet it looks like the default profile's."""

    folder: Path
    entries: dict[str, tuple[str, ...]]  # target -> its files' entries
    live: Path  # the memories/ folder Hermes reads for the default profile

    def sentence(self) -> str:
        held = ", ".join(f"{len(e)} {'MEMORY.md' if t == 'memory' else 'USER.md'} entr{'y' if len(e) == 1 else 'ies'}"
                         for t, e in self.entries.items() if e)
        from core.home import tilde

        return (f"profiles/default/ holds {held or 'no memory entries'}, but Hermes never reads it: the default "
                f"profile's memory is {tilde(self.live)}. Add what you still need there (memory mode: a), then remove "
                "profiles/default/.")


def trap(discovery: Discovery) -> Trap | None:
    """What the stale profiles/default/ folder holds (parsed as the release parses a store)."""
    if discovery.default_trap is None:
        return None
    from core.hermes.memory import parse
    from core.store.atomic import read_regular
    from core.store.memory import FILE_NAMES

    entries = {}
    for target, name in FILE_NAMES.items():
        try:
            text = read_regular(discovery.default_trap / "memories" / name, 1 << 20).decode("utf-8", "replace")
        except OSError:
            text = ""
        entries[target] = tuple(parse(text))
    return Trap(discovery.default_trap, entries, discovery.base / "memories")


def curators(curator: "Curator", discovery: Discovery | None = None) -> Iterator[tuple[str, "Curator | None", str]]:
    """(name, its curator or None, why not) for every profile of `curator`'s home, the current one
    as it is (not opened again)."""
    from core.home import HomeError

    found = discovery or discover(curator.home.base, curator.release)
    for p in found.profiles[:MAX_PROFILES]:
        if p.name == curator.home.profile:
            yield p.name, curator, ""
            continue
        try:
            yield p.name, curator.switch_profile(p.name), ""
        except (HomeError, ValueError, OSError) as exc:
            yield p.name, None, str(exc)


def rows(curator: "Curator", discovery: Discovery | None = None, *, with_sessions: bool = True,
         should_stop: Callable[[], bool] | None = None,
         on_quick: Callable[[Discovery, list["Row"]], None] | None = None) -> tuple[Discovery, list["Row"]]:
    """The home's discovery and one row per profile, each profile opened once: the quick part of
    every row first (handed to `on_quick` when given, so a view can paint it), then their state.db
    part unless told not. `should_stop` ends early (the rows so far)."""
    from core.profiles import overview

    found = discovery or discover(curator.home.base, curator.release)
    opened, quick = [], []
    for name, other, why in curators(curator, found):
        if should_stop is not None and should_stop():
            return found, quick
        opened.append(other)
        quick.append(overview.quick(other, name == found.active) if other is not None else
                     overview.unreadable(name, str(found.base / "profiles" / name), why, name == found.active))
    if on_quick is not None:
        on_quick(found, quick)
    if not with_sessions:
        return found, quick
    full = []
    for other, row in zip(opened, quick):
        if should_stop is not None and should_stop():
            return found, full + quick[len(full):]
        full.append(overview.sessions(other, row) if other is not None else row)
    return found, full


def opening(curator: "Curator") -> tuple[str, str] | None:
    """What to say when hmc opens a home with profiles ("profile ops (active) — 2 others: press 5"),
    as (text, "information" | "warning"); None for a home with one profile and nothing wrong."""
    found = discover(curator.home.base, curator.release)
    others = len(found.profiles) - 1
    here = curator.home.profile
    if found.sticky_problem:
        return f"{found.sticky_problem}. hmc opened {here}; press 5 for every profile.", "warning"
    if not others:
        return None
    why = " (active)" if here == found.active else ""
    text = f"profile {here}{why} — {others} other{'s' if others != 1 else ''}: press 5"
    empty = all(not s.read().entries for s in curator.stores.values())
    if empty:
        text += f". {here} has no memory entries"
        fuller = [p.name for p in found.profiles if p.name != here and _has_entries(p.root)]
        if fuller:
            text += f"; {', '.join(fuller[:3])} {'has' if len(fuller) == 1 else 'have'} some"
        return text, "warning"
    return text, "information"


def _has_entries(root: Path) -> bool:
    for name in ("MEMORY.md", "USER.md"):
        try:
            if (root / "memories" / name).stat().st_size > 0:
                return True
        except OSError:
            continue
    return False


def holding(curator: "Curator", names: list[str], target: str, entry: str) -> set[str]:
    """Which of the profiles `names` hold `entry` word for word in their `target` store."""
    from core.hermes.memory import parse
    from core.store.atomic import read_regular
    from core.store.memory import FILE_NAMES

    out = set()
    for name in names:
        root = curator.home.base if name == "default" else curator.home.base / "profiles" / name
        try:
            text = read_regular(root / "memories" / FILE_NAMES[target], 1 << 20).decode("utf-8", "replace")
        except OSError:
            continue
        if entry in parse(text):
            out.add(name)
    return out
