"""The project context files a release loads into the system prompt for a working folder, and how
much of each (what the review means by "Hermes already loads that file as context").

Read from each release's `agent/prompt_builder.build_context_files_prompt` (tests/conformance/
test_context_files.py holds hmc to it on every release). One project type loads, the first found:

1. `.hermes.md` / `HERMES.md`: in the working folder, then each folder above it up to and including
   the git root (the first folder holding a `.git`, a folder or a file); with no git root, every
   folder up to `/` before 0.18, the working folder only from 0.18. Its front matter (`---` … `---`)
   is dropped.
2. `AGENTS.md` / `agents.md` in the working folder; from 0.20 the chain of folders from the git root
   down to it, each folder's first non-empty file (0.22 tries `AGENTS.override.md` first), a text
   already loaded higher up skipped.
3. `CLAUDE.md` / `claude.md` in the working folder.
4. `.cursorrules` and `.cursor/rules/*.mdc` (sorted) in the working folder, together.

A file is read as UTF-8 (0.22: a byte-order mark dropped; before, a file that isn't UTF-8 is
skipped) and stripped; an empty one is skipped. Each is headed `## <label>` and cut to the cap,
keeping the first 70% and the last 20% of its characters (the middle is replaced by a notice). The
cap is 20,000 characters; from 0.17 config.yaml's `context_file_max_chars` sets it, and without it
a model with a large context window gets more (up to 500,000), which hmc can't know: it keeps to
20,000, so it may say less is loaded than is, never more. A file the release's scan would block is
replaced by a `[BLOCKED: …]` notice: hmc takes any hit of the release's scan as blocked (it loads
nothing of that file here).

Where the agent ran: `sessions.cwd` in state.db (0.16+ records it for command-line sessions).
Never Textual; reads files only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from core.hermes.release import Release

DEFAULT_CAP = 20_000
HEAD, TAIL = 0.7, 0.2
MAX_FILE_BYTES = 4 << 20  # a context file past this isn't read (its kept part is at most the cap anyway)
HERMES_MD = (".hermes.md", "HERMES.md")
CLAUDE_MD = ("CLAUDE.md", "claude.md")


@dataclass(frozen=True)
class ContextFile:
    label: str  # as the release heads it: "AGENTS.md", ".hermes.md", ".cursorrules"…
    path: Path
    head: str  # what the prompt holds of it: `## label` and the text, or its start when cut
    tail: str = ""  # the end the cap keeps ("" when nothing was cut)

    @property
    def cut(self) -> bool:
        return bool(self.tail)

    @property
    def text(self) -> str:
        return f"{self.head}\n{self.tail}" if self.tail else self.head


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:
        return False


def git_root(folder: Path) -> Path | None:
    for candidate in (folder, *folder.parents):
        if _exists(candidate / ".git"):
            return candidate
    return None


def _read(path: Path, release: "Release") -> str:
    """The file's text as the release reads it ("" when it can't: skipped)."""
    from core.store.atomic import read_regular

    try:
        if not path.is_file():
            return ""
        data = read_regular(path, MAX_FILE_BYTES)
    except OSError:
        return ""
    try:
        text = data.decode("utf-8-sig" if release >= (0, 22) else "utf-8")
    except UnicodeDecodeError:
        return ""
    if release >= (0, 19) and text.startswith("\ufeff"):  # 0.19 and 0.20 drop one byte-order mark
        text = text[1:]
    return text.strip()


def _blocked(text: str, release: "Release") -> bool:
    from core.hermes.scan import threat_ids

    return bool(threat_ids(text, release))


def _front_matter(text: str) -> str:
    if text.startswith("---"):
        end = text.find("\n---", 3)
        if end != -1:
            return text[end + 4:].lstrip("\n").strip()
    return text


def kept(label: str, body: str, cap: int) -> tuple[str, str]:
    """`## label` and the body as the prompt holds them: (all of it, "") or, when longer than the
    cap, (its first 70% of the cap, its last 20%)."""
    return _split(f"## {label}\n\n{body}", cap)


def _first(folder: Path, names: tuple[str, ...], release: "Release") -> tuple[Path, str] | None:
    for name in names:
        text = _read(folder / name, release)
        if text:
            return folder / name, text
    return None


def _hermes_md(cwd: Path, root: Path | None, release: "Release") -> list[tuple[str, Path, str]]:
    if root is not None:
        folders = [cwd, *[p for p in cwd.parents if root in (p, *p.parents)]]
    else:
        folders = [cwd] if release >= (0, 18) else [cwd, *cwd.parents]
    for folder in folders:
        found = _first(folder, HERMES_MD, release)
        if found:
            path, text = found
            label = path.name if folder != cwd else str(path.relative_to(cwd))
            return [(label, path, _front_matter(text))]
    return []


def _agents_md(cwd: Path, root: Path | None, release: "Release") -> list[tuple[str, Path, str]]:
    names = ("AGENTS.override.md", "AGENTS.md", "agents.md") if release >= (0, 22) else ("AGENTS.md", "agents.md")
    if release < (0, 20):
        found = _first(cwd, names, release)
        return [(found[0].name, *found)] if found else []
    chain = [cwd] if root is None else [*reversed([p for p in (cwd, *cwd.parents) if root in (p, *p.parents)])]
    out, seen = [], set()
    for folder in chain:
        found = _first(folder, names, release)
        if found and found[1] not in seen:
            seen.add(found[1])
            import os

            label = found[0].name if folder == cwd else os.path.relpath(found[0], cwd)
            out.append((label, *found))
    return out


def _claude_md(cwd: Path, release: "Release") -> list[tuple[str, Path, str]]:
    found = _first(cwd, CLAUDE_MD, release)
    return [(found[0].name, *found)] if found else []


def _cursor(cwd: Path, release: "Release") -> list[tuple[str, Path, str]]:
    out = []
    rules = _read(cwd / ".cursorrules", release)
    if rules:
        out.append((".cursorrules", cwd / ".cursorrules", rules))
    try:
        mdc = sorted((cwd / ".cursor" / "rules").glob("*.mdc"))
    except OSError:
        mdc = []
    for path in mdc:
        text = _read(path, release)
        if text:
            out.append((f".cursor/rules/{path.name}", path, text))
    return out


def project_files(cwd: Path, release: "Release", cap: int = DEFAULT_CAP) -> list[ContextFile]:
    """The project context files the release loads when the agent runs in `cwd`, each as much of it
    as the prompt holds; [] when none (or `cwd` isn't a folder)."""
    try:
        cwd = Path(cwd).resolve()
        if not cwd.is_dir():
            return []
    except OSError:
        return []
    root = git_root(cwd)
    cursor = False
    found = _hermes_md(cwd, root, release) or _agents_md(cwd, root, release) or _claude_md(cwd, release)
    if not found:
        found, cursor = _cursor(cwd, release), True
    found = [(label, path, text) for label, path, text in found if not _blocked(text, release)]
    if not found:  # (a blocked file still wins its turn: the release shows a [BLOCKED: …] notice)
        return []
    if cursor:  # one section per file, cut once together as .cursorrules
        whole = "".join(f"## {label}\n\n{text}\n\n" for label, _, text in found)
        return [ContextFile(".cursorrules", found[0][1], *_split(whole, cap))]
    out = [ContextFile(label, path, *kept(label, text, cap)) for label, path, text in found]
    if len(out) > 1:  # 0.20's AGENTS.md chain: each cut under its label, then all of them cut again
        whole = "\n\n".join(f.text for f in out)
        if len(whole) > cap:
            return [ContextFile("AGENTS.md (directory chain)", out[-1].path, *_split(whole, cap))]
    return out


def _split(text: str, cap: int) -> tuple[str, str]:
    return (text, "") if len(text) <= cap else (text[:int(cap * HEAD)], text[-int(cap * TAIL):])


def cap_for(release: "Release", config_value: object) -> int:
    """The per-file cap hmc assumes: config.yaml's `context_file_max_chars` (0.17+, a positive
    number), else 20,000 (the release's floor: a larger model context may load more)."""
    if release >= (0, 17) and type(config_value) is int and config_value > 0:
        return config_value
    return DEFAULT_CAP
