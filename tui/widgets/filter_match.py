"""What the `/` filter of a list keeps, and where a kept row shows the words typed: one rule for both.

The rule: the filter's text is split into words; a row is kept when every word appears, case-folded
(str.casefold: `Straße` finds `STRASSE`; accents count: `cafe` does not find `café`), somewhere in
the texts the row is matched on. The same words, found by the same rule, are what a kept row
highlights, as literal Text ranges (never markup: an entry holding `[bold]` still shows `[bold]`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from core.ranges import merged

if TYPE_CHECKING:  # pragma: no cover
    from rich.text import Text

MATCH_STYLE = "bold reverse"  # as the search results show the words a hit matched (tui.widgets.results)


def filter_words(text: str) -> tuple[str, ...]:
    """The words of a filter, case-folded (none: the filter keeps everything)."""
    return tuple(text.casefold().split())


def matches(words: Iterable[str], *texts: str) -> bool:
    """Every word appears (case-folded) in one of `texts`."""
    words = tuple(words)
    if not words:
        return True
    folded = [t.casefold() for t in texts]
    return all(any(word in t for t in folded) for word in words)


def match_spans(words: Iterable[str], text: str) -> list[tuple[int, int]]:
    """Where the words occur in `text` (by the rule above), as sorted, merged (start, end) ranges of
    `text` itself: case folding may change a character's length (`ß` folds to `ss`), so positions
    are mapped back to the characters they came from."""
    words = [w for w in words if w]
    if not words or not text:
        return []
    folded: list[str] = []
    origin: list[int] = []  # per folded character, the index in `text` it came from
    for i, ch in enumerate(text):
        for low in ch.casefold():
            folded.append(low)
            origin.append(i)
    haystack = "".join(folded)
    spans: list[tuple[int, int]] = []
    for word in words:
        at = haystack.find(word)
        while at >= 0:
            spans.append((origin[at], origin[at + len(word) - 1] + 1))
            at = haystack.find(word, at + 1)
    return merged(spans)


def highlight(text: Text, words: Iterable[str], start: int = 0, end: int | None = None) -> Text:
    """`text` with the words styled where they occur between `start` and `end` (a copy when there is
    anything to style; `text` itself otherwise)."""
    words = tuple(words)
    if not words:
        return text
    end = len(text) if end is None else end
    spans = match_spans(words, text.plain[start:end])
    if not spans:
        return text
    out = text.copy()
    for a, b in spans:
        out.stylize(MATCH_STYLE, start + a, start + b)
    return out
