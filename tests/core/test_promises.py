"""core/sessions/promises.py: measured quality on tests/core/promises_corpus.py, then unit cases.

Floors: recall >= 0.9 on claims and on requests (overall); benign texts flagged < 2% overall and at
most one per language (assistant benign texts for claims, user non-requests for requests). The
figures print per language (`pytest -s` shows them); the corpus docstring has first-contact figures.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import pytest

from core.sessions import promises
from core.sessions.promises import Claim, claims, requests
from tests.core.promises_corpus import BENIGN, CLAIMS, NON_REQUESTS, REQUESTS, all_items

LANGS = ("en", "fr", "es", "it", "ru", "zh")


@dataclass
class Score:
    found: int = 0          # positives detected
    positives: int = 0
    flagged: int = 0        # negatives detected (false alarms)
    negatives: int = 0
    misses: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.found / self.positives if self.positives else 1.0

    @property
    def precision(self) -> float:
        return self.found / (self.found + self.flagged) if self.found + self.flagged else 1.0

    @property
    def false_alarm(self) -> float:
        return self.flagged / self.negatives if self.negatives else 0.0

    def add(self, other: Score) -> None:
        self.found += other.found
        self.positives += other.positives
        self.flagged += other.flagged
        self.negatives += other.negatives
        self.misses += other.misses


def _measure(positives: dict[str, list[tuple[str, str]]], negatives: dict[str, list[tuple[str, str]]],
             detect) -> dict[str, Score]:
    scores = {lang: Score() for lang in LANGS}
    for lang in LANGS:
        sc = scores[lang]
        for category, text in positives[lang]:
            sc.positives += 1
            if detect(text):
                sc.found += 1
            else:
                sc.misses.append(f"miss {lang}/{category}: {text!r}")
        for category, text in negatives[lang]:
            sc.negatives += 1
            if hits := detect(text):
                sc.flagged += 1
                sc.misses.append(f"false alarm {lang}/{category}: {text!r} -> {[h.phrase for h in hits]}")
    total = Score()
    for sc in scores.values():
        total.add(sc)
    scores["all"] = total
    return scores


def _report(title: str, scores: dict[str, Score]) -> str:
    lines = [f"{title}: lang  precision  recall  false-alarms"]
    for lang, sc in scores.items():
        lines.append(f"  {lang:>4}  {sc.precision:9.3f}  {sc.recall:6.3f}  {sc.flagged}/{sc.negatives}"
                     f" ({100 * sc.false_alarm:.1f}%)")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def claim_scores() -> dict[str, Score]:
    return _measure(CLAIMS, BENIGN, claims)


@pytest.fixture(scope="module")
def request_scores() -> dict[str, Score]:
    return _measure(REQUESTS, NON_REQUESTS, requests)


def test_claim_quality(claim_scores):
    print("\n" + _report("claims (assistant)", claim_scores))
    total = claim_scores["all"]
    assert total.recall >= 0.9, total.misses
    assert total.false_alarm < 0.02, total.misses
    for lang in LANGS:
        assert claim_scores[lang].flagged <= 1, claim_scores[lang].misses


def test_request_quality(request_scores):
    print("\n" + _report("requests (user)", request_scores))
    total = request_scores["all"]
    assert total.recall >= 0.9, total.misses
    assert total.false_alarm < 0.02, total.misses
    for lang in LANGS:
        assert request_scores[lang].flagged <= 1, request_scores[lang].misses


def test_the_corpus_is_big_enough_in_every_language():
    for lang in LANGS:
        assert len(CLAIMS[lang]) >= 25 and len(BENIGN[lang]) >= 40, lang
        assert len(REQUESTS[lang]) >= 12 and len(NON_REQUESTS[lang]) >= 15, lang
    assert all(item.category for item in all_items())


def test_the_gate_never_hides_a_match_on_the_corpus(monkeypatch):
    """With every stem check disabled ("" is in every string) the results are the same."""
    expected = {(i.kind, i.text): (claims(i.text), requests(i.text)) for i in all_items()}
    monkeypatch.setattr(promises, "_STEMS", {lang: (("",), ("",)) for lang in LANGS})
    monkeypatch.setattr(promises, "_GATE_STEMS", (("",), ("",)))
    for (kind, text), want in expected.items():
        assert (claims(text), requests(text)) == want, (kind, text)


@pytest.mark.parametrize("seed", range(4))
def test_scan_many_answers_as_one_text_at_a_time(seed):
    """The batched scan (one search per stem over the texts joined) finds exactly what claims() and
    requests() find text by text: on the whole corpus, shuffled, with the rare shapes among it
    (empty texts, a NUL inside a text, a letter that lowers to two, a final sigma, a stem at a
    text's very start and end)."""
    import random

    rng = random.Random(seed)
    texts = [i.text for i in all_items()]
    texts += ["", "\0", "Saved\0 to memory.", "İstanbul: I've saved that to memory.", "ΟΔΟΣ. Got it, saved.",
              "remember", "I'll remember that", "记住了", "x" * 3000 + " Noted in memory."]
    rng.shuffle(texts)
    try:
        assert promises.scan_many(texts, user=False) == [claims(t) for t in texts]
        assert promises.scan_many(texts, user=True) == [requests(t) for t in texts]
        assert promises.scan_many([], user=False) == []
    except AssertionError:
        print(f"seed {seed}")
        raise


def test_scan_many_with_every_stem_empty_ends(monkeypatch):
    """An empty stem is found at every text's start: the search still moves on, and stops."""
    monkeypatch.setattr(promises, "_GATE_STEMS", (("",), ("",)))
    texts = ["Got it, saved.", "", "nothing here"]
    assert promises.scan_many(texts, user=False) == [claims(t) for t in texts]


# --- the brief's examples --------------------------------------------------------------------------

MUST_CLAIM = [
    ("en", "Got it, saved."), ("en", "I'll remember that."), ("en", "Noted — I've saved that to memory."),
    ("en", "I've added that to my memory"), ("en", "I will keep that in mind for next time"),
    ("fr", "c'est noté"), ("fr", "je m'en souviendrai"), ("fr", "je l'ai enregistré dans ma mémoire"),
    ("es", "lo recordaré"), ("es", "lo he guardado en memoria"), ("es", "anotado"),
    ("it", "me lo ricorderò"), ("it", "l'ho salvato in memoria"), ("it", "ricevuto, lo terrò a mente"),
    ("ru", "запомнил"), ("ru", "я запомню это"), ("ru", "сохранил в память"),
    ("zh", "记住了"), ("zh", "我会记住的"), ("zh", "已保存到记忆中"), ("zh", "好的，我记下了"),
]

MUST_NOT_CLAIM = [
    "I've saved the file", "I saved the changes to config.py", "j'ai enregistré le fichier",
    "he guardado el documento", "ho salvato il file", "сохранил файл", "文件已保存",
    "I won't remember that", "I can't save that to memory", "я не буду это запоминать", "我不会记住",
    "Should I remember that?", "Do you want me to save this to memory?", "¿Quieres que lo recuerde?",
    "要我记住吗？", "you said you'd remember", "remember to restart the server",
    "I remember you mentioned Postgres", "If you want, I can remember this",
    "memory usage is 80%", "RAM is at 90%", "la memoria del sistema está llena",
    "As noted above, the cache is slow.", "I noted that the test fails on Windows.",
]

MUST_REQUEST = [
    ("en", "remember that I use tabs"), ("en", "please save this to memory"),
    ("en", "don't forget that the deploy is on Friday"), ("fr", "retiens que je préfère vim"),
    ("fr", "souviens-toi que j'utilise zsh"), ("fr", "n'oublie pas que je suis en congé"),
    ("es", "recuerda que uso tabs"), ("es", "guarda en memoria que uso vim"),
    ("it", "ricorda che uso i tab"), ("it", "salva in memoria che uso vim"),
    ("ru", "запомни"), ("ru", "не забудь"), ("zh", "记住"), ("zh", "请记下"),
]

MUST_NOT_REQUEST = [
    "do you remember what we did yesterday?", "I remember the old API", "remind me to call mom",
    "save the file", "¿te acuerdas?", "ti ricordi?", "tu te souviens ?", "ты помнишь?", "你还记得吗？",
    "我记得你说过",
]


@pytest.mark.parametrize(("lang", "text"), MUST_CLAIM)
def test_claims_from_the_brief(lang, text):
    found = claims(text)
    assert found and found[0].lang == lang, (text, found)


@pytest.mark.parametrize("text", MUST_NOT_CLAIM)
def test_not_claims_from_the_brief(text):
    assert claims(text) == [], text


@pytest.mark.parametrize(("lang", "text"), MUST_REQUEST)
def test_requests_from_the_brief(lang, text):
    found = requests(text)
    assert found and found[0].lang == lang, (text, found)


@pytest.mark.parametrize("text", MUST_NOT_REQUEST)
def test_not_requests_from_the_brief(text):
    assert requests(text) == [], text


def test_a_claim_is_not_a_request_and_back():
    assert requests("I'll remember that.") == []
    assert claims("remember that I use tabs") == []


# --- edges -----------------------------------------------------------------------------------------

def test_empty_and_blank_text():
    for text in ("", " ", "\n\n", "\t"):
        assert claims(text) == [] and requests(text) == []


def test_control_characters_do_not_break_or_join_sentences():
    assert claims("\x00\x01\x02\x7f\x1b[31m") == []
    text = "Build failed\x00 I'll remember that.\x1b[0m"
    [c] = claims(text)
    assert text[c.start:c.end] == c.phrase == "I'll remember"
    # a control character ends a sentence: the question mark after it does not reach back
    assert claims("Should I\x00 I'll remember that") != []


def test_offsets_slice_back_to_the_phrase_on_the_whole_corpus():
    for item in all_items():
        for found in (claims(item.text), requests(item.text)):
            for c in found:
                assert isinstance(c, Claim)
                assert item.text[c.start:c.end] == c.phrase and c.phrase.strip(), (item, c)
            assert [c.start for c in found] == sorted(c.start for c in found)
            assert all(a.end <= b.start for a, b in zip(found, found[1:]))


def test_offsets_are_kept_with_letters_that_lower_to_two_characters():
    text = "İstanbul İzmir. Got it, I'll remember that."
    [c] = claims(text)
    assert text[c.start:c.end] == c.phrase == "I'll remember"


def test_mixed_language_text_finds_each_language():
    text = ("Sure! I'll remember that. Pour la version française : c'est noté. "
            "En español: lo recordaré. In italiano: me lo ricorderò. "
            "По-русски: запомнил. 中文：好的，我记下了。")
    langs = [c.lang for c in claims(text)]
    assert langs == ["en", "fr", "es", "it", "ru", "zh"], claims(text)
    req = "Please remember I use tabs. Et retiens que j'utilise vim. Запомни: zsh. 还有，记住我用 fish。"
    assert [c.lang for c in requests(req)] == ["en", "fr", "ru", "zh"], requests(req)


def test_a_claim_after_code_and_in_markdown():
    text = "```python\nx = 1  # saved to memory? no\n```\n\n**Saved to memory.** You prefer tabs."
    found = claims(text)
    assert [c.phrase for c in found] == ["**Saved to memory"], found


def test_a_long_message_without_a_claim_is_cheap_and_a_late_claim_is_found():
    body = ("The function parses the input, validates every field and returns a typed result. " * 250)[:20000]
    t0 = time.perf_counter()
    for _ in range(10):
        assert claims(body) == []
    per_call = (time.perf_counter() - t0) / 10
    print(f"\n20,000-char message without a claim: {per_call * 1000:.2f} ms per call")
    text = body + " Got it — I've saved your preference to memory."
    [c] = claims(text)
    assert c.start > 20000 and text[c.start:c.end] == c.phrase


@pytest.mark.parametrize("unit", [
    "I saved the file. ", "saved ", "I'll remember that. ", "记住了", "запомнил ", "memory ", "a",
    "I've just ", "Noted, noted, noted ", "'-", "remember remember ",
])
def test_100k_characters_finish_and_scale_linearly(unit):
    """No timed assertion (machines differ); the check is that 4x the text costs well under 16x."""
    def cost(n: int) -> float:
        text = (unit * (n // len(unit) + 1))[:n]
        t0 = time.perf_counter()
        claims(text)
        requests(text)
        return time.perf_counter() - t0
    small, big = cost(25_000), cost(100_000)
    assert big < max(small, 0.005) * 10, (unit, small, big)


def test_a_huge_sentence_without_punctuation_is_read_in_windows():
    text = "word " * 20000 + "and I'll remember that " + "word " * 20000
    [c] = claims(text)
    assert c.phrase == "I'll remember"
