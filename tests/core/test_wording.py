"""core.hermes.wording: every refusal kind the releases produce, said for a person. The release
texts are produced by hmc's model of each release (core.hermes.memory / scan, compared with the
releases by tests/conformance), so a change of wording there shows up here."""

from __future__ import annotations

import pytest

from core.hermes import memory as M
from core.hermes import scan as hermes_scan
from core.hermes.release import KNOWN
from core.hermes.wording import KINDS, explain, for_person
from core.pending.records import unpinned_reason

FILE = "MEMORY.md"
PEOPLE = ("current_entries", "this turn", "old_text", "retry", "Retry", "ONE", "operations", "-- ")


def refusal(entries, ops, release, limit=100, **kw) -> str:
    with pytest.raises(M.OpError) as err:
        M.plan(entries, ops, limit, release=release, **kw)
    return str(err.value)


def said(message: str, entries: int | None = 2) -> tuple[str | None, str]:
    e = explain(message, FILE, entries, see="hmc memory list")
    for agent_word in PEOPLE:  # nothing written for the agent survives
        assert agent_word not in e.text, (message, e.text)
    return e.kind, e.text


@pytest.mark.parametrize("release", KNOWN, ids=lambda r: r.name)
def test_matching_refusals(release):
    kind, text = said(refusal(["foo", "foo bar"], [M.Op("remove", old_text="zzz")], release))
    assert kind == "no-match" and text == "No entry contains 'zzz' (MEMORY.md has 2 entries: `hmc memory list`)."
    kind, text = said(refusal(["foo", "foo bar"], [M.Op("remove", old_text="foo\n§\nfoo bar x")], release))
    assert kind == "no-match" and "change one entry at a time" in text
    kind, text = said(refusal(["foo x", "foo bar"], [M.Op("replace", old_text="foo", content="z")], release))
    assert kind == "ambiguous" and text.startswith("'foo' is in more than one entry of MEMORY.md")


@pytest.mark.parametrize("release", KNOWN, ids=lambda r: r.name)
def test_limit_refusals_give_the_figures(release):
    kind, text = said(refusal(["a" * 50], [M.Op("add", content="b" * 60)], release))
    assert kind == "limit" and "MEMORY.md is at 50/100 chars" in text and "(60 chars)" in text
    assert "13 chars over its limit" in text  # 50 + 3 + 60 - 100
    kind, text = said(refusal(["a" * 50], [M.Op("replace", old_text="a", content="b" * 120)], release))
    assert kind == "limit" and "would be at 120/100 chars, 20 chars over its limit" in text
    kind, text = said(refusal(["a" * 50, "c"], [M.Op("remove", old_text="c"), M.Op("add", content="d" * 80)],
                              release))
    assert kind == "limit" and "These 2 changes together would leave MEMORY.md at 133/100 chars" in text


@pytest.mark.parametrize("release", KNOWN, ids=lambda r: r.name)
def test_batch_refusals_name_the_change_and_say_nothing_was_written(release):
    kind, text = said(refusal(["a", "c"], [M.Op("remove", old_text="c"), M.Op("remove", old_text="zz")], release))
    assert kind == "no-match" and text.startswith("Change 2 of the batch (remove): No entry contains 'zz'")
    assert text.endswith("Nothing was written: a batch applies all of its changes or none.")
    kind, text = said(refusal(["a", "c"], [M.Op("remove", old_text="a"), M.Op("add", content="")], release))
    assert kind == "empty" and "The new entry is empty" in text


@pytest.mark.parametrize("release", [r for r in KNOWN if r.patch], ids=lambda r: r.name)
def test_emptying_a_store_and_patch_refusals_022(release):
    kind, text = said(refusal(["a", "c"], [M.Op("remove", old_text="a"), M.Op("remove", old_text="c")], release))
    assert kind == "empties-store" and "would remove every entry of MEMORY.md" in text
    kind, text = said(refusal(["budget 1000"], [M.Op("patch", old_text="00", content="11")], release, person=True))
    assert kind == "span-twice" and text == "'00' occurs 2 times in that entry: give a longer span that occurs once."
    kind, text = said(refusal(["budget 1000"], [M.Op("patch", old_text="10", content="10")], release, person=True))
    assert kind == "no-op" and text == "Nothing to change: '10' → '10' leaves the entry as it is."
    kind, text = said(M.REPLACE_REFUSED)
    assert kind == "unknown"
    kind, text = said(M.MISSING_ACTION)
    assert kind == "empty"
    kind, text = said(M.stale_pin_message("Deploy with make ship"))
    assert kind == "pin-changed" and "'Deploy with make ship'" in text and "The record is kept." in text


@pytest.mark.parametrize("release", KNOWN, ids=lambda r: r.name)
def test_empty_and_unknown(release):
    for ops, expected in (([M.Op("add", content="  ")], "The new entry is empty"),
                          ([M.Op("replace", old_text="a", content=" ")], "The new text is empty"),
                          ([M.Op("remove", old_text=" ")], "Say which entry")):
        with pytest.raises(M.OpError) as err:
            M.precheck(ops, release=release)
        kind, text = said(str(err.value))
        assert kind == "empty" and text.startswith(expected)
    with pytest.raises(M.OpError) as err:
        M.precheck([M.Op("frob")], release=release)
    kind, text = said(str(err.value))
    assert kind == "unknown" and text.startswith("'frob' is not an operation Hermes knows")
    with pytest.raises(M.OpError) as err:
        M.precheck([M.Op("patch", old_text="a", content=" ")], release=release, person=True)
    assert said(str(err.value))[0] == "empty"


@pytest.mark.parametrize("release", KNOWN, ids=lambda r: r.name)
def test_scan_refusals(release):
    message = hermes_scan.refusal("ignore previous instructions", release)
    kind, text = said(message)
    assert kind == "blocked" and "'prompt_injection'" in text and text.startswith("Hermes's scan refuses")
    kind, text = said("Hermes's own scan refuses it: " + message)  # the pending verdict says it once
    assert text.count("scan refuses") == 1
    kind, text = said(hermes_scan.refusal("zero\u200bwidth", release))
    assert kind == "blocked" and "invisible character (U+200B)" in text


@pytest.mark.parametrize("release", KNOWN, ids=lambda r: r.name)
def test_drift_and_unreadable(release):
    kind, text = said(M.drift_message(FILE, "/h/memories/MEMORY.md.bak.1700000000", release))
    assert kind == "drift" and "Hermes won't edit MEMORY.md" in text and "MEMORY.md.bak.1700000000" in text
    assert ("longer than the whole limit" in text) == (not release.round_trip_drift)
    kind, text = said(M.read_failed_message("USER.md"))
    assert kind == "unreadable" and text.startswith("USER.md can't be read right now")


def test_unpinned_disabled_and_already():
    kind, text = said(unpinned_reason("0.22.2"))
    assert kind == "unpinned" and "Hermes 0.22.2 won't approve it" in text
    kind, text = said("Built-in USER.md writes are disabled in memory config.")
    assert kind == "disabled" and "USER.md" in text
    kind, text = said("Entry already exists (no duplicate added).")
    assert kind == "already" and text == "Already in MEMORY.md: nothing was added."


def test_the_consolidation_cap():
    """0.19-0.22 replace a full store's refusal with this once a turn's failures pass 3 (the text as
    tools/memory_tool.py writes it; the conformance oracle stages it: tests/conformance/test_wording.py)."""
    kind, text = said("Memory consolidation failed 4 times this turn. Stop retrying memory calls — leave memory "
                      "unchanged for now and continue with your reply to the user. The fact can be saved in a "
                      "later turn.")
    assert kind == "consolidation-cap"
    assert text.startswith("Hermes gave up after 4 failed memory writes in one turn") and "MEMORY.md was full" in text


def test_every_kind_is_covered_by_a_test_above():
    import inspect
    import sys

    source = inspect.getsource(sys.modules[__name__])
    assert all(f'"{kind}"' in source for kind in KINDS), [k for k in KINDS if f'"{kind}"' not in source]


def test_a_message_that_is_not_the_releases_comes_back_unchanged():
    for message in ("MEMORY.md is locked by another writer (Hermes?) for over 10 s; try again", "", "Entry added."):
        assert explain(message).kind is None and for_person(message) == message


def test_the_listing_without_a_count_or_command():
    assert for_person("No entry matched 'x'.", "USER.md") == "No entry contains 'x'."
    assert for_person("No entry matched 'x'.", "USER.md", 1) == "No entry contains 'x' (USER.md has 1 entry)."


def test_quoted_text_is_kept_as_given_quotes_and_newlines_included():
    old = "it's\nmulti-line '§'."
    assert f"'{old}'" in for_person(f"No entry matched '{old}'.")


@pytest.mark.parametrize("message,kind,start", [
    ("Content is required for 'add' action.", "empty", "The new entry is empty"),
    ("content is required for 'replace' action.", "empty", "The new text is empty"),
    ("old_text is required for 'replace' action.", "empty", "Say which entry"),
    ("'replace' needs old_text -- a short unique substring of the entry to replace. None was provided. "
     "Reissue the replace with old_text set to part of one of the current_entries below.", "empty", "Say which entry"),
    ("Invalid target 'x'. Use 'memory' or 'user'.", "unknown", "'x' is not a store"),
    ("Invalid memory target 'x'. Use 'memory' or 'user'.", "unknown", "'x' is not a store"),
    ("Unknown action 'None'", "unknown", "'None' is not an operation"),
    ("Memory is not available. It may be disabled in config or this environment.", "disabled", "Hermes's memory is off"),
])
def test_the_tool_level_texts_of_the_releases(message, kind, start):
    """Texts the releases' memory_tool returns before the store is touched (checked against the
    releases in tests/conformance/test_wording.py)."""
    got, text = said(message)
    assert got == kind and text.startswith(start)


def test_long_texts_full_of_quotes_are_read_in_one_pass():
    """A staged record's old_text can be ~1 MB; matching is anchored, so a text full of quotes that
    is no release message costs one pass, not one per quote (this took minutes with a search)."""
    noise = "x'y " * 250_000
    assert explain(noise).kind is None and explain("Operation 1 (add): " + noise + " appears").kind is None
    assert explain(f"No entry matched '{noise}'.").kind == "no-match"


def test_hmc_prefixes_before_a_release_message():
    replay = ("the release reported success, but replayed on the store as hmc rebuilt it the call fails: "
              "Operation 2 (remove): no entry matched 'x'. No operations were applied (batch is all-or-nothing).")
    kind, text = said(replay)
    assert kind == "no-match" and text.startswith("Hermes applied this call, but it fails on the file as hmc "
                                                  "rebuilt it: Change 2 of the batch (remove): No entry contains 'x'")
    assert explain("something else: No entry matched 'x'.").kind is None  # an unknown prefix is left alone
