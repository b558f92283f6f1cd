"""What the word index knows near a query that found little: near spellings from the index's own
vocabulary (`postgrse` → `postgres`), prefix matches (`signature` → `signature*`, which finds
`signatures`) and, for a query of plain words, stems (`миграция` → `миграц*`, which finds
`миграцию`: the index has no stemming, core.sessions.stems). They are offered to the person, never
applied silently: Hermes's `session_search` would search the words as typed.

When: spellings and prefixes under FEW_HITS hits, stems under STEM_FEW_HITS (a search that found a
handful may well be missing the other forms of its words; one with a page of hits is not short of
any). A stem is offered only when the index holds a form of the word that the word (and `word*`)
misses, and one stem per word: the longest such.

The vocabulary is read through an `fts5vocab` table in the connection's TEMP schema, on a
connection opened read-only (`mode=ro`): nothing is written to state.db. Each look-up is a range
over the sorted vocabulary (the terms sharing the word's first letter, or its prefix), bounded.
"""

from __future__ import annotations

import sqlite3
import urllib.parse
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from rapidfuzz.distance import Levenshtein

from core.sessions.query import QueryError, parse_query

MAX_SCAN = 50_000  # vocabulary rows read for one word's near spellings at the most
MIN_WORD = 3  # shorter words have too many neighbours to be worth suggesting
FEW_HITS = 3  # a search with fewer hits than this gets spellings and prefixes (the TUI and `hmc search` alike)
STEM_FEW_HITS = 20  # a search of plain words with fewer hits than this gets stems
COUNT_CAP = 1_000  # a suggestion's hits are counted this far ("1,000+ messages"): a few ms at a million
SEARCH_FILTERS = ("sources", "roles", "since", "until", "include_hidden")  # what narrows a search's hits


@dataclass(frozen=True)
class Suggestion:
    kind: str  # "spelling" | "prefix" | "stem"
    word: str  # the word as typed (case folded)
    text: str  # what to search instead: a word, `word*`, or `stem*`
    messages: int  # messages it finds: the index's count, then (as_searched) the search's own, filters kept
    example: str = ""  # for a prefix or a stem: a term it finds (`signatures`; for a stem, one the word misses)
    more: bool = False  # `messages` is where the count stopped (COUNT_CAP): at least that many

    def to_json(self) -> dict:
        return {"kind": self.kind, "word": self.word, "text": self.text, "messages": self.messages,
                "messages_capped": self.more, "example": self.example}

    def in_messages(self) -> str:
        """"1 message", "40 messages", "10,000+ messages"."""
        return f"{self.messages:,}{'+' if self.more else ''} message{'' if self.messages == 1 and not self.more else 's'}"


def query_words(query: str) -> list[str]:
    """The plain words of a query (no phrases, prefixes or substrings), case folded, in order."""
    try:
        parsed = parse_query(query)
    except QueryError:
        return []
    words = []
    for term in parsed.positive_terms:
        if term.kind == "word" and not term.phrase and not term.prefix and term.text.isalnum():
            word = term.text.casefold()
            if len(word) >= MIN_WORD and word not in words:
                words.append(word)
    return words


def hits_found(hits: int, has_more: bool, total: int | None) -> float:
    """How many hits a search found, as far as it is known: its count, else its page's hits (a page
    with more after it: many)."""
    if total is not None:
        return total
    return float("inf") if has_more else hits


def plain_words(query: str) -> list[str]:
    """The words of a query made only of plain words (ANDed), case folded, in order; none for a
    query with a phrase, a prefix, OR, NOT or parentheses (stemming it wouldn't be clearly right)."""
    from core.sessions.query import And, Term

    try:
        parsed = parse_query(query)
    except QueryError:
        return []
    node = parsed.node
    terms = node.items if isinstance(node, And) else (node,)
    if not all(isinstance(t, Term) and t.kind == "word" and not t.phrase and not t.prefix for t in terms):
        return []
    words = []
    for term in terms:
        word = term.text.casefold()
        if word.isalpha() and word not in words:
            words.append(word)
    return words


def open_vocabulary(path: Path, immutable: bool = False) -> sqlite3.Connection | None:
    """A read-only connection with the word index's vocabulary as `temp.hmc_vocab`, or None when the
    database has no word index (or can't be read)."""
    uri = f"file:{urllib.parse.quote(str(Path(path).resolve()))}?mode=ro" + ("&immutable=1" if immutable else "")
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=5.0, check_same_thread=False)
    except sqlite3.Error:
        return None
    try:
        found = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'messages_fts'").fetchone()
        if not found:
            conn.close()
            return None
        conn.execute("CREATE VIRTUAL TABLE temp.hmc_vocab USING fts5vocab(main, 'messages_fts', 'row')")
        conn.execute("PRAGMA query_only = 1")
        return conn
    except sqlite3.Error:
        conn.close()
        return None


def _next(prefix: str) -> str:
    """The smallest string after every string starting with `prefix` (for a range on the terms)."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


def suggest(conn: sqlite3.Connection, words: list[str], limit: int = 4) -> list[Suggestion]:
    """Near spellings for the words the index doesn't know, and prefix matches for those it knows
    only as the start of longer terms; the most useful first, at most `limit`."""
    out: list[Suggestion] = []
    for word in words:
        known = conn.execute("SELECT doc FROM temp.hmc_vocab WHERE term = ?", (word,)).fetchone()
        longer = conn.execute(
            "SELECT term, doc FROM temp.hmc_vocab WHERE term > ? AND term < ? ORDER BY doc DESC LIMIT 1000",
            (word, _next(word))).fetchall()
        if longer:
            docs = sum(doc for _, doc in longer)
            example = max(longer, key=lambda row: row[1])[0]
            out.append(Suggestion("prefix", word, word + "*", docs, example))
        if known:
            continue
        best: tuple[int, int, str] | None = None
        most = 1 if len(word) <= 4 else 2
        rows = conn.execute("SELECT term, doc FROM temp.hmc_vocab WHERE term >= ? AND term < ? LIMIT ?",
                            (word[0], _next(word[0]), MAX_SCAN))
        for term, doc in rows:
            if abs(len(term) - len(word)) > most:
                continue
            distance = Levenshtein.distance(word, term, score_cutoff=most)
            if distance <= most and (best is None or (distance, -doc) < (best[0], -best[1])):
                best = (distance, doc, term)
        if best is not None:
            out.append(Suggestion("spelling", word, best[2], best[1]))
    out.sort(key=lambda s: (s.kind != "spelling", -s.messages))
    return out[:limit]


def stem_suggestions(conn: sqlite3.Connection, words: list[str]) -> list[Suggestion]:
    """For each word, its longest stem (core.sessions.stems) under which the index holds a form
    that neither the word nor `word*` finds, as `stem*`."""
    from core.sessions.stems import indexed, stems

    out: list[Suggestion] = []
    for word in words:
        own = indexed(word)
        for stem in stems(word):
            key = indexed(stem)
            rows = conn.execute(
                "SELECT term, doc FROM temp.hmc_vocab WHERE term >= ? AND term < ? ORDER BY doc DESC LIMIT 1000",
                (key, _next(key))).fetchall()
            missed = [(term, doc) for term, doc in rows if not term.startswith(own)]
            if missed:  # the example: the form nearest the word (the longest start in common), then the most used
                example = min(missed, key=lambda row: (-_common_start(row[0], own), -row[1], row[0]))[0]
                out.append(Suggestion("stem", word, stem + "*", sum(doc for _, doc in rows), example))
                break
    return out


def _common_start(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def suggestions_for(path: Path, query: str, immutable: bool | None = None, limit: int = 4,
                    hits: float = 0) -> list[Suggestion]:
    """Suggestions for `query` on the state.db at `path` (none when it has no word index), for a
    search that found `hits` (hits_found): stems first, then spellings, then prefixes.
    `immutable`: open as hmc's readers do (None: decide as they do: a WAL database with no
    sidecars is read immutable, so SQLite creates no -shm beside it)."""
    words = query_words(query) if hits < FEW_HITS else []
    stemmed = plain_words(query) if hits < STEM_FEW_HITS else []
    if not words and not stemmed:
        return []
    if immutable is None:
        immutable = _reads_immutable(Path(path))
        if immutable is None:
            return []
    conn = open_vocabulary(path, immutable)
    if conn is None:
        return []
    try:
        return (stem_suggestions(conn, stemmed) + suggest(conn, words, limit))[:limit]
    except sqlite3.Error:
        return []
    finally:
        conn.close()


def as_searched(db, query: str, suggestions: list[Suggestion], found: float, filters: dict | None = None,
                should_stop: Callable[[], bool] | None = None) -> list[Suggestion]:
    """The suggestions as the same search would find them: each searched as the person would (its
    word in place in the query, the search's `filters` kept: those of SEARCH_FILTERS, its sort and
    paging aside) and counted; one that finds no more than the `found` hits of the query itself is
    dropped.

    The vocabulary counts every message of every session, hidden ones and tool output included,
    on every day: a search of last week offered a stem "in 40 messages" that found nothing there.
    A suggestion that can't be searched (a term the query syntax refuses) is dropped too. Each is
    counted up to COUNT_CAP, newest first (the order costs nothing then: no ranking of every hit)."""
    kept = {k: v for k, v in (filters or {}).items() if k in SEARCH_FILTERS}
    out = []
    for hint in suggestions:
        try:
            result = db.search(suggested_query(query, hint), count=True, count_cap=COUNT_CAP, limit=1,
                               sort="newest", should_stop=should_stop, **kept)
        except QueryError:
            continue
        total = result.total if result.total is not None else len(result.hits)
        if total > found:
            out.append(replace(hint, messages=total, more=result.total_capped))
    return out


def _reads_immutable(path: Path) -> bool | None:
    """How hmc's own readers open `path` (None: they can't)."""
    from core.sessions.db import ReadOnlyConnections, SessionsError

    readers = ReadOnlyConnections(path)
    try:
        readers.get()
        return readers.immutable
    except (SessionsError, sqlite3.Error, OSError):
        return None
    finally:
        readers.close()


def suggested_query(query: str, suggestion: Suggestion) -> str:
    """The query with the suggestion in place of its word (what the person chose to search)."""
    import re

    return re.sub(rf"(?<![\w*]){re.escape(suggestion.word)}(?![\w*])", suggestion.text, query, count=1,
                  flags=re.IGNORECASE)
