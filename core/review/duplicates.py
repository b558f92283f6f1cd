"""Duplicate, near-duplicate and conflicting entries, in any of the six languages.

How a pair is scored (chosen by measurement on tests/corpora/duplicates.py, see README):
- both entries become content tokens (core.review.textnorm: folded, stop words out, 5-letter stems, CJK
  bigrams); the score is the mean of the token Dice coefficient and the Jaccard index of the
  tokens' character 3-grams;
- "specifics" (names, numbers, paths, commands, Latin words inside Cyrillic/Chinese text) weigh
  more: when each entry has specifics the other lacks ("make test" vs "make lint", "OVH" vs
  "Gandi"), the score is scaled down by how few specifics they share;
- a pair is `conflicting` when, with numbers masked and opposite words (dark/light, enable/disable,
  always/never… in six languages) folded together, the entries read the same but one says 100 and
  the other 1000, or one says dark and the other light; otherwise it is `duplicate` (same words once
  case, punctuation and spacing are ignored) or `similar` (score ≥ SIMILAR).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Sequence

from core.review import textnorm as tn

__all__ = ["PairVerdict", "compare", "find_pairs", "similarity", "SIMILAR", "CONFLICT"]

SIMILAR = 0.40  # score at or above which two entries are near-duplicates
CONFLICT = 0.62  # masked score at or above which a number/opposite difference is a conflict
CLAUSE_CONFLICT = 0.8  # the same, for one clause of each entry (entries bundle several facts)
CONTAINED = 0.75  # share of the shorter entry's words found in the longer one


@dataclass(frozen=True)
class PairVerdict:
    """What two entries are to each other: kind is duplicate | similar | conflicting."""

    kind: str
    score: float
    reason: str


# --------------------------------------------------------------------------- specifics

_COMMAND_HEADS = {"make", "cargo", "npm", "pnpm", "yarn", "pip", "git", "go", "docker", "kubectl",
                  "bazel", "pytest", "uv", "poetry", "just", "npx", "bun", "deno", "mix", "gradle",
                  "mvn", "dotnet", "rake", "bundle", "brew", "apt", "systemctl", "hermes", "hmc"}
_STRIP = ".,;:!?()[]{}\"'«»“”‘’。,:;、!?()【】《》"
_NON_LATIN = re.compile(r"[А-Яа-яЁё\u4e00-\u9fff\u3040-\u30ff]")


@lru_cache(maxsize=4096)
def specifics(text: str) -> frozenset[str]:
    """Stems of the words that name things: proper nouns, numbers, paths, commands…"""
    out: set[str] = set()
    non_latin = bool(_NON_LATIN.search(text))
    prev = ""
    sentence_start = True
    for chunk in text.split():
        core = chunk.strip(_STRIP)
        if not core:
            continue
        spec = (
            bool(re.search(r"\d", core))
            or bool(re.search(r"[/~_@]|\w\.\w|:\d", core))
            or any(c.isupper() for c in core[1:])
            or (core[0].isupper() and not sentence_start)
            or (non_latin and bool(re.fullmatch(r"[A-Za-z][\w.+#-]*", core)))
            or prev in _COMMAND_HEADS
        )
        if spec:
            parts = tn.words(core)
            if any(w.isdigit() for w in parts) and not re.search(r"[/~_@]|[A-Za-z]\.\w", core):
                parts = tuple(w for w in parts if w.isdigit())  # "100-char": the number names it
            for w in parts:
                if not tn.is_cjk(w[0]) and w not in tn.STOP_WORDS:
                    out.update(tn.canon(w))
        prev = core.lower()
        sentence_start = chunk.endswith((".", ":", ";", "!", "?", "。", ":"))
    return frozenset(out)


# --------------------------------------------------------------------------- similarity

def _trigrams(tokens: Sequence[str]) -> set[str]:
    grams: set[str] = set()
    for t in tokens:
        if len(t) <= 3:
            grams.add(t)
        else:
            grams.update(t[i:i + 3] for i in range(len(t) - 2))
    return grams


@lru_cache(maxsize=4096)  # the review compares each entry with many others: its trigrams once per entry
def _trigrams_of(tokens: frozenset[str]) -> frozenset[str]:
    return frozenset(_trigrams(tokens))


def _base_score(ta: Sequence[str], tb: Sequence[str]) -> float:
    sa, sb = frozenset(ta), frozenset(tb)
    if not sa or not sb:
        return 0.0
    dice = 2 * len(sa & sb) / (len(sa) + len(sb))
    ga, gb = _trigrams_of(sa), _trigrams_of(sb)
    jac = len(ga & gb) / len(ga | gb)
    return (dice + jac) / 2


def _penalty(spa: frozenset[str], spb: frozenset[str]) -> float:
    if spa - spb and spb - spa:
        return 0.5 + 0.5 * len(spa & spb) / len(spa | spb)
    return 1.0


def _pair_specifics(a: str, b: str, ta: Sequence[str], tb: Sequence[str]
                    ) -> tuple[frozenset[str], frozenset[str]]:
    """Specifics of each entry; a word that names a thing in one names it in the other too."""
    spa, spb = specifics(a), specifics(b)
    named = spa | spb
    return spa | (named & frozenset(ta)), spb | (named & frozenset(tb))


def similarity(a: str, b: str) -> float:
    """0..1: how much two entries say the same thing (see the module docstring)."""
    ta, tb = tn.content_tokens(a), tn.content_tokens(b)
    return _base_score(ta, tb) * _penalty(*_pair_specifics(a, b, ta, tb))


# --------------------------------------------------------------------------- conflicts

# class -> (pole-0 word patterns, pole-1 word patterns); words are folded (lowercase, ё→е).
_OPPOSITES: dict[str, tuple[str, str]] = {
    "dark/light": (r"dark|darker|sombres?|oscur[oa]s?|scur[oaie]|темн\w*|深色|暗色|黑色",
                   r"light|lighter|clair(?:e|s|es)?|clar[oa]s?|chiar[oaie]|светл\w*|浅色|亮色|白色"),
    "enable/disable": (r"enabled?|enables|enabling|activ\w*|abilit\w*|attiv\w*|включ\w*|启用|开启|激活",
                       r"disabled?|disables|disabling|d[eé]sactiv\w*|desactiv\w*|disabilit\w*|"
                       r"disattiv\w*|отключ\w*|выключ\w*|禁用|停用|关闭"),
    "true/false": (r"true|vrai|verdader[oa]|vero|истина|真", r"false|faux|fals[oa]|ложь|假"),
    "always/never": (r"always|toujours|syst[eé]matiquement|siempre|sempre|всегда|总是|始终|永远|一直",
                     r"never|jamais|nunca|jam[aá]s|mai|никогда|从不|从来不|绝不|永不"),
    "allow/forbid": (r"allow\w*|permit\w*|autoris\w*|consent\w*|разреш\w*|允许",
                     r"forbid\w*|forbidden|deny|denied|prohib\w*|disallow\w*|interdi\w*|viet\w*|"
                     r"proibi\w*|запрещ\w*|запрет\w*|禁止"),
    "short/long": (r"short|shorter|brief|concise|courte?s?|br[eè]ve?s?|bref|cort[oa]s?|breve?s?|brevi|"
                   r"concis[oae]?s?|кратк\w*|коротк\w*|简短|简洁|简要",
                   r"long|longer|lengthy|detailed|verbose|longues?|longs?|d[eé]taill[eé]\w*|larg[oa]s?|"
                   r"detallad\w*|lung[oaeih]+|dettagliat\w*|длинн\w*|подробн\w*|详细|冗长|详尽"),
    "tabs/spaces": (r"tabs?|tabulations?|tabuladores|tabulazioni|табуляц\w*|制表符",
                    r"spaces|espaces|espacios|spazi|пробел\w*|空格"),
    "before/after": (r"before|avant|antes|prima|до|之前|以前", r"after|apr[eè]s|despu[eé]s|dopo|после|之后|以后"),
    "min/max": (r"min|minimum|mínimo|minimo|минимум|最少|至少", r"max|maximum|máximo|massimo|максимум|最多|至多"),
    "public/private": (r"public|publi(?:c|que)s?|p[uú]blic[oa]s?|pubblic[oa]|публичн\w*|公开",
                       r"private|priv[eé]e?s?|privad[oa]s?|privat[oa]|приватн\w*|私有"),
    "show/hide": (r"show|shown|display\w*|afficher|mostrar|mostrare|показ\w*|显示",
                  r"hide|hidden|masquer|cacher|ocultar|nascondere|скры\w*|隐藏"),
    "include/exclude": (r"include[sd]?|inclure|incluir|includere", r"exclude[sd]?|exclure|excluir|escludere"),
}
_OPP_RX = [(name, re.compile(rf"(?:{p0})"), re.compile(rf"(?:{p1})"))
           for name, (p0, p1) in _OPPOSITES.items()]
_NEGATIONS = frozenset("not no don't doesn't never ne n pas non nunca mai не нет ни".split())
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")


@lru_cache(maxsize=4096)  # once per entry, not once per pair it is in
def _numbers(text: str) -> tuple[str, ...]:
    return tuple(re.sub(r"[.,]", "", n) for n in _NUMBER.findall(text))


@lru_cache(maxsize=8192)
def _word_poles(w: str) -> tuple[tuple[str, int], ...]:
    cjk = tn.is_cjk(w[0])
    out = []
    for name, rx0, rx1 in _OPP_RX:
        for pole, rx in ((0, rx0), (1, rx1)):
            if rx.search(w) if cjk else rx.fullmatch(w):
                out.append((name, pole))
    return tuple(out)


def _poles(words: Sequence[str]) -> dict[str, set[int]]:
    found: dict[str, set[int]] = {}
    for w in words:
        for name, pole in _word_poles(w):
            found.setdefault(name, set()).add(pole)
    return found


@lru_cache(maxsize=4096)
def _masked(text: str) -> tuple[str, ...]:
    """Content tokens with numbers as '#' and opposite words as their class."""
    out: list[str] = []
    for w in tn.words(_NUMBER.sub(" 0 ", text)):
        if w == "0":
            out.append("#")
            continue
        cls = None
        if not tn.is_cjk(w[0]):
            for name, rx0, rx1 in _OPP_RX:
                if rx0.fullmatch(w) or rx1.fullmatch(w):
                    cls = name
                    break
        if cls:
            out.append(cls)
        elif tn.is_cjk(w[0]):
            run = w
            for name, rx0, rx1 in _OPP_RX:
                run = rx1.sub(f" {name} ", rx0.sub(f" {name} ", run))
            for piece in run.split():
                if piece in _OPPOSITES:
                    out.append(piece)
                else:
                    out.extend(tn.content_tokens(piece))
        elif w not in tn.STOP_WORDS and w not in _NEGATIONS and len(w) > 1:
            out.append(tn.stem(w))
    return tuple(out)


def _conflict_reason(a: str, b: str) -> str | None:
    na, nb = _numbers(a), _numbers(b)
    only_a = [n for n in na if n not in nb]
    only_b = [n for n in nb if n not in na]
    if only_a and only_b:
        ra = _NUMBER.findall(a)[na.index(only_a[0])]
        rb = _NUMBER.findall(b)[nb.index(only_b[0])]
        return f"differs in a number: {ra} vs {rb}"
    pa, pb = _poles(tn.words(a)), _poles(tn.words(b))
    for name in pa.keys() & pb.keys():
        if len(pa[name]) == 1 and len(pb[name]) == 1 and pa[name] != pb[name]:
            wa = _word_of(a, name, next(iter(pa[name])))
            wb = _word_of(b, name, next(iter(pb[name])))
            return f"opposite words: {wa} vs {wb}"
    return None


_CJK_NEGATION = re.compile(r"不要|不能|不可|别|勿|不(?![同错久少过仅但])")
NEGATED = 0.9  # masked score at or above which "X" vs "not X" is a conflict
# "use pnpm, not npm" / "списки, а не абзацы" / "而不是": a contrast, not a negated statement.
_CONTRAST = re.compile(r"[,;(—–-]\s*(?:not|no|non|pas)\b|\bа\s+не\b|"
                       r"\b(?:and|but|et|mais|y|pero|e|ma)\s+(?:not|no|non|pas)\b|而不是|而非", re.IGNORECASE)


def _negated(text: str) -> bool:
    for w in tn.words(_CONTRAST.sub(" ", text)):
        if w in _NEGATIONS or w.endswith("n't") or (tn.is_cjk(w[0]) and _CJK_NEGATION.search(w)):
            return True
    return False


def _word_of(text: str, name: str, pole: int) -> str:
    rx = next((r0, r1) for n, r0, r1 in _OPP_RX if n == name)[pole]
    for w in tn.words(text):
        m = rx.search(w) if tn.is_cjk(w[0]) else rx.fullmatch(w)
        if m:
            return m.group(0)
    return name.split("/")[pole]


# --------------------------------------------------------------------------- verdicts

def _canonical(text: str) -> str:
    return " ".join(tn.words(text))


def compare(a: str, b: str) -> PairVerdict | None:
    """The verdict on a pair, or None when the two entries are unrelated."""
    if a.strip() == b.strip():
        return PairVerdict("duplicate", 1.0, "identical entries")
    if _canonical(a) == _canonical(b):
        return PairVerdict("duplicate", 1.0, "identical apart from case, punctuation or spacing")
    reason = _conflict_reason(a, b)
    if reason:
        ma, mb = _masked(a), _masked(b)
        na, nb = _NUMBER.sub(" ", a), _NUMBER.sub(" ", b)
        masked = _base_score(ma, mb) * _penalty(*_pair_specifics(na, nb, ma, mb))
        if masked >= CONFLICT:
            return PairVerdict("conflicting", round(masked, 3), reason)
    elif _negated(a) != _negated(b):
        masked = _base_score(_masked(a), _masked(b))
        if masked >= NEGATED:
            from core.scan.mask import clip  # (not at start-up)

            said, unsaid = (a, b) if _negated(a) else (b, a)
            return PairVerdict("conflicting", round(masked, 3), "one says not: " + clip(tn.fold(said), 40))
    clause = _clause_conflict(a, b)
    if clause:
        return PairVerdict("conflicting", round(clause[1], 3), clause[0])
    score = similarity(a, b)
    if score >= SIMILAR:
        return PairVerdict("similar", round(score, 3), f"say much the same ({round(score * 100)}% alike)")
    held = _contained(a, b)
    if held >= CONTAINED:
        return PairVerdict("similar", round(held, 3),
                           f"one holds {round(held * 100)}% of the other's words")
    return None


_CLAUSE_SPLIT = re.compile(r"[;\n。;!?!?]|\.(?=\s|$)|\s[—–-]\s")


def _clauses(text: str) -> list[str]:
    return [c.strip() for c in _CLAUSE_SPLIT.split(text) if c and c.strip()]


def _clause_conflict(a: str, b: str) -> tuple[str, float] | None:
    """A clause of each entry saying the same thing with another number or an opposite word."""
    ca, cb = _clauses(a), _clauses(b)
    if len(ca) < 2 and len(cb) < 2:
        return None  # single clauses were judged as whole entries
    for x in ca:
        mx = _masked(x)
        if sum(1 for t in mx if t != "#" and t not in _OPPOSITES) < 3:
            continue
        for y in cb:
            reason = _conflict_reason(x, y)
            if not reason:
                continue
            my = _masked(y)
            nx, ny = _NUMBER.sub(" ", x), _NUMBER.sub(" ", y)
            score = _base_score(mx, my) * _penalty(*_pair_specifics(nx, ny, mx, my))
            if score >= CLAUSE_CONFLICT:
                return reason, score
    return None


_GENERIC_TOKENS = frozenset(tn.stem(w) for w in (
    "project projects thing things stuff work code file files team time way mode use".split()))


def _contained(a: str, b: str) -> float:
    """How much of the shorter entry's meaning the longer one holds (0 when it can't tell)."""
    ta, tb = set(tn.content_tokens(a)), set(tn.content_tokens(b))
    short, long_ = (ta, tb) if len(ta) <= len(tb) else (tb, ta)
    if len(short) < 3:
        return 0.0
    shared = short & long_
    keys = [t for t in shared if t not in _GENERIC_TOKENS and (len(t) >= 3 or t.isdigit())]
    if len(keys) < 2:
        return 0.0
    if _penalty(*_pair_specifics(a, b, tuple(ta), tuple(tb))) < 1.0:
        return 0.0
    return len(shared) / len(short)


def find_pairs(entries: Sequence[str]) -> list[tuple[int, int, PairVerdict]]:
    """Every related pair among `entries` (indexes into the sequence), in index order."""
    out = []
    for i, j in combinations(range(len(entries)), 2):
        verdict = compare(entries[i], entries[j])
        if verdict:
            out.append((i, j, verdict))
    return out
