"""A fact in the user's words, and whether a text holds it.

"We deploy on Fridays", "mon dépôt est ~/code/x", "部署在周五": the words that carry the meaning
(core.review.textnorm: stop words out, light stems, abbreviations expanded, CJK as character
bigrams) are the fact's tokens. A text holds the fact when it has most of them (COVERAGE; all of
them for a fact of one or two tokens), so "deploys happen on Friday" holds "we deploy on Fridays",
and "the staging db is on port 5433" holds "staging database port". The search that finds it in
past sessions asks the index for any of the fact's words (`query`), and each hit is then read and
measured like an entry.
"""

from __future__ import annotations

import re
from typing import Iterable

from core.review import textnorm as tn
from core.sessions.query import is_unsegmented

MAX_FACT_CHARS = 2_000  # a fact is a sentence or two; a pasted page is not one
MAX_QUERY_TERMS = 12
COVERAGE = 0.6
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]")


class FactError(ValueError):
    """Text `why` can't look for; str() is one line for a person."""


class Fact:
    def __init__(self, text: str):
        if not isinstance(text, str):
            raise FactError("give the fact as text")
        cleaned = " ".join(_CONTROL.sub(" ", text).split())
        if not cleaned:
            raise FactError("give the fact to look for, in your words (for example: hmc why \"we deploy on "
                            "Fridays\")")
        if len(cleaned) > MAX_FACT_CHARS:
            raise FactError(f"the text is {len(cleaned):,} characters: give the fact itself, at most "
                            f"{MAX_FACT_CHARS:,} (a sentence or two)")
        self.text = cleaned
        self.tokens = frozenset(tn.content_tokens(cleaned))
        if not self.tokens:
            raise FactError(f"{cleaned[:60]!r} has no word that carries a meaning (only words like "
                            "'the', 'user', 'is'): say what the fact is about")
        self._need = len(self.tokens) if len(self.tokens) <= 2 else COVERAGE * len(self.tokens)

    def coverage(self, text: str) -> float:
        """The share of the fact's tokens `text` holds (0 to 1)."""
        if not text:
            return 0.0
        return len(self.tokens.intersection(tn.content_tokens(text[:20_000]))) / len(self.tokens)

    def in_text(self, text: str) -> bool:
        return bool(text) and self.coverage(text) * len(self.tokens) >= self._need - 1e-9

    def query(self) -> str:
        """A session-search query for any of the fact's words (each quoted: the user's text is never
        search syntax). Words in unsegmented scripts (Chinese…) are searched as their bigrams."""
        terms: list[str] = []
        for word in tn.words(self.text):
            if tn.is_cjk(word[0]) or is_unsegmented(word[0]):
                pieces = tn.cjk_units(word) if len(word) > 2 else [word]
            elif word in tn.STOP_WORDS or (len(word) == 1 and not word.isdigit()):
                continue
            else:
                pieces = [word]
            for piece in pieces:
                if piece not in terms:
                    terms.append(piece)
        terms = terms[:MAX_QUERY_TERMS] or sorted(self.tokens)[:MAX_QUERY_TERMS]
        return " OR ".join('"' + t.replace('"', " ") + '"' for t in terms)


def refusals_about(refused: Iterable[tuple], target: str, texts: Iterable[str]) -> list:
    """The refused calls that were about an entry (any of its texts, newest first): a change or
    removal whose text to find is mostly the entry's words (it matched nothing, or too much), or an
    add holding the entry's fact. Oldest first."""
    from core.timeline.refusals import refusal

    facts = []
    for text in texts:
        try:
            facts.append(Fact(text[:2_000]))
        except FactError:
            continue
    out = []
    for call, reason in refused:
        if call.target != target:
            continue
        r = refusal(call, reason)
        for asked in r.texts:
            try:
                if Fact(asked[:2_000]).in_text(" ".join(f.text for f in facts)) or any(f.in_text(asked) for f in facts):
                    out.append(r)
                    break
            except FactError:
                continue
    return out
