"""hmc's journal: undo the last write, list and restore removed entries, never lose a change."""

from __future__ import annotations

import pytest

from core.curator import open_curator
from core.store.journal import History, state_dir
from core.store.memory import Conflict, StoreError


@pytest.fixture
def curator(tmp_path):
    home = tmp_path / "home"
    (home / "memories").mkdir(parents=True)
    return open_curator(home)


def test_journal_lives_outside_the_hermes_home(curator, isolated_user):
    curator.stores["memory"].add("a")
    journal = curator.history.path
    assert journal.exists()
    assert curator.home.root not in journal.parents
    assert state_dir(curator.home.root) == journal.parent


def test_undo_restores_previous_text(curator):
    store = curator.stores["memory"]
    store.add("a")
    store.add("b")
    curator.history.undo(curator.stores)
    assert store.path.read_text() == "a"
    curator.history.undo(curator.stores)
    assert store.path.read_text() == ""
    with pytest.raises(StoreError, match="nothing to undo"):
        curator.history.undo(curator.stores)


def test_undo_refuses_when_someone_else_wrote_since(curator):
    store = curator.stores["memory"]
    store.add("a")
    store.path.write_text("a\n§\nhermes wrote this")
    with pytest.raises(Conflict, match="undo refused"):
        curator.history.undo(curator.stores)
    assert store.path.read_text() == "a\n§\nhermes wrote this"


def test_removed_entries_and_restore(curator):
    store = curator.stores["user"]
    store.add("Name: Ana")
    store.add("Prefers French")
    store.remove("French")
    store.replace("Ana", "Name: Ana María")
    removed = curator.history.removed_entries({"user": list(store.read().entries)})
    assert [r.text for r in removed] == ["Name: Ana", "Prefers French"]
    curator.history.restore(curator.stores, removed[1])
    assert "Prefers French" in store.read().entries
    assert curator.history.records()[-1].action == "restore"


def test_torn_last_line_is_skipped(curator):
    curator.stores["memory"].add("a")
    with open(curator.history.path, "a") as fh:
        fh.write('{"id": 2, "ts": 1')
    assert len(curator.history.records()) == 1
    curator.stores["memory"].add("b")
    assert [r.id for r in curator.history.records()] == [1, 2]


def test_separate_homes_have_separate_journals(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    assert History(a).path != History(b).path
