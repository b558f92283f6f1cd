"""#21: a doubled separator leaves a lone `§` line inside an entry (the release reads it so, see
tests/conformance/test_corrections.py); hmc calls it untidy, the review lists it, the repair removes it."""

from __future__ import annotations

import pytest

from core.store.memory import MemoryStore, tidy_entries, untidy

ISSUE = "Deploys on Fridays.\n§\n§\nThe CI runs on push.\n§\nUses pnpm"


@pytest.mark.parametrize("raw,number", [
    (ISSUE, "entry 2"),
    ("a\n§\n§\n§\nb", "entry 2"),
    ("a\n§\n§", "entry 2"),
    ("§\n§\na\n§\nb\n§\n§\nc", "entries 1, 4"),  # "§", "a", "b", "§\nc"
    ("a\r\n§\r\n§\r\nb", "entry 2"),  # CRLF files too
])
def test_a_lone_section_line_is_untidy_naming_the_entry(raw, number):
    found = [u for u in untidy(raw) if "lone § line" in u]
    assert len(found) == 1 and f"in {number} " in found[0]


@pytest.mark.parametrize("raw", ["a\n§\nb", "a § b\n§\nc", "§ marks a section\n§\nb", "a\n§§\nb", ""])
def test_a_section_sign_that_is_not_a_lone_line_is_not_flagged(raw):
    assert not any("lone § line" in u for u in untidy(raw))


@pytest.mark.parametrize("raw,meant", [
    (ISSUE, ["Deploys on Fridays.", "The CI runs on push.", "Uses pnpm"]),
    ("a\n§\n§\n§\nb", ["a", "b"]),
    ("a\n§\n§", ["a"]),
    ("a\n § \n§\nb", ["a", "b"]),  # a stray-space line and a bare one in a row
    ("a\n§\n§\na", ["a"]),  # once the stray line goes, the copy is a duplicate
    ("§ keeps its sign\n§\nb", ["§ keeps its sign", "b"]),
])
def test_tidy_entries_drop_lone_section_lines(raw, meant):
    assert tidy_entries(raw) == meant


def test_repair_removes_it_after_a_backup(tmp_path):
    path = tmp_path / "MEMORY.md"
    path.write_text(ISSUE, encoding="utf-8")
    store = MemoryStore("memory", path, 2200)
    assert store.read().untidy and store.read().drift is None
    result = store.repair()
    assert result.backup.read_text(encoding="utf-8") == ISSUE
    assert path.read_text(encoding="utf-8") == "Deploys on Fridays.\n§\nThe CI runs on push.\n§\nUses pnpm"
    assert store.read().untidy == () and len(store.last.entries) == 3


def test_the_review_flags_it(tmp_path):
    from datetime import date

    from core.curator import open_curator
    from core.review.findings import run_review

    root = tmp_path / "h"
    (root / "memories").mkdir(parents=True)
    (root / "memories" / "MEMORY.md").write_text(ISSUE, encoding="utf-8")
    found = [f for f in run_review(open_curator(root, today=date(2026, 11, 15))) if f.kind == "drift"]
    assert [f.rule for f in found] == ["untidy"] and "lone § line in entry 2" in found[0].detail
