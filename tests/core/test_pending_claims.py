"""Claims left by an hmc that died mid-approval: recovered before list, show, approve and reject,
and settled by what the journal says happened — an applied record never comes back."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from core.pending import queue as P
from core.store.journal import tagged
from core.store.memory import Op
from tests.core.pending_support import curator, entries, make_home, pending_files, stage


@pytest.fixture
def home(tmp_path):
    return make_home(tmp_path)


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def claim_of(home, rid: str) -> str:
    """Claim a record as an hmc that has since died would have."""
    folder = home / "pending" / "memory"
    name = f".{rid}.json{P.CLAIM_MARK}{dead_pid()}-0badc0de"
    os.rename(folder / f"{rid}.json", folder / name)
    return name


@pytest.mark.parametrize("command", ["list", "get", "approve", "reject", "inspect"])
def test_every_command_puts_back_a_dead_hmcs_claim(home, command):
    rid = stage(home, content="Likes espresso")
    claim_of(home, rid)
    q = curator(home).pending
    getattr(q, command)(*(() if command == "list" else (rid,)))
    if command == "approve":
        assert entries(home)[-1] == "Likes espresso" and pending_files(home) == []
    elif command == "reject":
        assert pending_files(home) == []
    else:
        assert pending_files(home) == [f"{rid}.json"]


def test_a_claim_whose_write_was_committed_is_done_not_put_back(home):
    rid = stage(home, content="Likes espresso")
    name = claim_of(home, rid)
    cur = curator(home)
    with tagged(name):  # the dead hmc had written the store and committed its journal record
        cur.stores["memory"].apply([Op("add", content="Likes espresso")], action=f"approve {rid}")
    assert cur.pending.list() == [] and pending_files(home) == []
    assert entries(home).count("Likes espresso") == 1


@pytest.mark.parametrize("replaced", [True, False])
def test_a_claim_whose_write_is_in_doubt_is_settled_by_the_file(home, replaced):
    rid = stage(home, content="Likes espresso")
    name = claim_of(home, rid)
    cur = curator(home)
    store = cur.stores["memory"]
    before = store.path.read_text(encoding="utf-8")
    after = before + "\n§\nLikes espresso"
    with tagged(name):  # killed after its prepared line: before or after the replace
        cur.history._write_record("memory", store.path, before, after, f"approve {rid}", "", None, "prepared")
    if replaced:
        store.path.write_text(after, encoding="utf-8")
    records = cur.pending.list()
    assert cur.history.in_doubt() == []
    if replaced:
        assert records == [] and cur.history.records()[-1].after == after
    else:
        assert [r.id for r in records] == [rid] and cur.history.records() == []
        cur.pending.approve(rid)
    assert entries(home).count("Likes espresso") == 1


def test_an_interrupt_after_the_write_never_puts_the_record_back(home, monkeypatch):
    rid = stage(home, content="Likes espresso")
    q = curator(home).pending
    real = q._apply_claimed

    def interrupted(*args):
        real(*args)
        raise KeyboardInterrupt

    monkeypatch.setattr(q, "_apply_claimed", interrupted)
    with pytest.raises(KeyboardInterrupt):
        q.approve(rid)
    assert pending_files(home) == [] and entries(home).count("Likes espresso") == 1


def test_a_live_hmcs_fresh_claim_is_left_alone(home):
    rid = stage(home, content="Likes espresso")
    folder = home / "pending" / "memory"
    name = f".{rid}.json{P.CLAIM_MARK}{os.getpid()}-0badc0de"
    os.rename(folder / f"{rid}.json", folder / name)
    q = curator(home).pending
    assert q.list() == []
    with pytest.raises(P.PendingError, match="right now by this hmc"):
        q.approve(rid)
    assert os.listdir(folder) == [name]


def test_claims_module_takes_finds_stale_and_puts_back(tmp_path):
    from core.pending import claims

    folder = tmp_path / "q"
    folder.mkdir()
    (folder / "0000000a.json").write_text("{}")
    mine = claims.take(folder / "0000000a.json")
    assert not (folder / "0000000a.json").exists() and mine.name.startswith(".0000000a.json.claim-")
    assert claims.holder(folder, "0000000a.json") == "this hmc"
    assert list(claims.stale_claims(folder)) == []  # a live process, a fresh claim
    assert [c.original for c in claims.stale_claims(folder, max_age=-1)] == ["0000000a.json"]  # held too long
    gone = folder / f".0000000b.json{claims.CLAIM_MARK}{dead_pid()}-0badc0de"
    gone.write_text("{}")
    odd = folder / f".0000000c.json{claims.CLAIM_MARK}nopid-0badc0de"
    odd.write_text("{}")
    stale = {c.original: c.pid for c in claims.stale_claims(folder)}
    assert set(stale) == {"0000000b.json", "0000000c.json"} and stale["0000000c.json"] is None
    (folder / "0000000b.json").write_text("newer")
    assert not claims.put_back(gone, folder / "0000000b.json")  # never over a record there now
    assert claims.put_back(mine, folder / "0000000a.json") and (folder / "0000000a.json").read_text() == "{}"
    claims.remove(gone)
    claims.remove(gone)  # already gone: no error
    assert claims.holder(folder, "0000000b.json") is None
    assert not claims.alive(0) and not claims.alive(-1) and claims.alive(os.getpid())


def test_a_live_hmcs_claim_on_a_record_staged_long_ago_is_not_stale(home):
    """A claim is as old as its rename, not as the record: an approve-all holding the claim of a
    record staged an hour ago must not have it put back by another hmc's recovery meanwhile."""
    rid = stage(home, content="Likes espresso")
    folder = home / "pending" / "memory"
    os.utime(folder / f"{rid}.json", (os.path.getmtime(folder / f"{rid}.json") - 3600,) * 2)
    from core.pending import claims

    mine = claims.take(folder / f"{rid}.json")
    assert os.lstat(mine).st_mtime < os.lstat(mine).st_ctime - 3000  # the record's own time is kept
    assert list(claims.stale_claims(folder)) == []
    assert curator(home).pending.recover_claims() == [] and os.listdir(folder) == [mine.name]
