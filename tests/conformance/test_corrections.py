"""HERMES-FORMATS.md §0 lists where the notes were wrong, measured against the releases. Each
correction is a test here: the release does it (the oracle), and hmc does the same."""

from __future__ import annotations

import pytest

from core.curator import open_curator
from core.hermes.memory import prompt_block
from tests.conformance import hmc_side as hmc
from tests.conformance.oracle import copy_home

S = "\n§\n"


@pytest.mark.area("reading")
def test_no_release_before_0_20_strips_a_bom_and_the_scan_then_blocks_entry_one(oracle, make_home):
    release = hmc.release_of(oracle)
    home = make_home(memory="\ufeffUser likes tea" + S + "second")
    entry1 = "User likes tea" if release.strips_bom else "\ufeffUser likes tea"  # 0.20: utf-8-sig
    assert oracle.read(home)["memory_entries"] == [entry1, "second"]
    snap = hmc.read(home, "memory", release)
    assert snap.entries == (entry1, "second") and snap.bom and snap.drift is None
    theirs = oracle.prompt(home)["memory"]
    assert prompt_block("memory", snap.entries, 2200, release) == theirs
    if release.strips_bom:
        assert "BLOCKED" not in theirs and theirs.endswith("User likes tea" + S + "second")
    elif release.load_scan:
        assert "[BLOCKED: MEMORY.md entry contained threat pattern(s): invisible_unicode_U+FEFF." in theirs
        assert "User likes tea" not in theirs
    else:
        assert "\ufeffUser likes tea" in theirs


@pytest.mark.area("reading")
@pytest.mark.parametrize("data", [b"tea\r\n\xc2\xa7\r\ncoffee", b"tea\r\xc2\xa7\rcoffee"], ids=["crlf", "cr"])
def test_crlf_and_cr_are_read_as_newlines_and_are_not_drift(oracle, make_home, tmp_path, data):
    release = hmc.release_of(oracle)
    home = make_home(memory=data)
    assert oracle.read(home)["memory_entries"] == ["tea", "coffee"]
    snap = hmc.read(home, "memory", release)
    assert snap.entries == ("tea", "coffee") and snap.drift is None
    if oracle.has("drift"):
        assert oracle.drift(home, "memory")["drift"] is False
    mine = copy_home(home, tmp_path / "hmc")  # and both edit it, rewriting with LF
    hmc.replay(oracle, home, mine, [{"action": "remove", "target": "memory", "old_text": "coffee"}], release)
    assert hmc.store_bytes(mine)["MEMORY.md"] == b"tea"


@pytest.mark.area("drift")
def test_duplicates_are_dropped_on_load_and_are_not_drift(oracle, make_home, tmp_path):
    release = hmc.release_of(oracle)
    home = make_home(memory="tea" + S + "coffee" + S + "tea")
    assert oracle.read(home)["memory_entries"] == ["tea", "coffee"]
    snap = hmc.read(home, "memory", release)
    assert snap.entries == ("tea", "coffee") and snap.drift is None
    if oracle.has("drift"):
        assert oracle.drift(home, "memory")["drift"] is False
    mine = copy_home(home, tmp_path / "hmc")
    hmc.replay(oracle, home, mine, [{"action": "replace", "target": "memory", "old_text": "coffee",
                                     "content": "cocoa"}], release)
    assert hmc.store_bytes(mine)["MEMORY.md"] == ("tea" + S + "cocoa").encode()


@pytest.mark.area("reading")
@pytest.mark.parametrize("line", [" § ", "§ ", "\t§", " §\t"], ids=repr)
def test_a_section_line_with_spaces_or_a_tab_is_not_a_separator_nor_drift(oracle, make_home, line):
    release = hmc.release_of(oracle)
    text = f"alpha\n{line}\nbeta"
    home = make_home(memory=text)
    assert oracle.read(home)["memory_entries"] == [text]
    snap = hmc.read(home, "memory", release)
    assert snap.entries == (text,) and snap.drift is None
    assert snap.untidy  # offered as a tidy-up (a repair), never a refusal
    if oracle.has("drift"):
        assert oracle.drift(home, "memory")["drift"] is False


@pytest.mark.area("reading")
@pytest.mark.parametrize("text,read", [
    ("Deploys on Fridays.\n§\n§\nThe CI runs on push.", ["Deploys on Fridays.", "§\nThe CI runs on push."]),
    ("a\n§\n§\n§\nb", ["a", "§", "b"]),
    ("a\n§\n§", ["a", "§"]),
    ("§\n§\na", ["§", "a"]),
], ids=["doubled", "tripled", "trailing", "leading"])
def test_a_doubled_separator_leaves_a_lone_section_line_in_an_entry(oracle, make_home, tmp_path, text, read):
    """#21: the release reads a doubled `§` as a lone `§` line inside an entry (not drift); hmc
    shows it so, calls it untidy, and its repair (backup first) removes the line: the release then
    reads the entries the person meant."""
    release = hmc.release_of(oracle)
    home = make_home(memory=text)
    assert oracle.read(home)["memory_entries"] == read
    snap = hmc.read(home, "memory", release)
    assert list(snap.entries) == read and snap.drift is None
    assert any("lone § line" in u for u in snap.untidy)
    if oracle.has("drift"):
        assert oracle.drift(home, "memory")["drift"] is False
    result = hmc.store(home, "memory", release).repair()
    assert result.backup is not None and result.backup.read_bytes() == text.encode()
    meant = [e for e in (x.replace("§\n", "").replace("\n§", "") for x in read) if e != "§"]
    assert oracle.read(home)["memory_entries"] == meant
    assert not hmc.read(home, "memory", release).untidy


@pytest.mark.area("matching")
def test_matching_is_substring_only_with_no_equal_entry_first_rule(oracle, make_home, tmp_path):
    release = hmc.release_of(oracle)
    home = make_home(memory="foo" + S + "foo bar")
    mine = copy_home(home, tmp_path / "hmc")
    seen = hmc.replay(oracle, home, mine, [{"action": "remove", "target": "memory", "old_text": "foo"}], release)
    theirs, ours = seen[0]
    if release.exact_entry_first:  # 0.22: the entry equal to old_text wins
        assert theirs.ok and ours.ok
        assert hmc.store_bytes(mine)["MEMORY.md"] == b"foo bar"
        return
    assert not theirs.ok and theirs.error == "Multiple entries matched 'foo'. Be more specific."
    assert ours.error == theirs.error and ours.matches == ["foo", "foo bar"]
    assert hmc.store_bytes(mine)["MEMORY.md"] == ("foo" + S + "foo bar").encode()


@pytest.mark.area("matching")
def test_identical_duplicates_are_the_only_multi_match_that_applies_to_the_first(oracle, make_home, tmp_path):
    """On disk the duplicate is dropped at load, so the call sees one match; a replace that makes a
    duplicate writes it, and the next remove takes the first."""
    release = hmc.release_of(oracle)
    home = make_home(memory="tea" + S + "coffee")
    mine = copy_home(home, tmp_path / "hmc")
    hmc.replay(oracle, home, mine, [
        {"action": "replace", "target": "memory", "old_text": "coffee", "content": "tea"},
    ], release)
    assert hmc.store_bytes(mine)["MEMORY.md"] == ("tea" + S + "tea").encode()
    hmc.replay(oracle, home, mine, [{"action": "remove", "target": "memory", "old_text": "tea"}], release)
    assert hmc.store_bytes(mine)["MEMORY.md"] == b""


@pytest.mark.area("pending")
def test_no_release_before_0_22_writes_a_matched_entry_pin(oracle, make_home, tmp_path):
    oracle.require("write_approval")
    release = hmc.release_of(oracle)
    home = make_home(memory="tea" + S + "coffee", config="memory:\n  write_approval: true\n")
    edit = ({"action": "patch", "target": "memory", "old_text": "tea", "content": "green tea"} if release.patch
            else {"action": "replace", "target": "memory", "old_text": "tea", "content": "green tea"})
    if release.pins:  # 0.22 pins each destructive op to the entry it selected when staged
        staged = oracle.stage(home, [edit, {"action": "remove", "target": "memory", "old_text": "coffee",
                                            "origin": "background_review"},
                                     {"target": "memory", "operations": [{"action": "remove", "old_text": "tea"}]}])
        pins = [r["payload"].get("matched_entry") or r["payload"]["operations"][0]["matched_entry"]
                for r in staged["records"]]
        assert pins == ["tea", "coffee", "tea"]
        cur = open_curator(copy_home(home, tmp_path / "hmc"), hermes_version=oracle.version)
        assert [r.unpinned for r in cur.pending.list()] == [False, False, False]
        return
    staged = oracle.stage(home, [
        edit,
        {"action": "remove", "target": "memory", "old_text": "coffee", "origin": "background_review"},
        {"target": "memory", "operations": [{"action": "remove", "old_text": "tea"}]},
    ])
    for rec in staged["records"]:
        assert "matched_entry" not in rec["payload"]
        for op in rec["payload"].get("operations") or []:
            assert "matched_entry" not in op
    cur = open_curator(copy_home(home, tmp_path / "hmc"), hermes_version=oracle.version)
    assert [r.unpinned for r in cur.pending.list()] == [True, True, True]


@pytest.mark.area("prompt")
def test_no_release_truncates_the_prompt_block_or_marks_it_over_budget(oracle, make_home):
    release = hmc.release_of(oracle)
    entries = [f"note {i} " + "w" * 60 for i in range(40)]  # 2,827 chars against 100
    home = make_home(memory=S.join(entries))
    theirs = oracle.prompt(home, limits=(100, 100))["memory"]
    assert theirs.endswith(S.join(entries)) and "OVER BUDGET" not in theirs and "⚠" not in theirs
    assert f"[100% — {len(S.join(entries)):,}/100 chars]" == "[100% — 2,827/100 chars]"
    assert "[100% — 2,827/100 chars]" in theirs
    assert prompt_block("memory", hmc.read(home, "memory", release, (100, 100)).entries, 100, release) == theirs
