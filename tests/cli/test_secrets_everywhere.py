"""No command prints a secret unless `--reveal` (issue 20), whatever field holds it: a session's id
or source, a pending record's file name, origin or summary, the home's own path, the tool-call JSON
— not only the entries. Tokens of every prefixed family (bodies of letters and digits, and of
letters only, as real tokens now and then are) are built at run time from a seed, which a failure
prints (HMC_SEED replays or explores). Commands run in-process (`tui.cli.main.main`): the same code as
the `hmc` script, without a process per command."""

from __future__ import annotations

import json
import os
import random
import sqlite3

import pytest

from core.store.memory import serialize
from tests.core.sessions_fixtures import Msg, build_db
from tests.core.test_scanner_tokens import FAMILIES
from tui.cli.main import main

SEED = int(os.environ.get("HMC_SEED", "20261202"))
WORD = "wombatword"  # a unique word: search finds the tokened sessions


def tokens(seed: int) -> list[str]:
    """One token per family and body alphabet (the last alphabet of each family is its rare shape:
    letters only)."""
    rng = random.Random(seed)
    return [build(rng, alphabet) for _, (_, build, alphabets) in sorted(FAMILIES.items()) for alphabet in alphabets]


TOKENS = tokens(SEED)


def memory_call(args: dict, call_id: str) -> str:
    return json.dumps([{"id": call_id, "type": "function", "function": {"name": "memory", "arguments": json.dumps(args)}}])


@pytest.fixture
def home(tmp_path):
    """A Hermes home whose own path holds a token, and a token in every field hmc prints."""
    root = tmp_path / f"hermes {TOKENS[0]}"
    (root / "memories").mkdir(parents=True)
    (root / "config.yaml").write_text("memory:\n  memory_enabled: true\n", encoding="utf-8")
    extra, entries = [], []
    for n, tok in enumerate(TOKENS):
        other = TOKENS[(n + 1) % len(TOKENS)]
        entry = f"Note {n} for {WORD}"
        entries.append(entry)
        extra.append((f"{tok}", f"src {other}", [
            Msg("user", f"{WORD} please remember note {n}"),
            Msg("assistant", None, tool_calls=memory_call({"action": "add", "target": "memory", "content": entry},
                                                          f"call {tok}")),
            Msg("tool", json.dumps({"success": True, "message": f"added {other}"}), tool_name="memory"),
        ]))
    db = build_db(root / "state.db", extra=extra)
    con = sqlite3.connect(db)
    with con:  # each result names its call (Msg has no tool_call_id)
        for sid in TOKENS:
            con.execute("UPDATE messages SET tool_call_id = ? WHERE session_id = ? AND role = 'tool'", (f"call {sid}", sid))
    con.close()
    (root / "memories" / "MEMORY.md").write_text(serialize(entries[1:]), encoding="utf-8")  # note 0 replaced by hand
    (root / "memories" / "USER.md").write_text(serialize(["Name: Ana"]), encoding="utf-8")
    pending = root / "pending" / "memory"
    pending.mkdir(parents=True)
    record = {"id": "a0000001", "subsystem": "memory", "action": "add", "summary": f"add {TOKENS[2]}",
              "origin": f"session {TOKENS[3]}", "created_at": 1_794_000_000.0,
              "payload": {"action": "add", "target": "memory", "content": "A plain note"}}
    (pending / "a0000001.json").write_text(json.dumps(record), encoding="utf-8")
    (pending / f"{TOKENS[4]}.json").write_text("{broken", encoding="utf-8")
    return root


def run(capsys, root, *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["--home", str(root), "--today", "2026-11-15", *args])
    out = capsys.readouterr()
    return code, out.out + out.err


def leaks(text: str) -> list[str]:
    """The tokens `text` shows: whole, or any 10 characters of a body."""
    found = []
    for tok in TOKENS:
        body = tok[4:-4]
        if tok in text or any(body[i:i + 10] in text for i in range(len(body) - 9)):
            found.append(tok[:4] + "…")
    return found


def check(capsys, root, *args: str) -> str:
    code, text = run(capsys, root, *args)
    assert "Traceback" not in text and "unexpected error" not in text, text
    shown = leaks(text)
    assert not shown, f"hmc {' '.join(args)} printed {shown} (tokens from HMC_SEED={SEED}):\n{text[:3000]}"
    return text


READS = [
    ("status",), ("status", "--json"),
    ("memory", "list"), ("memory", "list", "--json"), ("memory", "list", "--at", "2026-10-20"),
    ("memory", "prompt"),
    ("log",), ("log", "--json"), ("log", "--source", "agent"),
    ("blame",), ("blame", "--json"),
    ("search", WORD, "--all"), ("search", WORD, "--json", "--all"),
    ("pending", "list"), ("pending", "list", "--json"), ("pending", "show", "a0000001"),
    ("pending", "show", "a0000001", "--json"), ("pending", "show", f"{TOKENS[4]}.json"),
    ("review",), ("review", "--json"),
    ("undo",), ("undo", "--json"),
]


def test_reads_never_print_a_token(capsys, home):
    for args in READS:
        check(capsys, home, *args)


def test_sessions_named_by_a_token_never_print_it(capsys, home):
    for tok in TOKENS[:6]:
        check(capsys, home, "session", tok)
        check(capsys, home, "session", tok, "--json")
        check(capsys, home, "search", WORD, "--source", f"src {tok}")


def test_rollback_and_its_undo_never_print_a_token(capsys, home):
    writes = json.loads(run(capsys, home, "log", "--json", "--reveal")[1])["writes"]
    by_session = {w["session_id"]: w["id"] for w in writes}
    assert set(TOKENS) <= set(by_session), "every tokened session wrote an entry"
    text = check(capsys, home, "rollback", by_session[TOKENS[5]])
    assert "rolled back" in text
    check(capsys, home, "undo")
    check(capsys, home, "undo", "--json")
    text = check(capsys, home, "rollback", by_session[TOKENS[0]])  # its entry was edited by hand since
    assert "refused" in text
    check(capsys, home, "rollback", f"m {TOKENS[6]}")  # an id that holds a token


def test_a_token_typed_where_it_doesnt_belong_is_masked_in_the_usage_error(capsys, home):
    for args in (("log", "--target", TOKENS[9]), ("memory", "add", "--target", TOKENS[10], "x"), (TOKENS[11],)):
        with pytest.raises(SystemExit) as exc:
            main(["--home", str(home), *args])
        out = capsys.readouterr()
        assert exc.value.code == 2 and "invalid choice" in out.err, out.err
        assert not leaks(out.out + out.err), f"{args[:-1]} printed a token (HMC_SEED={SEED}): {out.err}"


def test_reveal_prints_them(capsys, home):
    """The fields above really are printed: with --reveal the tokens are there."""
    code, text = run(capsys, home, "log", "--reveal")
    assert code == 0 and set(leaks(text)) == {t[:4] + "…" for t in TOKENS}
    code, text = run(capsys, home, "blame", "--reveal")
    assert TOKENS[7] in text and f"src {TOKENS[8]}" in text


def test_the_rare_shape_is_in_the_set():
    """Letters-only bodies (no digit at all) are among the tokens, on purpose."""
    assert any(not any(c.isdigit() for c in t.split("_", 1)[-1][4:]) for t in TOKENS)
