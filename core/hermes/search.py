"""The retries a Hermes release's `search_messages` makes when its word search finds nothing.

hmc runs its own parsed query first (core.sessions.query). Only when that page is empty does a
release from 0.20 search again, and the text it searches then comes from the query *as the release
sanitised it*, not from hmc's parse. So these functions take the query the person typed and
return the release's MATCH text for each retry, or None when the release wouldn't retry.
Measured on 0.20.1 and 0.22.2 (hermes_state_search.py; HERMES-FORMATS.md §0):

- the trigram retry (0.20+): the sanitised query with its outer quotes stripped, every
  whitespace-separated token quoted (AND/OR/NOT, in any case, kept bare), run on
  messages_fts_trigram; only when every non-operator token is 3+ characters and the query has no
  CJK. Substring semantics: `cat` finds `concatenate`; `"alpha gamma"` becomes two ANDed tokens.
- the OR-relaxed retry (0.22): the sanitised query's units (a quoted phrase is one unit; AND is
  dropped) joined with OR, run on messages_fts; not when the query says OR or NOT (any case) or has
  fewer than two units.
"""

from __future__ import annotations

import re

MAX_QUERY_CHARS = 2_048
TOOL_CONTENT_INDEXED = 8_192  # 0.22: characters of a tool message's content its word index holds
TRIGRAM_EXCLUDED_SOURCES = ("cron", "subagent")  # 0.22: sessions its trigram index leaves out

_SPECIAL = re.compile("[" + re.escape('+{}():"^@/#&|~[]<>,;!?$=\\\'') + "]")  # 0.20+
_OPERATORS = frozenset({"AND", "OR", "NOT"})
_QUOTED = re.compile(r'"[^"]*"')
_UNIT = re.compile(r'"[^"]+"|\S+')
_CJK = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x3000, 0x303F), (0x3040, 0x309F),
        (0x30A0, 0x30FF), (0xAC00, 0xD7AF))


def contains_cjk(text: str) -> bool:
    """The release's test for routing a query away from the word index."""
    return any(lo <= ord(ch) <= hi for ch in text for lo, hi in _CJK)


def sanitize(query: str) -> str:
    """`_sanitize_fts5_query` of 0.20 and 0.22: what the release searches for the text typed."""
    query = query[:MAX_QUERY_CHARS]
    held: list[str] = []

    def hold(m: re.Match[str]) -> str:
        held.append(m.group(0))
        return f"\x00Q{len(held) - 1}\x00"

    text = _QUOTED.sub(hold, query).replace('"', " ")
    text = _SPECIAL.sub(" ", text)
    if "%" in text and not contains_cjk(text):
        text = text.replace("%", " ")
    text = re.sub(r"\*+", "*", text)
    text = re.sub(r"(^|\s)\*", r"\1", text)
    text = re.sub(r"(?i)^(AND|OR|NOT)\b\s*", "", text.strip())
    text = re.sub(r"(?i)\s+(AND|OR|NOT)\s*$", "", text.strip())
    text = re.sub(r"\b(\w+(?:[._-]\w+)+)\b", r'"\1"', text)
    for i, phrase in enumerate(held):
        text = text.replace(f"\x00Q{i}\x00", phrase)
    return text.strip()


def _quote_tokens(text: str) -> str:
    return " ".join(tok if tok.upper() in _OPERATORS else '"' + tok.replace('"', '""') + '"'
                    for tok in text.split())


def trigram_retry(query: str) -> str | None:
    """The MATCH text of the release's substring retry on messages_fts_trigram, or None."""
    sanitized = sanitize(query)
    if not sanitized or contains_cjk(sanitized):
        return None
    loose = sanitized.strip('"').strip()
    tokens = [t for t in loose.split() if t.upper() not in _OPERATORS]
    if not tokens or any(len(t) < 3 for t in tokens):
        return None
    return _quote_tokens(loose)


def or_relaxed_retry(query: str) -> str | None:
    """The MATCH text of 0.22's any-term retry on messages_fts, or None."""
    sanitized = sanitize(query)
    if not sanitized or contains_cjk(sanitized):
        return None
    units: list[str] = []
    for token in _UNIT.findall(sanitized):
        upper = token.upper()
        if upper in ("OR", "NOT"):
            return None
        if upper != "AND":
            units.append(token)
    return " OR ".join(units) if len(units) >= 2 else None
