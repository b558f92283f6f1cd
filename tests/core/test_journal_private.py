"""hmc's journal is private and true: a 0700/0600 state tree whatever the umask, no record of a
write that didn't happen, no duplicate ids between processes, any string round-trips."""

from __future__ import annotations

import errno
import json
import multiprocessing
import os
import stat

import pytest

import core.store.memory as memory_module
from core.curator import open_curator
from core.review.decisions import ReviewStore
from core.store.journal import History, parse_journal, state_dir, state_root, tagged
from core.store.memory import StoreError
from tests.core.pending_support import curator as pending_curator
from tests.core.pending_support import make_home, stage


@pytest.fixture
def curator(tmp_path):
    home = tmp_path / "home"
    (home / "memories").mkdir(parents=True)
    return open_curator(home)


def mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture
def loose_umask():
    old = os.umask(0o022)
    yield
    os.umask(old)


def state_files(root):
    for folder, dirs, files in os.walk(root):
        yield folder, True
        for name in files:
            yield os.path.join(folder, name), False


# -- private ---------------------------------------------------------------------------------------


def test_every_folder_and_file_hmc_writes_in_its_state_tree_is_private(tmp_path, loose_umask):
    home = make_home(tmp_path)
    cur = pending_curator(home)
    cur.stores["memory"].add("Likes espresso")
    cur.pending.reject(stage(home, content="to reject"))
    ReviewStore(state_dir(cur.home.root)).mark_reviewed(cur.today)
    root = state_root()
    seen = dict(state_files(root))
    assert any(p.endswith("journal.jsonl") for p in seen) and any(p.endswith("review.json") for p in seen)
    assert any("rejected" in p for p, is_dir in seen.items() if not is_dir)
    for path, is_dir in seen.items():
        assert mode(path) == (0o700 if is_dir else 0o600), path


def test_an_existing_open_state_tree_is_left_as_it_is(curator, loose_umask):
    """hmc never changes the mode of a folder it didn't create (issue 20); the files it writes there
    are still 0600."""
    folder = curator.history.folder
    folder.mkdir(parents=True, exist_ok=True)  # hmc made it when it opened the home
    for f in (state_root(), folder.parent, folder):
        os.chmod(f, 0o755)
    curator.history.path.write_text("")
    os.chmod(curator.history.path, 0o644)
    curator.stores["memory"].add("a")
    for f in (state_root(), folder.parent, folder):
        assert mode(f) == 0o755
    assert mode(curator.history.path) == 0o600 and mode(curator.history.lock_path) == 0o600


@pytest.mark.parametrize("which", ["state", "cache"])
def test_hmcs_own_folder_linked_elsewhere_keeps_its_targets_mode(tmp_path, loose_umask, monkeypatch, which):
    """~/.local/state/hmc or ~/.cache/hmc kept in dotfiles (a symlink): written through, the target's
    mode left alone; the folders hmc makes inside it are 0700."""
    from tests.core.test_timeline import add, make_home as timeline_home, write_files
    from core.timeline import build_timeline
    from core.timeline.cache import cache_root

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    home, db = timeline_home(tmp_path)
    db.session("s1", "cli")
    db.call("s1", add("Deploys on Fridays"))
    write_files(home, ["Deploys on Fridays"], [])
    own = state_root() if which == "state" else cache_root().parent
    target = tmp_path / "dotfiles" / which
    target.mkdir(parents=True)
    os.chmod(target, 0o755)
    own.parent.mkdir(parents=True, exist_ok=True)
    own.symlink_to(target)
    cur = open_curator(home)
    cur.stores["memory"].add("Uses fish")
    build_timeline(cur)  # writes the timeline cache
    assert mode(target) == 0o755 and own.is_symlink()
    made = [p for p in target.rglob("*") if p.is_dir()]
    assert made and all(mode(p) == 0o700 for p in made), [(p, oct(mode(p))) for p in made]
    files = [p for p in target.rglob("*") if p.is_file() and not p.name.endswith(".lock")]
    assert files and all(mode(p) == 0o600 for p in files)


def test_undo_reject_gives_the_record_its_own_mode_back(tmp_path, loose_umask):
    home = make_home(tmp_path)
    rid = stage(home, content="x")
    path = home / "pending" / "memory" / f"{rid}.json"
    os.chmod(path, 0o640)
    q = pending_curator(home).pending
    q.reject(rid)
    (copy,) = q.rejected()
    assert mode(copy) == 0o600 and mode(copy.parent) == 0o700
    assert q.undo_reject() == rid and mode(path) == 0o640


# -- true: no phantom records ------------------------------------------------------------------------


def test_a_failed_replace_leaves_no_journal_record(curator, monkeypatch):
    store = curator.stores["memory"]
    store.add("first")
    before = store.path.read_bytes()

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(memory_module, "atomic_write", full)
    with pytest.raises(StoreError, match="no space left"):
        store.add("second")
    monkeypatch.undo()
    assert store.path.read_bytes() == before
    assert [r.after for r in curator.history.records()] == ["first"]
    assert curator.history.in_doubt() == []
    curator.history.undo(curator.stores)  # undo finds the real last write, not a phantom
    assert store.path.read_text() == ""


def test_a_journal_that_cant_be_written_refuses_the_write(curator):
    store = curator.stores["memory"]
    curator.history.folder.mkdir(parents=True)
    curator.history.path.mkdir()  # the journal can't be opened as a file
    with pytest.raises(StoreError, match="journal"):
        store.add("x")
    assert not store.path.exists() or store.path.read_text() == ""


def test_a_write_killed_before_the_commit_is_resolved_by_the_next_write(curator):
    store, history = curator.stores["memory"], curator.history
    store.add("a")
    # a writer killed after its prepared line (and, here, after the replace) but before its commit
    history._write_record("memory", store.path, "a", "a\n§\nb", "add", "Entry added.", None, "prepared")
    store.path.write_text("a\n§\nb")
    # and one killed before its replace
    history._write_record("memory", store.path, "a\n§\nb", "a\n§\nb\n§\nnever", "add", "", None, "prepared")
    assert [r.after for r in history.in_doubt()] == ["a\n§\nb", "a\n§\nb\n§\nnever"]
    assert [r.after for r in history.records()] == ["a"]
    store.add("c")
    assert history.in_doubt() == []
    assert [r.after for r in history.records()] == ["a", "a\n§\nb", "a\n§\nb\n§\nc"]
    assert len({r.id for r in history.records()}) == 3


def test_surrogates_and_any_string_round_trip_in_ascii_lines(curator):
    history = curator.history
    odd = "lone \ud800 \udfff, bidi \u202e, nul \x00, ESC \x1b]52;c;x\x07, emoji 😀"
    rec = history.record("memory", curator.stores["memory"].path, odd, odd + "!", odd, odd)
    data = history.path.read_bytes()
    data.decode("ascii")
    assert history.records() == [rec] and history.records()[0].before == odd


def test_a_text_no_utf8_file_can_hold_is_refused_before_any_journal_line(curator):
    with pytest.raises(StoreError, match="lone surrogate"):
        curator.stores["memory"].add("bad \ud800")
    assert not curator.history.path.exists()
    assert not curator.stores["memory"].path.exists() or curator.stores["memory"].path.read_text() == ""


def test_a_torn_line_is_skipped_and_the_next_record_starts_on_its_own_line(curator):
    curator.stores["memory"].add("a")
    with open(curator.history.path, "ab") as fh:
        fh.write(b'{"id": 2, "ts": 1')
    curator.stores["memory"].add("b")
    assert [r.id for r in curator.history.records()] == [1, 2]
    assert b"\n\n" not in curator.history.path.read_bytes()


def test_another_writer_is_seen_by_a_long_lived_reader(curator):
    reader = History(curator.home.root)
    curator.stores["memory"].add("a")
    assert [r.after for r in reader.records()] == ["a"]
    curator.stores["user"].add("b")
    assert [r.after for r in reader.records()] == ["a", "b"]


def test_tagged_writes_tell_their_outcome(curator):
    with tagged("claim-1"):
        curator.stores["memory"].add("a")
    state, rec = curator.history.outcome("claim-1")
    assert state == "committed" and rec.after == "a"
    assert curator.history.outcome("claim-2") == ("none", None)


def test_old_journal_lines_are_committed_records():
    old = {"id": 7, "ts": 1.0, "target": "memory", "path": "/x", "action": "add", "detail": "", "before": "",
           "after": "a", "undoes": None}
    journal = parse_journal((json.dumps(old) + "\n").encode() + b'{"id": 8, "state": "prepared"}\n')
    assert [r.id for r in journal.records] == [7] and journal.last_id == 7


# -- no duplicate ids between processes --------------------------------------------------------------


def _writer(home, target, n):
    cur = open_curator(home)
    for i in range(n):
        cur.stores[target].add(f"{target} note {i}")


def test_two_processes_writing_both_files_get_distinct_ids(tmp_path):
    home = make_home(tmp_path, config="memory:\n  memory_char_limit: 100000\n  user_char_limit: 100000\n")
    n = 40
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(home, t, n)) for t in ("memory", "user")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    history = open_curator(home).history
    records = history.records()
    assert len(records) == 2 * n and history.in_doubt() == []
    assert sorted(r.id for r in records) == list(range(1, 2 * n + 1))
    lines = history.path.read_bytes().split(b"\n")
    assert lines[-1] == b"" and all(line.strip() for line in lines[:-1])
    for line in lines[:-1]:
        json.loads(line)
    for target in ("memory", "user"):
        mine = [r for r in records if r.target == target]
        assert [r.after.rsplit("\n§\n", 1)[-1] for r in mine] == [f"{target} note {i}" for i in range(n)]
    # undo takes back exactly the newest write, of either file
    newest = records[-1]
    assert history.undo(open_curator(home).stores).id == newest.id
