"""Highlighting for untrusted message text, as plain ``(text, is_match)`` spans.

Nothing here produces markup: the UI turns spans into styled ``Text`` and the CLI into
plain or JSON output, so ``[bold]`` or escape sequences inside a message stay literal
(controls are made visible by the one renderer, ``tui.literal.visible``).
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from functools import lru_cache
from typing import Iterable, Sequence

from core.ranges import merged
from core.sessions.query import Term, word_tokens

Span = tuple[str, bool]
ELLIPSIS = "…"

# Per-process markers for FTS5 snippet(): random, so no message can forge a highlight.
_NONCE = secrets.token_hex(6)
MARK_OPEN = f"\ue000{_NONCE}\ue001"
MARK_CLOSE = f"\ue002{_NONCE}\ue003"

_WHITESPACE = re.compile(r"\s+")


def one_line(text: str) -> str:
    """Collapse all whitespace runs to single spaces (for list rows)."""
    return " ".join(text.split())


# ── folding: case- and accent-insensitive matching with positions mapped back ──

def fold(text: str) -> tuple[str, list[int]]:
    """Lower-case, accent-stripped *text* plus, per folded char, its index in *text*."""
    chars: list[str] = []
    index: list[int] = []
    for i, ch in enumerate(text):
        if ch.isascii():
            chars.append(ch.lower())
            index.append(i)
            continue
        for part in unicodedata.normalize("NFKD", ch):
            if unicodedata.combining(part):
                continue
            for low in part.lower():
                chars.append(low)
                index.append(i)
    return "".join(chars), index


_WORD_CHAR = r"[^\W_]"


def term_pattern(term: Term) -> str | None:
    """A regex (over folded text) matching *term* the way its search route does."""
    folded, _ = fold(term.text)
    if term.kind == "word":
        tokens = word_tokens(folded)
        if not tokens:
            return None
        body = r"[\W_]+".join(re.escape(t) for t in tokens)
        tail = _WORD_CHAR + "*" if term.prefix else f"(?!{_WORD_CHAR})"
        return f"(?<!{_WORD_CHAR}){body}{tail}"
    folded = folded.strip()
    return re.escape(folded) if folded else None


@lru_cache(maxsize=64)
def _terms_regex(terms: tuple[Term, ...]) -> re.Pattern | None:
    patterns = [p for p in (term_pattern(t) for t in terms) if p]
    return re.compile("|".join(f"(?:{p})" for p in patterns)) if patterns else None


def match_ranges(text: str, terms: Iterable[Term]) -> list[tuple[int, int]]:
    """Sorted, merged ``(start, end)`` ranges of *text* matched by any of *terms*."""
    regex = _terms_regex(tuple(terms))
    if regex is None or not text:
        return []
    folded, index = fold(text)
    return merged((index[m.start()], index[m.end() - 1] + 1) for m in regex.finditer(folded) if m.end() > m.start())


def spans_from_ranges(text: str, ranges: Sequence[tuple[int, int]]) -> list[Span]:
    spans: list[Span] = []
    pos = 0
    for start, end in ranges:
        if start > pos:
            spans.append((text[pos:start], False))
        spans.append((text[start:end], True))
        pos = end
    if pos < len(text):
        spans.append((text[pos:], False))
    return spans


def highlight(text: str, terms: Iterable[Term]) -> list[Span]:
    """All of *text*, split into spans, with every match of *terms* marked."""
    return spans_from_ranges(text, match_ranges(text, terms))


def excerpt(text: str, terms: Sequence[Term], width: int = 160) -> list[Span]:
    """About *width* characters of *text* (whitespace collapsed) around the first match."""
    flat = one_line(text)
    ranges = match_ranges(flat, terms)
    if len(flat) <= width:
        return spans_from_ranges(flat, ranges)
    first = ranges[0][0] if ranges else 0
    start = max(0, first - width // 3)
    end = min(len(flat), start + width)
    start = max(0, min(start, end - width))
    # don't cut words in half when a space is near
    if start > 0:
        space = flat.find(" ", start, start + 15)
        start = space + 1 if space >= 0 else start
    if end < len(flat):
        space = flat.rfind(" ", end - 15, end)
        end = space if space > start else end
    piece = flat[start:end]
    local = [(max(s, start) - start, min(e, end) - start) for s, e in ranges if e > start and s < end]
    spans = spans_from_ranges(piece, local)
    if start > 0:
        spans.insert(0, (ELLIPSIS, False))
    if end < len(flat):
        spans.append((ELLIPSIS, False))
    return _merge(spans)


def parse_marked(marked: str, open_mark: str = MARK_OPEN, close_mark: str = MARK_CLOSE) -> list[Span]:
    """Spans from an FTS5 ``snippet()`` made with our markers (whitespace collapsed)."""
    spans: list[Span] = []
    rest = marked
    while rest:
        i = rest.find(open_mark)
        if i < 0:
            spans.append((rest, False))
            break
        if i:
            spans.append((rest[:i], False))
        rest = rest[i + len(open_mark) :]
        j = rest.find(close_mark)
        if j < 0:
            spans.append((rest, True))
            break
        spans.append((rest[:j], True))
        rest = rest[j + len(close_mark) :]
    flat: list[Span] = []
    for text, hit in spans:
        text = _WHITESPACE.sub(" ", text)
        if text:
            flat.append((text, hit))
    if flat:
        first, hit = flat[0]
        flat[0] = (first.lstrip(), hit)
        last, hit = flat[-1]
        flat[-1] = (last.rstrip(), hit)
    return _merge([s for s in flat if s[0]])


def _merge(spans: list[Span]) -> list[Span]:
    out: list[Span] = []
    for text, hit in spans:
        if out and out[-1][1] == hit:
            out[-1] = (out[-1][0] + text, hit)
        else:
            out.append((text, hit))
    return out


def plain(spans: Iterable[Span]) -> str:
    return "".join(text for text, _ in spans)


def marked(spans: Iterable[Span], open_mark: str = "[", close_mark: str = "]") -> str:
    """Spans as text with matches wrapped in *open_mark*/*close_mark* (for terminals)."""
    return "".join(f"{open_mark}{t}{close_mark}" if hit else t for t, hit in spans)
