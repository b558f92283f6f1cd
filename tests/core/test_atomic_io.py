"""core.store.atomic: reads that never block, orphan temp files, private folders; core.timefmt on
any value a file can hold."""

from __future__ import annotations

import fcntl
import math
import os
import socket
import stat
import threading

import pytest

from core import timefmt
from core.store.atomic import (
    NotRegularFile, TooLarge, atomic_write, clean_orphans, private_dir, read_regular, write_private,
)


def test_read_regular_reads_a_file(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"x" * 3000)
    assert read_regular(path) == b"x" * 3000
    assert read_regular(path, 3000) == b"x" * 3000
    with pytest.raises(TooLarge) as err:
        read_regular(path, 2999)
    assert err.value.size == 3000 and "over the 2,999-byte limit" in str(err.value)


def test_read_regular_never_blocks_on_a_fifo(tmp_path):
    fifo = tmp_path / "MEMORY.md"
    os.mkfifo(fifo)
    result: list[object] = []

    def read() -> None:
        try:
            read_regular(fifo, 100)
        except OSError as exc:
            result.append(exc)

    t = threading.Thread(target=read, daemon=True)
    t.start()
    t.join(5)
    assert not t.is_alive(), "reading a FIFO blocked"
    assert isinstance(result[0], NotRegularFile) and "named pipe (FIFO)" in str(result[0])


def test_read_regular_names_sockets_folders_and_devices(tmp_path):
    sock_path = tmp_path / "s"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(sock_path))
    try:
        with pytest.raises(OSError):  # a socket can't even be opened; never a hang
            read_regular(sock_path)
    finally:
        sock.close()
    with pytest.raises(NotRegularFile, match="folder"):
        read_regular(tmp_path)
    with pytest.raises(NotRegularFile, match="device"):
        read_regular("/dev/null")


def test_read_regular_can_refuse_symlinks(tmp_path):
    (tmp_path / "real").write_bytes(b"x")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert read_regular(tmp_path / "link") == b"x"
    with pytest.raises(OSError):
        read_regular(tmp_path / "link", follow_symlinks=False)


def test_clean_orphans_removes_only_temps_no_writer_holds(tmp_path):
    tmp_path = tmp_path / "memories"
    tmp_path.mkdir()
    (tmp_path / ".mem_abc.tmp").write_text("half")
    (tmp_path / ".mem_def.tmp").write_text("half")
    (tmp_path / "MEMORY.md").write_text("keep")
    (tmp_path / ".mem_dir.tmp").mkdir()
    other = tmp_path / "USER.md.lock"
    fd = os.open(other, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)  # a USER.md writer is at work: its temp may be one of these
    try:
        assert clean_orphans(tmp_path, other_locks=[other]) == []
        assert (tmp_path / ".mem_abc.tmp").exists()
    finally:
        os.close(fd)
    assert sorted(clean_orphans(tmp_path, other_locks=[other])) == [".mem_abc.tmp", ".mem_def.tmp"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".mem_dir.tmp", "MEMORY.md", "USER.md.lock"]


def test_private_dir_and_files_ignore_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        root = tmp_path / "state"
        root.mkdir(mode=0o755)
        os.chmod(root, 0o755)
        folder = private_dir(root / "homes" / "h-1", up_to=root)
        write_private(folder / "journal.jsonl", b"x")
        atomic_write(folder / "other", b"y")
    finally:
        os.umask(old)
    assert stat.S_IMODE(root.stat().st_mode) == 0o755  # there before: not hmc's to change
    for f in (root / "homes", folder):  # made by hmc: private
        assert stat.S_IMODE(f.stat().st_mode) == 0o700
    assert stat.S_IMODE((folder / "journal.jsonl").stat().st_mode) == 0o600
    assert stat.S_IMODE((folder / "other").stat().st_mode) == 0o600
    (tmp_path / "elsewhere").mkdir(mode=0o755)
    os.chmod(tmp_path / "elsewhere", 0o755)
    (root / "homes" / "link").symlink_to(tmp_path / "elsewhere")  # a state folder kept elsewhere
    private_dir(root / "homes" / "link" / "h-2", up_to=root)
    assert stat.S_IMODE((tmp_path / "elsewhere").stat().st_mode) == 0o755  # followed, its mode left alone
    assert stat.S_IMODE((tmp_path / "elsewhere" / "h-2").stat().st_mode) == 0o700
    old = os.umask(0o277)  # a umask that takes bits off the owner: a folder hmc makes is still 0700
    try:
        private_dir(root / "strict")
    finally:
        os.umask(old)
    assert stat.S_IMODE((root / "strict").stat().st_mode) == 0o700
    (root / "homes" / "file").write_text("")
    with pytest.raises(NotADirectoryError):
        private_dir(root / "homes" / "file")


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan, 1e400, -1e400, 10 ** 400, 1e300, -1e300,
                                   True, False, None, "2026-01-01", "1794744000", [], {}])
def test_timefmt_never_raises(value):
    assert timefmt.ago(value, 1_794_744_000.0) == timefmt.UNKNOWN
    assert timefmt.ago(1_794_744_000.0, value) == timefmt.UNKNOWN
    assert timefmt.local_time(value) == "?"
    assert timefmt.local_datetime(value) is None
    assert timefmt.valid(value) is None


def test_timefmt_keeps_real_times():
    now = 1_794_744_000.0
    assert timefmt.ago(now - 3 * 86_400, now) == "3 days ago"
    assert timefmt.ago(now + 7_200, now) == "in 2 hours"
    assert timefmt.ago(-5_000.0, now) == "56 years ago"
    assert timefmt.ago(0, now) == "56 years ago" and timefmt.valid(0) == 0.0
    assert timefmt.ago(timefmt.MAX_TS, now) == "in 7,978 years"
    assert timefmt.local_time(now, "%Y") == "2026"


def test_flock_within_waits_then_gives_up_with_lock_busy(tmp_path):
    import fcntl
    import time

    from core.store.atomic import LockBusy, flock_within, open_lock

    holder = open_lock(tmp_path / "x.lock")
    fcntl.flock(holder, fcntl.LOCK_EX)
    other = open_lock(tmp_path / "x.lock")
    try:
        t0 = time.monotonic()
        with pytest.raises(LockBusy):
            flock_within(other, 0.2)
        assert 0.15 <= time.monotonic() - t0 < 10  # gives up, not blocks (a loaded box may be late to wake)
        os.close(holder)
        holder = None
        flock_within(other, 0.2)  # free now: taken at once
    finally:
        os.close(other)
        if holder is not None:
            os.close(holder)
    assert os.stat(tmp_path / "x.lock").st_mode & 0o777 == 0o600


def test_atomic_write_not_durable_still_replaces_atomically(tmp_path, monkeypatch):
    (tmp_path / "own").mkdir()
    path = tmp_path / "own" / "cache"
    write_private(path, b"old")
    synced = []
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd))
    write_private(path, b"new", durable=False)
    assert path.read_bytes() == b"new" and synced == [] and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["cache"]  # no temp left
    real_replace = os.replace

    def failing(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing)
    with pytest.raises(OSError):
        write_private(path, b"newer", durable=False)
    monkeypatch.setattr(os, "replace", real_replace)
    assert path.read_bytes() == b"new" and [p.name for p in path.parent.iterdir()] == ["cache"]
    write_private(path, b"durable")
    assert synced  # the default is durable


def test_read_regular_reads_a_large_file_in_one_piece(tmp_path, monkeypatch):
    """A file of known size is read with one read (and one more that finds its end), not in
    1 MiB chunks copied into one."""
    path = tmp_path / "big"
    data = bytes(range(256)) * (3 << 12)  # 3 MiB, every byte value: no randomness needed
    path.write_bytes(data)
    real, sizes = os.read, []

    def counted(fd, n):
        sizes.append(n)
        return real(fd, n)

    monkeypatch.setattr(os, "read", counted)
    assert read_regular(path, 8 << 20) == data
    assert len(sizes) == 2
    with pytest.raises(TooLarge):
        read_regular(path, 1 << 20)
