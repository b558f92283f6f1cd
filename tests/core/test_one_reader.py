"""hmc reads files one way: core.store.atomic's `open_regular` / `read_regular` (regular files only,
opened without blocking, up to a size). A plain `open()`, `Path.read_text()` or `read_bytes()` on a
path where a FIFO sits hangs until a writer comes, so none is left in core/ or tui/: this walks the
source and names any that comes back. (Writes are not reads: they go through atomic_write, or to a
path the person named.) tests/cli/test_own_files_fifo.py puts a FIFO at each path."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
READERS = {"read_text", "read_bytes"}
# os.open is the reader's own, skill_undo's folder descriptors and exclusive creates, and the CLI's
# /dev/null opened for writing (stdout pointed there when its reader went away: tui.cli.main)
OS_OPEN_ALLOWED = {"core/store/atomic.py", "core/pending/skill_undo.py", "tui/cli/main.py",
                   "core/external_editor.py"}  # creates the editor's 0600 file (O_EXCL), reads it back by read_regular


# runs only inside the user's Hermes interpreter (stdlib and Hermes, no hmc), on scratch homes hmc made
RUNS_IN_HERMES = {"core/hermes/driver.py"}


def _sources():
    for folder in ("core", "tui"):
        yield from (p for p in sorted((ROOT / folder).rglob("*.py"))
                    if p.relative_to(ROOT).as_posix() not in RUNS_IN_HERMES)


def _reads(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    rel = path.relative_to(ROOT).as_posix()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in READERS and not isinstance(node.ctx, ast.Store):
            found.append(f"{rel}:{node.lineno}: .{node.attr}")  # called, or handed on (to_thread(p.read_bytes))
            continue
        if not isinstance(node, ast.Call):
            continue
        fn = node.func
        if isinstance(fn, ast.Name) and fn.id == "open":
            found.append(f"{rel}:{node.lineno}: open()")
        elif isinstance(fn, ast.Attribute):
            if fn.attr in READERS:
                continue  # counted as an attribute above
            if fn.attr == "open" and isinstance(fn.value, ast.Name) and fn.value.id in ("io", "codecs"):
                found.append(f"{rel}:{node.lineno}: {fn.value.id}.open()")
            elif fn.attr == "open" and not (isinstance(fn.value, ast.Name) and fn.value.id in ("os", "webbrowser")):
                found.append(f"{rel}:{node.lineno}: .open()")
            elif fn.attr == "open" and isinstance(fn.value, ast.Name) and fn.value.id == "os" \
                    and rel not in OS_OPEN_ALLOWED:
                found.append(f"{rel}:{node.lineno}: os.open()")
    return found


def test_every_file_hmc_reads_goes_through_the_one_reader():
    found = [hit for path in _sources() for hit in _reads(path)]
    assert found == [], "plain reads left:\n" + "\n".join(found)


@pytest.mark.parametrize("code,hits", [
    ("open('x')", 1), ("Path('x').read_text()", 1), ("p.read_bytes()", 1), ("io.open('x')", 1),
    ("p.open('rb')", 1), ("os.open('x', 0)", 1), ("asyncio.to_thread(p.read_bytes)", 1), ("read_regular('x', 10)", 0), ("webbrowser.open(u)", 0),
])
def test_the_walk_sees_each_kind_of_plain_read(tmp_path, monkeypatch, code, hits):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (tmp_path / "core").mkdir()
    path = tmp_path / "core" / "m.py"
    path.write_text(code + "\n", encoding="utf-8")
    assert len(_reads(path)) == hits
