"""The demo home the TUI tests copy (built once per process) is exactly what a build gives."""

from __future__ import annotations

import re

from core.demo.build import build_demo_home
from tools.shots import TODAY


def tree(root) -> dict[str, bytes | str | None]:
    """Every file's bytes; state.db as its rows, with the home's own path said as <home> (the
    sessions ran in the home's demo-projects/: each build names its own)."""
    out: dict[str, bytes | str | None] = {}
    for p in root.rglob("*"):
        if p.name == "state.db":
            import sqlite3

            con = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
            dump = "\n".join(con.iterdump())  # (a copy's rows still name the template it was copied from)
            out[str(p.relative_to(root))] = re.sub(r"'[^']*/demo-projects/", "'<home>/demo-projects/", dump)
            con.close()
        else:
            out[str(p.relative_to(root))] = None if p.is_dir() else p.read_bytes()
    return out


def test_the_copied_demo_home_is_a_fresh_build(demo_home, tmp_path):
    fresh = build_demo_home(tmp_path / "fresh", TODAY)
    assert tree(demo_home) == tree(fresh)
    assert {p.stat().st_mode for p in demo_home.rglob("*")} == {p.stat().st_mode for p in fresh.rglob("*")}


def test_a_test_that_changes_its_demo_home_leaves_the_next_ones_alone(demo_home, demo_template):
    (demo_home / "memories" / "MEMORY.md").write_bytes(b"changed")
    assert (demo_template / "memories" / "MEMORY.md").read_bytes() != b"changed"
