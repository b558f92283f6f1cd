"""What each session loaded: the blocks recovered from a stored prompt, and every bad prompt read as
"not known" for that session, never an error (the releases' own prompts: tests/conformance/
test_loaded_memory.py)."""

from __future__ import annotations

import sqlite3

import pytest

from core.hermes.memory import prompt_block
from core.snapshots import blocks, loaded
from core.snapshots.compare import diff, stale_sessions
from core.snapshots.pruning import Pruning, settings
from core.snapshots.session import SessionLoad
from core.snapshots.tally import Snapshots
from core.hermes.release import NEWEST

from tests.core.snapshot_fixtures import HEAD, TAIL, make_db, prompt, sha


def test_both_blocks_come_back_exactly():
    memory, user = ["One.", "Two\n\nwith a blank line", "a § sign"], ["Alex"]
    got = blocks.parse(prompt(memory, user))
    assert got.entries("memory") == tuple(memory) and got.entries("user") == ("Alex",)
    assert blocks.render_loaded(got) == prompt(memory, user, head="", tail="")


def test_a_header_quoted_inside_an_entry_is_text_not_a_block():
    fake = "═" * 46 + "\nUSER PROFILE (who the user is) [5% — 1/1,375 chars]\n" + "═" * 46 + "\nX"
    got = blocks.parse(prompt([fake, "B"], ["real user"]))
    assert got.entries("memory") == (fake, "B") and got.entries("user") == ("real user",)


def test_a_prompt_with_no_block_loaded_nothing_when_it_is_a_whole_hermes_prompt():
    got = blocks.parse(prompt())
    assert got is not None and got.memory is None and got.user is None


@pytest.mark.parametrize("bad", [
    pytest.param("You are Hermes. Nothing else.", id="lacks-the-blocks-and-the-rest"),
    pytest.param(prompt(["a"]) + "\n\n" + prompt_block("memory", ["b"], 2200), id="twice"),
    pytest.param(prompt(["a long entry here"], tail="")[:-5], id="cut-short"),
    pytest.param(prompt(["abc"]).replace("[0% — 3/", "[0% — 9/"), id="label-doesnt-fit"),
    pytest.param(prompt(["abc"]).replace("[0% — 3/2,200", "[7% — 3/2,200"), id="percent-doesnt-fit"),
    pytest.param(prompt(["a"], ["u"]).replace("\n\n" + "═" * 46 + "\nUSER", "\n\nX\n\n" + "═" * 46 + "\nUSER"),
                 id="user-not-right-after-memory"),
    pytest.param("", id="empty"),
    pytest.param(None, id="null"),
    pytest.param("x" * (blocks.MAX_PROMPT_CHARS + 1), id="too-long"),
])
def test_a_prompt_whose_blocks_dont_check_out_is_not_known(bad):
    assert blocks.parse(bad) is None


def test_a_zero_limit_block_reads_0_percent_and_a_wrong_percent_is_refused():
    block = "═" * 46 + "\nMEMORY (your personal notes) [0% — 3/0 chars]\n" + "═" * 46 + "\nabc"
    got = blocks.parse(HEAD + block + TAIL)
    assert got is not None and got.memory.entries == ("abc",) and got.memory.percent == 0
    assert blocks.parse(HEAD + block.replace("[0%", "[5%") + TAIL) is None


def test_an_over_limit_block_is_whole_and_reads_100_percent():
    got = blocks.parse(prompt(["x" * 300], limits=(100, 100)))
    assert got.memory.used == 300 and got.memory.percent == 100


@pytest.mark.parametrize("seed", range(6))
def test_the_usual_prompts_shortcut_reads_exactly_as_the_general_rules(seed):
    """parse() reads a prompt with at most one header of each store by a shorter path: on random
    prompts (blocks cut, labels off, headers quoted inside entries, whitespace, no tail) both
    paths agree."""
    import random

    rng = random.Random(seed)
    head_of = {t: "═" * 46 + f"\n{blocks.TITLES[t]} [" for t in ("memory", "user")}
    pieces = ["One.", "Two\n\nlines", " padded ", "", "a § sign", "\n§\n", "ok"]
    for n in range(400):
        memory = [rng.choice(pieces) or "x" for _ in range(rng.randrange(0, 4))]
        user = [rng.choice(pieces) or "y" for _ in range(rng.randrange(0, 3))]
        if rng.random() < 0.3:  # a header quoted inside an entry
            (memory or user or memory).append(head_of[rng.choice(["memory", "user"])] + "5% — 1/9 chars]")
        text = prompt([e.strip() or "z" for e in memory] if rng.random() < 0.7 else memory,
                      [e.strip() or "w" for e in user], tail=rng.choice([TAIL, "", "\n\nmore"]))
        if rng.random() < 0.3:  # cut, or a label changed
            text = text[:rng.randrange(len(text) + 1)] if rng.random() < 0.5 else text.replace("% — ", "% —  ", 1)
        heads = {t: blocks._headers(text, t) for t in ("memory", "user")}
        if len(heads["memory"]) <= 1 and len(heads["user"]) <= 1:
            assert blocks._parse_simple(text, heads["memory"], heads["user"]) == blocks._parse_any(text, heads), \
                f"seed {seed}, prompt {n}: {text!r}"


# -- reading state.db ----------------------------------------------------------------------------

def read_back(path):
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    cols = frozenset(r[1] for r in conn.execute("PRAGMA table_info(sessions)"))
    try:
        return {s.id: s for s in loaded.sessions(conn, cols)}
    finally:
        conn.close()


def test_hashed_prompts_bad_rows_are_not_known_and_a_tool_pin_is_never_a_prompt(tmp_path):
    good = prompt(["Shared by two sessions."], ["Alex"])
    pin = '{"version": "1", "tools": [{"name": "memory"}]}'
    not_utf8 = b"\xff\xfe" + prompt(["x"]).encode()
    rows = [dict(id="a", source="cli", started_at=1.0, system_prompt_hash=sha(good), tool_names=sha(pin)),
            dict(id="b", source="telegram", started_at=2.0, system_prompt_hash=sha(good), display_name="Ops"),
            dict(id="c", source="cli", started_at=3.0, system_prompt_hash="0" * 64),  # no row
            dict(id="d", source="cli", started_at=4.0, system_prompt_hash=sha(pin)),  # a pin named as a prompt
            dict(id="e", source="cli", started_at=5.0, system_prompt_hash=sha(not_utf8)),
            dict(id="f", source="cli", started_at=6.0),  # NULL
            dict(id="g", source="cli", started_at=7.0, system_prompt_hash=sha("big"))]
    big = HEAD + "y" * (blocks.MAX_PROMPT_CHARS + 10)
    make_db(tmp_path / "s.db", rows, [(sha(good), good), (sha(pin), pin), (sha(not_utf8), not_utf8),
                                      (sha("big"), big)]).close()
    got = read_back(tmp_path / "s.db")
    assert got["a"].loaded is got["b"].loaded and got["a"].loaded.entries("memory") == ("Shared by two sessions.",)
    assert got["b"].where == "telegram · Ops"
    assert (got["c"].loaded, got["c"].unknown) == (None, loaded.MISSING_ROW)
    assert (got["d"].loaded, got["d"].unknown) == (None, loaded.NO_BLOCKS)
    assert (got["e"].loaded, got["e"].unknown) == (None, loaded.NOT_UTF8)
    assert (got["f"].loaded, got["f"].unknown) == (None, loaded.NO_PROMPT)
    assert (got["g"].loaded, got["g"].unknown) == (None, loaded.TOO_LONG)


def test_inline_prompts_of_older_releases(tmp_path):
    rows = [dict(id="a", source="cli", started_at=1.0, system_prompt=prompt(["Old."])),
            dict(id="b", source="cli", started_at=2.0, system_prompt=None),
            dict(id="c", source="cli", started_at=3.0, system_prompt=prompt(["Old.", "New."]))]
    make_db(tmp_path / "s.db", rows, inline=True).close()
    got = read_back(tmp_path / "s.db")
    assert got["a"].loaded.entries("memory") == ("Old.",) and got["b"].unknown == loaded.NO_PROMPT
    snaps = Snapshots.of(got.values())
    loads = snaps.entry_loads("memory", ["Old.", "New."])
    assert (loads["Old."].first_session, loads["Old."].sessions) == ("a", 2)
    assert (loads["New."].first_session, loads["New."].sessions) == ("c", 1)


def test_a_prompt_that_is_a_number_or_a_blob_of_another_kind_is_not_known(tmp_path):
    rows = [dict(id="a", source="cli", started_at=1.0, system_prompt=12345)]
    make_db(tmp_path / "s.db", rows, inline=True).close()
    assert read_back(tmp_path / "s.db")["a"].loaded is None


# -- against the files now ---------------------------------------------------------------------

def test_diff_pairs_a_rewritten_entry_as_changed():
    d = diff("memory", ["Deploy on Fridays via staging.", "Gone entry"], ["Deploy on Thursdays via staging.", "Brand new"])
    assert d.changed == (("Deploy on Fridays via staging.", "Deploy on Thursdays via staging."),)
    assert d.added == ("Brand new",) and d.removed == ("Gone entry",)
    assert d.summary() == "1 added, 1 changed, 1 removed"


def session(sid, loaded_entries, *, source="telegram", ended=None, active=1000.0):
    got = blocks.parse(prompt(loaded_entries))
    return SessionLoad(sid, source, "", 10.0, ended, None, active, None, "", got)


def test_stale_sessions_are_the_open_recent_ones_whose_snapshot_differs():
    now = {"memory": ("A", "B"), "user": None}
    snaps = Snapshots.of([
        session("old-open", ["A"]),  # stale
        session("current", ["A", "B"]),  # same as now
        session("ended", ["A"], ended=500.0),
        session("cron", ["A"], source="cron"),
        session("idle", ["A"], active=1000.0 - 40 * 86400),
    ])
    stale = stale_sessions(snaps, now, now=1000.0)
    assert [s.session.id for s in stale] == ["old-open"]
    assert stale[0].diffs["memory"].added == ("B",) and "/new" in stale[0].advice


# -- pruning ---------------------------------------------------------------------------------------

def test_pruning_settings_follow_the_release_defaults_and_bad_values(tmp_path):
    cfg = tmp_path / "config.yaml"
    from core.hermes.release import for_version

    old = for_version((0, 19, 0))[0]
    assert settings(cfg, NEWEST) == (True, 90) and settings(cfg, old) == (False, 90)
    cfg.write_text("sessions:\n  auto_prune: true\n  retention_days: 30\n")
    assert settings(cfg, old) == (True, 30)
    cfg.write_text("sessions:\n  auto_prune: false\n  retention_days: soon\n")
    assert settings(cfg, NEWEST) == (False, 90)
    cfg.write_text("sessions: [1, 2]\n")
    assert settings(cfg, NEWEST) == (True, 90)
    cfg.write_text(": : bad yaml [")
    assert settings(cfg, NEWEST) == (True, 90)


def test_the_pruning_sentence_names_the_span_and_the_run():
    p = Pruning(True, 90, 100 * 86400.0)
    assert p.cutoff == 10 * 86400.0
    assert p.sentence(lambda t: f"day {int(t // 86400)}") == \
        "sessions inactive before day 10 were pruned by Hermes (retention 90 days, last run day 100)"
    assert Pruning(True, 90, None).sentence(str) is None and Pruning(True, 90, None).short(str) is None
    assert p.short(lambda t: f"day {int(t // 86400)}") == \
        "Sessions before day 10 were pruned by Hermes (kept 90 days)"
