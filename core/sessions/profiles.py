"""Searching every profile's state.db at once (`hmc search --all-profiles`).

Each profile of a Hermes home keeps its own state.db. This runs the same query on each, marks
every hit with its profile, and merges the pages: by time for newest/oldest, and for relevance
by taking each profile's best hits in turn (FTS5 ranks of different databases can't be
compared). A profile without a state.db is skipped; one that can't be read is reported and
the others are still searched.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping

from core.sessions.db import DatabaseError
from core.sessions.search import MAX_LIMIT, Hit, SearchResult, SessionDB


@dataclass(frozen=True)
class ProfilesResult:
    query: str
    hits: tuple[Hit, ...]  # each with .profile set
    offset: int
    limit: int
    has_more: bool
    total: int  # hits in every profile searched (each counted up to COUNT_CAP)
    total_capped: bool
    total_partial: bool  # some profile's plain-scan count stopped early (core.sessions.search.SCAN_COUNT_STEPS)
    searched: tuple[str, ...]  # profiles whose state.db was searched
    missing: tuple[str, ...]  # profiles with no state.db
    problems: tuple[tuple[str, str], ...]  # (profile, why its state.db couldn't be searched)
    notices: tuple[tuple[str, str], ...]  # (profile, why a slower route was taken)


def search_profiles(
    dbs: Mapping[str, SessionDB | Path | str],
    query: str,
    *,
    sort: str = "relevance",
    limit: int = 20,
    offset: int = 0,
    **filters,
) -> ProfilesResult:
    """One page of hits over every profile's database, in `dbs` order (raises QueryError)."""
    limit = max(1, min(int(limit), MAX_LIMIT))
    offset = max(0, int(offset))
    want = offset + limit + 1
    per: list[list[Hit]] = []
    searched: list[str] = []
    missing: list[str] = []
    problems: list[tuple[str, str]] = []
    notices: list[tuple[str, str]] = []
    total, capped, partial = 0, False, False
    for name, db in dbs.items():
        db = db if isinstance(db, SessionDB) else SessionDB(Path(db))
        try:
            hits, result = _first(db, query, sort, want, filters)
        except DatabaseError as exc:
            if exc.kind == "missing":
                missing.append(name)
            else:
                problems.append((name, str(exc)))
            continue
        searched.append(name)
        if result.notice:
            notices.append((name, result.notice))
        total += result.total or 0
        capped = capped or result.total_capped
        partial = partial or result.total_partial
        per.append([replace(h, profile=name) for h in hits])
    merged = _merge(per, sort)
    return ProfilesResult(
        query=query, hits=tuple(merged[offset:offset + limit]), offset=offset, limit=limit,
        has_more=len(merged) > offset + limit, total=total, total_capped=capped, total_partial=partial,
        searched=tuple(searched), missing=tuple(missing), problems=tuple(problems), notices=tuple(notices),
    )


def _first(db: SessionDB, query: str, sort: str, want: int, filters: dict) -> tuple[list[Hit], SearchResult]:
    """The first `want` hits of one database (in pages of MAX_LIMIT) and its first result (counted)."""
    hits: list[Hit] = []
    first: SearchResult | None = None
    while len(hits) < want:
        page = db.search(query, sort=sort, limit=min(MAX_LIMIT, want - len(hits)), offset=len(hits),
                         count=first is None, **filters)
        first = first or page
        hits.extend(page.hits)
        if not page.has_more:
            break
    assert first is not None
    return hits, first


def _merge(per: list[list[Hit]], sort: str) -> list[Hit]:
    """Merged so that a page depends only on each profile's first hits (pages never overlap)."""
    if sort in ("newest", "oldest"):  # each list keeps its database's order; ties go to the earlier profile
        sign = -1 if sort == "newest" else 1
        return list(heapq.merge(*per, key=lambda h: sign * h.timestamp))
    out: list[Hit] = []  # relevance: each profile's best, in turn
    for i in range(max((len(h) for h in per), default=0)):
        out.extend(hits[i] for hits in per if i < len(hits))
    return out
