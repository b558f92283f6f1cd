"""A staged skill write as hmc reads it (`pending/skills/<id>.json`), and what its inspection is
made of: the reason kinds, the errors, `SkillRecord` and its parsing, the file changes, the
frontmatter and the plan an inspection holds, and the checks Hermes's `skill_manage` applies to a
name, a category, a file path and a size. The queue that reads, inspects and approves them is
core/pending/skills.py.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Sequence

import yaml

from core.home import load_yaml
from core.scan.scanner import ScanFinding, blocking

SUBSYSTEM = "skills"
ID_RE = re.compile(r"[0-9a-f]{8}")
ACTIONS = ("create", "edit", "patch", "delete", "write_file", "remove_file")  # and 0.22's "batch"
MAX_RECORD_BYTES = 8 << 20  # a 1 MiB file_content can triple in JSON escapes
MAX_SKILL_CONTENT_CHARS = 100_000  # Hermes: any SKILL.md or supporting file, in characters
MAX_SKILL_FILE_BYTES = 1_048_576  # Hermes: a supporting file, in UTF-8 bytes
MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
VALID_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
ALLOWED_SUBDIRS = frozenset({"references", "templates", "scripts", "assets"})
EXCLUDED_DIRS = frozenset({".git", ".github", ".hub", ".archive", ".venv", "venv", "node_modules",
                           "site-packages", "__pycache__", ".tox", ".nox", ".pytest_cache",
                           ".mypy_cache", ".ruff_cache"})
TRUTHY = frozenset({"1", "true", "yes", "on"})
MAX_WALK = 20_000  # directory entries visited looking for a skill

# Why a record can't apply (Inspection.kind)
BROKEN = "broken"  # not a readable JSON record
MALFORMED = "malformed"  # a record, but the payload makes no sense (unknown action, wrong types)
MISSING = "missing"  # the skill (or the file) doesn't exist
EXISTS = "exists"  # create: a skill of that name already exists
NO_MATCH = "no-match"  # patch text not found (exactly)
AMBIGUOUS = "ambiguous"  # patch text found more than once, or two skills of that name
INVALID = "invalid"  # invalid name, category, file path or frontmatter
TOO_LARGE = "too-large"
ESCAPES = "escapes"  # a path leaving the skill folder: .., absolute, a symlink
UNREADABLE = "unreadable"  # a file can't be read as UTF-8 text
PINNED = "pinned"  # delete of a pinned skill
SCANNER = "scanner"  # hmc's scanner found something (forcible)
GUARDED = "guarded"  # skills.guard_agent_created / external_dirs on: Hermes must approve
NEEDS_HERMES = "needs-hermes"  # only Hermes's fuzzy patch matcher could apply it

# Refusals Hermes's own `/skills approve` may still get past (hmc is stricter on purpose, see
# core.pending.skills): its fuzzy patch matcher, its rewriting of \t/\r escapes, its skills guard.
HERMES_MAY_APPLY = frozenset({NO_MATCH, NEEDS_HERMES, GUARDED})


class SkillPendingError(Exception):
    """A skill record can't be found, claimed or applied; the message says why."""


class SkillUnwritable(SkillPendingError):
    """The OS refused to claim or write a skill record (core.store.atomic.write_refused): exit 2."""

    kind = "unwritable"


class SkillApproveRefused(SkillPendingError):
    def __init__(self, record_id: str, kind: str, message: str):
        super().__init__(message)
        self.id, self.kind = record_id, kind


# ------------------------------------------------------------------------------------ records


@dataclass(frozen=True)
class SkillRecord:
    id: str
    path: Path
    created_at: float = 0.0
    origin: str = "foreground"
    summary: str = ""
    action: str = ""
    name: str = ""
    payload: dict[str, Any] | None = None
    broken: str | None = None  # why the file isn't a record

    @property
    def file(self) -> str:
        return self.path.name

    @property
    def auto(self) -> bool:
        return self.origin == "background_review"


def _record_from(data: bytes, path: Path) -> SkillRecord:
    rid = path.name[:-5] if path.name.endswith(".json") else path.name
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return SkillRecord(rid, path, broken=f"not a JSON record ({type(exc).__name__})")
    if not isinstance(obj, dict):
        return SkillRecord(rid, path, broken="not a JSON object")
    created = obj.get("created_at")
    created = float(created) if isinstance(created, (int, float)) and not isinstance(created, bool) else 0.0
    payload = obj.get("payload")
    origin = obj.get("origin") if isinstance(obj.get("origin"), str) else "foreground"
    summary = obj.get("summary") if isinstance(obj.get("summary"), str) else ""
    if not isinstance(payload, dict):
        return SkillRecord(rid, path, created, origin, summary, broken="no payload object")
    action = payload.get("action", "")
    name = payload.get("name", "")
    if action == "batch" and not name:  # a batch names its skills per op
        name = ", ".join(dict.fromkeys(n for _i, _a, n, _f in batch_ops(payload) if n))
    return SkillRecord(rid, path, created, origin, summary,
                       action if isinstance(action, str) else repr(action),
                       name if isinstance(name, str) else repr(name), payload)


def folders_of(rel: PurePosixPath) -> list[str]:
    """`a`, `a/b`, `a/b/c` for a/b/c: every folder a mkdir of it may make, outermost first."""
    return [PurePosixPath(*rel.parts[:i]).as_posix() for i in range(1, len(rel.parts) + 1)]


def batch_ops(payload: dict | None) -> list[tuple[int, str, str, str]]:
    """A batch record's operations as (index, action, skill name, file path) text, for display."""
    ops = payload.get("operations") if isinstance(payload, dict) else None
    default = payload.get("name") if isinstance(payload, dict) and isinstance(payload.get("name"), str) else ""
    out = []
    for i, op in enumerate(ops if isinstance(ops, list) else []):
        op = op if isinstance(op, dict) else {}
        text = lambda v: v if isinstance(v, str) else "" if v is None else repr(v)  # noqa: E731
        out.append((i, text(op.get("action")), text(op.get("name")) or default, text(op.get("file_path"))))
    return out


# ------------------------------------------------------------------------------------ inspection


@dataclass(frozen=True)
class FileChange:
    path: str  # relative to skills/, posix
    kind: str  # "create" | "change" | "delete"
    before: str | None
    after: str | None

    @property
    def size_before(self) -> int | None:
        return None if self.before is None else len(self.before.encode("utf-8", "surrogatepass"))

    @property
    def size_after(self) -> int | None:
        return None if self.after is None else len(self.after.encode("utf-8", "surrogatepass"))

    def unified_diff(self, context: int = 3) -> list[str]:
        a = (self.before or "").splitlines(keepends=True)
        b = (self.after or "").splitlines(keepends=True)
        return [line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                for line in difflib.unified_diff(a, b, f"a/{self.path}" if self.before is not None else "/dev/null",
                                                 f"b/{self.path}" if self.after is not None else "/dev/null",
                                                 n=context)]


@dataclass(frozen=True)
class Frontmatter:
    name: str | None
    description: str | None


@dataclass
class Plan:
    """What approving does, in order: ("mkdir", rel) / ("write", rel, text) / ("unlink", rel) /
    ("rmtree", rel) / ("rmdir_if_empty", rel). rel is relative to skills/."""
    steps: list[tuple] = field(default_factory=list)
    changes: list[FileChange] = field(default_factory=list)
    skill_dir: str = ""
    added_text: str = ""
    # a batch: every skill folder it touches, and per op (index, action, skill name, its changes)
    skill_dirs: list[str] = field(default_factory=list)
    ops: list[tuple[int, str, str, list[FileChange]]] = field(default_factory=list)


@dataclass
class SkillInspection:
    record: SkillRecord
    can_apply: bool
    kind: str | None = None
    reason: str | None = None
    skill_dir: str = ""  # relative to the home, e.g. "skills/my-skill"
    changes: list[FileChange] = field(default_factory=list)
    frontmatter_before: Frontmatter | None = None
    frontmatter_after: Frontmatter | None = None
    findings: list[ScanFinding] = field(default_factory=list)
    plan: Plan | None = None
    journal_id: int | None = None  # after approve: hmc's journal record of the write (for undo)
    undo_note: str | None = None  # after approve: why it can't be undone (None: it can)

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def forcible(self) -> bool:
        return self.kind == SCANNER

    @property
    def never_applies(self) -> bool:
        """Neither hmc (not even forced) nor Hermes can apply it: what `x` and `hmc pending reject
        invalid --subsystem skills` clear. A scanner hit is the person's call, and a refusal Hermes
        may still get past (HERMES_MAY_APPLY: its detail says so) stays for Hermes to apply."""
        return not self.can_apply and not self.forcible and self.kind not in HERMES_MAY_APPLY

    def operations(self) -> list[tuple[int, str, str, str, list[FileChange]]]:
        """A batch's ops: (index, action, skill, file path, the changes it makes: [] when refused)."""
        planned = {i: changes for i, _a, _n, changes in (self.plan.ops if self.plan is not None else [])}
        return [(i, a, n, fp, planned.get(i, [])) for i, a, n, fp in batch_ops(self.record.payload)]


def op_label(i: int, total: int, action: str, name: str, file_path: str) -> str:
    """`op 2/3: write_file beta references/a.md`"""
    return f"op {i + 1}/{total}: {action or '?'} {name or '?'}" + (f" {file_path}" if file_path else "")


class _Refuse(Exception):
    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def frontmatter_error(content: str) -> str | None:
    """Hermes's SKILL.md frontmatter check (None when valid)."""
    if not content.strip():
        return "Content cannot be empty."
    content = content.lstrip("\ufeff")
    if not content.startswith("---"):
        return "SKILL.md must start with YAML frontmatter (---)."
    end = re.search(r"\n---\s*\n", content[3:])
    if not end:
        return "SKILL.md frontmatter is not closed. Ensure you have a closing '---' line."
    try:
        parsed = yaml.safe_load(content[3:end.start() + 3])
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        return f"YAML frontmatter parse error: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
    if not isinstance(parsed, dict):
        return "Frontmatter must be a YAML mapping (key: value pairs)."
    if "name" not in parsed:
        return "Frontmatter must include 'name' field."
    if "description" not in parsed:
        return "Frontmatter must include 'description' field."
    if len(str(parsed["description"])) > MAX_DESCRIPTION_LENGTH:
        return f"Description exceeds {MAX_DESCRIPTION_LENGTH} characters."
    if not content[end.end() + 3:].strip():
        return "SKILL.md must have content after the frontmatter (instructions, procedures, etc.)."
    return None


def frontmatter(content: str | None) -> Frontmatter | None:
    """name and description as text, or None when there is no readable frontmatter (display only)."""
    if content is None:
        return None
    text = content.lstrip("\ufeff")
    if not text.startswith("---"):
        return None
    end = re.search(r"\n---\s*\n", text[3:])
    if not end:
        return None
    try:
        data = load_yaml(text[3:end.start() + 3])
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    pick = lambda k: None if data.get(k) is None else str(data.get(k))  # noqa: E731
    return Frontmatter(pick("name"), pick("description"))


def scan_hits(findings: Sequence[ScanFinding]) -> list[ScanFinding]:
    """The findings that hold a skill write back: what blocks a memory entry, plus any secret and
    any warning (a `curl … | sh`, hidden characters). Memory's size rule doesn't apply to skills."""
    return [f for f in findings if f.rule != "oversize"
            and (f in blocking([f]) or f.secret or f.severity == "warning")]


def _name_error(name: str) -> str | None:
    if not name:
        return "Skill name is required."
    if len(name) > MAX_NAME_LENGTH:
        return f"Skill name exceeds {MAX_NAME_LENGTH} characters."
    if not VALID_NAME_RE.fullmatch(name):  # Hermes's `$` lets a final newline through: hmc doesn't
        return f"Invalid skill name {name!r}: use lowercase letters, numbers, hyphens, dots and underscores."
    return None


def _category_error(category: Any) -> str | None:
    if category is None:
        return None
    if not isinstance(category, str):
        return "Category must be a string."
    c = category.strip()
    if c != category:  # Hermes checks it stripped but makes the folder unstripped (" cat/", "cat\n/")
        return f"Invalid category {category!r}: spaces or line breaks around it would become part of the folder name"
    if not c:
        return None
    if "/" in c or "\\" in c or len(c) > MAX_NAME_LENGTH or not VALID_NAME_RE.fullmatch(c):
        return f"Invalid category {c!r}: one folder name of lowercase letters, numbers, - . _"
    return None


def _file_path_error(file_path: str) -> tuple[str, str] | None:
    if not file_path:
        return INVALID, "file_path is required."
    parts = PurePosixPath(file_path).parts
    if ".." in Path(file_path).parts or ".." in parts:
        return ESCAPES, "Path traversal ('..') is not allowed."
    if file_path.startswith("/") or os.path.isabs(file_path) or "\x00" in file_path:
        return ESCAPES, f"an absolute path ({file_path!r}) leaves the skill folder"
    if parts and parts[-1] == "SKILL.md" and len(parts) in (1, 2):
        return None
    if not parts or parts[0] not in ALLOWED_SUBDIRS:
        return INVALID, f"File must be under one of: {', '.join(sorted(ALLOWED_SUBDIRS))}. Got: {file_path!r}"
    if len(parts) < 2:
        return INVALID, f"Provide a file path, not just a directory. Example: '{parts[0]}/myfile.md'"
    return None


def _size_error(text: str, label: str) -> str | None:
    if len(text) > MAX_SKILL_CONTENT_CHARS:
        return f"{label} content is {len(text):,} characters (limit: {MAX_SKILL_CONTENT_CHARS:,})."
    return None


def _encodable(text: str, label: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise _Refuse(MALFORMED, f"{label} holds characters that can't be written as UTF-8 (lone surrogates)") from None


def _opt_str(payload: dict, key: str) -> str | None:
    value = payload.get(key)
    if value is not None and not isinstance(value, str):
        raise _Refuse(MALFORMED, f"payload field {key!r} is not text")
    return value
