"""Reading: the entries hmc shows are the entries the release loads, for any bytes on disk."""

from __future__ import annotations

import pytest
from hypothesis import given

from tests.conformance import hmc_side as hmc
from tests.conformance.strategies import Scratch, examples, store_bytes

pytestmark = pytest.mark.area("reading")

S = "\n§\n"

BOM_STRIPPED = {"bom stays in entry 1": ["alpha", "beta"], "bom then blank": ["beta"]}  # 0.20+: utf-8-sig

# (name, bytes on disk, the entries every release up to 0.19 loads; BOM_STRIPPED for 0.20 and later)
CASES = [
    ("canonical", "Project uses pytest\n§\nOS is Debian 12".encode(), ["Project uses pytest", "OS is Debian 12"]),
    ("crlf", b"alpha\r\n\xc2\xa7\r\nbeta", ["alpha", "beta"]),
    ("cr only", b"alpha\r\xc2\xa7\rbeta", ["alpha", "beta"]),
    ("crlf inside an entry", "line one\r\nline two\n§\nnext".encode(), ["line one\nline two", "next"]),
    ("bom stays in entry 1", "\ufeffalpha\n§\nbeta".encode(), ["\ufeffalpha", "beta"]),
    ("bom then blank", "\ufeff\n§\nbeta".encode(), ["\ufeff", "beta"]),
    ("section line with spaces is not a separator", "alpha\n § \nbeta".encode(), ["alpha\n § \nbeta"]),
    ("section line with a tab", "alpha\n\t§\nbeta".encode(), ["alpha\n\t§\nbeta"]),
    ("bare section sign", "a§b\n§\n§\nc".encode(), ["a§b", "§\nc"]),
    ("duplicates dropped, first kept", "a\n§\nb\n§\na\n§\nb".encode(), ["a", "b"]),
    ("duplicates after stripping", "a \n§\n a".encode(), ["a"]),
    ("blank pieces dropped", "a\n§\n\n§\n  \n§\nb".encode(), ["a", "b"]),
    ("leading and trailing blank lines", "\n\n a\n§\nb\n\n".encode(), ["a", "b"]),
    ("trailing newline", "a\n§\nb\n".encode(), ["a", "b"]),
    ("unicode whitespace stripped", "\u00a0a\u3000\n§\n\x85b\x1c".encode(), ["a", "b"]),
    ("cjk and emoji", "用户喜欢简洁的回答\n§\n🚀 ships on Fridays\n§\n👩\u200d💻 codes".encode(),
     ["用户喜欢简洁的回答", "🚀 ships on Fridays", "👩\u200d💻 codes"]),
    ("invisible characters kept", "a\u200bb\n§\n\u202eevil".encode(), ["a\u200bb", "\u202eevil"]),
    ("tabs inside entries", "key:\tvalue\n§\n\tindented".encode(), ["key:\tvalue", "indented"]),
    ("empty file", b"", []),
    ("whitespace only", b" \n\t\r\n", []),
    ("only separators", "\n§\n\n§\n".encode(), []),
    ("line separator is not a newline", "a\u2028b\n§\nc".encode(), ["a\u2028b", "c"]),
]


def _compare_target(out: dict, home, target: str, release, limits=hmc.DEFAULT_LIMITS) -> None:
    snap = hmc.read(home, target, release, limits)
    assert snap.error is None, snap.error
    assert list(snap.entries) == out[f"{target}_entries"]


@pytest.mark.parametrize("name,data,expected", CASES, ids=[c[0] for c in CASES])
def test_hand_picked_files_read_as_the_release_reads_them(oracle, make_home, name, data, expected):
    release = hmc.release_of(oracle)
    if release.strips_bom and name in BOM_STRIPPED:
        expected = BOM_STRIPPED[name]
    home = make_home(memory=data, user=data)
    out = oracle.read(home)
    assert out["raised"] is None
    assert out["memory_entries"] == expected  # the case itself is right
    assert out["user_entries"] == expected
    for target in hmc.TARGETS:
        _compare_target(out, home, target, release)


def test_a_missing_store_reads_as_empty(oracle, make_home):
    release = hmc.release_of(oracle)
    home = make_home(config="memory: {}\n")
    out = oracle.read(home)
    assert out["memory_entries"] == [] and out["user_entries"] == [] and out["raised"] is None
    for target in hmc.TARGETS:
        snap = hmc.read(home, target, release)
        assert snap.entries == () and snap.error is None and not snap.exists


@pytest.mark.parametrize("bad", [b"\xff", b"\xc3(", b"\xed\xa0\x80", b"\xc0\xaf"], ids=repr)
def test_invalid_utf8_is_refused_by_both(oracle, make_home, bad):
    release = hmc.release_of(oracle)
    home = make_home(memory=b"ok\n\xc2\xa7\nbad " + bad + b" byte", user="fine")
    out = oracle.read(home)
    if release.unreadable_is_empty:  # 0.20+: the store loads as empty (writes to it are refused)
        assert out["raised"] is None and out["memory_entries"] == [] and out["user_entries"] == ["fine"]
    else:
        assert out["raised"]["type"] == "UnicodeDecodeError"
    snap = hmc.read(home, "memory", release)
    assert snap.entries == () and "not valid UTF-8" in snap.error
    # up to 0.19 the release stops at MEMORY.md; USER.md alone reads fine on both sides
    home2 = make_home(memory="fine", user=b"bad " + bad)
    out2 = oracle.read(home2)
    if release.unreadable_is_empty:
        assert out2["raised"] is None and out2["user_entries"] == []
    else:
        assert out2["raised"]["type"] == "UnicodeDecodeError"
    assert out2["memory_entries"] == ["fine"]
    _compare_target(out2, home2, "memory", release)
    assert "not valid UTF-8" in hmc.read(home2, "user", release).error


@examples(60)
@given(memory=store_bytes(), user=store_bytes())
def test_generated_files_read_as_the_release_reads_them(oracle, tmp_path, memory, user):
    release = hmc.release_of(oracle)
    home = Scratch(tmp_path)()
    (home / "memories").mkdir()
    (home / "memories" / "MEMORY.md").write_bytes(memory)
    (home / "memories" / "USER.md").write_bytes(user)
    out = oracle.read(home)
    for target, data in (("memory", memory), ("user", user)):
        snap = hmc.read(home, target, release)
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            assert snap.error is not None and "not valid UTF-8" in snap.error
            assert snap.entries == ()
            if release.unreadable_is_empty:  # 0.20+: loads as empty and goes on
                assert out[f"{target}_entries"] == []
                continue
            assert out["raised"] is not None and out["raised"]["type"] == "UnicodeDecodeError"
            return  # the release stops loading at the first file it can't decode
        assert snap.error is None
        loaded = out[f"{target}_entries"]
        if out["raised"] is not None:
            # USER.md raised: load_from_disk stopped before its dedupe step, so the agent's store
            # holds MEMORY.md's entries undeduped (and no prompt snapshot); every write re-reads
            # and dedupes, which is what hmc shows
            loaded = list(dict.fromkeys(loaded))
        assert list(snap.entries) == loaded, (target, data)
    assert out["raised"] is None
