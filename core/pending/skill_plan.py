"""What replaying a staged skill write does, planned without writing: one `Planner` per view of the
tree (core/pending/skill_tree.py). Each action gets the validation Hermes's `skill_manage` applies
and its reason when it refuses; a `batch` (0.22: `{"action": "batch", "operations": [...]}`) is
checked as the release's `_skill_manage_batch` checks it, then planned op by op, each op reading
what the ops before it left, and refused whole when one op can't apply (the release rolls every
touched skill back then: the tree ends as it was).
"""

from __future__ import annotations

import posixpath
from pathlib import PurePosixPath

from core.pending.skill_records import (
    ACTIONS, AMBIGUOUS, EXISTS, INVALID, MALFORMED, MAX_SKILL_FILE_BYTES, MISSING, NEEDS_HERMES, NO_MATCH,
    PINNED, TOO_LARGE, FileChange, Plan, _category_error, _encodable, _file_path_error, _name_error, _opt_str,
    _Refuse, _size_error, frontmatter_error,
)
from core.pending.skill_tree import TreeView

BATCH = "batch"
BATCH_ACTIONS = ("create", "patch", "write_file", "remove_file")
BATCH_MAX_OPS = 20
TEXT_KEYS = ("content", "file_path", "file_content", "old_string", "new_string", "absorbed_into")

# the release's own texts (tools/skill_manager_batch.py), so a refusal reads as Hermes's would
_PATCH_NEEDS_OLD_STRING = (
    "old_string is required for 'patch' and must be the EXACT text currently in the file. "
    "Read the target file first (read_file on the skill's SKILL.md, or the file named by "
    "file_path) and copy the snippet verbatim, then retry 'patch'. Do NOT fall back to "
    "action='write_file' — that rewrites the entire file and destroys unrelated content.")
_PATCH_NEEDS_NEW_STRING = "new_string is required for 'patch'. Use an empty string to delete matched text."
_PATCH_EITHER_OR = ("Pass EITHER content (full SKILL.md rewrite) OR old_string/new_string "
                    "(targeted replacement), not both.")
_REQUIRED = {
    "create": [("content", False,
                "content is required for 'create'. Provide the full SKILL.md text (frontmatter + body).")],
    "write_file": [
        ("file_path", False, "file_path is required for 'write_file'. Example: 'references/api-guide.md'"),
        ("file_content", True, "file_content is required for 'write_file'.")],
    "remove_file": [("file_path", False, "file_path is required for 'remove_file'.")]}
_SLOT_OWNER = {"content": "create (and a full-rewrite patch)", "new_string": "a targeted patch (with old_string)",
               "file_content": "write_file"}
_SLOT_FOR = {
    "create": (("content",), "'content'"),
    "patch": (("content", "new_string"), "old_string/new_string (targeted) or 'content' (full rewrite, last resort)"),
    "write_file": (("file_content",), "'file_content'")}


def _misplaced_hint(action: str, op: dict) -> str:
    if action not in _SLOT_FOR:
        return ""
    reads, destination = _SLOT_FOR[action]
    stray = [k for k in _SLOT_OWNER if k not in reads and op.get(k) is not None]
    if not stray:
        return ""
    carried = " and ".join(f"'{k}' (that key is for {_SLOT_OWNER[k]})" for k in stray)
    return f" Note: this op carries {carried} — move that text to {destination}."


def _shape_error(action: str, op: dict) -> str | None:
    for key, none_only, message in _REQUIRED.get(action, ()):
        value = op.get(key)
        if (value is None) if none_only else not value:
            return message + _misplaced_hint(action, op)
    if action == "patch":
        if op.get("content") and (op.get("old_string") or op.get("new_string") is not None):
            return _PATCH_EITHER_OR
        if not op.get("old_string") and not op.get("content"):
            return _PATCH_NEEDS_OLD_STRING + _misplaced_hint(action, op)
        if not op.get("content") and op.get("new_string") is None:
            return _PATCH_NEEDS_NEW_STRING
    return None


def _check_skill_md(view: TreeView, content: str) -> None:
    """A whole SKILL.md (create, edit): Hermes's frontmatter and size checks."""
    err = view.memo("frontmatter_error", content, frontmatter_error)
    if err:
        raise _Refuse(INVALID, err)
    err = _size_error(content, "SKILL.md")
    if err:
        raise _Refuse(TOO_LARGE, err)


def q(text: object) -> str:
    """A value quoted as the release's f-strings quote it ('name')."""
    return f"'{text}'"


class Planner:
    """Plans records against one view of skills/; `plan` raises _Refuse(kind, reason)."""

    def __init__(self, view: TreeView):
        self.view = view

    def plan(self, payload: dict) -> Plan:
        action = payload.get("action", "")
        if action == BATCH:
            return self._plan_batch(payload)
        name = payload.get("name", "")
        if not isinstance(action, str) or action not in ACTIONS:
            raise _Refuse(MALFORMED, f"Unknown action {action!r}. Use: {', '.join(ACTIONS)}")
        if not isinstance(name, str):
            raise _Refuse(MALFORMED, "payload field 'name' is not text")
        for key in TEXT_KEYS:
            _opt_str(payload, key)
        return getattr(self, f"_plan_{action}")(payload, name)

    # -- one action ---------------------------------------------------------------------------

    def _need_skill(self, name: str) -> PurePosixPath:
        rel = self.view.find(name)
        if rel is None:
            raise _Refuse(MISSING, f"Skill {name!r} not found.")
        self.view.check_no_links(rel)
        return rel

    def _write_step(self, plan: Plan, rel: PurePosixPath, new: str) -> None:
        _encodable(new, str(rel))
        self.view.check_no_links(rel)
        before = self.view.raw_text(rel)
        exists = self.view.exists(rel)
        plan.steps.append(("write", rel, new))
        plan.changes.append(FileChange(rel.as_posix(), "change" if exists else "create", before, new))

    def _plan_create(self, p: dict, name: str) -> Plan:
        content = p.get("content")
        if not content:
            raise _Refuse(INVALID, "content is required for 'create'.")
        for err in (_name_error(name), _category_error(p.get("category"))):
            if err:
                raise _Refuse(INVALID, err)
        _check_skill_md(self.view, content)
        existing = self.view.find(name)
        if existing is not None:
            raise _Refuse(EXISTS, f"A skill named {name!r} already exists at skills/{existing}.")
        category = p.get("category")
        rel = PurePosixPath(category, name) if category else PurePosixPath(name)
        plan = Plan(skill_dir=rel.as_posix(), added_text=content)
        self.view.check_no_links(rel)
        plan.steps.append(("mkdir", rel))
        self._write_step(plan, rel / "SKILL.md", content)
        return plan

    def _plan_edit(self, p: dict, name: str) -> Plan:
        content = p.get("content")
        if not content:
            raise _Refuse(INVALID, "content is required for 'edit'.")
        _check_skill_md(self.view, content)
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
        content = self.view.text_of(target)
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
            err = self.view.memo("frontmatter_error", result, frontmatter_error)
            if err:
                raise _Refuse(INVALID, f"Patch would break SKILL.md structure: {err}")
        plan = Plan(skill_dir=rel.as_posix(), added_text=new)
        self._write_step(plan, target, result)
        return plan

    def _plan_delete(self, p: dict, name: str) -> Plan:
        rel = self._need_skill(name)
        usage = self.view.usage().get(name)
        if isinstance(usage, dict) and usage.get("pinned"):
            raise _Refuse(PINNED, f"Skill {name!r} is pinned and cannot be deleted by skill_manage.")
        absorbed = p.get("absorbed_into")
        absorbed = absorbed.strip() if isinstance(absorbed, str) else ""
        if absorbed:
            if absorbed == name:
                raise _Refuse(INVALID, f"absorbed_into={absorbed!r} cannot equal the skill being deleted.")
            if self.view.find(absorbed) is None:
                raise _Refuse(MISSING, f"absorbed_into={absorbed!r} does not exist.")
        plan = Plan(skill_dir=rel.as_posix())
        for frel in self.view.files_below(rel):
            plan.changes.append(FileChange(frel.as_posix(), "delete", self.view.raw_text(frel), None))
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
        if self.view.isdir(target):
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
        self.view.check_no_links(target)
        if not self.view.exists(target):
            raise _Refuse(MISSING, f"File {file_path!r} not found in skill {name!r}.")
        if self.view.isdir(target):
            raise _Refuse(INVALID, f"skills/{target} is a folder; Hermes would fail on it")
        plan = Plan(skill_dir=rel.as_posix())
        plan.changes.append(FileChange(target.as_posix(), "delete", self.view.raw_text(target), None))
        plan.steps.append(("unlink", target))
        if target.parent != rel:
            plan.steps.append(("rmdir_if_empty", target.parent))
        return plan

    # -- a batch ------------------------------------------------------------------------------

    def _plan_batch(self, payload: dict) -> Plan:
        """All ops or none, as the release's `_skill_manage_batch` replays a staged batch."""
        ops = payload.get("operations")
        if not isinstance(ops, list) or not ops:
            raise _Refuse(INVALID, "operations must be a non-empty array.")
        if len(ops) > BATCH_MAX_OPS:
            raise _Refuse(INVALID, f"operations is capped at {BATCH_MAX_OPS} ops per call.")
        default = payload.get("name") or None
        if any(isinstance(op, dict) and op.get("action") == "delete" for op in ops):
            if len(ops) != 1:
                raise _Refuse(INVALID, "delete must be the SOLE op in its call — it doesn't "
                                       "compose with other ops' rollback.")
            name = ops[0].get("name") or default
            if not name:
                raise _Refuse(INVALID, "operations[0] (delete) needs a 'name'.")
            plan = self._op(ops[0], "delete", name, 0)
            plan.ops = [(0, "delete", name, list(plan.changes))]
            return plan
        names = self._check_batch(ops, default)
        plan = Plan()
        dirs: list[str] = []
        for i, op in enumerate(ops):
            part = self._op(op, op["action"], names[i], i)
            self.view.apply(part.steps)
            plan.steps += part.steps
            plan.ops.append((i, op["action"], names[i], list(part.changes)))
            plan.added_text += ("\n" if plan.added_text and part.added_text else "") + part.added_text
            if part.skill_dir not in dirs:
                dirs.append(part.skill_dir)
        plan.changes = [c for _i, _a, _n, changes in plan.ops for c in changes]
        plan.skill_dir = dirs[0]
        plan.skill_dirs = dirs
        return plan

    def _op(self, op: dict, action: str, name: str, i: int) -> Plan:
        if not isinstance(name, str):
            raise _Refuse(MALFORMED, f"operations[{i}]: 'name' is not text")
        payload = {**op, "name": name, "action": action}
        if action == "patch" and op.get("content"):  # 0.22: content alone is a full rewrite
            payload = {"action": "edit", "name": name, "content": op.get("content")}
        try:
            for key in TEXT_KEYS:
                _opt_str(payload, key)
            err = _name_error(name if action == "create" else PurePosixPath(name).name)
            if err:
                raise _Refuse(INVALID, err)
            return getattr(self, f"_plan_{payload['action']}")(payload, name)
        except _Refuse as exc:
            raise _Refuse(exc.kind, f"operations[{i}] ({action} on {q(name)}) failed: {exc} — batch aborted, "
                                    "all touched skills rolled back.") from None

    @staticmethod
    def _check_batch(ops: list, default: str | None) -> list[str]:
        """The release's checks before any op runs: shapes, names, order, one destructive op per file."""
        def fail(i: int, msg: str) -> _Refuse:
            return _Refuse(INVALID, f"operations[{i}]{msg}")
        names: list[str] = []
        for i, op in enumerate(ops):
            if not isinstance(op, dict) or not op.get("action"):
                raise fail(i, " needs an 'action'.")
            act = op["action"]
            if act not in BATCH_ACTIONS:
                raise fail(i, f": unknown action {q(act)}. Batchable: {', '.join(sorted(BATCH_ACTIONS))}; "
                              "delete must be sole.")
            nm = op.get("name") or default
            if not nm:
                raise fail(i, " needs a 'name' (the skill it targets).")
            shape = _shape_error(act, op)
            if shape is not None:
                raise fail(i, f" ({act} on {q(nm)}): {shape}")
            if act == "create":
                err = _category_error(op.get("category"))
                if err is not None:
                    raise fail(i, f" ({act} on {q(nm)}): {err}")
            names.append(nm)
            if act == "create" and nm in names[:-1]:
                raise fail(i, f": create for {q(nm)} must precede that skill's other ops.")
        touched: set[tuple[str, str]] = set()
        for i, op in enumerate(ops):
            act, nm = op["action"], names[i]
            full_rewrite = act == "patch" and bool(op.get("content"))
            fp = op.get("file_path") or ""
            fp = fp.strip() if isinstance(fp, str) else ""
            target = "SKILL.md" if (act == "create" or full_rewrite or not fp) else posixpath.normpath(fp.lstrip("/"))
            key = (nm, target)
            if (act in ("create", "write_file", "remove_file") or full_rewrite) and key in touched:
                raise fail(i, f": {act} on {q(target)} of skill {q(nm)} — an earlier op in this batch already "
                              "touched that file, and this op would silently discard its work. One destructive "
                              "op (write_file/remove_file/full rewrite) per file per batch; put it first, or "
                              "fold the change in. Patch chains are fine.")
            touched.add(key)
        return names
