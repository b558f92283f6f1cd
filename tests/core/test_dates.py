"""core.review.dates: the date finder, on unit cases and on the six-language corpus (floors asserted)."""
from __future__ import annotations

from datetime import date

import pytest

from core.review.dates import FoundDate, find_dates, newest
from tests.corpora.dates import DATE_FREE, DATED, HELDOUT, RELATIVE, TODAY


def labels(text: str, today: date = TODAY) -> list[str]:
    return [f.label for f in find_dates(text, today)]


# ------------------------------------------------------------------ corpus floors

def _score(cases):
    expected = found = invented = 0
    misses: list[str] = []
    for lang, text, want in cases:
        got = labels(text)
        expected += len(want)
        found += sum(1 for w in want if w in got)
        extra = [g for g in got if g not in want]
        invented += len(extra)
        if extra or any(w not in got for w in want):
            misses.append(f"{lang}: {text!r} want {want} got {got}")
    return expected, found, invented, misses


def test_corpus_floors(capsys):
    exp_abs, found_abs, inv_abs, miss_abs = _score(DATED)
    exp_rel, found_rel, inv_rel, miss_rel = _score(RELATIVE)
    _, _, invented_free, miss_free = _score(DATE_FREE)
    exp_held, found_held, inv_held, miss_held = _score(HELDOUT)
    held_free = [c for c in HELDOUT if not c[2]]
    _, _, invented_held_free, _ = _score(held_free)
    recall = (found_abs + found_rel + found_held) / (exp_abs + exp_rel + exp_held)
    with capsys.disabled():
        print(f"\n[dates] corpus: {len(DATED)} dated, {len(RELATIVE)} relative, "
              f"{len(DATE_FREE)} date-free strings in en/fr/es/it/ru/zh")
        print(f"[dates] dates found: {found_abs}/{exp_abs} absolute, {found_rel}/{exp_rel} relative "
              f"-> recall {recall:.3f}; invented on dated strings: {inv_abs + inv_rel}; "
              f"invented on date-free strings: {invented_free}")
        print(f"[dates] held-out batch ({len(HELDOUT)} strings, {len(held_free)} date-free): "
              f"{found_held}/{exp_held} found, {inv_held} invented")
        for line in miss_abs + miss_rel + miss_free + miss_held:
            print("   ", line)
    assert recall >= 0.9
    assert invented_free == 0 and invented_held_free == 0, miss_free


def test_corpus_covers_six_languages():
    for cases in (DATED, RELATIVE, DATE_FREE):
        assert {lang for lang, _, _ in cases} == {"en", "fr", "es", "it", "ru", "zh"}


# ------------------------------------------------------------------ unit cases

@pytest.mark.parametrize("text, want", [
    ("on 2026-04-15", ["2026-04-15"]),
    ("2026-04-15T09:30:00Z", ["2026-04-15"]),
    ("15/04/2026", ["2026-04-15"]),
    ("15.04.2026", ["2026-04-15"]),
    ("15-04-2026", ["2026-04-15"]),
    ("le 15 avril 2026", ["2026-04-15"]),
    ("el 15 de abril de 2026", ["2026-04-15"]),
    ("il 15 aprile 2026", ["2026-04-15"]),
    ("15 апреля 2026 года", ["2026-04-15"]),
    ("в апреле 2026 года", ["2026-04"]),
    ("апрель 2026", ["2026-04"]),
    ("2026年4月15日", ["2026-04-15"]),
    ("2026年四月", ["2026-04"]),
    ("April 15th, 2026", ["2026-04-15"]),
    ("the 1st of May 2026", ["2026-05-01"]),
    ("Q2 2026", ["2026-06"]),
    ("since 2019", ["2019"]),
    ("depuis 2019", ["2019"]),
    ("desde 2019", ["2019"]),
    ("dal 2019", ["2019"]),
    ("с 2019 года", ["2019"]),
    ("从2019起", ["2019"]),
])
def test_absolute_forms(text, want):
    assert labels(text) == want


@pytest.mark.parametrize("text, want", [
    ("yesterday", ["~2026-11-14"]), ("the day before yesterday", ["~2026-11-13"]),
    ("hier", ["~2026-11-14"]), ("avant-hier", ["~2026-11-13"]),
    ("ayer", ["~2026-11-14"]), ("hace dos días", ["~2026-11-13"]),
    ("ieri", ["~2026-11-14"]), ("la settimana scorsa", ["~2026-11-08"]),
    ("вчера", ["~2026-11-14"]), ("на прошлой неделе", ["~2026-11-08"]),
    ("昨天", ["~2026-11-14"]), ("上周", ["~2026-11-08"]), ("三个月前", ["~2026-08"]),
    ("la semaine dernière", ["~2026-11-08"]), ("il y a trois semaines", ["~2026-10-25"]),
    ("last Friday", ["~2026-11-13"]), ("three weeks ago", ["~2026-10-25"]),
    ("два дня назад", ["~2026-11-13"]), ("due giorni fa", ["~2026-11-13"]),
])
def test_relative_phrases(text, want):
    assert labels(text) == want
    assert all(f.kind == "relative" for f in find_dates(text, TODAY))


@pytest.mark.parametrize("text", [
    "Django 5.1", "pinned 2024.10.1", "Python 3.12.4", "Ubuntu 22.04", "coverage 85.5%",
    "at 10:30", "call +1-202-555-0143", "06 12 34 56 78", "host 192.168.1.20", "ip 10.12.20.30",
    "commit 3f9a2c1e7b4d", "ts 1713139200", "build 20260415", "port 2222", "data in 2048 buckets",
    "max 2000 rows", "Use today's date in file names", "hoy en día", "oggigiorno",
    "por la mañana", "the last week of the month", "每天", "2000年前的文字", "3/4 of the users",
    "v2026.04.15", "16/9 screens", "You may 3x the speed", "1920x1080",
])
def test_non_dates(text):
    assert find_dates(text, TODAY) == []


def test_ambiguous_numeric_order_follows_language():
    assert labels("Budget approved on 12/11/2025 by finance.") == ["2025-12-11"]
    assert labels("Budget approuvé le 12/11/2025.") == ["2025-11-12"]
    assert labels("Le 31/03/2027.") == ["2027-03-31"]  # only one reading is valid


def test_spans_and_text_point_into_the_original():
    text = "Certificat : ２０２７年１月１０日 puis rien."
    (f,) = find_dates(text, TODAY)
    assert text[f.start:f.end] == f.text == "２０２７年１月１０日"
    assert f.value == date(2027, 1, 10)


def test_overlaps_keep_the_longest():
    (f,) = find_dates("le 15 avril 2026", TODAY)
    assert f.text == "15 avril 2026" and f.precision == "day"


def test_yearless_dates_resolve_to_nearest_occurrence():
    (f,) = find_dates("Le 14 juillet est férié.", TODAY)
    assert f.kind == "no-year" and f.value == date(2026, 7, 14)
    (g,) = find_dates("Offsite on 3 January.", TODAY)
    assert g.value == date(2027, 1, 3)


def test_english_lowercase_may_is_not_a_month_without_a_year():
    assert find_dates("tests may 3 times fail", TODAY) == []
    assert labels("may 2026") == ["2026-05"]


def test_newest_and_last_day():
    found = find_dates("from March 2025 to 2026-01-10, since 2019", TODAY)
    assert newest(found).label == "2026-01-10"
    assert newest(found, ("since",)).label == "2019"
    m = FoundDate(0, 1, "x", date(2025, 2, 1), "month")
    assert m.last_day == date(2025, 2, 28)


def test_never_raises_on_odd_input():
    for text in ["", "§", "\x00\x1b[31m", "年月日", "99年99月99日", "32/13/2026", "0000-00-00",
                 "2026-02-30", "il y a  jours", "hace  días", "назад", "前"] * 2:
        find_dates(text, TODAY)
