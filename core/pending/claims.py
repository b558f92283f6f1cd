"""Claiming a pending record (memory or skills): exactly one process applies or rejects it.

A record is claimed by renaming it to a hidden name in its folder, `.<file>.claim-<pid>-<random>`:
a rename succeeds for exactly one process. The holder deletes the claim when done, or renames it
back. A claim left by a process that is gone (or held longer than any approval takes) is found by
`stale_claims`; each queue decides what to do with it (the memory queue asks its journal first).

Both queues (core/pending/queue.py, core/pending/skills.py) hold a record through `claimed` and
settle what a dead process left through `recover`; only what "applied" means is theirs.
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from core.store.atomic import fsync_dir

CLAIM_MARK = ".claim-"
STALE_CLAIM_SECONDS = 600.0


@dataclass(frozen=True)
class Claim:
    name: str  # the claim's file name
    original: str  # the record's file name
    pid: int | None  # the claiming process (None: not a number)


def take(path: Path, token: str | None = None, *, sync: bool = True) -> Path:
    """Claim the record at `path` (made durable: recovery finds it after a crash, never a lost
    record). `token` names the claim (default: a random one; claims taken together share theirs);
    without `sync` the caller makes the folder durable (`fsync_dir`) once for many claims.
    Raises FileNotFoundError (someone else has it, or it's gone), OSError."""
    claim = path.with_name(f".{path.name}{CLAIM_MARK}{os.getpid()}-{token or os.urandom(4).hex()}")
    os.rename(path, claim)
    if sync:
        fsync_dir(path.parent)
    return claim


def remove(claim: Path, *, sync: bool = True) -> None:
    """Delete a claim (the record was applied or rejected), or any file, durably (or, without
    `sync`, once the caller fsyncs the folder)."""
    try:
        os.unlink(claim)
    except FileNotFoundError:
        pass
    if sync:
        fsync_dir(claim.parent)


def put_back(claim: Path, path: Path) -> bool:
    """Rename a claim back to its record's name unless something is there now; False if not done."""
    if os.path.lexists(path):
        return False
    try:
        os.rename(claim, path)
    except OSError:  # the folder vanished, or another recovery was first
        return False
    fsync_dir(path.parent)
    return True


def token_of(name: str) -> str:
    """What follows the pid in a claim's name (its token)."""
    return name.partition(CLAIM_MARK)[2].partition("-")[2]


@contextmanager
def claimed(path: Path, gone: Callable[[], Exception], *, refused: Callable[[OSError], Exception] | None = None,
            applied: Callable[[str], bool] | None = None) -> Iterator[Path]:
    """Hold the record at `path` for the block, as its claim: deleted when the block succeeds, renamed
    back when it fails — unless `applied(claim name)` says the write it was making happened after all
    (then deleted: never applied twice). The error `gone()` makes is raised when the record is already
    taken or removed; `refused(exc)`'s when the OS refuses the claim (without it, the OSError)."""
    try:
        claim = take(path)
    except FileNotFoundError:
        raise gone() from None
    except OSError as exc:
        if refused is None:
            raise
        raise refused(exc) from None
    try:
        yield claim
    except BaseException:
        if applied is not None and applied(claim.name):
            remove(claim)
        else:
            try:
                os.rename(claim, path)
            except OSError:  # pragma: no cover - the folder vanished; recovery retries
                pass
            else:
                fsync_dir(path.parent)
        raise
    remove(claim)


def recover(folder: Path, applied: Callable[[str], bool | None], *, max_age: float = STALE_CLAIM_SECONDS,
            mine: Callable[[Claim], bool] = lambda claim: True) -> list[Claim]:
    """Settle the claims in `folder` whose process is gone (see `stale_claims`) and that are `mine`:
    a claim whose write happened (`applied(claim name)` True) is deleted, one whose write didn't
    (False) is put back under its record's name; None (can't tell now) leaves it for the next time.
    Returns the claims put back."""
    back = []
    for claim in stale_claims(folder, max_age):
        if not mine(claim):
            continue
        outcome = applied(claim.name)
        if outcome:
            remove(folder / claim.name)
        elif outcome is not None and put_back(folder / claim.name, folder / claim.original):
            back.append(claim)
    return back


def parse(name: str) -> Claim | None:
    if not (name.startswith(".") and CLAIM_MARK in name):
        return None
    original, _, rest = name[1:].partition(CLAIM_MARK)
    pid = rest.split("-", 1)[0]
    return Claim(name, original, int(pid) if pid.isdigit() else None)


def stale_claims(folder: Path, max_age: float = STALE_CLAIM_SECONDS) -> Iterator[Claim]:
    """The claims in `folder` whose process is gone, or held longer than `max_age` seconds."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    now = time.time()
    for name in names:
        claim = parse(name)
        if claim is None:
            continue
        try:
            st = os.lstat(folder / name)
        except OSError:
            continue
        # held since the rename, which sets the change time (a record's mtime is when it was staged)
        age = now - max(st.st_mtime, st.st_ctime)
        if claim.pid is not None and alive(claim.pid) and age < max_age:
            continue
        yield claim


def holder(folder: Path, record_file: str) -> str | None:
    """Who holds a claim on `record_file` now: "this hmc", "another hmc (pid N)", or None."""
    try:
        names = os.listdir(folder)
    except OSError:
        return None
    prefix = f".{record_file}{CLAIM_MARK}"
    for name in names:
        if name.startswith(prefix):
            pid = name[len(prefix):].split("-", 1)[0]
            return "this hmc" if pid == str(os.getpid()) else f"another hmc (pid {pid})"
    return None


def alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True
