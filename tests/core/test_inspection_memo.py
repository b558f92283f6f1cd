"""The queue keeps each record's inspection until the record or its store changes (issue 35): the
pending screen shows the queue again after any file changes, and only what changed is inspected."""

from __future__ import annotations

import pytest

from core.pending import inspection
from core.store.memory import serialize
from tests.core.pending_support import MEMORY, USER, curator, make_home, stage


@pytest.fixture
def counted(monkeypatch):
    """The ids of the records actually inspected (not taken from the memo)."""
    seen: list[str] = []
    real = inspection._inspect_ops

    def counting(record, *args, **kwargs):
        seen.append(record.id)
        return real(record, *args, **kwargs)

    monkeypatch.setattr(inspection, "_inspect_ops", counting)
    return seen


def write(home, name: str, entries: list[str]) -> None:
    path = home / "memories" / name
    tmp = path.with_name(f".{name}.tmp")
    tmp.write_text(serialize(entries), encoding="utf-8")
    tmp.replace(path)


def test_only_a_changed_record_or_the_records_of_a_changed_store_are_inspected_again(tmp_path, counted):
    home = make_home(tmp_path)
    queue = curator(home).pending
    a = stage(home, content="Deploy window is Thursday 14:00 UTC")
    b = stage(home, "remove", old_text="Deploys go through the staging")
    u = stage(home, target="user", content="Likes tea")
    first = queue.inspect_all()
    assert sorted(counted) == sorted([a, b, u])

    counted.clear()
    again = queue.inspect_all()
    assert counted == []  # nothing changed: nothing inspected
    assert [i.id for i in again] == [i.id for i in first] and all(x is y for x, y in zip(again, first))

    counted.clear()
    stage(home, content="Deploy window is Friday 09:00 UTC", rid=a)  # the record rewritten
    now = {i.id: i for i in queue.inspect_all()}
    assert counted == [a]
    assert now[a].after[-1] == "Deploy window is Friday 09:00 UTC"

    counted.clear()
    write(home, "MEMORY.md", MEMORY + ["A fact Hermes added meanwhile"])  # the store the first two write
    now = {i.id: i for i in queue.inspect_all()}
    assert sorted(counted) == sorted([a, b])
    assert "A fact Hermes added meanwhile" in now[a].before

    counted.clear()
    write(home, "USER.md", USER[:1])
    queue.inspect_all()
    assert counted == [u]


def test_a_store_changed_back_and_an_edited_version_are_inspected_as_they_are(tmp_path, counted):
    home = make_home(tmp_path)
    queue = curator(home).pending
    rid = stage(home, "replace", old_text="Deploys go through", content="Deploys go straight to prod")
    assert queue.inspect_all()[0].can_apply
    write(home, "MEMORY.md", MEMORY[:1])  # the entry it replaces is gone
    assert not queue.inspect_all()[0].can_apply
    write(home, "MEMORY.md", MEMORY)
    assert queue.inspect_all()[0].can_apply
    counted.clear()
    edited = queue.inspect(rid, edited="Deploys go to prod on Fridays")  # a person's version: its own inspection
    assert counted == [rid] and edited.after[1] == "Deploys go to prod on Fridays"


def test_the_memo_holds_only_what_the_last_pass_used(tmp_path):
    home = make_home(tmp_path)
    queue = curator(home).pending
    ids = [stage(home, content=f"fact number {n}") for n in range(5)]
    queue.inspect_all()
    assert len(queue._inspections) == 5
    for n in range(20):  # a busy writer: the store changes again and again
        write(home, "MEMORY.md", MEMORY + [f"change {n}"])
        queue.inspect_all()
    assert len(queue._inspections) == 5
    for rid in ids[:3]:
        (home / "pending" / "memory" / f"{rid}.json").unlink()
    queue.inspect_all()
    assert len(queue._inspections) == 2


def test_the_entries_a_record_leaves_alone_are_shared_by_every_inspection(tmp_path):
    """Each inspection lists every entry of its store; an entry kept is one object for all of them."""
    home = make_home(tmp_path)
    queue = curator(home).pending
    for n in range(3):
        stage(home, content=f"fact number {n}")
    first, second, third = queue.inspect_all()
    kept = [c for c in first.changes if c.kind == "kept"]
    assert len(kept) == len(MEMORY)
    assert all(a is b is c for a, b, c in zip(kept, second.changes, third.changes))
