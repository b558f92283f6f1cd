"""The review's decision aids (issue 36): when each side of a conflict was written, the date a
relative phrase meant on the day it was saved, the skill's passage an entry restates; and the
pairing of an entry that changed (time travel's diff, `hmc session --memory`)."""
from __future__ import annotations

import random
import time
from datetime import date

import pytest

from core.review import findings as R
from core.review.ages import SEEN, WRITE, Age, Ages
from core.review.dates import resolve_relative
from core.snapshots.compare import diff, pair_changed


def noon(day: date) -> float:
    return time.mktime((day.year, day.month, day.day, 12, 0, 0, 0, 0, -1))


def age(day: date, basis: str = WRITE, who: str = "telegram") -> Age:
    return Age(noon(day), basis, "agent" if basis == WRITE else "unknown", "add", who, True,
               who if basis == WRITE else "no recorded call")


LOW = "The API rate limit for harbor-web is 100 requests per minute"
HIGH = "The API rate limit for harbor-web is 1000 requests per minute"
TODAY = date(2026, 12, 7)


def conflict(ages: Ages | None) -> R.Finding:
    found = [f for f in R.review_entries({"memory": ([LOW, "Editor: Neovim.", HIGH], 2200)}, TODAY, ages=ages)
             if f.kind == "conflicting"]
    assert len(found) == 1
    return found[0]


# -- 1. a conflicting pair says when each side was written ------------------------------------------------

def test_a_conflict_says_when_each_entry_was_written_and_by_whom():
    f = conflict(Ages({("memory", LOW): age(date(2026, 8, 5)), ("memory", HIGH): age(date(2026, 11, 5), who="cli")}))
    assert f.detail.endswith("which one is true? memory #1 written 5 Aug 2026 (telegram); "
                             "memory #3 written 5 Nov 2026 (cli)")
    assert f.to_json()["written"] == [
        {"target": "memory", "index": 0, "number": 1, "date": "2026-08-05", "exact": True, "by": "telegram"},
        {"target": "memory", "index": 2, "number": 3, "date": "2026-11-05", "exact": True, "by": "cli"}]


def test_an_unknown_date_is_said_to_be_unknown_never_invented():
    f = conflict(Ages({("memory", HIGH): age(date(2026, 11, 5))}))
    assert "memory #1 date unknown; memory #3 written 5 Nov 2026 (telegram)" in f.detail
    assert f.to_json()["written"][0] == {"target": "memory", "index": 0, "number": 1, "date": None,
                                         "exact": False, "by": None}
    for none in (None, Ages(note="no state.db: no history, so no entry ages")):
        f = conflict(none)
        assert "when each was written is unknown" in f.detail and "20" not in f.detail.split("true?")[1]
        assert [w["date"] for w in f.to_json()["written"]] == [None, None]


def test_a_text_the_history_only_saw_is_there_by_that_day_not_written_then():
    f = conflict(Ages({("memory", LOW): age(date(2026, 8, 5), SEEN)}))
    assert "memory #1 there by 5 Aug 2026 (no recorded call)" in f.detail
    assert f.to_json()["written"][0]["exact"] is False


def test_the_written_dates_do_not_change_what_keep_remembers():
    with_dates = conflict(Ages({("memory", LOW): age(date(2026, 8, 5))}))
    assert with_dates.key == conflict(None).key  # kept once, kept whatever the history says


# -- 2. a relative date resolved against the day it was saved ----------------------------------------------

@pytest.mark.parametrize("text, saved, expected", [
    ("Yesterday we migrated harbor-web to Vite.", date(2026, 11, 5), "2026-11-04 we migrated harbor-web to Vite."),
    # month and year boundaries
    ("Deployed yesterday.", date(2027, 1, 1), "Deployed 2026-12-31."),
    ("Deployed yesterday.", date(2026, 3, 1), "Deployed 2026-02-28."),
    ("Moved to Berlin last month.", date(2027, 1, 15), "Moved to Berlin 2026-12."),
    ("Switched to Postgres last year.", date(2027, 1, 2), "Switched to Postgres 2026."),
    ("Release is next week.", date(2026, 12, 29), "Release is 2027-01-05."),
    # other languages
    ("La migración fue la semana pasada.", date(2026, 11, 5), "La migración fue 2026-10-29."),
    ("Сервер перенесли вчера.", date(2026, 11, 1), "Сервер перенесли 2026-10-31."),
    ("昨天把服务迁移到了新机器", date(2026, 11, 1), "2026-10-31把服务迁移到了新机器"),
    # two phrases: both replaced, spans kept
    ("Yesterday the build broke; fixed it 3 days ago.", date(2026, 11, 5), "2026-11-04 the build broke; fixed it 2026-11-02."),
])
def test_a_relative_phrase_resolves_against_the_saved_day(text, saved, expected):
    resolved = resolve_relative(text, saved)
    assert resolved is not None and resolved[1] == expected


def test_no_saved_day_or_no_relative_phrase_resolves_to_nothing():
    assert resolve_relative("Yesterday we migrated.", None) is None
    assert resolve_relative("Editor: Neovim, since 2024-03-01.", date(2026, 11, 5)) is None
    assert resolve_relative("", date(2026, 11, 5)) is None


def test_the_relative_date_finding_offers_the_real_date_when_the_saved_day_is_known():
    text = "Yesterday we migrated harbor-web from Webpack to Vite."
    f = next(f for f in R.date_findings("memory", 4, text, TODAY, age=age(date(2026, 11, 5)))
             if f.kind == "relative-date")
    assert f.fix == "2026-11-04 we migrated harbor-web from Webpack to Vite."
    assert 'saved 5 Nov 2026, so "Yesterday" meant 4 Nov 2026' in f.detail
    data = f.to_json()
    assert data["saved"] == "2026-11-05" and data["resolved"] == [{"phrase": "Yesterday", "date": "2026-11-04"}]
    # the fix is a date the review reads as written: no relative-date finding for it
    assert not [g for g in R.date_findings("memory", 4, f.fix, TODAY) if g.kind == "relative-date"]


@pytest.mark.parametrize("known", [None, "seen", "bad-time"])
def test_an_unknown_saved_day_keeps_todays_finding(known):
    text = "Yesterday we migrated harbor-web from Webpack to Vite."
    given = {None: None, "seen": age(date(2026, 11, 5), SEEN),  # only "there by": not the saved day
             "bad-time": Age(float("nan"), WRITE, "agent")}[known]
    f = next(f for f in R.date_findings("memory", 4, text, TODAY, age=given) if f.kind == "relative-date")
    assert f.fix is None and f.saved is None and f.resolved == ()
    assert f.detail.endswith("means another one now; write the date instead")
    assert "saved" not in f.to_json() and "resolved" not in f.to_json()


def test_the_review_reads_the_saved_day_from_the_entry_ages():
    text = "Yesterday we migrated harbor-web from Webpack to Vite."
    found = R.review_entries({"memory": ([text], 2200)}, TODAY, ages=Ages({("memory", text): age(date(2026, 11, 5))}))
    f = next(f for f in found if f.kind == "relative-date")
    assert f.fix.startswith("2026-11-04 ")


# -- 3. the passage of the skill an entry restates ---------------------------------------------------------

SKILL = """---
name: deploy
---
# Deploy harbor-web

Steps:
  1. Run the tests first.
  2. Deploy harbor-web with kubectl apply -f k8s/harbor-web.yaml in the prod namespace.
  3. Watch the rollout [bold]until[/] it settles.

Unrelated notes below.
"""
ENTRY = "Deploy harbor-web with kubectl apply -f k8s/harbor-web.yaml in the prod namespace"


def test_a_redundant_skill_finding_carries_the_matching_lines_and_their_numbers():
    source = R.source_of(SKILL, "skills/deploy/SKILL.md", "redundant-skill")
    f, = R.redundancy_findings("memory", 2, ENTRY, [source])
    assert f.source == "skills/deploy/SKILL.md" and f.passage_lines == (7, 9)
    assert f.passage == ("  1. Run the tests first.\n"
                         "  2. Deploy harbor-web with kubectl apply -f k8s/harbor-web.yaml in the prod namespace.\n"
                         "  3. Watch the rollout [bold]until[/] it settles.")  # literal, as written
    assert f.to_json()["passage_lines"] == [7, 9]


def test_the_passage_stops_at_a_blank_line_and_at_the_file_edges():
    source = R.source_of(ENTRY + "\n\nSomething else entirely here.", "skills/x/SKILL.md", "redundant-skill")
    f, = R.redundancy_findings("memory", 0, ENTRY, [source])
    assert f.passage == ENTRY and f.passage_lines == (1, 1)


def test_a_long_matching_paragraph_is_cut_around_its_best_line():
    rng = random.Random(36)
    filler = [" ".join(rng.choice(["alpha", "beta", "gamma", "delta", "omega"]) for _ in range(6)) for _ in range(30)]
    lines = filler[:20] + [ENTRY] + filler[20:]
    source = R.source_of("\n".join(lines), "skills/x/SKILL.md", "redundant-skill")
    f, = R.redundancy_findings("memory", 0, ENTRY, [source])
    shown = f.passage.split("\n")
    assert ENTRY in shown and len(shown) <= R.PASSAGE_MOST
    first, last = f.passage_lines
    assert last - first + 1 == len(shown) and lines[first - 1:last] == shown


def test_a_long_line_of_the_passage_is_clipped_and_a_secret_in_it_is_masked_in_json():
    rng = random.Random(7)
    key = "sk-proj-" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789") for _ in range(40))
    skill = f"Deploy harbor-web with kubectl apply -f k8s/harbor-web.yaml in the prod namespace, token {key}" + " x" * 200
    source = R.source_of(skill, "skills/x/SKILL.md", "redundant-skill")
    f, = R.redundancy_findings("memory", 0, ENTRY, [source])
    assert len(f.passage) == R.PASSAGE_WIDTH + 1 and f.passage.endswith("…")  # the width, then the mark
    assert key not in f.to_json()["passage"]


# -- 4. pairing an entry that changed ----------------------------------------------------------------------

def test_a_changed_entry_pairs_with_its_rewrite_and_the_rest_stay_added_or_gone():
    d = diff("memory", ["This machine: Debian 12, Node 20 via fnm.", "Old fact nobody needs."],
             ["This machine: Debian 12, Node 22 via fnm.", "Brand new entry about Vite."])
    assert d.changed == (("This machine: Debian 12, Node 20 via fnm.", "This machine: Debian 12, Node 22 via fnm."),)
    assert d.added == ("Brand new entry about Vite.",) and d.removed == ("Old fact nobody needs.",)


def test_two_equally_similar_candidates_pair_in_file_order():
    old = "Staging runs Postgres 14."
    news = ["Staging runs Postgres 15.", "Staging runs Postgres 16."]  # one character from `old` each
    assert pair_changed([old], news) == [(old, news[0])]
    assert pair_changed([old], list(reversed(news))) == [(old, news[1])]
    olds = ["Staging runs Postgres 15.", "Staging runs Postgres 16."]
    assert pair_changed(olds, [old]) == [(olds[0], old)]


def test_the_most_similar_pair_wins_whatever_the_order():
    # the first removed entry is a fair match for the new one, the second a near-identical one: the
    # near-identical pair is made, the first stays gone
    new = "Deploy harbor-web on Thursdays via the staging cluster."
    removed = ["Deploy harbor-api on Mondays via the staging cluster.", "Deploy harbor-web on Fridays via the staging cluster."]
    assert pair_changed(removed, [new]) == [(removed[1], new)]


ALPHABETS = ("ab", "abcdefgh", "aé漢😀 \n", "".join(chr(c) for c in range(32, 127)))


def edited(text: str, alphabet: str, rng: random.Random) -> str:
    out = list(text)
    for _ in range(rng.randrange(0, 20)):
        at = rng.randrange(len(out) + 1)
        op = rng.randrange(3)
        if op == 0 and out:
            out.pop(min(at, len(out) - 1))
        elif op == 1:
            out.insert(at, rng.choice(alphabet))
        elif out:
            out[min(at, len(out) - 1)] = rng.choice(alphabet)
    return "".join(out)


@pytest.mark.parametrize("seed", range(4))
def test_the_small_pairings_ratio_is_rapidfuzzs_to_the_last_bit(seed):
    """indel_ratio stands in for rapidfuzz's fuzz.ratio on a few pairs: same scores, same cutoffs, so
    the pairing never depends on which one ran. Rare shapes on purpose: empty, identical, nothing in
    common, one character, astral characters, a cutoff met exactly."""
    from rapidfuzz import fuzz

    from core.snapshots.compare import indel_ratio

    rng = random.Random(seed)
    shapes = [("", ""), ("", "a"), ("a", "a"), ("abc", "xyz"), ("😀", "😀x"), ("ab" * 150, "ba" * 150),
              ("Staging runs Postgres 14.", "Staging runs Postgres 15."), ("abcde", "abcxy")]
    for _ in range(600):
        alphabet = rng.choice(ALPHABETS)
        a = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 300)))
        b = edited(a, alphabet, rng) if rng.random() < 0.6 else \
            "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 300)))
        shapes.append((a, b))
    for a, b in shapes:
        for cutoff in (0, 60, 60.0000001, 99.9, 100, fuzz.ratio(a, b)):
            assert indel_ratio(a, b, score_cutoff=cutoff) == fuzz.ratio(a, b, score_cutoff=cutoff), \
                f"seed {seed}: {a[:40]!r} vs {b[:40]!r} at {cutoff}"


def test_many_pairs_pair_as_a_few_do(monkeypatch):
    """Past LITTLE_WORK the pairing is rapidfuzz's: the same pairs either way."""
    import core.snapshots.compare as compare

    rng = random.Random(35)
    removed = [f"Project {w} deploys on {d} via the {c} cluster." for w, d, c in
               zip("alpha beta gamma delta".split(), "Monday Tuesday Friday Sunday".split(), "red blue green gold".split())]
    added = [edited(r, "abcdefgh ", rng) for r in removed] + ["Unrelated: prefers tea."]
    rng.shuffle(added)
    small = pair_changed(removed, added)
    monkeypatch.setattr(compare, "LITTLE_WORK", 0)
    assert pair_changed(removed, added) == small and len(small) == 4


def test_nothing_similar_enough_is_not_paired():
    assert pair_changed(["Editor: Neovim."], ["Prefers short answers in French."]) == []
    assert pair_changed([], ["x"]) == [] and pair_changed(["x"], []) == []


def test_pairing_is_one_to_one_on_seeded_random_stores():
    rng = random.Random(2026)
    words = "node python deploy staging prod vite webpack neovim fnm docker".split()
    for _ in range(30):
        removed = [" ".join(rng.choice(words) for _ in range(5)) for _ in range(rng.randint(0, 6))]
        added = [" ".join(rng.choice(words) for _ in range(5)) for _ in range(rng.randint(0, 6))]
        pairs = pair_changed(removed, added)
        assert len({a for a, _ in pairs}) == len(pairs) == len({b for _, b in pairs})
        assert [a for a, _ in pairs] == [r for r in removed if r in {a for a, _ in pairs}][:len(pairs)]
