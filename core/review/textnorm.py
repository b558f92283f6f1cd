"""Text normalisation shared by the review detectors: tokens, stop words, light stems, CJK bigrams.

Six languages (en, fr, es, it, ru, zh). Tokens are case-folded, NFKC-normalised words; runs of CJK
characters become overlapping character bigrams (Chinese has no spaces); stop words, including the
words every memory entry uses ("user", "utilisateur", "用户"…), are dropped; long words are cut to a
prefix stem so that "answers"/"answer" and "краткие"/"краткий" meet.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

STEM = 5

_STOP_TEXT = """
a an the and or but if then than so of to in on at by for with from into onto as is are was were be
been being am do does did done have has had having it its it's this that these those there here
i me my we our you your he him his she her they them their what which who whom whose when where
why how all any both each few more most other some such no nor not only own same too very can will
just should would could may might must shall also about above below over under again further once
e.g eg i.e ie etc via per vs not don't doesn't didn't isn't aren't won't can't let's
user user's users the user's prefers prefer preferred likes like wants want uses use using used
always please mainly mostly instead rather
le la les l un une des du de d au aux et ou mais donc or ni car ce cet cette ces son sa ses leur
leurs mon ma mes ton ta tes notre nos votre vos je tu il elle on nous vous ils elles qui que quoi
dont où est sont était être avoir a ont avait fait faire pour par avec sans sur sous dans en y ne
pas plus moins très tout tous toute toutes aussi comme se s qu c n j m t lui eux même
plutôt utilisateur utilisatrice l'utilisateur préfère préfèrent aime veut utilise utiliser toujours
el los las lo unos unas del al y o pero si no ni que qué quien cual es son era ser estar está
están fue ha han hay hace con sin sobre bajo entre para por en como más menos muy todo todos toda
todas también su sus mi mis tu tus nuestro nuestra se le les me te nos usuario usuaria al usuario
prefiere prefieren gusta gustan quiere usa usar siempre este esta estos estas ese esa
il lo gli i un uno una dei degli delle della dello del di da dal dalla dai nel nella nei negli
sul sulla sui ai agli alle alla allo e ed o ma se non che chi cui è sono era essere avere ha hanno
con senza per tra fra in come più meno molto tutto tutti tutta tutte anche suo sua suoi sue mio
mia miei tuo tua si ci ne mi ti vi utente l'utente dell'utente all'utente preferisce preferiscono
piace vuole usa usare usando sempre invece questo questa questi queste quel quella
и в во не на я с со что а как это он она оно они мы вы ты его ее её их к ко у же бы по от до из
за для без под над при о об про или но да нет ли то так также там тут здесь был была было были
быть есть будет все всё весь вся очень более менее мой моя мое мои твой свой своя свои этот эта
эти тот та те который которая которые чтобы пользователь пользователя пользователю пользователем
предпочитает любит нравится нравятся хочет использует использовать всегда вместо
的 了 和 与 及 或 是 在 有 也 就 都 而 及 着 把 被 让 对 从 向 给 这 那 个 之 其 用户 喜欢 偏好 更 总是
"""
STOP_WORDS: frozenset[str] = frozenset(_STOP_TEXT.split())
_CJK_STOP_CHARS = frozenset("的了和与及或是在有也就都而着把被让对从向给这那个之其")

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_ELISION = re.compile(r"^(?:l|d|j|m|n|s|t|c|qu|dell|all|nell|sull|dall|un)['’]", re.IGNORECASE)


def is_cjk(ch: str) -> bool:
    o = ord(ch)
    return 0x3400 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0x3040 <= o <= 0x30FF \
        or 0xAC00 <= o <= 0xD7AF or 0x20000 <= o <= 0x2FA1F


def fold(text: str) -> str:
    """NFKC + casefold + 'ё'→'е' (Russian writes both)."""
    return unicodedata.normalize("NFKC", text).casefold().replace("ё", "е")


def stem(word: str, n: int = STEM) -> str:
    if word.isdigit() or len(word) <= n:
        return word
    return word[:n]


@lru_cache(maxsize=4096)
def words(text: str) -> tuple[str, ...]:
    """Folded words in order (CJK runs kept whole), elisions split off, nothing dropped."""
    out: list[str] = []
    for m in _WORD.finditer(fold(text)):
        w = m.group(0)
        # split mixed runs like "用make" into script runs
        for part in re.findall(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]+|[^\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]+", w):
            el = _ELISION.match(part)
            if el and len(part) > el.end():
                out.append(part[:el.end() - 1])
                part = part[el.end():]
            out.append(part.replace("’", "'"))
    return tuple(out)


def cjk_units(run: str) -> list[str]:
    """Bigrams of a CJK run with stop characters removed (single character when alone)."""
    chars = [c for c in run if c not in _CJK_STOP_CHARS]
    if len(chars) <= 1:
        return chars
    return [chars[i] + chars[i + 1] for i in range(len(chars) - 1)]


# Abbreviations people and agents use interchangeably with the full word (any language).
SYNONYMS: dict[str, tuple[str, ...]] = {
    "js": ("javascript",), "ts": ("typescript",), "py": ("python",), "k8s": ("kubernetes",),
    "pg": ("postgres",), "postgresql": ("postgres",), "db": ("database",), "repo": ("repository",),
    "repos": ("repository",), "pr": ("pull", "request"), "prs": ("pull", "request"),
    "mr": ("merge", "request"), "env": ("environment",), "config": ("configuration",),
    "cfg": ("configuration",), "docs": ("documentation",), "doc": ("documentation",),
    "dir": ("directory",), "prod": ("production",), "auth": ("authentication",),
    "msg": ("message",), "msgs": ("message",), "gh": ("github",), "bd": ("database",),
    "бд": ("база",), "репо": ("repository",), "репозиторий": ("repository",),
    "dépôt": ("repository",), "depot": ("repository",), "repositorio": ("repository",),
    "repository": ("repository",),
}


def canon(word: str, n: int = STEM) -> tuple[str, ...]:
    """The stems a folded word stands for (abbreviations expanded)."""
    return tuple(stem(part, n) for part in SYNONYMS.get(word, (word,)))


@lru_cache(maxsize=4096)
def content_tokens(text: str, n: int = STEM) -> tuple[str, ...]:
    """Stop words out, stems on, CJK as bigrams: the tokens that carry the meaning."""
    out: list[str] = []
    for w in words(text):
        if is_cjk(w[0]):
            run = w
            for sw in sorted((s for s in STOP_WORDS if is_cjk(s[0]) and len(s) > 1), key=len,
                             reverse=True):
                run = run.replace(sw, " ")
            for piece in run.split():
                out.extend(cjk_units(piece))
            continue
        if w in STOP_WORDS or (len(w) == 1 and not w.isdigit()):
            continue
        out.extend(canon(w, n))
    return tuple(out)


def guess_language(text: str) -> str:
    """A rough guess among en, fr, es, it, ru, zh (good enough to pick date order or stop words)."""
    if re.search(r"[\u4e00-\u9fff]", text):
        return "zh"
    if re.search(r"[А-Яа-яЁё]", text):
        return "ru"
    low = fold(text)
    scores = {
        "fr": len(re.findall(r"\b(?:le|les|des|est|pas|avec|pour|dans|une|qui|ç\w*|\w*é\w*)\b", low)),
        "es": len(re.findall(r"\b(?:el|los|las|es|con|para|una|del|por|está|ñ\w*|\w*ó\w*)\b", low)),
        "it": len(re.findall(r"\b(?:il|gli|della|di|con|per|una|che|non|è|sono|\w*zione)\b", low)),
        "en": len(re.findall(r"\b(?:the|is|and|with|for|to|of|in|on|a|user)\b", low)),
    }
    best = max(scores, key=lambda k: scores[k])
    return best if scores[best] else "en"
