"""Undo for skill approvals: what an approval changed under skills/, kept in hmc's journal.

Before a skill approval writes, `capture` reads the state of every path its plan touches (a file's
bytes and mode, a folder, a link's target, or absence) and the state the plan leaves (type and
SHA-256); the approval journals both as a prepared tree record (core.store.journal) and commits it
after the writes. `restore` puts the before-states back, and only when every path still holds what
the approval left (or what was there before, for a step that never ran): a path changed since is
named and nothing is written. A crash between prepared and commit is settled by `happened`, from
the tree as it is: a record counts only if its writes are there, so no phantom is ever undoable.

Every path is reached through folder descriptors opened one component at a time with O_NOFOLLOW:
a symbolic link anywhere below skills/ (planted after the approval or not) is refused, never
followed, and nothing is written outside the record's skill folder (plus the category folder an
approval created or emptied).

The bytes one record keeps are capped (core.store.journal.MAX_TREE_BYTES, 4 MiB: a 1 MiB supporting
file fits several times). An approval that replaces or deletes more is still applied, but its
record keeps only hashes and `restore` refuses it: "can't be undone".
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Iterable, Sequence

from core.pending.claims import alive
from core.pending.skill_records import folders_of
from core.store.atomic import NotRegularFile, open_regular
from core.store.journal import MAX_TREE_BYTES, History, PathChange, PathState, TreeRecord, tagged
from core.store.memory import StoreError

SUBSYSTEM = "skills"
SCOPE_SEP = "\x00"  # a batch's record holds every skill folder it touched, joined by this
ABSENT = PathState("absent")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)

# SkillUndoRefused.kind
NOTHING = "nothing"  # no skill approval to undo
CHANGED = "changed"  # a path changed since the approval: undoing would lose that change
NOT_KEPT = "not-kept"  # the approval replaced or deleted more than the journal keeps
ESCAPES = "escapes"  # a symbolic link on the way, or a record naming a path outside its skill
FAILED = "failed"  # the journal can't be written, or the OS refused a write


class SkillUndoRefused(Exception):
    """Undo of a skill approval refused; `kind` says why (NOTHING, CHANGED, NOT_KEPT, ESCAPES,
    FAILED) and the message names the file."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


class SymlinkFound(Exception):
    """A symbolic link below skills/ on the way to a path (`rel`: up to the link)."""

    def __init__(self, rel: str):
        super().__init__(rel)
        self.rel = rel


@dataclass(frozen=True)
class SkillUndo:
    """One undoable skill approval, as the journal holds it.

    record_id: the journal record's id; ts: when it was approved (Unix time); action: the skill
    action approved ("create", "edit", "patch", "delete", "write_file", "remove_file"); detail: one
    line (`create skills/cat/name (pending 0a1b2c3d)`); skill_dir: "skills/<category>/<name>";
    files: (path relative to the home, what undo does: "restore" | "remove" | "recreate"), the
    folders left out; undoable: False when the approval was too large to keep (undo will refuse).
    """

    record_id: int
    ts: float
    action: str
    detail: str
    skill_dir: str
    files: tuple[tuple[str, str], ...]
    undoable: bool


def describe(rec: TreeRecord) -> SkillUndo:
    files = []
    for c in rec.changes:
        if c.before.type == "dir" or c.after.type == "dir":
            continue
        what = "remove" if c.before.type == "absent" else "recreate" if c.after.type == "absent" else "restore"
        files.append((f"skills/{c.path}", what))
    return SkillUndo(rec.id, rec.ts, rec.action, rec.detail,
                     ", ".join(f"skills/{scope}" for scope in rec.scope.split(SCOPE_SEP)), tuple(files), rec.kept)


# ------------------------------------------------------------------------------------ reading the tree


def _open_dir(root: Path, parts: Sequence[str]) -> int:
    """A descriptor of root/parts…, each component opened without following links. Raises SymlinkFound
    (a component is a link), FileNotFoundError (missing, or a file where a folder should be)."""
    fd = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    for i, part in enumerate(parts):
        try:
            nxt = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
        except OSError as exc:
            try:
                st = os.stat(part, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                st = None
            finally:
                os.close(fd)
            if st is not None and stat.S_ISLNK(st.st_mode):
                raise SymlinkFound("/".join(parts[:i + 1])) from None
            if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                raise FileNotFoundError(errno.ENOENT, "not found", "/".join(parts[:i + 1])) from None
            raise
        os.close(fd)
        fd = nxt
    return fd


def _parent(root: Path, rel: str) -> tuple[int, str]:
    parts = PurePosixPath(rel).parts
    return _open_dir(root, parts[:-1]), parts[-1]


def state(root: Path, rel: str, budget: list[int] | None = None) -> PathState:
    """The state of root/rel, never following a link. A regular file's bytes are kept when
    `budget` (remaining bytes, decremented) allows. Raises SymlinkFound, OSError."""
    try:
        dfd, name = _parent(root, rel)
    except FileNotFoundError:
        return ABSENT
    try:
        try:
            st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
        except FileNotFoundError:
            return ABSENT
        mode = stat.S_IMODE(st.st_mode)
        if stat.S_ISLNK(st.st_mode):
            return PathState("link", target=os.readlink(name, dir_fd=dfd))
        if stat.S_ISDIR(st.st_mode):
            return PathState("dir", mode=mode)
        if not stat.S_ISREG(st.st_mode):
            return PathState("other", mode=mode)
        try:
            fd = open_regular(name, follow_symlinks=False, dir_fd=dfd)
        except NotRegularFile:  # swapped for a FIFO or a folder since the lstat
            return PathState("other", mode=mode)
        try:
            keep = budget is not None and os.fstat(fd).st_size <= budget[0]
            digest, chunks = hashlib.sha256(), []
            while chunk := os.read(fd, 1 << 20):
                digest.update(chunk)
                if keep:
                    chunks.append(chunk)
        finally:
            os.close(fd)
        if not keep:
            return PathState("file", mode=mode, sha256=digest.hexdigest())
        data = b"".join(chunks)
        if budget is not None:
            budget[0] -= len(data)
        return PathState.file(data, mode)
    finally:
        os.close(dfd)


def _walk(root: Path, rel: str) -> list[str]:
    """Every path below root/rel (folders before what they hold), links not followed."""
    out: list[str] = []
    try:
        top = _open_dir(root, PurePosixPath(rel).parts)
    except FileNotFoundError:
        return out
    try:
        for dirpath, dirnames, filenames, _fd in os.fwalk(".", dir_fd=top, follow_symlinks=False):
            base = PurePosixPath(rel) / PurePosixPath(dirpath)
            dirnames.sort()
            for name in sorted(dirnames + filenames):
                out.append((base / name).as_posix())
    finally:
        os.close(top)
    return out


def link_refusal(rel: str) -> SkillUndoRefused:
    return SkillUndoRefused(ESCAPES, f"skills/{rel} is a symbolic link; hmc never writes through links")


# ------------------------------------------------------------------------------------ capturing


def capture(skills: Path, steps: Iterable[tuple]) -> tuple[list[PathChange], bool]:
    """The paths a plan's steps change, each with its state now and the state the plan leaves;
    and whether the before-bytes were kept (within MAX_TREE_BYTES). Raises SymlinkFound, OSError."""
    budget = [MAX_TREE_BYTES]
    before: dict[str, PathState] = {}
    after: dict[str, PathState] = {}

    def now(rel: str) -> PathState:
        if rel not in before:
            before[rel] = state(skills, rel, budget)
        return after.get(rel, before[rel])

    for step in steps:
        op, rel = step[0], PurePosixPath(step[1])
        key = rel.as_posix()
        if op == "mkdir":
            for part in folders_of(rel):
                if now(part).type == "absent":
                    after[part] = PathState("dir")
        elif op == "write":
            now(key)
            after[key] = PathState("file", sha256=hashlib.sha256(step[2].encode("utf-8")).hexdigest())
        elif op == "unlink":
            now(key)
            after[key] = ABSENT
        elif op == "rmtree":
            for sub in [key] + _walk(skills, key):
                now(sub)
                after[sub] = ABSENT
        elif op == "rmdir_if_empty":
            if now(key).type == "dir":  # emptied by the steps before it: every entry there goes
                listed = {f"{key}/{n}" for n in _listdir(skills, key)}
                if all(p in after and after[p].type == "absent" for p in listed):
                    after[key] = ABSENT
    changes = [PathChange(rel, before[rel], after[rel]) for rel in before if rel in after]
    kept = all(c.before.type != "file" or c.before.b64 is not None for c in changes)
    if not kept:
        changes = [replace(c, before=replace(c.before, b64=None)) for c in changes]
    return changes, kept


def _listdir(root: Path, rel: str) -> list[str]:
    try:
        fd = _open_dir(root, PurePosixPath(rel).parts)
    except FileNotFoundError:
        return []
    try:
        return os.listdir(fd)
    finally:
        os.close(fd)


# ------------------------------------------------------------------------------------ settling


def happened(skills: Path, rec: TreeRecord) -> bool:
    """Whether a record in doubt (its writer died between prepared and commit) was written, from
    the tree now. An approval: no path holds anything but its before or after state, and one holds
    its after state (it ran, maybe partly: undo then restores what ran). An undo: every path holds
    its after state (a half-done undo leaves the approval undoable)."""
    try:
        now = [(c, state(skills, c.path)) for c in rec.changes]
    except (SymlinkFound, OSError):
        return False
    if rec.undoes is not None:
        return all(c.after.same(s) for c, s in now)
    if any(not c.before.same(s) and not c.after.same(s) for c, s in now):
        return False
    return any(c.after.same(s) and not c.before.same(s) for c, s in now)


def _untouched(skills: Path, rec: TreeRecord) -> bool:
    """Every path of a record still as it was before it (nothing of it was written)."""
    try:
        return all(c.before.same(state(skills, c.path)) for c in rec.changes)
    except (SymlinkFound, OSError):
        return False


def _complete(skills: Path, rec: TreeRecord) -> bool:
    try:
        return all(c.after.same(state(skills, c.path)) for c in rec.changes)
    except (SymlinkFound, OSError):
        return False


def settle(history: History, skills: Path) -> None:
    """Commit or abort the skill records left in doubt by a crash (call it under the approve lock),
    and remove the temp files the dead writer left beside the paths it was writing."""
    for rec in history.tree_in_doubt(SUBSYSTEM):
        if rec.root == str(skills) and happened(skills, rec):
            history.commit(rec.id)
            if rec.action == "batch" and rec.undoes is None and rec.kept and not _complete(skills, rec):
                try:  # a batch is all or nothing: its writer died half way, so put back what it wrote
                    with tagged(""):  # never taken for the approval of a claim (recovery asks by tag)
                        restore(history, skills, rec)
                except (SkillUndoRefused, OSError):
                    pass  # left as written, and undoable
        else:
            history.abort(rec.id)
        if rec.root == str(skills):
            clean_temps(skills, {str(PurePosixPath(c.path).parent) for c in rec.changes})


# A temp file hmc writes beside a skill file: `.<name>.hmc-tmp.<pid>.<8 hex>` (an approval) or
# `.<name>.hmc-undo.<pid>.<8 hex>` (an undo). Its writer holds the approve lock and journals the
# paths first, so a later run settling that journal record knows where a dead writer's temps are.
_TEMP_RE = re.compile(r"\..+\.hmc-(?:tmp|undo)\.(\d+)\.[0-9a-f]{8}", re.DOTALL)


def temp_name(name: str, kind: str = "tmp") -> str:
    return f".{name}.hmc-{kind}.{os.getpid()}.{os.urandom(4).hex()}"


def clean_temps(skills: Path, folders: Iterable[str]) -> list[str]:
    """Remove the temps of dead hmc writers in these folders (relative to skills/; regular files
    only, reached without following links). Returns their paths."""
    removed = []
    for folder in sorted(folders):
        parts = [p for p in PurePosixPath(folder).parts if p != "."]
        try:
            dfd = _open_dir(skills, parts)
        except (SymlinkFound, OSError):
            continue
        try:
            for name in os.listdir(dfd):
                m = _TEMP_RE.fullmatch(name)
                if m is None or _alive(int(m.group(1))):
                    continue
                st = _lstat(dfd, name)
                if st is None or not stat.S_ISREG(st.st_mode):
                    continue
                try:
                    os.unlink(name, dir_fd=dfd)
                except OSError:
                    continue
                removed.append(str(PurePosixPath(*parts, name)))
        finally:
            os.close(dfd)
    return removed


def _alive(pid: int) -> bool:
    return pid == os.getpid() or alive(pid)


# ------------------------------------------------------------------------------------ restoring


def _in_scope(c: PathChange, scopes: list[PurePosixPath]) -> bool:
    p = PurePosixPath(c.path)
    if p.is_absolute() or not p.parts or any(part in ("", ".", "..") for part in p.parts) or "\x00" in c.path:
        return False
    if any(p == scope or scope in p.parents for scope in scopes):
        return True
    # the category folder an approval created or emptied: folders only, above the skill
    return any(p in scope.parents for scope in scopes) and {c.before.type, c.after.type} <= {"dir", "absent"}


def restore(history: History, skills: Path, rec: TreeRecord) -> TreeRecord:
    """Put back what approval `rec` replaced or deleted and remove what it created; journaled as an
    undo record (prepared, then committed). Raises SkillUndoRefused; nothing is written then, except
    when the OS fails mid-way (the journal then holds what was restored). When every path already
    holds its before-state, nothing is written and the approval is marked undone (an empty undo)."""
    what = f"approval #{rec.id} ({rec.detail})"
    if not rec.kept:
        raise SkillUndoRefused(NOT_KEPT, f"{what} replaced or deleted more than hmc's journal keeps "
                                         f"({MAX_TREE_BYTES >> 20} MiB), so it can't be undone")
    scopes = [PurePosixPath(scope) for scope in rec.scope.split(SCOPE_SEP)]
    if rec.root != str(skills):
        raise SkillUndoRefused(ESCAPES, f"{what} was made in {rec.root}, not in this home's skills/")
    bad = next((c.path for c in rec.changes if not _in_scope(c, scopes)), None)
    if bad is not None or any(not s.parts or ".." in s.parts or s.is_absolute() for s in scopes):
        raise SkillUndoRefused(ESCAPES, f"{what} names a path outside skills/{rec.scope}/ "
                                        f"({bad or rec.scope!r}); refused")
    todo: list[tuple[PathChange, PathState]] = []
    for c in rec.changes:
        try:
            cur = state(skills, c.path)
        except SymlinkFound as exc:
            raise link_refusal(exc.rel) from None
        if c.before.same(cur):
            continue  # as it was before (that step never ran, or it changed nothing)
        if not c.after.same(cur):
            raise SkillUndoRefused(CHANGED, f"skills/{c.path} changed since hmc's {what}; undo refused so "
                                            "that change is not lost")
        if c.before.type == "other" or c.before.type == "link" and c.before.target is None:
            raise SkillUndoRefused(NOT_KEPT, f"skills/{c.path} was a special file (a FIFO, a socket…) that hmc "
                                             f"can't put back, so {what} can't be undone")
        todo.append((c, cur))
    removed = {c.path for c, _ in todo if c.before.type == "absent"}
    for c, cur in todo:  # a folder the approval created goes only if nothing else is in it now
        if c.before.type == "absent" and cur.type == "dir":
            for name in sorted(_listdir(skills, c.path)):
                if f"{c.path}/{name}" not in removed:
                    raise SkillUndoRefused(CHANGED, f"skills/{c.path}/{name} was added since hmc's {what}; undo "
                                                    "refused so it is not lost")
    try:
        payloads = {c.path: c.before.data for c, _ in todo if c.before.type == "file"}
    except ValueError as exc:
        raise SkillUndoRefused(FAILED, f"{what}: {exc}; undo refused") from None
    if any(data is None for data in payloads.values()):
        raise SkillUndoRefused(NOT_KEPT, f"{what}: hmc's journal doesn't hold the files it replaced")
    changes = [PathChange(c.path, replace(cur, b64=None), replace(c.before, b64=None)) for c, cur in todo]
    try:
        undo = history.prepare_tree(SUBSYSTEM, rec.root, rec.scope, "undo", f"undo #{rec.id} ({rec.detail})",
                                    changes, kept=False, undoes=rec.id)
    except StoreError as exc:
        raise SkillUndoRefused(FAILED, f"{exc}; undo not done") from None
    try:
        _apply(skills, [c for c, _ in todo], payloads)
    except BaseException as exc:
        (history.commit if happened(skills, undo) else history.abort)(undo.id)
        if isinstance(exc, SymlinkFound):
            raise link_refusal(exc.rel) from None
        if isinstance(exc, OSError):
            if _untouched(skills, undo):  # nothing was changed (a read-only home refuses the first write)
                raise SkillUndoRefused(FAILED, f"undo of {what} not done ({exc.strerror or exc}); nothing was "
                                               "changed") from None
            raise SkillUndoRefused(FAILED, f"undo of {what} stopped part-way ({exc.strerror or exc}); "
                                           "undo again to finish it") from None
        raise
    history.commit(undo.id)
    return undo


def _depth(c: PathChange) -> int:
    return len(PurePosixPath(c.path).parts)


def _apply(skills: Path, todo: list[PathChange], payloads: dict[str, bytes | None]) -> None:
    """Folders back (outermost first), files and links back, created files removed, created
    folders removed (innermost first). Every step through no-follow folder descriptors."""
    for c in sorted((c for c in todo if c.before.type == "dir"), key=_depth):
        _at(skills, c.path, lambda d, n, c=c: (os.mkdir(n, 0o700, dir_fd=d),
                                                os.chmod(n, c.before.mode or 0o755, dir_fd=d,
                                                         follow_symlinks=False)))
    for c in todo:
        if c.before.type == "file":
            _at(skills, c.path, lambda d, n, c=c: _write_at(d, n, payloads[c.path] or b"", c.before.mode))
        elif c.before.type == "link":
            _at(skills, c.path, lambda d, n, c=c: _link_at(d, n, c.before.target or ""))
    for c in todo:
        if c.before.type == "absent" and c.after.type != "dir":
            _at(skills, c.path, lambda d, n: os.unlink(n, dir_fd=d))
    for c in sorted((c for c in todo if c.before.type == "absent" and c.after.type == "dir"), key=_depth,
                    reverse=True):
        _at(skills, c.path, lambda d, n: os.rmdir(n, dir_fd=d))


def _at(root: Path, rel: str, do) -> None:
    dfd, name = _parent(root, rel)
    try:
        do(dfd, name)
        try:
            os.fsync(dfd)
        except OSError:
            pass
    finally:
        os.close(dfd)


def write_file(skills: Path, rel: str, data: bytes) -> None:
    """Replace (or create) skills/<rel> with `data` atomically, through no-follow folder descriptors:
    an existing file keeps its mode (a script keeps its exec bit), a new one is 0644. Its temp file
    is named so a later run can remove it if this process dies (`clean_temps`)."""
    _at(skills, rel, lambda d, n: _write_at(d, n, data, None, "tmp"))


def _write_at(dfd: int, name: str, data: bytes, mode: int | None, kind: str = "undo") -> None:
    """`mode` None: the file's own mode if it is a file now, else 0644."""
    if mode is None:
        cur = _lstat(dfd, name)
        mode = stat.S_IMODE(cur.st_mode) if cur is not None and stat.S_ISREG(cur.st_mode) else 0o644
    tmp = temp_name(name, kind)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600, dir_fd=dfd)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        cur = _lstat(dfd, name)
        if cur is not None and not stat.S_ISREG(cur.st_mode):  # a link or folder put there meanwhile
            raise FileExistsError(errno.EEXIST, "something other than a file is there now", name)
        os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=dfd)
        except OSError:
            pass
        raise


def _link_at(dfd: int, name: str, target: str) -> None:
    os.symlink(target, name, dir_fd=dfd)  # fails (nothing replaced) if anything is there now


def _lstat(dfd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        return None
