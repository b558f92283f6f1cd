"""core.review.duplicates: pair verdicts on unit cases and on the six-language corpus (floors asserted)."""
from __future__ import annotations

import pytest
from rapidfuzz import fuzz

from core.review import textnorm as tn
from core.review.duplicates import compare, find_pairs, similarity, specifics
from tests.corpora import duplicates as corpus


def _kind(a: str, b: str) -> str | None:
    v = compare(a, b)
    return v.kind if v else None


def _rates(dups, conflicts, lookalikes):
    dup_hits = sum(_kind(a, b) in ("duplicate", "similar") for _, a, b in dups)
    conf_hits = sum(_kind(a, b) == "conflicting" for _, a, b in conflicts)
    look_flagged = sum(_kind(a, b) is not None for _, a, b in lookalikes)
    return dup_hits, conf_hits, look_flagged


def test_corpus_floors(capsys):
    unrelated = corpus.unrelated_pairs()
    false_pairs = [(a, b) for a, b in unrelated if compare(a, b)]
    dup, conf, look = _rates(corpus.DUPLICATES, corpus.CONFLICTS, corpus.LOOKALIKES)
    h_dup, h_conf, h_look = _rates(corpus.HELDOUT_DUPLICATES, corpus.HELDOUT_CONFLICTS,
                                   corpus.HELDOUT_LOOKALIKES)
    n_dup = len(corpus.DUPLICATES) + len(corpus.HELDOUT_DUPLICATES)
    recall = (dup + h_dup) / n_dup
    per_1000 = 1000 * len(false_pairs) / len(unrelated)
    with capsys.disabled():
        print(f"\n[duplicates] reworded pairs: {dup}/{len(corpus.DUPLICATES)} found "
              f"(held-out {h_dup}/{len(corpus.HELDOUT_DUPLICATES)}) -> recall {recall:.3f}")
        print(f"[duplicates] conflicting pairs: {conf}/{len(corpus.CONFLICTS)} "
              f"(held-out {h_conf}/{len(corpus.HELDOUT_CONFLICTS)})")
        print(f"[duplicates] look-alikes flagged: {look}/{len(corpus.LOOKALIKES)} "
              f"(held-out {h_look}/{len(corpus.HELDOUT_LOOKALIKES)})")
        print(f"[duplicates] unrelated pairs flagged: {len(false_pairs)}/{len(unrelated)} "
              f"= {per_1000:.2f} per 1,000")
    assert len(unrelated) >= 1000
    assert recall >= 0.85
    assert per_1000 <= 1.0, false_pairs[:5]
    assert (conf + h_conf) / (len(corpus.CONFLICTS) + len(corpus.HELDOUT_CONFLICTS)) >= 0.85


def _recall_at_fair_threshold(score, dups, lookalikes, unrelated):
    """Recall when the threshold lets through at most 1 unrelated pair in 1,000 and at most
    5% of the look-alikes (the same bar for every measure)."""
    ranked = sorted((score(a, b) for a, b in unrelated), reverse=True)
    look = sorted((score(a, b) for _, a, b in lookalikes), reverse=True)
    cut = max(ranked[len(ranked) // 1000], look[len(look) // 20])
    recall = sum(score(a, b) > cut for _, a, b in dups) / len(dups)
    return cut, recall


def test_measures_compared(capsys):
    """The measurement behind the choice: raw rapidfuzz / n-grams vs the scorer we use."""
    def tsr(a, b):
        return fuzz.token_set_ratio(" ".join(tn.words(a)), " ".join(tn.words(b))) / 100

    def tsr_content(a, b):
        return fuzz.token_set_ratio(" ".join(tn.content_tokens(a)),
                                    " ".join(tn.content_tokens(b))) / 100

    def jaccard3(a, b):
        def grams(s):
            s = " ".join(tn.words(s))
            return {s[i:i + 3] for i in range(max(1, len(s) - 2))}
        ga, gb = grams(a), grams(b)
        return len(ga & gb) / len(ga | gb)

    dups = corpus.DUPLICATES + corpus.HELDOUT_DUPLICATES
    looks = corpus.LOOKALIKES + corpus.HELDOUT_LOOKALIKES
    unrelated = corpus.unrelated_pairs()
    rows = {name: _recall_at_fair_threshold(f, dups, looks, unrelated)
            for name, f in (("token_set_ratio (raw)", tsr),
                            ("token_set_ratio (content tokens)", tsr_content),
                            ("char 3-gram Jaccard (raw)", jaccard3),
                            ("hmc similarity", similarity))}
    with capsys.disabled():
        print("\n[duplicates] threshold allowing <=1/1,000 unrelated and <=5% look-alikes: "
              "measure, threshold, recall")
        for name, (cut, rec) in rows.items():
            print(f"    {name:34s} {cut:.3f}  recall {rec:.3f}")
    assert rows["hmc similarity"][1] >= max(r for _, r in rows.values())


# ------------------------------------------------------------------ unit cases

def test_exact_and_cosmetic_duplicates():
    assert compare("User prefers dark mode", "User prefers dark mode").kind == "duplicate"
    v = compare("User prefers dark mode", "user prefers dark-mode!")
    assert v.kind == "duplicate" and "case" in v.reason


@pytest.mark.parametrize("a, b, word", [
    ("Rate limit is 100 req/min.", "Rate limit is 1,000 req/min.", "100 vs 1,000"),
    ("User prefers dark mode.", "User prefers light mode.", "dark vs light"),
    ("Réponses courtes en français.", "Réponses détaillées en français.", "courtes vs détaillées"),
    ("Всегда отвечать кратко.", "Никогда не отвечать кратко.", "всегда vs никогда"),
    ("在测试环境启用缓存。", "在测试环境禁用缓存。", "启用 vs 禁用"),
])
def test_conflicts_say_what_differs(a, b, word):
    v = compare(a, b)
    assert v.kind == "conflicting" and word in v.reason


def test_negated_statement_conflicts_but_contrast_does_not():
    assert compare("Use pnpm in the frontend.", "Don't use pnpm in the frontend.").kind == "conflicting"
    v = compare("Always use pnpm instead of npm in the frontend repo.",
                "In the frontend repo, use pnpm, not npm.")
    assert v.kind == "similar"


def test_different_numbers_in_unrelated_entries_are_not_conflicts():
    assert compare("Backups keep 30 daily snapshots.", "The team has 12 people in Lisbon.") is None


def test_cjk_without_spaces():
    assert _kind("用户偏好简短的回答,不喜欢冗长的解释。", "用户喜欢简洁的回答,不喜欢冗长解释。") == "similar"
    assert _kind("用户每周三晚上打羽毛球。", "团队使用钉钉沟通。") is None


def test_specifics():
    assert {"make", "test"} <= specifics("Тесты запускаются через make test.")
    assert "100" in specifics("Python formatting: ruff format with 100-char lines.")
    assert "ovh" in specifics("Le serveur de prod est chez OVH.")


def test_find_pairs_indexes():
    entries = ["SSH port is 2222.", "Likes tea.", "SSH port is 3000.", "likes tea"]
    pairs = {(i, j): v.kind for i, j, v in find_pairs(entries)}
    assert pairs == {(0, 2): "conflicting", (1, 3): "duplicate"}


def test_never_raises_on_odd_input():
    for a, b in [("", ""), ("§", "§§"), ("\x1b[31m", "[bold]x[/]"), ("12", "13"), ("不", "不是"),
                 ("a" * 5000, "a" * 4999 + "b")]:
        compare(a, b)


def test_an_entry_compared_with_many_has_its_trigrams_made_once(monkeypatch):
    """The review compares each entry with many others (issue 35: at 1,000 entries the trigrams,
    made again for every pair, were half the review's time)."""
    from core.review import duplicates as D

    made = []
    real = D._trigrams
    monkeypatch.setattr(D, "_trigrams", lambda tokens: made.append(frozenset(tokens)) or real(tokens))
    D._trigrams_of.cache_clear()
    one = "The staging cluster deploys every Tuesday from the release branch"
    others = [f"Runner {n} builds the nightly export with flag --opt-{n}" for n in range(20)]
    for other in others:
        D.similarity(one, other)
    assert len(made) == len(set(made)) == 21  # each entry's once
