"""The review's findings across profiles (issue 33): the guides' first rule is to keep workloads
apart by profile, so the same fact in two profiles is a likely leak.

- `cross-profile` (warning): an entry of this profile is the same as, or nearly the same as
  (core.review.duplicates: `duplicate` or `similar`), an entry of another profile's stores. The
  finding names the other profile's entry and which profile held it first, from each profile's
  history (core.review.ages): the later one most likely got it by leaking. The fix is to keep it in
  one (memory mode's `M` moves it), remove it from the other, or keep both on purpose (`y`).
- `default-trap` (warning): `profiles/default/` exists beside the default profile's own memories/;
  Hermes never reads it (core.profiles.Trap says what it holds and what to do).

Pairs are looked for only among entries sharing a content word (an inverted index), so a home of
twenty profiles costs about what the pairs that could match cost, not every pair.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from core.review import textnorm as tn
from core.review.duplicates import compare
from core.store.memory import TARGETS

if TYPE_CHECKING:  # pragma: no cover
    from core.curator import Curator
    from core.profiles.discovery import Discovery

LEAK_KINDS = ("duplicate", "similar")
MAX_ENTRIES_PER_PROFILE = 500  # a store far over any limit: the rest isn't compared


def _entries(curator: "Curator") -> list[tuple[str, int, str]]:
    out = []
    for target in TARGETS:
        store = curator.stores.get(target)
        if store is None:
            continue
        snap = store.last  # the TUI's polled snapshot; read when there is none yet
        out += [(target, i, text) for i, text in enumerate(snap.entries[:MAX_ENTRIES_PER_PROFILE])]
    return out


def leaks(mine: list[tuple[str, int, str]], theirs: list[tuple[str, int, str]]) -> list[tuple[tuple, tuple, object]]:
    """(my entry, their entry, verdict) for each pair that says the same thing."""
    index: dict[str, list[int]] = defaultdict(list)
    for n, (_, _, text) in enumerate(theirs):
        for token in set(tn.content_tokens(text)) or {"\x00" + text.strip()}:
            index[token].append(n)
    out = []
    for entry in mine:
        tokens = set(tn.content_tokens(entry[2])) or {"\x00" + entry[2].strip()}
        candidates = sorted({n for token in tokens for n in index.get(token, ())})
        for n in candidates:
            verdict = compare(entry[2], theirs[n][2])
            if verdict is not None and verdict.kind in LEAK_KINDS:
                out.append((entry, theirs[n], verdict))
    return out


def _first_seen(curator: "Curator", cache: dict) -> dict:
    """(target, text) -> Age from the profile's history (cached per profile; none when unreadable)."""
    key = str(curator.home.root)
    if key not in cache:
        from core.review.ages import entry_ages

        try:
            cache[key] = dict(entry_ages(curator).by_text)
        except Exception:  # noqa: BLE001 - no history: "which first" is left unsaid
            cache[key] = {}
    return cache[key]


@dataclass(frozen=True)
class Leak:
    """An entry of this profile that another profile holds too (core.review.findings makes it a
    `cross-profile` Finding)."""

    target: str
    index: int
    text: str
    profile: str  # the other profile
    their_target: str
    their_index: int
    their_text: str
    same: bool  # word for word (else nearly: `reason`)
    reason: str
    first: str  # which profile held it first, from the histories ("" when they can't tell)


def cross_profile(curator: "Curator", discovery: "Discovery | None" = None,
                  others: Iterable[tuple[str, "Curator"]] | None = None, ages: dict | None = None) -> list[Leak]:
    """This profile's entries also held by another profile (one per pair)."""
    from core.profiles import curators

    mine = _entries(curator)
    if not mine:
        return []
    if others is None:
        others = [(name, c) for name, c, _ in curators(curator, discovery) if c is not None and c is not curator]
    ages = {} if ages is None else ages
    out = []
    for name, other in others:
        for (target, i, text), (their_target, j, their_text), verdict in leaks(mine, _entries(other)):
            first = _which_first(curator, other, (target, text), (their_target, their_text), ages)
            out.append(Leak(target, i, text, name, their_target, j, their_text, verdict.kind == "duplicate",
                            verdict.reason, first))
    return out


def _which_first(here: "Curator", there: "Curator", mine: tuple[str, str], theirs: tuple[str, str],
                 cache: dict) -> str:
    a, b = _first_seen(here, cache).get(mine), _first_seen(there, cache).get(theirs)
    if a is None or b is None or a.since == b.since:
        return ""
    from core.timefmt import short_date

    older, newer = ((here, a), (there, b)) if a.since < b.since else ((there, b), (here, a))
    return (f"{older[0].home.profile} held it first (since {short_date(older[1].since)}); "
            f"{newer[0].home.profile} got it {short_date(newer[1].since)}, likely a leak.")


def default_trap(curator: "Curator", discovery: "Discovery | None" = None) -> str | None:
    """What to say about a stale profiles/default/ folder, in the default profile's review."""
    from core.profiles import trap
    from core.profiles.discovery import discover

    if curator.home.profile != "default":
        return None
    found = trap(discovery or discover(curator.home.base, curator.release))
    return found.sentence() if found else None
