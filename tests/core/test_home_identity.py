"""hmc's journal and kept decisions belong to the home, not its path (core.store.home_id): a new home at
the same path starts clean, a copied or moved home keeps its history, a folder kept by path before the
marker is adopted once, and reading writes nothing."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from core.store.home_id import MARKER, by_path, read_marker
from core.store.journal import state_dir, state_root
from tests.core.pending_support import curator
from tests.core.test_timeline import write_files


def make(home: Path) -> Path:
    (home / "memories").mkdir(parents=True)
    write_files(home, ["Deploys go out on Thursdays."])
    return home


def hmc_writes(home: Path, text: str) -> None:
    cur = curator(home)
    assert cur.stores["memory"].add(text).changed


def journal_texts(home: Path) -> list[str]:
    return [r.after for r in curator(home).history.records()]


def test_reading_writes_nothing_and_the_first_write_gives_the_home_its_marker(tmp_path):
    home = make(tmp_path / "hermes")
    cur = curator(home)
    cur.history.records()
    cur.stores["memory"].read()
    assert not (home / MARKER).exists() and not (state_root() / "homes").exists()
    hmc_writes(home, "Staging is on db2.")
    hid = read_marker(home)
    assert hid is not None and state_dir(home).name.endswith(hid)
    assert (state_dir(home) / "journal.jsonl").is_file()


def test_a_new_home_at_the_same_path_starts_clean(tmp_path):
    home = make(tmp_path / "hermes")
    hmc_writes(home, "Staging is on db2.")
    old = state_dir(home)
    shutil.rmtree(home)  # rm -rf ~/.hermes, then a reinstall
    make(home)
    assert state_dir(home) != old and journal_texts(home) == []
    hmc_writes(home, "A fact of the new home.")
    assert len(journal_texts(home)) == 1 and read_marker(home) != old.name.rsplit("-", 1)[1]
    assert (old / "journal.jsonl").is_file()  # the old home's history is kept, not shown here


def test_a_copied_home_keeps_its_history_and_then_goes_its_own_way(tmp_path):
    home = make(tmp_path / "hermes")
    hmc_writes(home, "Staging is on db2.")
    copy = tmp_path / "hermes-copy"
    shutil.copytree(home, copy)  # the marker travels with it
    assert journal_texts(copy) == journal_texts(home)
    hmc_writes(copy, "Only in the copy.")
    assert read_marker(copy) != read_marker(home) and state_dir(copy) != state_dir(home)
    assert len(journal_texts(copy)) == 2 and len(journal_texts(home)) == 1
    hmc_writes(home, "Only in the original.")
    assert len(journal_texts(home)) == 2 and "Only in the copy." not in journal_texts(home)[-1]


def test_a_moved_home_keeps_its_folder(tmp_path):
    home = make(tmp_path / "hermes")
    hmc_writes(home, "Staging is on db2.")
    folder = state_dir(home)
    moved = tmp_path / "elsewhere"
    os.rename(home, moved)
    hmc_writes(moved, "After the move.")
    assert state_dir(moved) == folder and len(journal_texts(moved)) == 2


def test_a_folder_kept_by_path_before_the_marker_is_adopted_once(tmp_path):
    home = make(tmp_path / "hermes")
    legacy = by_path(state_root(), str(home.resolve()))
    legacy.mkdir(parents=True)
    (legacy / "journal.jsonl").write_text("")  # an older hmc's journal for this path
    assert state_dir(home) == legacy
    hmc_writes(home, "Staging is on db2.")
    assert state_dir(home) == legacy and len(journal_texts(home)) == 1  # nothing moved
    shutil.rmtree(home)
    make(home)  # a new home at that path: the folder is the old home's now
    assert state_dir(home) != legacy and journal_texts(home) == []


def test_a_home_that_cant_take_the_marker_keeps_its_paths_folder(tmp_path):
    home = make(tmp_path / "hermes")
    (home / MARKER).mkdir()  # something in the marker's place
    hmc_writes(home, "Staging is on db2.")
    assert state_dir(home) == by_path(state_root(), str(home.resolve()))
    assert len(journal_texts(home)) == 1


def test_a_marker_hmc_didnt_write_is_not_an_identity(tmp_path):
    home = make(tmp_path / "hermes")
    (home / MARKER).write_text("../../etc\n")
    assert read_marker(home) is None
    assert state_dir(home).parent == state_root() / "homes"
