"""Drift verdicts: hmc calls a file drifted exactly when the release's own guard would refuse it.

Releases before 0.15 have no guard; for them the tests check that hmc never refuses an edit for
drift, by editing drifted files on both sides."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conformance import hmc_side as hmc
from tests.conformance.oracle import copy_home
from tests.conformance.strategies import Scratch, examples, store_text

pytestmark = pytest.mark.area("drift")

# (name, text, drifted?) — the releases' verdicts, measured
CASES = [
    ("canonical", "a\n§\nb", False),
    ("crlf", "a\r\n§\r\nb", False),
    ("cr only", "a\r§\rb", False),
    ("crlf inside an entry", "a\r\nstill a\n§\nb", False),
    ("duplicates", "a\n§\nb\n§\na", False),
    ("section line with spaces", "a\n § \nb", False),
    ("section line with a tab", "a\n\t§\nb", False),
    ("bom", "\ufeffa\n§\nb", False),
    ("trailing newline", "a\n§\nb\n", False),
    ("leading blank lines", "\n\na\n§\nb", False),
    ("space before a separator", "a \n§\nb", True),
    ("blank line before a separator", "a\n\n§\nb", True),
    ("blank line after a separator", "a\n§\n\nb", True),
    ("empty entry", "a\n§\n\n§\nb", True),
    ("two separators in a row", "a\n§\n§\nb", False),  # reads as 'a', '§\nb': round-trips
    ("nbsp after an entry", "a\u00a0\n§\nb", True),
    ("whitespace-only file", " \n \n", False),
    ("empty file", "", False),
]


@pytest.mark.parametrize("name,text,drifted", CASES, ids=[c[0] for c in CASES])
def test_hand_picked_drift_verdicts(oracle, make_home, name, text, drifted):
    oracle.require("drift")
    release = hmc.release_of(oracle)
    home = make_home(memory=text.encode(), user=text.encode())
    drifted = drifted and release.round_trip_drift  # 0.22: layout is not drift (only an oversized entry)
    for target in hmc.TARGETS:
        out = oracle.drift(home, target)
        assert out["raised"] is None
        assert out["drift"] is drifted  # the case itself is right
        snap = hmc.read(home, target, release)
        assert (snap.drift is not None) is drifted, snap.drift


@pytest.mark.parametrize("length,limit", [(20, 20), (21, 20), (2200, 2200), (2201, 2200)])
def test_an_entry_longer_than_the_whole_limit_is_drift(oracle, make_home, length, limit):
    oracle.require("drift")
    release = hmc.release_of(oracle)
    home = make_home(memory="short\n§\n" + "x" * length, user="y" * length)
    limits = (limit, limit)
    for target in hmc.TARGETS:
        out = oracle.drift(home, target, limits=limits)
        assert out["drift"] is (length > limit)
        snap = hmc.read(home, target, release, limits)
        assert (snap.drift is not None) is out["drift"]


def test_a_store_over_its_limit_with_short_entries_is_not_drift(oracle, make_home):
    oracle.require("drift")
    release = hmc.release_of(oracle)
    home = make_home(memory="\n§\n".join(["x" * 15] * 1 + ["y" * 15, "z" * 15]))
    out = oracle.drift(home, "memory", limits=(20, 20))
    assert out["drift"] is False
    assert hmc.read(home, "memory", release, (20, 20)).drift is None


def test_invalid_utf8_raises_in_the_guard_and_is_an_error_in_hmc(oracle, make_home):
    oracle.require("drift")
    release = hmc.release_of(oracle)
    home = make_home(memory=b"a \n\xc2\xa7\n\xff")
    out = oracle.drift(home, "memory")
    assert out["drift"] is None and out["raised"]["type"] == "UnicodeDecodeError"
    snap = hmc.read(home, "memory", release)
    assert snap.drift is None and "not valid UTF-8" in snap.error


@examples(80)
@given(text=store_text(), limit=st.sampled_from([8, 30, 2200]))
def test_generated_drift_verdicts(oracle, tmp_path, text, limit):
    oracle.require("drift")
    release = hmc.release_of(oracle)
    home = Scratch(tmp_path)()
    (home / "memories").mkdir()
    (home / "memories" / "MEMORY.md").write_bytes(text.encode())
    out = oracle.drift(home, "memory", limits=(limit, limit))
    assert out["raised"] is None
    snap = hmc.read(home, "memory", release, (limit, limit))
    assert (snap.drift is not None) is out["drift"], (text, snap.drift)


DRIFTED = ["a \n§\nb", "a\n§\n\n§\nb", "a\n\n§\nb\n§\nc"]


@pytest.mark.parametrize("text", DRIFTED, ids=repr)
def test_a_release_without_the_guard_edits_a_drifted_file_and_so_does_hmc(oracle, make_home, tmp_path, text):
    if oracle.has("drift"):
        pytest.skip(f"hermes {oracle.version} has the drift guard (tested above)")
    release = hmc.release_of(oracle)
    assert not release.drift_guard
    home = make_home(memory=text)
    mine = copy_home(home, tmp_path / "hmc")
    assert hmc.read(mine, "memory", release).drift is None
    call = {"action": "replace", "target": "memory", "old_text": "b", "content": "B"}
    theirs = hmc.oracle_outcome(oracle.apply(home, **call))
    ours = hmc.hmc_call(mine, call, release)
    assert theirs.ok and ours.ok
    assert hmc.store_bytes(mine) == hmc.store_bytes(home)
