"""All-or-nothing file writes, the way Hermes writes its stores (HERMES-FORMATS.md §2.6), and
reads that never block.

A temp file in the same folder (`.mem_*.tmp` unless told otherwise) is written, flushed and
fsynced, renamed over the target with `os.replace`, and the folder is fsynced so the rename itself
survives a crash. A failed write leaves the target byte-for-byte as it was and no temp file behind;
a writer killed mid-write leaves its temp file, which `clean_orphans` removes under the lock.

`open_regular` / `read_regular` open only regular files, without blocking and (read_regular) up to
a size: a FIFO, socket or device where a file should be is named as such instead of hanging the
reader (opening a FIFO for reading blocks until a writer comes). Every file hmc reads, its own or
the home's, is opened through them.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
import time
from pathlib import Path
from typing import Iterable

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


def reason(exc: BaseException) -> str:
    """A short reason for an OS error, without the traceback noise."""
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 at byte {exc.start}"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return str(exc) or type(exc).__name__


WRITE_REFUSED = frozenset({errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EDQUOT})


def write_refused(exc: BaseException) -> bool:
    """The OS refused to write (a read-only file system, no permission, a full disk): the home
    can't be written at all, which no retry or other text fixes (exit 2, not a refusal's 1)."""
    return isinstance(exc, OSError) and exc.errno in WRITE_REFUSED


class NotRegularFile(OSError):
    """The path is a FIFO, socket, device or folder, not a regular file. `kind` names it."""

    def __init__(self, path: str | Path, kind: str):
        super().__init__(errno.EINVAL, f"a {kind}, not a regular file", str(path))
        self.kind = kind


class TooLarge(OSError):
    """The file is larger than the caller's limit; nothing of it was read. `size` is its size."""

    def __init__(self, path: str | Path, size: int, limit: int):
        super().__init__(errno.EFBIG, f"{size:,} bytes, over the {limit:,}-byte limit", str(path))
        self.size = size
        self.limit = limit


def kind_of(mode: int) -> str:
    """A person's word for a file type (from st_mode)."""
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISFIFO(mode):
        return "named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISLNK(mode):
        return "symbolic link"
    return "special file"


def open_regular(path: str | Path, *, follow_symlinks: bool = True, write: bool = False, create: bool = False,
                 mode: int = PRIVATE_FILE, dir_fd: int | None = None) -> int:
    """A descriptor of a regular file, or raise OSError; never blocks (the one way hmc opens a file).

    The file is opened with O_NONBLOCK (so a FIFO can't hang the open) and checked with fstat on the
    descriptor (so a swap between a check and the open can't fool it): anything but a regular file
    raises `NotRegularFile`, naming what is there. The descriptor is then put back in blocking mode
    (meaningless for a regular file; plain reads). `write` opens it read-write for appending,
    `create` creates it (with `mode`) when missing. Without `follow_symlinks`, a symbolic link
    raises OSError(ELOOP). `dir_fd`: `path` is relative to that open folder. The caller closes the
    descriptor.
    """
    flags = os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= (os.O_RDWR | os.O_APPEND) if write else os.O_RDONLY
    if create:
        flags |= os.O_CREAT
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, mode, dir_fd=dir_fd)
    except OSError as exc:
        # a socket can't be opened at all (ENXIO), some devices refuse: name what is there
        try:
            st = os.stat(path, dir_fd=dir_fd, follow_symlinks=follow_symlinks)
        except OSError:
            raise exc from None
        if not stat.S_ISREG(st.st_mode) and not stat.S_ISLNK(st.st_mode):
            raise NotRegularFile(path, kind_of(st.st_mode)) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(path, kind_of(st.st_mode))
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_fd(fd: int, max_bytes: int | None, path: str | Path = "", *, head: bool = False,
            size: int = 0) -> bytes:
    """Read from `fd`'s position to its end: at most `max_bytes` (more raises `TooLarge`, or with
    `head` the first `max_bytes` are returned). `size`, the bytes expected (fstat's), is read in
    one piece: a large file isn't read in chunks that are then copied into one."""
    chunks = []
    left = (max_bytes + (0 if head else 1)) if max_bytes is not None else None
    step = max(1 << 20, size + 1)
    while left is None or left > 0:
        chunk = os.read(fd, min(step, left) if left is not None else step)
        if not chunk:
            break
        chunks.append(chunk)
        if left is not None:
            left -= len(chunk)
    data = b"".join(chunks)
    if max_bytes is not None and len(data) > max_bytes:
        raise TooLarge(path, len(data), max_bytes)
    return data


def read_regular(path: str | Path, max_bytes: int | None = None, *, follow_symlinks: bool = True,
                 head: bool = False) -> bytes:
    """The bytes of a regular file, or raise OSError; never blocks.

    Opened by `open_regular` (anything but a regular file raises `NotRegularFile`). One larger
    than `max_bytes` raises `TooLarge` (nothing read) — or, with `head`, its first `max_bytes` are
    read. A file that grows while it is read is cut at `max_bytes` + 1 and reported as too large.
    Without `follow_symlinks`, a symbolic link raises OSError(ELOOP).
    """
    fd = open_regular(path, follow_symlinks=follow_symlinks)
    try:
        size = 0
        if not head and max_bytes is not None:
            size = os.fstat(fd).st_size
            if size > max_bytes:
                raise TooLarge(path, size, max_bytes)
        return read_fd(fd, max_bytes, path, head=head, size=size)
    finally:
        os.close(fd)


class LockBusy(OSError):
    """Another process held the lock for the whole timeout."""


def read_small(path: Path, max_bytes: int) -> bytes:
    """A small regular file's first `max_bytes` (a checkout's pyproject.toml, a command's first
    line): never a FIFO. The reader core.hermes.probe.find is given."""
    return read_regular(path, max_bytes, head=True)


def open_lock(path: str | Path, mode: int = PRIVATE_FILE) -> int:
    """Open (creating) a lock file without following a symbolic link; the caller closes it."""
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    return os.open(path, flags, mode)


def flock_within(fd: int, timeout: float, poll: float = 0.02) -> None:
    """Take an exclusive flock on `fd`, waiting up to `timeout` seconds (never forever: a wedged
    writer must not hang hmc). Raises LockBusy on time-out, OSError on any other failure."""
    import fcntl  # POSIX only, like Hermes's own lock

    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise
            if time.monotonic() >= deadline:
                raise LockBusy(exc.errno, "held by another process") from None
            time.sleep(poll)


def atomic_write(path: str | Path, data: bytes, mode: int | None = None, *,
                 prefix: str = ".mem_", suffix: str = ".tmp", durable: bool = True) -> None:
    """Replace `path` with `data`, or raise (OSError) and leave it untouched.

    `mode` is given to the new file (pass the old file's to keep it); without it the file keeps
    the private 0600 of its temp file. `durable=False` skips the fsyncs (still atomic: a reader
    sees the old file or the new one, but a crash of the system may lose the write): only for
    files that can be rebuilt, such as caches that check their own digest.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if durable:
        fsync_dir(path.parent)


def fsync_dir(folder: str | Path) -> None:
    """Make a rename or unlink in `folder` durable (best effort: some systems can't fsync a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass


def clean_orphans(folder: str | Path, prefix: str = ".mem_", suffix: str = ".tmp", *,
                  other_locks: Iterable[str | Path] = ()) -> list[str]:
    """Remove the temp files (`prefix*suffix`) that killed writers left in `folder`.

    Call it holding the writer lock of the file these temps are made for: no live writer of that
    file has a temp then. Temps of *other* files in the same folder (MEMORY.md and USER.md share
    `.mem_*.tmp` and one folder) may belong to a writer holding another lock: each of
    `other_locks` is taken for a moment without waiting, and if one is busy nothing is removed
    (the next write cleans). Regular files only; symbolic links and folders are left alone.
    Returns the names removed.
    """
    folder = Path(folder)
    try:
        names = [n for n in os.listdir(folder) if n.startswith(prefix) and n.endswith(suffix)]
    except OSError:
        return []
    if not names:
        return []
    import fcntl  # POSIX only, like the writers' flock

    held: list[int] = []
    try:
        for lock in other_locks:
            flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
            try:
                fd = os.open(lock, flags, PRIVATE_FILE)
            except OSError:
                return []
            held.append(fd)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return []  # another writer is at work: its temp may be among these
        removed = []
        for name in names:
            try:
                st = os.lstat(folder / name)
                if not stat.S_ISREG(st.st_mode):
                    continue
                os.unlink(folder / name)
                removed.append(name)
            except OSError:
                continue
        if removed:
            fsync_dir(folder)
        return removed
    finally:
        for fd in held:
            os.close(fd)


def private_dir(folder: str | Path, *, up_to: str | Path | None = None) -> Path:
    """Create `folder` (and its missing parents) as 0700, whatever the umask.

    With `up_to` (an ancestor of `folder`), every missing folder from `up_to` down to `folder` is
    created 0700 too — hmc's state tree is private all the way. A folder that already exists, or a
    symbolic link to one (a state folder kept in dotfiles), is used as it is: hmc never changes the
    mode of a folder it didn't create. Raises OSError when a folder can't be made.
    """
    folder = Path(folder)
    chain = [folder]
    if up_to is not None:
        top = Path(up_to)
        parent = folder
        while parent != top and parent.parent != parent:
            parent = parent.parent
            chain.append(parent)
        if parent != top:
            chain = [folder]
    for part in reversed(chain):
        created = _mkdir_private(part)
        if created:
            st = os.lstat(part)
            if stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) != PRIVATE_DIR:
                os.chmod(part, PRIVATE_DIR)  # the umask took bits off the folder hmc just made
        elif not stat.S_ISDIR(os.stat(part).st_mode):  # a link to a folder is followed
            raise NotADirectoryError(errno.ENOTDIR, "not a folder", str(part))
    return folder


def _mkdir_private(folder: Path) -> bool:
    """Make `folder` 0700 (umask permitting); False when something is already there. Missing folders
    above it are made as the user's umask says: they aren't hmc's."""
    try:
        os.mkdir(folder, PRIVATE_DIR)
    except FileExistsError:
        return False
    except FileNotFoundError:
        os.makedirs(folder.parent, exist_ok=True)
        try:
            os.mkdir(folder, PRIVATE_DIR)
        except FileExistsError:
            return False
    fsync_dir(folder.parent)  # the new folder itself survives a crash
    return True


def write_private(path: str | Path, data: bytes, *, prefix: str | None = None, durable: bool = True) -> None:
    """`atomic_write` for hmc's own state files: mode 0600 whatever the umask."""
    path = Path(path)
    atomic_write(path, data, PRIVATE_FILE, prefix=prefix or f".{path.name}.", suffix=".tmp", durable=durable)
