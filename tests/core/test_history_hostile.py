"""Hostile state.db rows never crash the history (issue 20): session ids and sources with markup,
escape sequences and bidi overrides, huge values, tool-call JSON that is invalid, of the wrong type,
nested past any recursion limit or not text at all, results of every odd shape, odd timestamps.
`hmc log` and `hmc blame` (text and JSON) answer, print nothing raw, and the good writes among the bad
rows are still in the history. The rows are drawn from a seeded Random (printed on failure; HMC_SEED
replays or explores), and every rare shape is also put in on purpose, once, whatever the seed."""

from __future__ import annotations

import json
import os
import random
import re
import sqlite3

import pytest

from core.curator import open_curator
from core.timeline import build_timeline
from tests.core.test_timeline import T0, add, make_home, write_files
from tui.cli.main import main

SEED = int(os.environ.get("HMC_SEED", "20261203"))
ROUNDS = 2  # seeds per run: SEED, SEED+1, …
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

ESC = "\x1b]52;c;aGFja2Vk\x07\x1b[2J"
MARKUP = "[bold red]x[/] [@click=app.quit]q[/]"
BIDI = "\u202eevil\u202c"
DEEP = "[" * 100_000 + "]" * 100_000
HUGE = "h" * 2_000_000


def _call(arguments, *, name="memory", cid="c1") -> str:
    return json.dumps([{"id": cid, "type": "function", "function": {"name": name, "arguments": arguments}}])


# Rare shapes of each column, every one put in on purpose (and drawn again at random).
SESSION_IDS = [ESC, MARKUP, BIDI, "s" * 30_000, "", " ", "\n", "null", "[/]", "s\x00nul"]
SOURCES = [ESC, MARKUP, BIDI, "x" * 30_000, "", "agent", "hmc", "unknown", "\x9b31m"]
TOOL_CALLS = [
    "[{",  # cut short
    "{not json",
    "null", "42", '"memory"', "{}", "[]", "[null]", "[42]", '[{"function": null}]',
    '[{"function": {"name": "memory"}}]',  # no arguments
    _call({"action": "add", "target": "memory", "content": "a dict, not a JSON string"}),
    _call("{bad json"), _call("[1, 2]"), _call("null"), _call('"add"'),
    _call(json.dumps({"action": ["add"], "target": "memory", "content": "x"})),
    _call(json.dumps({"action": "add", "target": {"t": 1}, "content": "x"})),
    _call(json.dumps({"action": "add", "target": "memory", "content": 42})),
    _call(json.dumps({"action": "add", "target": "memory", "content": None})),
    _call(json.dumps({"action": "add", "target": "memory", "content": ESC + MARKUP + BIDI})),
    _call(json.dumps({"action": "replace", "target": "memory", "old_text": "", "content": "y"})),
    _call(json.dumps({"action": "batch", "target": "memory", "operations": "not a list"})),
    _call(json.dumps({"action": "batch", "target": "memory", "operations": [None, 1, {"action": "add"}]})),
    _call(json.dumps({"action": "add", "target": "memory", "content": HUGE[:300_000]})),
    _call(DEEP), DEEP, "[" + DEEP + "]",
    _call(json.dumps({"action": "add", "target": "memory", "content": "z"}), name=ESC),
    json.dumps([{"name": "memory", "arguments": json.dumps({"action": "add", "target": "memory", "content": "flat"})}]),
]
RESULTS = ["{bad", "null", "[]", "42", '{"success": "yes"}', '{"success": true, "entries": "not a list"}',
           '{"success": true, "entries": [1, null, {}]}', '{"success": true, "entry_count": "many"}',
           json.dumps({"success": True, "message": ESC + MARKUP}), DEEP, HUGE[:1_100_000], ""]
TIMESTAMPS = [float("inf"), -1.0, 1e300, "2026-10-20T10:00:00", "garbage", 0, b"\x00"]  # NOT NULL: no None (NaN is NULL to SQLite)


def _fill(db_path, rng: random.Random) -> None:
    """The hostile rows: each rare shape once, then as many drawn at random; good writes between."""
    con = sqlite3.connect(db_path)
    con.execute("PRAGMA foreign_keys = OFF")
    n = 0

    def row(sid, role, content, cid, calls, tool_name, ts):
        nonlocal n
        n += 1
        con.execute("INSERT INTO messages(session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)", (sid, role, content, cid, calls, tool_name, ts))

    for sid in SESSION_IDS:
        con.execute("INSERT OR IGNORE INTO sessions VALUES (?, ?, ?)", (sid, rng.choice(SOURCES), T0))
    for source in SOURCES:
        con.execute("INSERT OR IGNORE INTO sessions VALUES (?, ?, ?)", (f"by {source[:40]!r}", source, T0))
    pairs = ([(calls, '{"success": true}') for calls in TOOL_CALLS] + [(_call(json.dumps(add("ok"))), r) for r in RESULTS]
             + [(rng.choice(TOOL_CALLS), rng.choice(RESULTS)) for _ in range(25)])
    sids = SESSION_IDS + [f"by {s[:40]!r}" for s in SOURCES]
    for i, (calls, result) in enumerate(pairs):
        sid = rng.choice(sids)
        ts = rng.choice(TIMESTAMPS) if rng.random() < 0.3 else T0 + 60 * i
        row(sid, "assistant", "", None, calls, None, ts)
        row(sid, "tool", result, "c1", None, rng.choice(["memory", None, "memory" + ESC]), ts)
        if i % 7 == 0:  # a good write between the bad ones, from a hostile session
            good = json.dumps(add(f"good note {i}"))
            row(sid, "assistant", "", None, _call(good, cid=f"g{i}"), None, T0 + 60 * i + 1)
            row(sid, "tool", '{"success": true}', f"g{i}", None, "memory", T0 + 60 * i + 1)
    for blob in (b"\xff\xfe binary", 42, 3.5):  # columns that aren't text at all
        row(rng.choice(sids), "assistant", blob, None, blob, None, T0)
        row(rng.choice(sids), "tool", blob, blob, None, "memory", T0)
    con.commit()
    con.close()


def _run(capsys, home, *args) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["--home", str(home), "--today", "2026-11-15", *args])
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_hostile_rows_never_crash_log_or_blame(tmp_path, capsys, round_):
    seed = SEED + round_
    where = f"(seed {seed}; HMC_SEED={SEED} replays this run)"
    home, db = make_home(tmp_path)
    db.session("plain", "cli")
    db.call("plain", add("first good note"))
    _fill(db.path, random.Random(seed))
    write_files(home, ["first good note"], [])
    tl = build_timeline(open_curator(home))
    ids = {w.id for w in tl.log()}
    good = [w for w in tl.log() if w.by == "agent" and (w.content or "").startswith(("first good", "good note"))]
    assert good, f"the good writes among the bad rows are gone {where}"
    assert len(ids) == len(tl.log()), f"two writes share an id {where}"
    for args in (("log",), ("log", "--json"), ("blame",), ("blame", "--json"), ("log", "--source", "agent")):
        code, text = _run(capsys, home, *args)
        assert code == 0, f"hmc {' '.join(args)} exited {code} {where}: {text[-600:]}"
        assert "Traceback" not in text and "unexpected error" not in text, f"{where}: {text[-600:]}"
        bad = RAW.search(text)
        assert bad is None, f"hmc {' '.join(args)} printed {bad.group()!r} raw {where}"
        if args[-1] == "--json":
            json.loads(text[text.index("{") if text.lstrip().startswith("{") else text.index("["):])
    code, text = _run(capsys, home, "rollback", good[-1].id)
    assert code in (0, 1) and "Traceback" not in text, f"{where}: {text}"
