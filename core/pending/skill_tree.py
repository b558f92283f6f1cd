"""The skills/ tree as a skill write's plan reads it: the disk, seen through the changes of the ops
planned before it (the earlier ops of a batch, or the records approve-all applies first), held in
memory. Nothing here writes.

- Finding a skill by name walks skills/ once per view (the name index), never into a skill's own
  support folders (references/, templates/, scripts/, assets/: a SKILL.md there is support data,
  not a skill) nor the folders Hermes leaves out (.git, node_modules…): 21,000 files in one skill's
  assets/ cost nothing.
- A file is read only when a plan names it; sizes and special files elsewhere in the tree cost
  nothing. `apply(steps)` records what a plan would do, so the next plan reads its results.

core/pending/skills.py plans, inspects and approves records through one view per reading.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path, PurePosixPath

from core.pending.skill_records import (
    ALLOWED_SUBDIRS, AMBIGUOUS, ESCAPES, EXCLUDED_DIRS, MAX_WALK, TOO_LARGE, UNREADABLE, _Refuse, folders_of,
)
from core.store.atomic import read_regular

MAX_TEXT_BYTES = 8 << 20  # a skill file hmc reads for a plan or a diff


class TreeView:
    """skills/ of one home as it is, plus the changes `apply` recorded (in memory)."""

    def __init__(self, skills: Path):
        self.skills = skills
        self._files: dict[str, str | None] = {}  # rel -> text the earlier steps wrote (None: removed)
        self._dirs: dict[str, bool] = {}  # rel -> a folder the earlier steps made (True) or removed
        self._dead: set[str] = set()  # folders removed whole (their disk contents are gone)
        self._new_skills: dict[str, set[PurePosixPath]] = {}  # name -> folders an earlier step wrote a SKILL.md in
        self._shared: dict = {}  # the name index, .usage.json and lstat results, read once and shared with forks

    def fork(self) -> "TreeView":
        """A view that starts where this one is and records its own changes (a batch tried whole)."""
        child = TreeView(self.skills)
        child._files, child._dirs, child._dead = dict(self._files), dict(self._dirs), set(self._dead)
        child._new_skills = {k: set(v) for k, v in self._new_skills.items()}
        child._shared = self._shared
        return child

    def memo(self, kind: str, key: str | None, compute):
        """compute(key), once per reading (a listing checks each text again when it simulates
        approve-all); the memo lives as long as this view and its forks."""
        table = self._shared.setdefault(kind, {})
        if key not in table:
            table[key] = compute(key)
        return table[key]

    # -- what is there ------------------------------------------------------------------------

    def _gone_on_disk(self, rel: str) -> bool:
        """Whether an earlier step removed `rel` (or a folder above it) since disk was read."""
        if not self._dead:
            return False
        p = PurePosixPath(rel)
        return any(q.as_posix() in self._dead for q in (p, *list(p.parents)[:-1]))

    def touched(self, rel: str) -> bool:
        return rel in self._files or rel in self._dirs or self._gone_on_disk(rel)

    def exists(self, rel: PurePosixPath | str) -> bool:
        key = PurePosixPath(rel).as_posix()
        if key in self._files:
            return self._files[key] is not None
        if key in self._dirs:
            return self._dirs[key]
        if self._gone_on_disk(key):
            return False
        return os.path.lexists(self.skills / key)

    def isdir(self, rel: PurePosixPath | str) -> bool:
        """A real folder (not a link to one)."""
        key = PurePosixPath(rel).as_posix()
        if key in self._files:
            return False
        if key in self._dirs:
            return self._dirs[key]
        if self._gone_on_disk(key):
            return False
        try:
            return stat.S_ISDIR(os.lstat(self.skills / key).st_mode)
        except OSError:
            return False

    def listdir(self, rel: PurePosixPath | str) -> list[str]:
        key = PurePosixPath(rel).as_posix()
        names: set[str] = set()
        if not self._gone_on_disk(key) and key not in self._files:
            try:
                names.update(os.listdir(self.skills / key))
            except OSError:
                pass
        prefix = f"{key}/" if key not in ("", ".") else ""
        for other in (*self._files, *self._dirs):
            if other.startswith(prefix) and "/" not in other[len(prefix):]:
                names.add(other[len(prefix):])
        return sorted(n for n in names if self.exists(f"{prefix}{n}"))

    def files_below(self, rel: PurePosixPath) -> list[PurePosixPath]:
        """Every file (and link) below `rel`, sorted per folder as the delete plan lists them."""
        out: list[PurePosixPath] = []
        stack = [rel]
        while stack:
            cur = stack.pop()
            entries = self.listdir(cur)
            subdirs = []
            for n in entries:
                p = cur / n
                if self.isdir(p):
                    subdirs.append(p)
                else:
                    out.append(p)
            stack.extend(reversed(subdirs))
        return out

    def check_no_links(self, rel: PurePosixPath) -> None:
        """Every existing component of skills/<rel> is a real folder or file, not a link."""
        key = ""
        for part in rel.parts:
            key = f"{key}/{part}" if key else part
            if key in self._files or key in self._dirs:
                if not self.exists(key):
                    return
                continue  # made by an earlier step: a real file or folder
            if self._gone_on_disk(key):
                return
            mode = self._lstat_mode(key)
            if mode is None:
                return
            if stat.S_ISLNK(mode):
                raise _Refuse(ESCAPES, f"skills/{key} is a symbolic link; hmc never writes through links")

    def _lstat_mode(self, key: str) -> int | None:
        """st_mode of skills/<key> on disk (None: absent), each path asked once per view."""
        cache = self._shared.setdefault("lstat", {})
        if key not in cache:
            try:
                cache[key] = os.lstat(self.skills / key).st_mode
            except FileNotFoundError:
                cache[key] = None
            except OSError as exc:
                raise _Refuse(UNREADABLE, f"skills/{key}: {exc.strerror or exc}") from None
        return cache[key]

    # -- reading files --------------------------------------------------------------------------

    def _bytes(self, rel: PurePosixPath) -> bytes | None:
        return read_regular(self.skills / rel, MAX_TEXT_BYTES, follow_symlinks=False)

    def text_of(self, rel: PurePosixPath) -> str | None:
        """A file's text as Hermes reads it (UTF-8, universal newlines), None when absent."""
        self.check_no_links(rel)
        key = rel.as_posix()
        if key in self._files:
            text = self._files[key]
            return None if text is None else text.replace("\r\n", "\n").replace("\r", "\n")
        if self._gone_on_disk(key):
            return None
        try:
            data = self._bytes(rel)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise _Refuse(UNREADABLE, f"skills/{rel} can't be read: {exc.strerror or exc}") from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise _Refuse(UNREADABLE, f"skills/{rel} is not UTF-8 text; Hermes can't read it either") from None
        return text.replace("\r\n", "\n").replace("\r", "\n")

    def raw_text(self, rel: PurePosixPath) -> str | None:
        """A file's exact text for a diff (None: absent, or not a readable file)."""
        key = rel.as_posix()
        if key in self._files:
            return self._files[key]
        if self._gone_on_disk(key):
            return None
        try:
            data = self._bytes(rel)
        except OSError:
            return None
        return data.decode("utf-8", "replace")

    def usage(self) -> dict:
        if "usage" not in self._shared:
            try:
                data = json.loads(read_regular(self.skills / ".usage.json", 16 << 20).decode("utf-8"))
            except (OSError, ValueError, RecursionError):
                data = {}
            self._shared["usage"] = data if isinstance(data, dict) else {}
        return self._shared["usage"]

    # -- finding skills ---------------------------------------------------------------------------

    def _walk(self) -> dict[str, list[PurePosixPath]]:
        """name -> skill folders on disk: every SKILL.md below skills/ outside excluded and support
        folders, as Hermes's lookup finds them. One walk per view; links are never followed."""
        index: dict[str, list[PurePosixPath]] = {}
        try:
            if not stat.S_ISDIR(os.stat(self.skills).st_mode):
                return index
        except OSError:
            return index
        seen = 0
        stack = [PurePosixPath()]
        while stack:
            rel = stack.pop()
            try:
                with os.scandir(self.skills / rel) as it:
                    entries = list(it)
            except OSError:
                continue
            seen += len(entries)
            if seen > MAX_WALK:
                raise _Refuse(TOO_LARGE, f"skills/ holds more than {MAX_WALK:,} entries outside skills' "
                                         "support folders; hmc stops looking")
            names = {e.name for e in entries}
            is_skill = "SKILL.md" in names and bool(rel.parts)
            if is_skill:
                index.setdefault(rel.name, []).append(rel)
            subdirs = []
            for e in entries:
                try:
                    if not e.is_dir(follow_symlinks=False):
                        continue
                except OSError:
                    continue
                if e.name in EXCLUDED_DIRS or (is_skill and e.name in ALLOWED_SUBDIRS):
                    continue  # Hermes leaves these out; a SKILL.md in a skill's support folder is data
                subdirs.append(rel / e.name)
            stack.extend(sorted(subdirs, reverse=True))
        return index

    def _excluded(self, rel: PurePosixPath) -> bool:
        parts = rel.parts
        if any(p in EXCLUDED_DIRS for p in parts):
            return True
        return any(part in ALLOWED_SUBDIRS and idx > 0 and self.exists(PurePosixPath(*parts[:idx]) / "SKILL.md")
                   for idx, part in enumerate(parts))

    def find(self, name: str) -> PurePosixPath | None:
        """The folder (relative to skills/) of the skill named `name`; _Refuse(AMBIGUOUS) for two."""
        if not name:
            return None
        if "index" not in self._shared:
            self._shared["index"] = self._walk()
        listed = self._shared["index"].get(name, [])
        if not (self._files or self._dirs):  # the disk as walked: the index is the answer
            if len(listed) > 1:
                raise _Refuse(AMBIGUOUS, f"more than one skill is named {name!r} "
                                         f"({', '.join(map(str, sorted(listed)))})")
            return listed[0] if listed else None
        found = [rel for rel in listed if self.exists(rel / "SKILL.md")]
        for rel in sorted(self._new_skills.get(name, ())):  # skills the earlier steps created
            if rel not in found and self.exists(rel / "SKILL.md") and not self._excluded(rel):
                found.append(rel)
        if len(found) > 1:
            raise _Refuse(AMBIGUOUS, f"more than one skill is named {name!r} ({', '.join(map(str, sorted(found)))})")
        return found[0] if found else None

    # -- recording a plan -------------------------------------------------------------------------

    def apply(self, steps: list[tuple]) -> None:
        """Record what a plan's steps do (see core.pending.skill_records.Plan), in memory."""
        for step in steps:
            op, rel = step[0], PurePosixPath(step[1])
            key = rel.as_posix()
            if op == "mkdir":
                for part in folders_of(rel):
                    if not self.isdir(part):
                        self._dirs[part] = True
            elif op == "write":
                self._files[key] = step[2]
                if rel.name == "SKILL.md" and len(rel.parts) > 1:
                    self._new_skills.setdefault(rel.parent.name, set()).add(rel.parent)
            elif op == "unlink":
                self._files[key] = None
            elif op == "rmtree":
                for sub in [k for k in (*self._files, *self._dirs) if k == key or k.startswith(key + "/")]:
                    self._files.pop(sub, None)
                    self._dirs.pop(sub, None)
                self._dirs[key] = False
                self._dead.add(key)
            elif op == "rmdir_if_empty":
                if rel.parts and self.isdir(key) and not self.listdir(key):
                    self._dirs[key] = False
                    self._dead.add(key)
