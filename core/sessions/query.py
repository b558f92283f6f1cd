"""Parse a person's search query into something every search route can run.

Grammar (FTS5's, made forgiving and explicit):

- plain words are quoted and ANDed: ``deploy staging`` finds messages holding both;
- ``"a phrase"`` matches the words in order; ``deploy*`` / ``"dep loy"*`` match by prefix;
- ``OR``, ``AND`` and ``NOT`` (upper case only, so "not" stays a word) combine, with
  FTS5's precedence: NOT binds tightest, then AND, then OR; ``( … )`` groups;
- ``NOT`` is binary as in FTS5: ``deploy NOT staging``.

Anything malformed raises :class:`QueryError` whose message says what is wrong and how to
fix it — never an SQLite error. Terms in unsegmented scripts (Chinese, Japanese, Korean,
Thai…) or made only of symbols such as emoji can't be found by FTS5's word index; they mark
the query as needing a substring route (trigram index or LIKE scan).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass

MAX_QUERY_CHARS = 2_048
OPERATORS = frozenset({"AND", "OR", "NOT"})

# Scripts that unicode61 can't split into words (Hermes routes the same ranges away from FTS).
_UNSEGMENTED = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x3000, 0x30FF),  # CJK symbols, Hiragana, Katakana
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF00, 0xFFEF),  # half/full-width forms
    (0x20000, 0x2FA1F),  # CJK extensions B-F, compatibility supplement
)
_TOKEN_RE = re.compile(r"[^\W_]+")


class QueryError(ValueError):
    """A query that can't be searched; ``str(err)`` is a one-line message for people."""


# Looked up by code point, not with a regex: a character class over these ranges took ~25 ms to
# compile, on the import of every command that reads state.db (hmc status, sessions, profiles).
_UNSEGMENTED_LOW = tuple(lo for lo, _hi in _UNSEGMENTED)


def is_unsegmented(ch: str) -> bool:
    """True when `ch` (one character) is in a script FTS5's unicode61 can't split into words."""
    code = ord(ch)
    at = bisect_right(_UNSEGMENTED_LOW, code) - 1
    return at >= 0 and code <= _UNSEGMENTED[at][1]


def has_unsegmented(text: str) -> bool:
    return any(map(is_unsegmented, text))


def word_tokens(text: str) -> list[str]:
    """The words unicode61 would index for *text* (lower-cased, accents kept for the caller)."""
    return _TOKEN_RE.findall(text)


@dataclass(frozen=True)
class Term:
    """One searchable term: a word, a quoted phrase, optionally a prefix."""

    text: str
    phrase: bool = False
    prefix: bool = False
    kind: str = "word"  # "word" (FTS-friendly) | "substring" (CJK, emoji…)


@dataclass(frozen=True)
class And:
    items: tuple


@dataclass(frozen=True)
class Or:
    items: tuple


@dataclass(frozen=True)
class Not:
    left: object
    right: object


Node = Term | And | Or | Not


def _classify(text: str) -> str:
    if has_unsegmented(text):
        return "substring"
    if word_tokens(text):
        return "word"
    if any(ord(ch) > 127 and not ch.isspace() for ch in text):
        return "substring"  # emoji and other symbols: only a substring scan can find them
    return "drop"  # ASCII punctuation only: nothing any index could match


# ── lexer ────────────────────────────────────────────────────────────────────

@dataclass(frozen=True)
class _Tok:
    kind: str  # WORD PHRASE LP RP AND OR NOT
    text: str
    pos: int  # 1-based column for messages
    prefix: bool = False


def _lex(q: str) -> list[_Tok]:
    toks: list[_Tok] = []
    i, n = 0, len(q)
    while i < n:
        c = q[i]
        if c.isspace():
            i += 1
        elif c == '"':
            j = q.find('"', i + 1)
            if j < 0:
                raise QueryError(
                    f'Unbalanced quote: the " at column {i + 1} is never closed — '
                    'close the phrase or remove the quote.'
                )
            text, start = q[i + 1 : j], i + 1
            i = j + 1
            prefix = False
            while i < n and q[i] == "*":
                prefix, i = True, i + 1
            if not text.strip():
                raise QueryError(f'Empty phrase "" at column {start}: put words between the quotes.')
            toks.append(_Tok("PHRASE", text, start, prefix))
        elif c == "(":
            toks.append(_Tok("LP", c, i + 1))
            i += 1
        elif c == ")":
            toks.append(_Tok("RP", c, i + 1))
            i += 1
        else:
            j = i
            while j < n and not q[j].isspace() and q[j] not in '()"':
                j += 1
            word, start = q[i:j], i + 1
            i = j
            if word in OPERATORS:
                toks.append(_Tok(word, word, start))
                continue
            if word.upper() == "NEAR" and i < n and q[i] == "(":
                raise QueryError(
                    f'NEAR(…) at column {start} is not supported: use a "quoted phrase" or AND.'
                )
            stripped = word.rstrip("*")
            prefix = stripped != word
            stripped = stripped.lstrip("*")
            if not stripped:
                raise QueryError(
                    f"A lone * at column {start} has nothing to complete: "
                    "put it right after the start of a word, like deploy*."
                )
            toks.append(_Tok("WORD", stripped, start, prefix))
    return toks


# ── parser ───────────────────────────────────────────────────────────────────

class _Parser:
    def __init__(self, toks: list[_Tok]) -> None:
        self.toks = toks
        self.i = 0

    def peek(self) -> _Tok | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> _Tok:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def parse(self) -> Node:
        node = self.or_expr()
        tok = self.peek()
        if tok is not None:
            if tok.kind == "RP":
                raise QueryError(f"Unbalanced parenthesis: the ) at column {tok.pos} has no matching (.")
            raise QueryError(f"Unexpected {tok.text!r} at column {tok.pos}.")  # pragma: no cover
        return node

    def or_expr(self) -> Node:
        items = [self.and_expr()]
        while (tok := self.peek()) is not None and tok.kind == "OR":
            self.take()
            items.append(self.operand_after(tok, self.and_expr))
        return items[0] if len(items) == 1 else Or(tuple(items))

    def and_expr(self) -> Node:
        items = [self.not_expr()]
        while (tok := self.peek()) is not None:
            if tok.kind == "AND":
                self.take()
                items.append(self.operand_after(tok, self.not_expr))
            elif tok.kind in ("WORD", "PHRASE", "LP"):
                items.append(self.not_expr())
            else:
                break
        return items[0] if len(items) == 1 else And(tuple(items))

    def not_expr(self) -> Node:
        node = self.primary()
        while (tok := self.peek()) is not None and tok.kind == "NOT":
            self.take()
            node = Not(node, self.operand_after(tok, self.primary))
        return node

    def operand_after(self, op: _Tok, parse):
        nxt = self.peek()
        if nxt is None or nxt.kind in ("RP", "AND", "OR", "NOT"):
            raise QueryError(f"{op.text} at column {op.pos} needs a term after it.")
        return parse()

    def primary(self) -> Node:
        tok = self.peek()
        if tok is None:  # pragma: no cover - guarded by callers
            raise QueryError("The query ends too early.")
        if tok.kind == "WORD":
            self.take()
            return Term(tok.text, False, tok.prefix, _classify(tok.text))
        if tok.kind == "PHRASE":
            self.take()
            return Term(tok.text, True, tok.prefix, _classify(tok.text))
        if tok.kind == "LP":
            self.take()
            if (nxt := self.peek()) is not None and nxt.kind == "RP":
                raise QueryError(f"Empty parentheses at column {tok.pos}: put a term inside.")
            if nxt is None:
                raise QueryError(f"Unbalanced parenthesis: the ( at column {tok.pos} is never closed.")
            node = self.or_expr()
            close = self.peek()
            if close is None or close.kind != "RP":
                raise QueryError(f"Unbalanced parenthesis: the ( at column {tok.pos} is never closed.")
            self.take()
            return node
        if tok.kind == "RP":
            raise QueryError(f"Unbalanced parenthesis: the ) at column {tok.pos} has no matching (.")
        if tok.kind == "NOT":
            raise QueryError(
                f"NOT at column {tok.pos} needs a term before it: write deploy NOT staging "
                "to find deploy without staging."
            )
        raise QueryError(f"{tok.text} at column {tok.pos} needs a term before it.")


def _prune(node: Node) -> Node | None:
    """Drop punctuation-only terms (nothing can match them) and simplify."""
    if isinstance(node, Term):
        return None if node.kind == "drop" else node
    if isinstance(node, (And, Or)):
        items = tuple(x for x in (_prune(i) for i in node.items) if x is not None)
        if not items:
            return None
        return items[0] if len(items) == 1 else type(node)(items)
    left, right = _prune(node.left), _prune(node.right)
    if left is None and right is not None:
        raise QueryError("NOT needs a searchable term before it.")
    return left if right is None else Not(left, right)


# ── compiled query ───────────────────────────────────────────────────────────

def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


@dataclass(frozen=True)
class Query:
    """A parsed query, ready to be rendered for each search route."""

    raw: str
    node: Node

    @property
    def terms(self) -> tuple[Term, ...]:
        """Every term, excluded ones included."""
        out: list[Term] = []
        _walk(self.node, out, positive_only=False)
        return tuple(out)

    @property
    def positive_terms(self) -> tuple[Term, ...]:
        """Terms a hit contains (the right side of NOT excluded): what to highlight."""
        out: list[Term] = []
        _walk(self.node, out, positive_only=True)
        return tuple(out)

    @property
    def needs_substring(self) -> bool:
        """True when some term can't be found through the word index (CJK, emoji…)."""
        return any(t.kind == "substring" for t in self.terms)

    @property
    def trigram_ok(self) -> bool:
        """True when every term is long enough (3+ characters) for a trigram index."""
        return all(len(t.text.strip()) >= 3 for t in self.terms)

    def fts5(self) -> str:
        """MATCH expression for a unicode61 index: every term quoted, operators kept."""
        return _render(self.node, lambda t: _quote(t.text) + ("*" if t.prefix else ""))

    def trigram(self) -> str:
        """MATCH expression for a trigram index (substring semantics, no prefixes)."""
        return _render(self.node, lambda t: _quote(t.text))

    def like(self, columns: list[str]) -> tuple[str, list[str]]:
        """A WHERE predicate over *columns* with LIKE, and its parameters."""
        params: list[str] = []

        def term_sql(t: Term) -> str:
            pattern = f"%{escape_like(t.text)}%"
            parts = []
            for col in columns:
                parts.append(f"COALESCE({col}, '') LIKE ? ESCAPE '\\'")
                params.append(pattern)
            return "(" + " OR ".join(parts) + ")"

        def go(node: Node) -> str:
            if isinstance(node, Term):
                return term_sql(node)
            if isinstance(node, And):
                return "(" + " AND ".join(go(i) for i in node.items) + ")"
            if isinstance(node, Or):
                return "(" + " OR ".join(go(i) for i in node.items) + ")"
            return f"({go(node.left)} AND NOT {go(node.right)})"

        return go(self.node), params


def _walk(node: Node, out: list[Term], positive_only: bool) -> None:
    if isinstance(node, Term):
        out.append(node)
    elif isinstance(node, (And, Or)):
        for item in node.items:
            _walk(item, out, positive_only)
    else:
        _walk(node.left, out, positive_only)
        if not positive_only:
            _walk(node.right, out, positive_only)


def _render(node: Node, term) -> str:
    if isinstance(node, Term):
        return term(node)
    if isinstance(node, And):
        return " AND ".join(_group(i, term) for i in node.items)
    if isinstance(node, Or):
        return " OR ".join(_group(i, term) for i in node.items)
    return f"{_group(node.left, term)} NOT {_group(node.right, term)}"


def _group(node: Node, term) -> str:
    return term(node) if isinstance(node, Term) else "(" + _render(node, term) + ")"


def parse_query(raw: str) -> Query:
    """Parse *raw*; raise :class:`QueryError` with a clear message when it can't be searched."""
    if not isinstance(raw, str):
        raise QueryError("The query must be text.")
    if len(raw) > MAX_QUERY_CHARS:
        raise QueryError(
            f"The query is too long ({len(raw):,} characters; the limit is {MAX_QUERY_CHARS:,})."
        )
    if "\x00" in raw:
        raise QueryError("The query contains a NUL character.")
    text = unicodedata.normalize("NFC", raw)
    toks = _lex(text)
    if not toks:
        raise QueryError("Type something to search for.")
    node = _prune(_Parser(toks).parse())
    if node is None:
        raise QueryError("Nothing to search for: the query holds only punctuation.")
    return Query(raw, node)
