"""What the word index knows near a query that found little: near spellings from the index's own
vocabulary (`postgrse` → `postgres`) and prefix matches (`signature` → `signature*`, which finds
`signatures`). They are offered to the person, never applied silently: Hermes's `session_search`
would search the words as typed.

The vocabulary is read through an `fts5vocab` table in the connection's TEMP schema, on a
connection opened read-only (`mode=ro`): nothing is written to state.db. Each look-up is a range
over the sorted vocabulary (the terms sharing the word's first letter, or its prefix), bounded.
"""

from __future__ import annotations

import sqlite3
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

from rapidfuzz.distance import Levenshtein

from core.sessions.query import QueryError, parse_query

MAX_SCAN = 50_000  # vocabulary rows read for one word's near spellings at the most
MIN_WORD = 3  # shorter words have too many neighbours to be worth suggesting
FEW_HITS = 3  # a first page with fewer hits than this gets suggestions (the TUI and `hmc search` alike)


@dataclass(frozen=True)
class Suggestion:
    kind: str  # "spelling" | "prefix"
    word: str  # the word as typed (case folded)
    text: str  # what to search instead: a word, or `word*`
    messages: int  # messages the suggestion would match (the index's document count)
    example: str = ""  # for a prefix: a term it finds (`signatures`)

    def to_json(self) -> dict:
        return {"kind": self.kind, "word": self.word, "text": self.text, "messages": self.messages,
                "example": self.example}


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


def suggestions_for(path: Path, query: str, immutable: bool | None = None, limit: int = 4) -> list[Suggestion]:
    """Suggestions for `query` on the state.db at `path` (none when it has no word index).
    `immutable`: open as hmc's readers do (None: decide as they do: a WAL database with no
    sidecars is read immutable, so SQLite creates no -shm beside it)."""
    words = query_words(query)
    if not words:
        return []
    if immutable is None:
        immutable = _reads_immutable(Path(path))
        if immutable is None:
            return []
    conn = open_vocabulary(path, immutable)
    if conn is None:
        return []
    try:
        return suggest(conn, words, limit)
    except sqlite3.Error:
        return []
    finally:
        conn.close()


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
