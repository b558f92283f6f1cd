"""Profile discovery (core.profiles.discovery) by the release's rules, and every odd folder and
active_profile named in one line, never a traceback or a hang. The conformance suite holds the same
rules to the releases' own functions (tests/conformance/test_profiles.py)."""

from __future__ import annotations

import os

import pytest

from core.hermes.release import for_version
from core.profiles.discovery import discover, read_sticky

R022 = for_version((0, 22, 2))[0]
R020 = for_version((0, 20, 1))[0]


def profile(base, name: str, marker: str | None = "SOUL.md"):
    folder = base / "profiles" / name
    (folder / "memories").mkdir(parents=True)
    if marker:
        (folder / marker).write_text("", encoding="utf-8")
    return folder


def test_named_profiles_default_first_and_the_markers_rule_by_release(tmp_path):
    profile(tmp_path, "ops", "config.yaml")
    profile(tmp_path, "contenu", ".env")
    profile(tmp_path, "bare", None)  # only memories/: a profile before 0.22, half-made from 0.22
    found = discover(tmp_path, R022)
    assert found.names() == ["default", "contenu", "ops"]
    (half,) = found.skipped
    assert half.shown == "bare" and "half-made" in half.why and "0.22.2" in half.why
    assert discover(tmp_path, R020).names() == ["default", "bare", "contenu", "ops"]
    assert found.profiles[0].root == tmp_path and found.profiles[0].default


def test_a_tombstone_hides_a_profile_from_0_22(tmp_path):
    profile(tmp_path, "gone")
    (tmp_path / "profiles" / ".deleted").mkdir()
    (tmp_path / "profiles" / ".deleted" / "gone").write_text("deleted\n")
    assert discover(tmp_path, R022).names() == ["default"]
    assert "deleted" in discover(tmp_path, R022).skipped[0].why
    assert discover(tmp_path, R020).names() == ["default", "gone"]


def test_profiles_default_folder_is_the_trap_not_a_profile(tmp_path):
    profile(tmp_path, "default")
    found = discover(tmp_path, R022)
    assert found.names() == ["default"] and found.default_trap == tmp_path / "profiles" / "default"
    assert discover(tmp_path / "nowhere", R022).default_trap is None


@pytest.mark.parametrize("name, why", [
    ("Upper", "not a profile name"), ("has.dot", "not a profile name"), ("_under", "not a profile name"),
    ("a" * 65, "not a profile name"), ("tab\there", "not a profile name"), ("nl\n", "line break"),
    ("hermes", "reserved"), ("test", "reserved"),
])
def test_bad_names_are_skipped_with_a_reason(tmp_path, name, why):
    profile(tmp_path, name)
    found = discover(tmp_path, R022)
    assert found.names() == ["default"]
    (skipped,) = found.skipped
    assert why in skipped.why and "\n" not in skipped.shown and "\t" not in skipped.shown
    assert len(skipped.shown) <= 40


def test_a_64_character_name_is_a_profile(tmp_path):
    profile(tmp_path, "b" * 64)
    assert discover(tmp_path, R022).names() == ["default", "b" * 64]


def test_files_fifos_and_dangling_links_are_skipped_and_a_linked_folder_counts(tmp_path):
    (tmp_path / "profiles").mkdir()
    (tmp_path / "profiles" / "afile").write_text("x")
    os.mkfifo(tmp_path / "profiles" / "pipe")
    os.symlink(tmp_path / "nowhere", tmp_path / "profiles" / "dangling")
    real = tmp_path / "elsewhere"
    (real / "memories").mkdir(parents=True)
    (real / "config.yaml").write_text("")
    os.symlink(real, tmp_path / "profiles" / "linked")
    found = discover(tmp_path, R022)  # returns at once: the FIFO is never opened
    assert found.names() == ["default", "linked"] and found.get("linked").link == str(real)
    why = {s.shown: s.why for s in found.skipped}
    assert "a file" in why["afile"] and "FIFO" in why["pipe"] and "link to nothing" in why["dangling"]


def test_an_unreadable_profiles_folder_is_named(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root reads every folder")
    (tmp_path / "profiles").mkdir()
    os.chmod(tmp_path / "profiles", 0)
    try:
        found = discover(tmp_path, R022)
    finally:
        os.chmod(tmp_path / "profiles", 0o755)
    assert found.names() == ["default"] and "can't be read" in found.skipped[0].why


@pytest.mark.parametrize("content, sticky, fails", [
    (b"ops\n", "ops", False), (b"  OPS \r\n", "ops", False), (b"", None, False), (b" \n", None, False),
    (b"Default\n", None, False), (b"\xff\xfe bad", None, False),  # not UTF-8: the release reads no profile
    (b"nosuch\n", "nosuch", True), (b"has.dot", "has.dot", True), (b"a\nb", "a\\nb", True),
    (b"hermes", "hermes", True), (b"bare", "bare", True),  # half-made under 0.22
    (b"x" * 5000, "x" * 39 + "…", True), (b" " * 4100 + b"ops\n", "ops", False),  # read whole, as the release
], ids=lambda v: repr(v)[:30])
def test_active_profile_as_the_release_reads_it(tmp_path, content, sticky, fails):
    profile(tmp_path, "ops")
    profile(tmp_path, "bare", None)
    (tmp_path / "active_profile").write_bytes(content)
    found = discover(tmp_path, R022)
    assert found.sticky == sticky
    assert (found.sticky_problem is not None) == fails
    assert found.active == ("default" if fails or sticky is None else sticky)
    if fails:
        assert "hermes profile use default" in found.sticky_problem and len(found.sticky_problem) < 300


def test_a_bom_is_dropped_from_0_22_and_fails_before(tmp_path):
    profile(tmp_path, "ops")
    (tmp_path / "active_profile").write_bytes(b"\xef\xbb\xbfops\n")
    assert discover(tmp_path, R022).active == "ops"
    assert discover(tmp_path, R020).sticky_problem is not None


def test_active_profile_as_a_fifo_or_folder_is_no_profile_and_never_hangs(tmp_path):
    os.mkfifo(tmp_path / "active_profile")
    assert read_sticky(tmp_path, R022) == (None, None)
    os.unlink(tmp_path / "active_profile")
    (tmp_path / "active_profile").mkdir()
    assert read_sticky(tmp_path, R022) == (None, None)


def test_a_folder_is_no_marker_and_a_dangling_tombstone_is_none(tmp_path):
    """0.22.2 counts a marker that is a file or a link (not a folder), and a tombstone that exists
    (a link to nothing isn't one): what the conformance suite found the release does."""
    (tmp_path / "profiles" / "dirmarker" / "config.yaml").mkdir(parents=True)
    profile(tmp_path, "linktomb", "config.yaml")
    (tmp_path / "profiles" / ".deleted").mkdir()
    os.symlink(tmp_path / "nowhere", tmp_path / "profiles" / ".deleted" / "linktomb")
    os.symlink(tmp_path / "nowhere", tmp_path / "profiles" / "linktomb" / "SOUL.md")
    assert discover(tmp_path, R022).names() == ["default", "linktomb"]


def test_a_huge_active_profile_is_named_not_read(tmp_path):
    (tmp_path / "active_profile").write_bytes(b"a" * (2 << 20))
    found = discover(tmp_path, R022)
    assert found.active == "default" and "bytes, not a profile name" in found.sticky_problem
