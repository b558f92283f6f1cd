"""Stems for a search that found few hits (issue 36): the index has no stemming, so `миграция`
misses `миграцию`; hmc offers `миграц*`, never searches it silently."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from core.sessions.stems import MIN_STEM, indexed, stems
from core.sessions.suggest import (FEW_HITS, STEM_FEW_HITS, Suggestion, hits_found, plain_words, suggested_query,
                                   suggestions_for)
from tests.core.sessions_fixtures import Msg, build_db, fingerprint


@pytest.mark.parametrize("word, expected", [
    ("миграция", "миграц"), ("миграцию", "миграц"), ("миграции", "миграц"), ("Миграцией", "миграц"),
    ("данных", "данн"), ("развёртывание", "развёртыван"),
    ("déploiements", "déploiement"), ("sauvegardées", "sauvegard"),
    ("migraciones", "migracion"), ("migración", "migraci"),
    ("migrazione", "migrazion"), ("migrazioni", "migrazion"),
    ("deploying", "deploy"), ("retries", "retr"), ("deployed", "deploy"),
])
def test_the_stem_of_a_word_in_each_language(word, expected):
    assert expected in stems(word)  # a word in Latin script: one stem per language whose endings fit it
    assert all(word.casefold().startswith(stem) for stem in stems(word))  # stem* finds what the word finds


@pytest.mark.parametrize("word", [
    "база",  # the stem (баз) would be under MIN_STEM letters
    "fixe", "run", "",  # too short to cut anything
    "迁移", "数据库迁移",  # Chinese: no inflection
    "v2beta", "deploy-key", "pnpm",  # digits, punctuation, no ending to cut
    "mixedсмесь",  # two scripts in one word
])
def test_no_stem(word):
    assert stems(word) == []


def test_stems_are_never_shorter_than_the_minimum_nor_the_word_itself():
    rng = random.Random(3636)
    letters = "abcdefghijklmnopqrstuvwxyzéèàçñóíúаеиоуыяюйцкнгшзхфвпрлджчсмтьб"
    for _ in range(3000):
        word = "".join(rng.choice(letters) for _ in range(rng.randint(1, 12)))
        for stem in stems(word):
            assert len(stem) >= MIN_STEM and stem != word.casefold()


def test_indexed_is_how_the_word_index_stores_a_term():
    assert indexed("Déploi") == "deploi" and indexed("Ñandú") == "nandu"
    assert indexed("Развёртыван") == "развёртыван"  # unicode61 keeps a Cyrillic letter's marks


def test_hits_found():
    assert hits_found(10, False, None) == 10
    assert hits_found(50, True, None) == float("inf")  # a full page with more after it
    assert hits_found(3, True, 42) == 42  # the count, when the search made one


def test_plain_words_only_for_a_query_of_plain_words():
    assert plain_words("Миграция базы") == ["миграция", "базы"]
    assert plain_words("(миграция база)") == ["миграция", "база"]  # the same query
    for query in ('"миграция базы"', "миграц*", "миграция OR база", "миграция NOT база", "миграция (база OR x)",
                  'unbalanced "quote', ""):
        assert plain_words(query) == [], query
    assert plain_words("v2 migration") == ["migration"]  # `v2` has no stem: the other word keeps its own


# -- against a word index ---------------------------------------------------------------------------

FORMS = [
    Msg("user", "Напишешь миграцию для таблицы invoices?"),
    Msg("assistant", "Миграция готова: alembic upgrade head."),
    Msg("user", "Le déploiement de vendredi est bloqué."),
    Msg("assistant", "Les déploiements reprennent lundi."),
    Msg("user", "La migración de la base terminó."),
    Msg("assistant", "Revisa las migraciones pendientes."),
    Msg("user", "La migrazione del database è finita."),
    Msg("assistant", "Controlla le migrazioni in sospeso."),
    Msg("user", "We are deploying tideway now."),
    Msg("assistant", "Deployed: tideway 2.4 is live."),
    Msg("user", "The worker gave up after three retries."),
    Msg("assistant", "Retrying the job fixed it."),
    Msg("user", "数据库迁移已经完成。"),
]


@pytest.fixture
def forms(tmp_path) -> Path:
    path = build_db(tmp_path / "state.db", extra=[("s-forms", "cli", FORMS)])
    before = fingerprint(path)
    yield path
    assert fingerprint(path) == before and not (tmp_path / "state.db-shm").exists()


@pytest.mark.parametrize("query, stem, example", [
    ("миграция", "миграц*", "миграцию"),
    ("миграцию", "миграц*", "миграция"),
    ("déploiements", "déploiement*", "deploiement"),
    ("migraciones", "migracion*", "migracion"),
    ("migrazione", "migrazion*", "migrazioni"),
    ("deploying", "deploy*", "deploy"),
    ("retries", "retr*", "retrying"),
])
def test_few_hits_offer_the_stem_as_a_prefix_query(forms, query, stem, example):
    found = suggestions_for(forms, query, hits=1)
    assert found[0] == Suggestion("stem", query, stem, found[0].messages, example)
    assert found[0].messages >= 2
    assert suggested_query(query.capitalize() + " alembic", found[0]) == stem + " alembic"


def test_each_word_of_a_plain_query_gets_its_stem(forms):
    found = suggestions_for(forms, "deploying миграция", hits=0)
    assert [(s.word, s.text) for s in found if s.kind == "stem"] == [("deploying", "deploy*"), ("миграция", "миграц*")]


@pytest.mark.parametrize("query, hits", [
    ("миграция", STEM_FEW_HITS),  # enough hits: no suggestion at all
    ('"миграция"', 0),  # a phrase
    ("миграц*", 0), ("миграция*", 0),  # already a prefix
    ("миграция OR invoices", 0), ("invoices NOT миграция", 0),  # operators
    ("迁移", 0), ("数据库迁移", 0),  # Chinese: no inflection
    ("база", 0),  # its stem would be too short
    ("alembic", 0),  # no other form in the index
])
def test_no_stem_is_offered(forms, query, hits):
    assert [s for s in suggestions_for(forms, query, hits=hits) if s.kind == "stem"] == []


def test_stems_come_before_spellings_and_prefixes_which_keep_their_own_threshold(forms):
    assert [s.kind for s in suggestions_for(forms, "retries", hits=FEW_HITS)] == ["stem"]
    kinds = [s.kind for s in suggestions_for(forms, "retries", hits=0)]
    assert kinds[0] == "stem"


def test_no_word_index_no_stems(tmp_path):
    path = build_db(tmp_path / "state.db", "none", extra=[("s-forms", "cli", FORMS)])
    assert suggestions_for(path, "миграция", hits=0) == []
