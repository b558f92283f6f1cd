"""The stem of a word, for a prefix search that finds its other forms: `миграция` → `миграц`, whose
`миграц*` also finds `миграцию`. Hermes's word index has no stemming (FTS5's unicode61 tokenizer),
so a search for one form of a word misses the others; hmc offers the stem, never searches it
silently (core.sessions.suggest).

Deliberately small: per language, the inflectional endings (plural, case, gender, the common verb
endings) that a search most often trips on, and the longest one that leaves at least MIN_STEM
letters is cut. No derivational suffixes (`-ation`, `-ment`): the stem stays close to the word.
A word's language isn't known, so a word in Latin script gets the stem of each Latin-script
language whose endings fit it (the caller keeps those the index confirms); Cyrillic is Russian.
Chinese (and every script without word inflection) gets none.
"""

from __future__ import annotations

import unicodedata

MIN_STEM = 4  # a shorter stem finds too many unrelated words to be worth offering

_ENDINGS: dict[str, tuple[str, ...]] = {
    # plural, 3rd person, past, gerund
    "en": ("ings", "ing", "ies", "ied", "ed", "es", "s"),
    # plural, feminine, participles, the common verb endings
    "fr": ("aient", "ions", "iez", "ons", "ez", "ent", "ait", "ais", "ant", "ées", "ée", "és", "é",
           "er", "ir", "es", "e", "s", "x"),
    # plural, gender, participles, gerunds, the common verb endings, -ción/-ciones
    "es": ("iendo", "ando", "aban", "adas", "ados", "idas", "idos", "amos", "emos", "imos", "ones", "ada",
           "ado", "ida", "ido", "aba", "ían", "ía", "ar", "er", "ir", "an", "en", "as", "os", "es", "ón",
           "a", "o", "e", "s", "ó"),
    # plural and gender (-o/-i, -a/-e, -e/-i), participles, gerunds, the common verb endings
    "it": ("iamo", "ando", "endo", "ano", "ono", "are", "ere", "ire", "ato", "ata", "ati", "ate", "ito",
           "ita", "iti", "ite", "uto", "uta", "uti", "ute", "a", "e", "i", "o"),
    # noun and adjective case endings, the common verb endings
    "ru": ("иями", "ями", "ами", "ого", "его", "ому", "ему", "ыми", "ими", "иях", "ией", "ием", "ться",
           "ешь", "ете", "ите", "ать", "ять", "ить", "еть", "ях", "ах", "ию", "ия", "ии", "ий", "ей",
           "ой", "ом", "ем", "ам", "ям", "ов", "ев", "ая", "яя", "ое", "ее", "ые", "ие", "ый", "ую", "юю",
           "ых", "их", "ым", "им",
           "ет", "ит", "ут", "ют", "ть", "а", "я", "о", "е", "ы", "и", "у", "ю", "ь"),
}
_LATIN = ("en", "fr", "es", "it")


def _script(word: str) -> str | None:
    """"latin", "cyrillic", or None (another script, or a mix: no stem)."""
    scripts = set()
    for ch in word:
        if not ch.isalpha():
            return None
        name = unicodedata.name(ch, "")
        if name.startswith("LATIN"):
            scripts.add("latin")
        elif name.startswith("CYRILLIC"):
            scripts.add("cyrillic")
        else:
            return None
    return scripts.pop() if len(scripts) == 1 else None


def _cut(word: str, endings: tuple[str, ...]) -> str | None:
    """`word` without the longest of `endings` that leaves MIN_STEM letters (None: none fits). The
    stem is always the word's start, so `stem*` finds everything the word finds, and more."""
    for ending in sorted(endings, key=len, reverse=True):
        if word.endswith(ending) and len(word) - len(ending) >= MIN_STEM:
            return word[: -len(ending)]
    return None


def stems(word: str) -> list[str]:
    """The stems of `word` (case folded), longest first: one per language whose endings fit it, no
    duplicates; none for a word too short, in another script, or with no ending to cut."""
    word = word.casefold()
    script = _script(word)
    if script is None:
        return []
    languages = ("ru",) if script == "cyrillic" else _LATIN
    out: list[str] = []
    for language in languages:
        stem = _cut(word, _ENDINGS[language])
        if stem is not None and stem not in out:
            out.append(stem)
    return sorted(out, key=len, reverse=True)


def indexed(text: str) -> str:
    """`text` as the word index stores it (FTS5 unicode61's defaults): lower case, and Latin
    letters without their accents (`déploi` → `deploi`); other scripts keep theirs (`ё` stays)."""
    out = []
    for ch in text.lower():
        if not ch.isascii() and unicodedata.name(ch, "").startswith("LATIN"):
            ch = "".join(part for part in unicodedata.normalize("NFD", ch) if not unicodedata.combining(part))
        out.append(ch)
    return "".join(out)
