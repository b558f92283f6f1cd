"""Moving and copying an entry between profiles (core.profiles.transfer): both sides through the
store, one undo for both, nothing half-done on any failure."""

from __future__ import annotations

import os
import threading
from datetime import date

import pytest

from core.curator import open_curator
from core.profiles.transfer import partner, transfer, undo_last
from core.store.memory import Conflict, ScanRefused, StoreError

TODAY = date(2026, 11, 15)
SEP = "\n§\n"
LEAK = "contenu repo: ~/src/contenu-articles (deploy with make publish)"


def _home(tmp_path, ops_memory: str = "Support bot on Telegram") -> tuple:
    home = tmp_path / "hermes"
    for root in (home / "profiles" / "contenu", home / "profiles" / "ops"):
        (root / "memories").mkdir(parents=True)
    (home / "memories").mkdir(parents=True)
    (home / "profiles" / "contenu" / "memories" / "MEMORY.md").write_text(
        SEP.join(["Articles are in French", LEAK]), encoding="utf-8")
    (home / "profiles" / "ops" / "memories" / "MEMORY.md").write_text(ops_memory, encoding="utf-8")
    return home, open_curator(home, "ops", TODAY), open_curator(home, "contenu", TODAY)


def _text(home, profile: str) -> str:
    return (home / "profiles" / profile / "memories" / "MEMORY.md").read_text(encoding="utf-8")


def test_a_move_lands_in_one_and_leaves_the_other_and_undo_puts_both_back(tmp_path):
    home, ops, contenu = _home(tmp_path, SEP.join(["Support bot on Telegram", LEAK]))
    before = {p: _text(home, p) for p in ("ops", "contenu")}
    # the leak goes home: ops holds it already, contenu keeps it (a copy is refused: nothing to copy)
    with pytest.raises(StoreError, match="holds this entry already"):
        transfer(ops, contenu, "memory", LEAK, move=False)
    done = transfer(ops, contenu, "memory", LEAK, move=True)
    assert not done.added and done.kind == "move"
    assert LEAK not in _text(home, "ops") and _text(home, "contenu") == before["contenu"]
    undone = undo_last(ops)
    assert len(undone) == 1 and {p: _text(home, p) for p in ("ops", "contenu")} == before


def test_a_move_to_a_profile_without_it_adds_there_and_one_undo_undoes_both(tmp_path):
    home, ops, contenu = _home(tmp_path)
    before = {p: _text(home, p) for p in ("ops", "contenu")}
    done = transfer(contenu, ops, "memory", LEAK, move=True)
    assert done.added and done.to_json()["to"] == "ops" and "/2,200" in done.usage_after
    assert _text(home, "ops").endswith(SEP + LEAK) and LEAK not in _text(home, "contenu")
    (rec,) = [r for r in ops.history.records() if r.action == "move-in"]
    assert partner(rec) == ("move", "contenu", "ops")
    # undo from the destination's side undoes both journals' records
    undone = undo_last(open_curator(home, "ops", TODAY))
    assert {r.action for r in undone} == {"move-in", "move-out"}
    assert {p: _text(home, p) for p in ("ops", "contenu")} == before
    with pytest.raises(StoreError, match="nothing to undo"):
        undo_last(open_curator(home, "contenu", TODAY))


def test_a_copy_keeps_the_source_and_undo_takes_the_copy_back(tmp_path):
    home, ops, contenu = _home(tmp_path)
    before = {p: _text(home, p) for p in ("ops", "contenu")}
    transfer(contenu, ops, "memory", LEAK, move=False)
    assert LEAK in _text(home, "ops") and _text(home, "contenu") == before["contenu"]
    with pytest.raises(StoreError, match="nothing to undo"):  # a copy writes the destination's journal only
        undo_last(open_curator(home, "contenu", TODAY))
    undone = undo_last(open_curator(home, "ops", TODAY))
    assert [r.action for r in undone] == ["copy-in"]
    assert {p: _text(home, p) for p in ("ops", "contenu")} == before


def test_refused_when_the_target_is_full_and_nothing_is_written(tmp_path):
    home, ops, contenu = _home(tmp_path, "x" * 2190)
    before = {p: _text(home, p) for p in ("ops", "contenu")}
    with pytest.raises(StoreError, match="exceed|limit|2,200"):
        transfer(contenu, ops, "memory", LEAK, move=True)
    assert {p: _text(home, p) for p in ("ops", "contenu")} == before
    assert not ops.history.records() and not contenu.history.records()


def test_refused_when_the_entry_changed_meanwhile(tmp_path):
    home, ops, contenu = _home(tmp_path)
    stale = LEAK
    (home / "profiles" / "contenu" / "memories" / "MEMORY.md").write_text(
        SEP.join(["Articles are in French", LEAK + " (edited)"]), encoding="utf-8")
    before = {p: _text(home, p) for p in ("ops", "contenu")}
    with pytest.raises(Conflict, match="changed meanwhile"):
        transfer(contenu, ops, "memory", stale, move=True)
    assert {p: _text(home, p) for p in ("ops", "contenu")} == before


def test_a_secret_is_refused_unless_forced(tmp_path):
    home, ops, contenu = _home(tmp_path)
    secret = "deploy token " + "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    (home / "profiles" / "contenu" / "memories" / "MEMORY.md").write_text(secret, encoding="utf-8")
    with pytest.raises(ScanRefused):
        transfer(contenu, ops, "memory", secret, move=True)
    assert secret in _text(home, "contenu") and secret not in _text(home, "ops")


def test_same_profile_and_a_disabled_target_are_refused(tmp_path):
    home, ops, contenu = _home(tmp_path)
    with pytest.raises(StoreError, match="choose another"):
        transfer(contenu, open_curator(home, "contenu", TODAY), "memory", LEAK, move=True)
    (home / "profiles" / "ops" / "config.yaml").write_text("memory:\n  memory_enabled: false\n", encoding="utf-8")
    with pytest.raises(StoreError, match="disabled"):
        transfer(contenu, open_curator(home, "ops", TODAY), "memory", LEAK, move=True)
    assert LEAK in _text(home, "contenu")


def test_a_failed_source_write_puts_the_target_back(tmp_path, monkeypatch):
    """The source's replace fails after the target's landed: the target is restored under its lock,
    nothing is left to undo, and both files are as they were."""
    home, ops, contenu = _home(tmp_path)
    before = {p: _text(home, p) for p in ("ops", "contenu")}
    from core.store import memory as store_memory

    real = store_memory._atomic_write

    def failing(path, data, mode=None):
        if "contenu" in str(path) and path.name == "MEMORY.md":
            raise StoreError("writing MEMORY.md failed (disk full); the file is unchanged")
        return real(path, data, mode)

    monkeypatch.setattr(store_memory, "_atomic_write", failing)
    with pytest.raises(StoreError, match="disk full"):
        transfer(contenu, ops, "memory", LEAK, move=True)
    monkeypatch.setattr(store_memory, "_atomic_write", real)
    assert {p: _text(home, p) for p in ("ops", "contenu")} == before
    with pytest.raises(StoreError, match="nothing to undo"):
        undo_last(open_curator(home, "ops", TODAY))


def test_undo_is_refused_when_either_side_changed_since(tmp_path):
    home, ops, contenu = _home(tmp_path)
    transfer(contenu, ops, "memory", LEAK, move=True)
    path = home / "profiles" / "contenu" / "memories" / "MEMORY.md"
    path.write_text(path.read_text(encoding="utf-8") + SEP + "Hermes wrote this meanwhile", encoding="utf-8")
    after = {p: _text(home, p) for p in ("ops", "contenu")}
    with pytest.raises(Conflict, match="changed since"):
        undo_last(open_curator(home, "ops", TODAY))
    assert {p: _text(home, p) for p in ("ops", "contenu")} == after


def test_undo_when_the_other_profile_is_gone_undoes_this_side(tmp_path):
    import shutil

    home, ops, contenu = _home(tmp_path)
    transfer(contenu, ops, "memory", LEAK, move=True)
    shutil.rmtree(home / "profiles" / "contenu")
    (undone,) = undo_last(open_curator(home, "ops", TODAY))
    assert undone.action == "move-in" and LEAK not in _text(home, "ops")


def test_opposite_moves_at_once_never_deadlock(tmp_path):
    """Two threads moving in opposite directions take the locks in one order: both finish."""
    home, ops, contenu = _home(tmp_path, SEP.join(["Support bot on Telegram", "Ops rota in the wiki"]))
    errors: list[BaseException] = []

    def run(src, dst, entry):
        try:
            transfer(open_curator(home, src, TODAY), open_curator(home, dst, TODAY), "memory", entry, move=True)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=("contenu", "ops", LEAK)),
               threading.Thread(target=run, args=("ops", "contenu", "Ops rota in the wiki"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not any(t.is_alive() for t in threads) and not errors
    assert LEAK in _text(home, "ops") and "Ops rota in the wiki" in _text(home, "contenu")
    assert os.path.exists(home / "profiles" / "ops" / "memories" / "MEMORY.md")
