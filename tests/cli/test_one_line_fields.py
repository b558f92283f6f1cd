"""A field that is one line on screen stays one line whatever state.db holds (issue 34's probe): a
line break in a session's source or id, or in a refusal the memory tool gave, shows as ␊, so no
text from a session can print a line of its own ("FAKE LINE" at column 0)."""

from __future__ import annotations

import json

import pytest

from tests.core.sessions_fixtures import Msg, build_db, memory_call
from tui.cli.main import main

SID = "20261115_100000_ctrl\nFAKELINE"


@pytest.fixture
def home(tmp_path):
    home = tmp_path / "hermes"
    (home / "memories").mkdir(parents=True)
    refusal = json.dumps({"success": False, "error": "refused\nFAKEERR"})
    build_db(home / "state.db", extra=[(SID, "tele\ngram", [
        Msg("user", "Remember zorblax for me"),
        Msg("assistant", "", tool_calls=memory_call("zorblax is the build host")),
        Msg("tool", refusal, tool_name="memory"),
    ])])
    return home


@pytest.mark.parametrize("args", [("search", "zorblax"), ("session", SID), ("log", "--refused"), ("sessions",)],
                         ids=lambda a: a[0] if a[0] != "log" else "log --refused")
def test_no_session_text_starts_a_line_of_its_own(capsys, home, args):
    code = main(["--home", str(home), "--today", "2026-11-15", *args])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    lines = (out + err).splitlines()
    assert not [ln for ln in lines if ln.startswith(("FAKELINE", "FAKEERR", "gram"))], out
    if args[0] != "log":  # (this fixture's refusal isn't paired with its call in the history)
        assert "␊" in out or "\\n" in out
