"""The skill write-approval queue: `pending/skills/<id>.json`, staged by Hermes ≥ 0.17.

With `skills.write_approval: true` Hermes stages every `skill_manage` write (create, edit, patch,
delete, write_file, remove_file) as one JSON record whose `payload` is the call's keywords; 0.22
stages an operations array as one `batch` record, approved all or nothing (core.pending.skill_plan
plans it op by op; a write failing half way is put back from the journal, and a batch whose
approver died is put back by the next run's `skill_undo.settle`). Plans read skills/ through one
in-memory view per reading (core.pending.skill_tree): `reading()` shares it, and config.yaml,
across a listing. This
module reads those records in isolation (a broken one never hides the others, a FIFO never
blocks), inspects one without writing (the files approving would create, change or delete under
`skills/<name>/`, with diffs; SKILL.md's frontmatter before and after; whether it can still apply
and why not), and approves by replaying the payload as the release's `apply_skill_pending` does
for a person's `/skills approve` (a foreground replay): same validation, same resulting bytes.

What hmc does differently, on purpose (each refuses; Hermes's `/skills approve` can still do it):
- a `patch` applies only when its text matches exactly (once, or every time with replace_all);
  Hermes would go on to its fuzzy matchers (whitespace, indentation, unicode…). A patch whose
  replacement holds a backslash-t/-r over a region with real tabs/CRs is refused too (Hermes
  rewrites those escapes).
- symbolic links anywhere below `skills/` on the way to what is written are refused (Hermes
  follows links that stay inside the skill folder).
- with `skills.guard_agent_created` on, or `skills.external_dirs` set, hmc approves nothing:
  Hermes's own skills guard (or the other folders) would decide, so Hermes must apply.
- a scan hit in the text a record adds (hmc's scanner: secrets, injections, `curl … | sh`,
  hidden characters) is refused unless forced; approve-all never forces.
- two skills of the same name below `skills/` are refused as ambiguous (Hermes takes whichever
  its directory walk meets first).

Every write stays inside `skills/<the skill>/` (plus creating its category folder for a create,
and removing an emptied category folder after a delete, as Hermes does). The record is claimed
by renaming it before anything is written, so two hmc processes never apply it twice, and it is
deleted only on success.

Every approval is journaled in hmc's private journal (core.store.journal, prepared before the
first write, committed after the last) with what it replaces or deletes, so `undo()` can put it
back (core.pending.skill_undo: only where the files still hold what the approval wrote).
For the TUI:
- `curator.pending_skills`, the curator's queue (`SkillQueue(home, history=curator.history)`: it
  shares the curator's journal reader);
- `undoable() -> SkillUndo | None`: the approval `u` would undo (record_id, ts, action, detail,
  skill_dir, files [(path, "restore"|"remove"|"recreate")], undoable False: too large to keep);
- `undo() -> SkillUndo`: undo it, or raise `SkillUndoRefused` (its `.kind`: "nothing", "changed",
  "not-kept", "escapes", "failed"; its message names the file), nothing written.
"""
from __future__ import annotations

import contextlib
import dataclasses
import errno
import os
import shutil
import stat
import threading
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Iterator, Sequence

from core.home import as_flag
from core.pending import claims, skill_undo
from core.pending.claims import CLAIM_MARK  # noqa: F401  (re-exported)
from core.pending.skill_plan import BATCH, Planner
from core.pending.skill_records import (
    BROKEN, ESCAPES, GUARDED, INVALID, MAX_RECORD_BYTES, SCANNER, SUBSYSTEM, TRUTHY, Plan, SkillApproveRefused,
    SkillInspection, SkillPendingError, SkillRecord, SkillUnwritable, _record_from, _Refuse, frontmatter, scan_hits,
)
from core.pending.skill_records import (  # noqa: F401  (re-exported: the reason kinds and limits)
    ACTIONS, AMBIGUOUS, EXISTS, MALFORMED, MAX_SKILL_CONTENT_CHARS, MAX_SKILL_FILE_BYTES, MAX_WALK, MISSING,
    NEEDS_HERMES, NO_MATCH, PINNED, TOO_LARGE, UNREADABLE, FileChange, Frontmatter,
)
from core.pending.skill_tree import TreeView
from core.pending.skill_undo import SkillUndo, SkillUndoRefused
from core.scan.scanner import scan
from core.store.atomic import flock_within, open_lock, read_regular, write_refused
from core.store.atomic import reason as _os_reason
from core.store.journal import History, tagged
from core.store.memory import StoreError


# ------------------------------------------------------------------------------------ the queue


def reason(exc: OSError) -> str:
    """Why a file can't be read, without its path (a claim's temporary name must never show)."""
    if exc.errno == errno.ELOOP:
        return "a symbolic link"
    return _os_reason(exc)


class SkillQueue:
    """pending/skills/ of one Hermes home, and the skills/ tree it applies to."""

    def __init__(self, home: str | Path, lock_dir: str | Path | None = None, *,
                 history: History | None = None, journal: bool = True):
        """`history`: hmc's journal of this home (default: one opened on `home`); `journal` False
        writes no journal (a scratch simulation): approvals then can't be undone."""
        self.home = Path(home)
        self.folder = self.home / "pending" / SUBSYSTEM
        self.skills = self.home / "skills"
        self._lock_dir = Path(lock_dir) if lock_dir is not None else None
        self._history = history
        self._journal = journal
        self._local = threading.local()  # inside reading(): the shared view and config

    @property
    def history(self) -> History | None:
        if self._journal and self._history is None:
            self._history = History(self.home)
        return self._history if self._journal else None

    @property
    def _root(self) -> Path:
        """skills/ as the journal names it (the home's real path: the same however it was reached)."""
        return Path(os.path.realpath(self.home)) / "skills"

    # -- reading ----------------------------------------------------------------------------

    def list(self) -> list[SkillRecord]:
        """Every `*.json` record, oldest first (broken ones too, last); nothing blocks."""
        try:
            names = sorted(os.listdir(self.folder))
        except FileNotFoundError:
            return []
        out = [self._read(self.folder / n) for n in names if n.endswith(".json") and not n.startswith(".")]
        return sorted(out, key=lambda r: (r.broken is not None, r.created_at, r.id))

    def _names(self) -> list[str]:
        from core.pending.staged import names

        try:
            return sorted(e.name for e in names(self.folder))
        except OSError:  # not a folder, or unreadable: nothing hmc can list (the records stay Hermes's)
            return []

    def token(self) -> tuple:
        """Changes when a record is staged, rewritten, claimed or removed (names, sizes, mtimes)."""
        out = []
        for name in self._names():
            try:
                st = os.lstat(self.folder / name)
            except OSError:
                continue
            out.append((name, st.st_size, st.st_mtime_ns))
        return tuple(out)

    def count(self) -> int:
        """How many records wait, broken ones too (cheap: a directory listing, no parsing)."""
        return len(self._names())

    def _read(self, path: Path) -> SkillRecord:
        rid = path.name[:-5]
        try:
            data = read_regular(path, MAX_RECORD_BYTES, follow_symlinks=False)
        except OSError as exc:
            return SkillRecord(rid, path, broken=f"can't be read: {reason(exc)}")
        return _record_from(data, path)

    def get(self, record_id: str) -> SkillRecord:
        rid = record_id[:-5] if record_id.endswith(".json") else record_id
        if "/" in rid or rid in ("", ".", "..") or "\x00" in rid:
            raise SkillPendingError(f"no pending skill write with id {record_id!r}")
        path = self.folder / f"{rid}.json"
        try:
            os.lstat(path)
        except FileNotFoundError:
            raise SkillPendingError(f"no pending skill write with id {record_id!r}") from None
        return self._read(path)

    # -- config -----------------------------------------------------------------------------

    def _skills_config(self) -> dict:
        shared = getattr(self._local, "config", None)
        return shared if shared is not None else self._read_config()

    def _read_config(self) -> dict:
        from core.home import skills_section

        return skills_section(self.home / "config.yaml")

    def guard_reason(self) -> str | None:
        """Why hmc must leave skill approvals to Hermes (None when it may approve)."""
        cfg = self._skills_config()
        guard = cfg.get("guard_agent_created")
        if isinstance(guard, bool) and guard or isinstance(guard, str) and guard.strip().lower() in TRUTHY \
                or not isinstance(guard, (bool, str)) and guard is not None and bool(guard):
            return ("skills.guard_agent_created is on: Hermes scans skills with its own guard when it "
                    "applies them, so approve skill writes in Hermes (/skills approve)")
        ext = cfg.get("external_dirs")
        if ext:
            return ("skills.external_dirs is set: Hermes also looks for skills there, so approve skill "
                    "writes in Hermes (/skills approve)")
        return None

    def write_approval(self) -> bool:
        from core.home import skills_write_approval

        return skills_write_approval(self._skills_config())

    # -- planning ---------------------------------------------------------------------------

    def view(self) -> TreeView:
        """skills/ as a plan reads it (inside `reading()`: one view shared by every inspection)."""
        shared = getattr(self._local, "view", None)
        return shared if shared is not None else TreeView(self.skills)

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Inspect many records against one reading of skills/ and config.yaml (a listing): the tree
        is walked and config.yaml parsed once. Nothing may be written meanwhile."""
        outer = getattr(self._local, "view", None)
        if outer is None:
            self._local.view = TreeView(self.skills)
            self._local.config = self._read_config()
        try:
            yield
        finally:
            if outer is None:
                self._local.view = self._local.config = None

    def find(self, name: str) -> PurePosixPath | None:
        """The folder (relative to skills/) of the skill named `name`, as Hermes's lookup finds it."""
        return self.view().find(name)

    def plan(self, payload: dict, view: TreeView | None = None) -> Plan:
        """What replaying `payload` does, or raise _Refuse with the kind and Hermes's reason."""
        return Planner(view if view is not None else self.view()).plan(payload)

    # -- inspecting -------------------------------------------------------------------------

    def inspect(self, record: SkillRecord, payload: dict | None = None, *,
                view: TreeView | None = None) -> SkillInspection:
        """What approving `record` (or `payload` in its place: an edit) would do. Writes nothing.
        `view`: the tree as earlier records left it (a simulation); it then records this one's plan."""
        if record.broken:
            return SkillInspection(record, False, BROKEN, f"{record.file}: {record.broken}")
        payload = payload if payload is not None else record.payload
        assert payload is not None
        ins = SkillInspection(record, False)
        view = view if view is not None else self.view()
        try:
            plan = Planner(view.fork() if payload.get("action") == BATCH else view).plan(payload)
        except _Refuse as exc:
            ins.kind, ins.reason = exc.kind, str(exc)
            self._describe_existing(ins, payload, view)
            return ins
        ins.plan, ins.changes, ins.skill_dir = plan, plan.changes, f"skills/{plan.skill_dir}"
        fm = lambda text: view.memo("frontmatter", text, frontmatter)  # noqa: E731
        skill_md = f"{plan.skill_dir}/SKILL.md"
        for ch in plan.changes:
            if ch.path == skill_md:
                ins.frontmatter_before, ins.frontmatter_after = fm(ch.before), fm(ch.after)
                break
        else:
            current = view.raw_text(PurePosixPath(skill_md))
            ins.frontmatter_before = fm(current)
            ins.frontmatter_after = None if payload.get("action") == "delete" else ins.frontmatter_before
        ins.findings = list(view.memo("scan", plan.added_text, lambda t: tuple(scan(t)))) if plan.added_text else []
        guard = self.guard_reason()
        hits = scan_hits(ins.findings)
        if guard:
            ins.kind, ins.reason = GUARDED, guard
        elif hits:
            ins.kind = SCANNER
            ins.reason = "hmc's scanner flags the text this write adds: " + "; ".join(
                sorted({f"{f.rule} ({f.severity})" for f in hits}))
        else:
            ins.can_apply = True
        return ins

    def _describe_existing(self, ins: SkillInspection, payload: dict, view: TreeView) -> None:
        name = payload.get("name")
        try:
            rel = view.find(name) if isinstance(name, str) else None
        except _Refuse:
            rel = None
        if rel is not None:
            ins.skill_dir = f"skills/{rel}"
            ins.frontmatter_before = frontmatter(view.raw_text(rel / "SKILL.md"))

    # -- approving --------------------------------------------------------------------------

    def _lock_path(self) -> Path:
        if self._lock_dir is not None:
            return self._lock_dir / "skills-approve.lock"
        from core.store.journal import claim_state_dir, private_state_folder
        return private_state_folder(claim_state_dir(self.home)) / "skills-approve.lock"

    @contextmanager
    def _locked(self) -> Iterator[None]:
        fd = open_lock(self._lock_path())
        try:
            flock_within(fd, 10.0)
            yield
        finally:
            os.close(fd)  # closing releases the flock

    @contextmanager
    def _claimed(self, record_id: str) -> Iterator[tuple[Path, Path]]:
        """Rename the record away so no other process can take it; put it back unless the block
        succeeds (then the claim is deleted: the record is gone)."""
        path = self.get(record_id).path
        gone = lambda: SkillPendingError(f"{record_id} was just taken by another approval or rejection")  # noqa: E731
        stack = contextlib.ExitStack()
        try:
            claim = stack.enter_context(claims.claimed(path, gone))
        except OSError as exc:
            error = SkillUnwritable if write_refused(exc) else SkillPendingError
            raise error(f"can't take pending skill write {record_id} ({_os_reason(exc)}); "
                        "nothing was done") from None
        with stack:
            yield claim, path

    def recover_claims(self, max_age: float = claims.STALE_CLAIM_SECONDS) -> list[str]:
        """Settle records claimed by an hmc process that is gone (or that held them too long): one
        whose approval hmc's journal shows was written is deleted (it was applied: never twice),
        any other is put back. Returns the file names put back. An approval or undo a dead hmc left
        in doubt is settled too (its temp files removed), when no other approver is at work."""
        back = [claim.original for claim in claims.recover(self.folder, self._applied, max_age=max_age)]
        history = self.history
        if history is not None and history.tree_in_doubt(SUBSYSTEM):
            fd = open_lock(self._lock_path())
            try:
                flock_within(fd, 0.0)  # busy: a live approver's record; the next run settles
                skill_undo.settle(history, self._root)
            except (OSError, StoreError):
                pass
            finally:
                os.close(fd)
        return back

    def _applied(self, claim_name: str) -> bool:
        """Whether the journal holds the approval made under this claim (settling a crash's first)."""
        history = self.history
        if history is None:
            return False
        if any(r.tag == claim_name for r in history.tree_in_doubt(SUBSYSTEM)):
            with self._locked():
                skill_undo.settle(history, self._root)
        records = history.tree_records(SUBSYSTEM)
        undone = {r.undoes for r in records if r.undoes is not None}  # a batch rolled back is not applied
        return any(r.tag == claim_name and r.undoes is None and r.id not in undone for r in records)

    def approve(self, record_id: str, *, force: bool = False, content: str | None = None) -> SkillInspection:
        """Apply one record as Hermes's `/skills approve` would, then delete it. `content` replaces
        the proposed SKILL.md (create/edit) or file content (write_file) or replacement (patch).
        Raises SkillApproveRefused (the record is kept) when it can't apply."""
        with self._locked(), self._claimed(record_id) as (claim, _path):
            try:
                data = read_regular(claim, MAX_RECORD_BYTES, follow_symlinks=False)
            except OSError as exc:  # named by its id and file, never by the claim's temporary name
                raise SkillApproveRefused(_path.name[:-5], BROKEN,
                                          f"{_path.name} can't be read: {reason(exc)}") from None
            record = _record_from(data, _path)
            if record.broken:
                raise SkillApproveRefused(record.id, BROKEN, f"{record.file}: {record.broken}")
            payload = record.payload
            if payload is not None and content is not None:
                key = {"create": "content", "edit": "content", "write_file": "file_content",
                       "patch": "new_string"}.get(record.action)
                if key is None:
                    raise SkillApproveRefused(record.id, INVALID, f"a {record.action} has no text to edit")
                payload = {**payload, key: content}
            ins = self.inspect(record, payload)
            if not ins.can_apply and not (force and ins.kind == SCANNER):
                raise SkillApproveRefused(record.id, ins.kind or INVALID, ins.reason or "can't apply")
            assert ins.plan is not None
            with tagged(claim.name):  # recovery after a crash tells from the journal that it was applied
                self._apply_journaled(record, ins)
            return ins

    def _apply_journaled(self, record: SkillRecord, ins: SkillInspection) -> None:
        """Execute the plan inside a prepared → commit journal record holding what it replaces or
        deletes (undo); a failure mid-way commits what ran (undoable) or aborts. Without a journal
        (a simulation) just execute. Refuses, writing nothing, when the journal can't take it."""
        plan, history = ins.plan, self.history
        assert plan is not None
        if history is None:
            self._execute(plan, record.id)
            return
        root = self._root
        try:
            skill_undo.settle(history, root)
            changes, kept = skill_undo.capture(root, plan.steps)
        except skill_undo.SymlinkFound as exc:
            raise SkillApproveRefused(record.id, ESCAPES, f"skills/{exc.rel} is a symbolic link; hmc never "
                                                          "writes through links") from None
        dirs = plan.skill_dirs or [plan.skill_dir]
        where = ", ".join(f"skills/{d}" for d in dirs)
        try:
            rec = history.prepare_tree(SUBSYSTEM, root, skill_undo.SCOPE_SEP.join(dirs), record.action,
                                       f"{record.action} {where} (pending {record.id})", changes, kept=kept)
        except StoreError as exc:
            raise SkillApproveRefused(record.id, "journal", str(exc)) from None
        try:
            self._execute(plan, record.id)
        except BaseException:
            if not skill_undo.happened(root, rec):
                history.abort(rec.id)
                raise
            history.commit(rec.id)
            if plan.ops and kept:  # a batch is all or nothing: put back what its first ops wrote
                try:
                    with tagged(""):
                        skill_undo.restore(history, root, rec)
                except (skill_undo.SkillUndoRefused, OSError):
                    pass  # left as written, and undoable: `hmc undo --subsystem skills`
            raise
        if any(not c.before.same(c.after) for c in changes):
            history.commit(rec.id)
            ins.journal_id = rec.id
            if not kept:
                ins.undo_note = (f"it replaced or deleted more than hmc's journal keeps "
                                 f"({skill_undo.MAX_TREE_BYTES >> 20} MiB), so it can't be undone")
        else:  # it changed nothing: nothing to undo
            history.abort(rec.id)
            ins.undo_note = "it changed nothing"

    # -- undo -------------------------------------------------------------------------------

    def undoable(self) -> SkillUndo | None:
        """The newest skill approval hmc made here and hasn't undone (None: nothing to undo).
        Cheap (reads hmc's journal, parsed incrementally); settles a crash's records in doubt first.
        `SkillUndo.undoable` False: it was too large to keep, and `undo()` will refuse it."""
        history = self.history
        if history is None:
            return None
        if history.tree_in_doubt(skill_undo.SUBSYSTEM):
            with self._locked():
                skill_undo.settle(history, self._root)
        rec = history.tree_undoable(skill_undo.SUBSYSTEM)
        return None if rec is None else skill_undo.describe(rec)

    def undo(self) -> SkillUndo:
        """Undo hmc's newest skill approval: put back the files it replaced or deleted (folders,
        modes and links included), remove the files and folders it created. Only if every file still
        holds what the approval wrote; never through a symbolic link; never outside skills/<skill>/
        (and the category folder the approval created or emptied). Journaled as an undo.

        Returns what was undone. Raises SkillUndoRefused (nothing written) with `kind`: "nothing"
        (no approval to undo), "changed" (a file changed since; the message names it), "not-kept"
        (too large to keep), "escapes" (a symbolic link on the way), "failed" (journal or OS error).
        """
        history = self.history
        if history is None:
            raise SkillUndoRefused(skill_undo.NOTHING, "no journal: nothing to undo")
        try:
            with self._locked():
                skill_undo.settle(history, self._root)
                rec = history.tree_undoable(skill_undo.SUBSYSTEM)
                if rec is None and history.problem:
                    raise SkillUndoRefused(skill_undo.FAILED, f"{history.problem}: nothing can be undone")
                if rec is None:
                    raise SkillUndoRefused(skill_undo.NOTHING, "hmc has approved no skill write here to undo")
                skill_undo.restore(history, self._root, rec)
                return skill_undo.describe(rec)
        except skill_undo.SymlinkFound as exc:  # a link swapped in while looking
            raise skill_undo.link_refusal(exc.rel) from None
        except OSError as exc:
            raise SkillUndoRefused(skill_undo.FAILED, f"undo failed: {exc.strerror or exc}") from None

    def _execute(self, plan: Plan, record_id: str = "") -> None:
        for step in plan.steps:
            op, rel = step[0], step[1]
            try:  # again, right before the write (a fresh view: nothing cached): a link swapped in is refused
                TreeView(self.skills).check_no_links(rel)
            except _Refuse as exc:
                raise SkillApproveRefused(record_id, exc.kind, str(exc)) from None
            full = self.skills / rel
            if op == "mkdir":
                full.mkdir(parents=True, exist_ok=True)
            elif op == "write":
                skill_undo.write_file(self.skills, rel.as_posix(), step[2].encode("utf-8"))
            elif op == "unlink":
                os.unlink(full)
            elif op == "rmtree":
                if os.path.islink(full):
                    raise SkillApproveRefused("", ESCAPES, f"skills/{rel} is a symbolic link")
                shutil.rmtree(full)
            elif op == "rmdir_if_empty":
                try:
                    if rel.parts and not any(os.scandir(full)):
                        os.rmdir(full)
                except OSError:
                    pass

    def reject(self, record_id: str) -> SkillRecord:
        with self._claimed(record_id) as (claim, path):
            st = os.lstat(claim)
            if stat.S_ISDIR(st.st_mode):
                raise SkillPendingError(f"{path.name} is a folder, not a record; hmc won't delete a folder")
            return dataclasses.replace(self._read(claim), id=path.name[:-5], path=path)

    def approve_all(self, ids: Sequence[str] | None = None) -> tuple[list[str], list[tuple[str, str, str]]]:
        """Approve every record oldest first (or those in `ids`), going on past failures, never
        forcing past a scanner hit. Returns (approved ids, [(id, kind, reason)])."""
        done, failed = [], []
        wanted = set(ids) if ids is not None else None
        for record in self.list():
            if wanted is not None and record.id not in wanted:
                continue
            if record.broken:
                failed.append((record.id, BROKEN, record.broken))
                continue
            try:
                self.approve(record.id)
                done.append(record.id)
            except SkillApproveRefused as exc:
                failed.append((record.id, exc.kind, str(exc)))
            except SkillPendingError as exc:
                failed.append((record.id, getattr(exc, "kind", "error"), str(exc)))
            except OSError as exc:
                failed.append((record.id, "unwritable" if write_refused(exc) else "error",
                               f"a write failed ({_os_reason(exc)})"))
        return done, failed

    def simulate_all(self) -> tuple[int, int]:
        """(would apply, would fail) for approve-all: the queue simulated in order, in memory, over
        only the files the records name (nothing is copied, nothing in the home is written)."""
        with self.reading():
            view = self.view()
            ok = bad = 0
            for r in self.list():
                ins = self.inspect(r, view=view)
                if ins.can_apply and ins.plan is not None:
                    view.apply(ins.plan.steps)
                    ok += 1
                else:
                    bad += 1
            return ok, bad
