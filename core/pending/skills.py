"""The skill write-approval queue: `pending/skills/<id>.json`, staged by Hermes ≥ 0.17.

With `skills.write_approval: true` Hermes stages every `skill_manage` write (create, edit, patch,
delete, write_file, remove_file) as one JSON record whose `payload` is the call's keywords. This
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

import dataclasses
import errno
import json
import os
import shutil
import stat
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Iterator, Sequence

from core.home import as_flag, load_yaml
from core.pending import claims, skill_undo
from core.pending.claims import CLAIM_MARK  # noqa: F401  (re-exported)
from core.pending.skill_records import (
    ACTIONS, ALLOWED_SUBDIRS, AMBIGUOUS, BROKEN, ESCAPES, EXCLUDED_DIRS, EXISTS, GUARDED, INVALID, MALFORMED,
    MAX_RECORD_BYTES, MAX_SKILL_FILE_BYTES, MAX_WALK, MISSING, NEEDS_HERMES, NO_MATCH, PINNED, SCANNER, SUBSYSTEM,
    TOO_LARGE, TRUTHY, UNREADABLE, FileChange, Plan, SkillApproveRefused, SkillInspection, SkillPendingError,
    SkillRecord, _category_error, _encodable, _file_path_error, _name_error, _opt_str, _record_from, _Refuse,
    _size_error, frontmatter, frontmatter_error, scan_hits,
)
from core.pending.skill_records import Frontmatter, MAX_SKILL_CONTENT_CHARS  # noqa: F401  (re-exported)
from core.pending.skill_undo import SkillUndo, SkillUndoRefused
from core.scan.scanner import scan
from core.store.atomic import atomic_write, flock_within, open_lock, read_regular
from core.store.journal import History, tagged
from core.store.memory import StoreError


# ------------------------------------------------------------------------------------ the queue


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
        try:
            names = sorted(os.listdir(self.folder))
        except OSError:
            return []
        return [n for n in names if n.endswith(".json") and not n.startswith(".")]

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
            why = "a symbolic link" if exc.errno == errno.ELOOP else (exc.strerror or str(exc))
            return SkillRecord(rid, path, broken=f"can't be read: {why}")
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
        try:
            data = load_yaml(read_regular(self.home / "config.yaml", 1 << 20).decode("utf-8", "replace"))
        except (OSError, ValueError, RecursionError):
            return {}
        section = data.get("skills") if isinstance(data, dict) else None
        return section if isinstance(section, dict) else {}

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
        return bool(as_flag(self._skills_config().get("write_approval", False)))

    # -- finding skills ---------------------------------------------------------------------

    def _check_no_links(self, rel: PurePosixPath) -> None:
        """Every existing component of skills/<rel> is a real folder/file, not a link."""
        cur = self.skills
        for part in rel.parts:
            cur = cur / part
            try:
                st = os.lstat(cur)
            except FileNotFoundError:
                return
            except OSError as exc:
                raise _Refuse(UNREADABLE, f"skills/{rel}: {exc.strerror or exc}") from None
            if stat.S_ISLNK(st.st_mode):
                raise _Refuse(ESCAPES, f"skills/{PurePosixPath(*cur.relative_to(self.skills).parts)} is a "
                                       "symbolic link; hmc never writes through links")

    def find(self, name: str) -> PurePosixPath | None:
        """The folder (relative to skills/) of the skill named `name`, as Hermes's lookup finds it:
        any SKILL.md below skills/ whose folder has that name, outside excluded and support folders."""
        if not name:
            return None
        root = self.skills
        try:
            if not stat.S_ISDIR(os.stat(root).st_mode):
                return None
        except OSError:
            return None
        found: list[PurePosixPath] = []
        seen = 0
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            seen += len(dirnames) + len(filenames)
            if seen > MAX_WALK:
                raise _Refuse(TOO_LARGE, f"skills/ holds more than {MAX_WALK:,} entries; hmc stops looking")
            rel = PurePosixPath(Path(dirpath).relative_to(root).as_posix())
            dirnames.sort()
            if "SKILL.md" in filenames and rel.parts and rel.name == name and not self._excluded(rel):
                found.append(rel)
            # a symlinked folder is not walked (Hermes's rglob doesn't descend links either)
        if len(found) > 1:
            raise _Refuse(AMBIGUOUS, f"more than one skill is named {name!r} ({', '.join(map(str, found))})")
        return found[0] if found else None

    def _excluded(self, rel: PurePosixPath) -> bool:
        parts = rel.parts
        if any(p in EXCLUDED_DIRS for p in parts):
            return True
        # a SKILL.md under references/ etc. directly inside another skill is support data
        for idx, part in enumerate(parts):
            if part in ALLOWED_SUBDIRS and idx > 0 and (self.skills.joinpath(*parts[:idx]) / "SKILL.md").exists():
                return True
        return False

    def _read_text(self, rel: PurePosixPath) -> str | None:
        """A file's text as Hermes reads it (UTF-8, universal newlines), None when absent."""
        self._check_no_links(rel)
        path = self.skills / rel
        try:
            data = read_regular(path, 8 << 20, follow_symlinks=False)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise _Refuse(UNREADABLE, f"skills/{rel} can't be read: {exc.strerror or exc}") from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise _Refuse(UNREADABLE, f"skills/{rel} is not UTF-8 text; Hermes can't read it either") from None
        return text.replace("\r\n", "\n").replace("\r", "\n")

    def _raw_text(self, rel: PurePosixPath) -> str | None:
        """A file's exact text for a diff (as it is on disk)."""
        try:
            data = read_regular(self.skills / rel, 8 << 20, follow_symlinks=False)
        except OSError:
            return None
        return data.decode("utf-8", "replace")

    # -- planning ---------------------------------------------------------------------------

    def plan(self, payload: dict) -> Plan:
        """What replaying `payload` does, or raise _Refuse with the kind and Hermes's reason."""
        action = payload.get("action", "")
        name = payload.get("name", "")
        if not isinstance(action, str) or action not in ACTIONS:
            raise _Refuse(MALFORMED, f"Unknown action {action!r}. Use: {', '.join(ACTIONS)}")
        if not isinstance(name, str):
            raise _Refuse(MALFORMED, "payload field 'name' is not text")
        for key in ("content", "category", "file_path", "file_content", "old_string", "new_string",
                    "absorbed_into"):
            if key != "category":
                _opt_str(payload, key)
        return getattr(self, f"_plan_{action}")(payload, name)

    def _need_skill(self, name: str) -> PurePosixPath:
        rel = self.find(name)
        if rel is None:
            raise _Refuse(MISSING, f"Skill {name!r} not found.")
        self._check_no_links(rel)
        return rel

    def _write_step(self, plan: Plan, rel: PurePosixPath, new: str) -> None:
        _encodable(new, str(rel))
        self._check_no_links(rel)
        before = self._raw_text(rel)
        exists = os.path.lexists(self.skills / rel)
        plan.steps.append(("write", rel, new))
        plan.changes.append(FileChange(rel.as_posix(), "change" if exists else "create", before, new))

    def _plan_create(self, p: dict, name: str) -> Plan:
        content = p.get("content")
        if not content:
            raise _Refuse(INVALID, "content is required for 'create'.")
        for err in (_name_error(name), _category_error(p.get("category"))):
            if err:
                raise _Refuse(INVALID, err)
        err = frontmatter_error(content)
        if err:
            raise _Refuse(INVALID, err)
        err = _size_error(content, "SKILL.md")
        if err:
            raise _Refuse(TOO_LARGE, err)
        existing = self.find(name)
        if existing is not None:
            raise _Refuse(EXISTS, f"A skill named {name!r} already exists at skills/{existing}.")
        category = p.get("category")
        rel = PurePosixPath(category, name) if category else PurePosixPath(name)
        plan = Plan(skill_dir=rel.as_posix(), added_text=content)
        self._check_no_links(rel)
        plan.steps.append(("mkdir", rel))
        self._write_step(plan, rel / "SKILL.md", content)
        return plan

    def _plan_edit(self, p: dict, name: str) -> Plan:
        content = p.get("content")
        if not content:
            raise _Refuse(INVALID, "content is required for 'edit'.")
        err = frontmatter_error(content)
        if err:
            raise _Refuse(INVALID, err)
        err = _size_error(content, "SKILL.md")
        if err:
            raise _Refuse(TOO_LARGE, err)
        rel = self._need_skill(name)
        plan = Plan(skill_dir=rel.as_posix(), added_text=content)
        self._write_step(plan, rel / "SKILL.md", content)
        return plan

    def _plan_patch(self, p: dict, name: str) -> Plan:
        old, new, file_path = p.get("old_string"), p.get("new_string"), p.get("file_path")
        if not old:
            raise _Refuse(INVALID, "old_string is required for 'patch'.")
        if new is None:
            raise _Refuse(INVALID, "new_string is required for 'patch'.")
        rel = self._need_skill(name)
        if file_path:
            bad = _file_path_error(file_path)
            if bad:
                raise _Refuse(*bad)
            target = rel / PurePosixPath(file_path)
        else:
            target = rel / "SKILL.md"
        content = self._read_text(target)
        if content is None:
            raise _Refuse(MISSING, f"File not found: {target.relative_to(rel)}")
        if old == new:
            raise _Refuse(INVALID, "old_string and new_string are identical")
        spans, start = [], 0
        while (pos := content.find(old, start)) != -1:
            spans.append((pos, pos + len(old)))
            start = pos + len(old)
        if not spans:
            raise _Refuse(NO_MATCH, "the patch text is not in the file (exactly); Hermes's fuzzy matcher may "
                                    "still find it: approve it in Hermes (/skills approve) if you want that")
        if len(spans) > 1 and not p.get("replace_all", False):
            raise _Refuse(AMBIGUOUS, f"Found {len(spans)} matches for old_string. Provide more context to make "
                                     "it unique, or use replace_all=True.")
        region = "".join(content[s:e] for s, e in spans)
        if ("\\t" in new and "\t" in region) or ("\\r" in new and "\r" in region):
            raise _Refuse(NEEDS_HERMES, "the replacement holds \\t or \\r escapes that Hermes rewrites; "
                                        "approve it in Hermes (/skills approve)")
        pieces, last = [], 0
        for s, e in spans:
            pieces += [content[last:s], new]
            last = e
        result = "".join(pieces) + content[last:]
        label = file_path if file_path else "SKILL.md"
        err = _size_error(result, label)
        if err:
            raise _Refuse(TOO_LARGE, err)
        if not file_path:
            err = frontmatter_error(result)
            if err:
                raise _Refuse(INVALID, f"Patch would break SKILL.md structure: {err}")
        plan = Plan(skill_dir=rel.as_posix(), added_text=new)
        self._write_step(plan, target, result)
        return plan

    def _plan_delete(self, p: dict, name: str) -> Plan:
        rel = self._need_skill(name)
        usage = self._usage().get(name)
        if isinstance(usage, dict) and usage.get("pinned"):
            raise _Refuse(PINNED, f"Skill {name!r} is pinned and cannot be deleted by skill_manage.")
        absorbed = p.get("absorbed_into")
        absorbed = absorbed.strip() if isinstance(absorbed, str) else ""
        if absorbed:
            if absorbed == name:
                raise _Refuse(INVALID, f"absorbed_into={absorbed!r} cannot equal the skill being deleted.")
            if self.find(absorbed) is None:
                raise _Refuse(MISSING, f"absorbed_into={absorbed!r} does not exist.")
        plan = Plan(skill_dir=rel.as_posix())
        for dirpath, dirnames, filenames in os.walk(self.skills / rel, followlinks=False):
            for d in list(dirnames):
                if os.path.islink(os.path.join(dirpath, d)):
                    filenames.append(d)
            for f in sorted(filenames):
                frel = PurePosixPath(Path(dirpath, f).relative_to(self.skills).as_posix())
                plan.changes.append(FileChange(frel.as_posix(), "delete", self._raw_text(frel), None))
        plan.steps.append(("rmtree", rel))
        if len(rel.parts) > 1:
            plan.steps.append(("rmdir_if_empty", rel.parent))
        return plan

    def _plan_write_file(self, p: dict, name: str) -> Plan:
        file_path, content = p.get("file_path"), p.get("file_content")
        if not file_path:
            raise _Refuse(INVALID, "file_path is required for 'write_file'.")
        if content is None:
            raise _Refuse(INVALID, "file_content is required for 'write_file'.")
        bad = _file_path_error(file_path)
        if bad:
            raise _Refuse(*bad)
        _encodable(content, file_path)
        size = len(content.encode("utf-8"))
        if size > MAX_SKILL_FILE_BYTES:
            raise _Refuse(TOO_LARGE, f"File content is {size:,} bytes (limit: {MAX_SKILL_FILE_BYTES:,} bytes).")
        err = _size_error(content, file_path)
        if err:
            raise _Refuse(TOO_LARGE, err)
        rel = self._need_skill(name)
        target = rel / PurePosixPath(file_path)
        if os.path.isdir(self.skills / target) and not os.path.islink(self.skills / target):
            raise _Refuse(INVALID, f"skills/{target} is a folder")
        plan = Plan(skill_dir=rel.as_posix(), added_text=content)
        plan.steps.append(("mkdir", target.parent))
        self._write_step(plan, target, content)
        return plan

    def _plan_remove_file(self, p: dict, name: str) -> Plan:
        file_path = p.get("file_path")
        if not file_path:
            raise _Refuse(INVALID, "file_path is required for 'remove_file'.")
        bad = _file_path_error(file_path)
        if bad:
            raise _Refuse(*bad)
        rel = self._need_skill(name)
        target = rel / PurePosixPath(file_path)
        self._check_no_links(target)
        full = self.skills / target
        if not os.path.lexists(full):
            raise _Refuse(MISSING, f"File {file_path!r} not found in skill {name!r}.")
        if os.path.isdir(full):
            raise _Refuse(INVALID, f"skills/{target} is a folder; Hermes would fail on it")
        plan = Plan(skill_dir=rel.as_posix())
        plan.changes.append(FileChange(target.as_posix(), "delete", self._raw_text(target), None))
        plan.steps.append(("unlink", target))
        if target.parent != rel:
            plan.steps.append(("rmdir_if_empty", target.parent))
        return plan

    def _usage(self) -> dict:
        try:
            data = json.loads(read_regular(self.skills / ".usage.json", 16 << 20).decode("utf-8"))
        except (OSError, ValueError, RecursionError):
            return {}
        return data if isinstance(data, dict) else {}

    # -- inspecting -------------------------------------------------------------------------

    def inspect(self, record: SkillRecord, payload: dict | None = None) -> SkillInspection:
        """What approving `record` (or `payload` in its place: an edit) would do. Writes nothing."""
        if record.broken:
            return SkillInspection(record, False, BROKEN, f"{record.file}: {record.broken}")
        payload = payload if payload is not None else record.payload
        assert payload is not None
        ins = SkillInspection(record, False)
        try:
            plan = self.plan(payload)
        except _Refuse as exc:
            ins.kind, ins.reason = exc.kind, str(exc)
            self._describe_existing(ins, payload)
            return ins
        ins.plan, ins.changes, ins.skill_dir = plan, plan.changes, f"skills/{plan.skill_dir}"
        skill_md = f"{plan.skill_dir}/SKILL.md"
        for ch in plan.changes:
            if ch.path == skill_md:
                ins.frontmatter_before, ins.frontmatter_after = frontmatter(ch.before), frontmatter(ch.after)
                break
        else:
            current = self._raw_text(PurePosixPath(skill_md))
            ins.frontmatter_before = frontmatter(current)
            ins.frontmatter_after = None if payload.get("action") == "delete" else ins.frontmatter_before
        ins.findings = scan(plan.added_text) if plan.added_text else []
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

    def _describe_existing(self, ins: SkillInspection, payload: dict) -> None:
        name = payload.get("name")
        try:
            rel = self.find(name) if isinstance(name, str) else None
        except _Refuse:
            rel = None
        if rel is not None:
            ins.skill_dir = f"skills/{rel}"
            ins.frontmatter_before = frontmatter(self._raw_text(rel / "SKILL.md"))

    # -- approving --------------------------------------------------------------------------

    def _lock_path(self) -> Path:
        if self._lock_dir is not None:
            return self._lock_dir / "skills-approve.lock"
        from core.store.journal import private_state_folder, state_dir
        return private_state_folder(state_dir(self.home)) / "skills-approve.lock"

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
        with claims.claimed(path, gone) as claim:
            yield claim, path

    def recover_claims(self, max_age: float = claims.STALE_CLAIM_SECONDS) -> list[str]:
        """Settle records claimed by an hmc process that is gone (or that held them too long): one
        whose approval hmc's journal shows was written is deleted (it was applied: never twice),
        any other is put back. Returns the file names put back."""
        return [claim.original for claim in claims.recover(self.folder, self._applied, max_age=max_age)]

    def _applied(self, claim_name: str) -> bool:
        """Whether the journal holds the approval made under this claim (settling a crash's first)."""
        history = self.history
        if history is None:
            return False
        if any(r.tag == claim_name for r in history.tree_in_doubt(SUBSYSTEM)):
            with self._locked():
                skill_undo.settle(history, self._root)
        return any(r.tag == claim_name for r in history.tree_records(SUBSYSTEM))

    def approve(self, record_id: str, *, force: bool = False, content: str | None = None) -> SkillInspection:
        """Apply one record as Hermes's `/skills approve` would, then delete it. `content` replaces
        the proposed SKILL.md (create/edit) or file content (write_file) or replacement (patch).
        Raises SkillApproveRefused (the record is kept) when it can't apply."""
        with self._locked(), self._claimed(record_id) as (claim, _path):
            record = _record_from(read_regular(claim, MAX_RECORD_BYTES, follow_symlinks=False), _path)
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
        where = f"skills/{plan.skill_dir}"
        try:
            rec = history.prepare_tree(SUBSYSTEM, root, plan.skill_dir, record.action,
                                       f"{record.action} {where} (pending {record.id})", changes, kept=kept)
        except StoreError as exc:
            raise SkillApproveRefused(record.id, "journal", str(exc)) from None
        try:
            self._execute(plan, record.id)
        except BaseException:
            (history.commit if skill_undo.happened(root, rec) else history.abort)(rec.id)
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
            try:
                self._check_no_links(rel)  # again, right before the write: a link swapped in is refused
            except _Refuse as exc:
                raise SkillApproveRefused(record_id, exc.kind, str(exc)) from None
            full = self.skills / rel
            if op == "mkdir":
                full.mkdir(parents=True, exist_ok=True)
            elif op == "write":
                atomic_write(full, step[2].encode("utf-8"), prefix=f".{full.name}.tmp.", suffix="")
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
            except (SkillPendingError, OSError) as exc:
                failed.append((record.id, "error", str(exc)))
        return done, failed

    def simulate_all(self) -> tuple[int, int]:
        """(would apply, would fail) for approve-all, simulating the queue in order on a scratch
        copy of the skills the records touch (nothing in the home is written)."""
        import tempfile

        records = self.list()
        with tempfile.TemporaryDirectory(prefix="hmc-skills-sim-") as tmp:
            scratch = Path(tmp)
            if os.path.isdir(self.skills):
                shutil.copytree(self.skills, scratch / "skills", symlinks=True)
            if os.path.isfile(self.home / "config.yaml"):
                shutil.copyfile(self.home / "config.yaml", scratch / "config.yaml")
            sim = SkillQueue(scratch, lock_dir=scratch, journal=False)
            ok = bad = 0
            for r in records:
                if r.broken:
                    bad += 1
                    continue
                ins = sim.inspect(r)
                if ins.can_apply and ins.plan is not None:
                    sim._execute(ins.plan)
                    ok += 1
                else:
                    bad += 1
            return ok, bad
