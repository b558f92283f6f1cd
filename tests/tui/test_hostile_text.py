"""Hostile text everywhere the TUI shows data: never markup, never a raw escape, never a crash.

Memory entries, a pending record's summary, action and content, a session's source, title and
content all hold strings that would restyle the UI ([reverse]), run an action ([@click=app.quit]),
crash a markup parser (closing [/x] tag), write the clipboard (OSC 52), retitle the terminal
(OSC 0), clear it (CSI 2J), start a one-byte CSI (U+009B) or reorder a line (U+202E). The test
walks every mode, dialog and toast that shows them and checks, at each step, what the terminal
would receive: no OSC, BEL, one-byte CSI, bidi override or clear-screen; the strings shown
literally; the app still running.
"""

from __future__ import annotations

import io
import re
import sqlite3
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import Input, OptionList

from tests.core.pending_support import build_home, stage
from tests.core.sessions_fixtures import Msg, build_db
from tests.tui.helpers import dialog_or_done, settle, toasts, until, until_dialog
from tui.literal import visible
from tui.screens.dialogs import ConfirmDialog, EditEntryDialog, TextDialog

HOSTILE = ["[reverse]X[/reverse]", "[@click=app.quit]", "closing [/x] tag", "\x1b]52;c;aGk=\x07",
           "\x1b]0;title\x07", "\x1b[2J", "\u009b31m", "\u202e"]
SHOWN = [visible(h) for h in HOSTILE]  # how each must appear on screen
FORBIDDEN = ("\x1b]", "\x07", "\x9b", "\u202e", "\x1b[2J", "\x1bP", "\x1b_", "\x1b^")
SID = "20261020_000000_bad0bad0"
# Textual's own output: SGR and cursor moves (CSI ... letter), nothing else
OWN_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def entry(i: int, text: str) -> str:
    return f"note {i}: {text} end"


@pytest.fixture
def home(hermes_home) -> Path:
    home = build_home(hermes_home, memory=[entry(i, h) for i, h in enumerate(HOSTILE)],
                      user=["Name: " + HOSTILE[0]], config="memory:\n  memory_char_limit: 4000\n")
    stage(home, content="Likes " + " ".join(HOSTILE[:-1]), summary="summary " + HOSTILE[2] + HOSTILE[3], rid="0000000a")
    stage(home, content="plain", rid="0000000b", extra={
        "action": HOSTILE[1] + HOSTILE[4],
        "payload": {"action": HOSTILE[1] + HOSTILE[4], "target": "memory", "content": "plain " + HOSTILE[7]}})
    db = build_db(home / "state.db", extra=[(SID, "cli" + HOSTILE[3], [
        Msg("user", "needle " + " ".join(HOSTILE)), Msg("assistant", "needle again " + HOSTILE[5])])])
    conn = sqlite3.connect(db)
    conn.execute("UPDATE sessions SET title = ? WHERE id = ?", ("title " + HOSTILE[1] + HOSTILE[6], SID))
    conn.commit()
    conn.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    return home


def terminal(app) -> str:
    """Exactly what the terminal would receive for the whole screen now (toasts and dialogs too)."""
    console = Console(file=io.StringIO(), force_terminal=True, color_system="truecolor", width=app.size.width,
                      legacy_windows=False)
    return app.screen._compositor.render_full_update().render_segments(console)


def check(app, *must_show: str) -> str:
    """The app runs, no dangerous sequence reaches the terminal, and `must_show` is on screen."""
    assert app.is_running and app.return_code is None, "the app quit"
    raw = terminal(app)
    for bad in FORBIDDEN:
        assert bad not in raw, f"{bad!r} reached the terminal"
    text = OWN_ESCAPES.sub("", raw)
    assert "\x1b" not in text, "an escape other than Textual's own styling reached the terminal"
    for piece in must_show:
        assert piece in text, f"{piece!r} is not shown literally"
    return text


def notes(app) -> list:
    return toasts(app)


async def test_hostile_strings_stay_literal_everywhere(home, make_app):
    app = make_app(home, poll=False)
    async with app.run_test(size=(160, 50), notifications=True) as pilot:
        await settle(app, pilot)
        # memory mode: both lists
        check(app, *SHOWN)
        # the edit dialog's text, then the delete question, then the toast after the write
        await pilot.press("down", "e")
        editor = await until_dialog(pilot, EditEntryDialog)
        check(app, SHOWN[1])
        assert editor.query_one("#edit-text").text == entry(1, SHOWN[1])
        await pilot.press("escape")
        await settle(app, pilot)
        await pilot.press("down", "down", "d")  # entry 3: the OSC 52 one
        await until_dialog(pilot, ConfirmDialog)
        check(app, SHOWN[3])
        await pilot.press("y")
        await settle(app, pilot)
        check(app)
        assert entry(3, HOSTILE[3]) not in (home / "memories" / "MEMORY.md").read_text()
        # the prompt preview and the history list
        await pilot.press("p")
        await until_dialog(pilot, TextDialog)
        check(app)
        await pilot.press("escape", "h")
        await until(pilot, lambda: SHOWN[3] in OWN_ESCAPES.sub("", terminal(app)))
        check(app, SHOWN[3])
        await pilot.press("enter")  # restore it: the toast carries the entry
        await settle(app, pilot)
        check(app)
        # o on an entry no session wrote: the not-found state quotes the entry
        await pilot.press("1")
        await pilot.pause()
        lst = app.screen.query_one("#entries-memory", OptionList)
        lst.highlighted = 2
        await pilot.press("o")
        await settle(app, pilot)
        check(app, SHOWN[2])

        # pending: the list, each detail, the raw record, an approval toast
        await pilot.press("2")
        await settle(app, pilot)
        screen = app.screen
        check(app, visible(HOSTILE[1] + HOSTILE[4])[:7])  # the action column (cut to its width)
        for row in range(len(screen.rows)):
            screen.query_one("#pending-list", OptionList).highlighted = row
            await pilot.pause()
            check(app)
        screen.query_one("#pending-list", OptionList).highlighted = [i.id for i, _ in screen.rows].index("0000000a")
        await pilot.pause()
        check(app, SHOWN[2])
        await pilot.press("p")
        await until_dialog(pilot, TextDialog)
        check(app)
        await pilot.press("escape", "y")
        if await dialog_or_done(pilot, ConfirmDialog):  # the security scan flags it: asked first
            check(app)
            await pilot.press("y")
        await settle(app, pilot)
        check(app)
        assert "Likes" in (home / "memories" / "MEMORY.md").read_text()
        assert notes(app)[-1].title == "Approved 0000000a"

        # search: the hit rows (source, title, snippet), the transcript and its title
        await pilot.press("3")
        await settle(app, pilot)
        box = app.screen.query_one("#search-query", Input)
        box.value = "needle"
        app.screen.start_search()
        await settle(app, pilot)
        check(app, visible("cli" + HOSTILE[3]))
        await pilot.press("down", "enter")
        await settle(app, pilot)
        check(app, visible("title " + HOSTILE[1] + HOSTILE[6]), SHOWN[5])
        # a pasted control character in the search box is made visible, never painted
        await pilot.press("slash")
        box.value = "x\x1b]0;t\x07"
        await pilot.pause()
        assert box.value == visible("x\x1b]0;t\x07")
        check(app)

        # review: the findings quote the entries
        await pilot.press("escape", "4")
        await settle(app, pilot)
        check(app)

        # every toast so far was literal and carried no raw control
        for note in notes(app):
            assert not note.markup
            for bad in FORBIDDEN:
                assert bad not in note.message and bad not in note.title


@pytest.mark.parametrize("text", HOSTILE)
async def test_each_hostile_string_in_a_toast_is_literal(home, make_app, text):
    """notify() never parses markup: a toast from any screen shows the data as it is."""
    app = make_app(home, poll=False)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await pilot.pause()
        app.screen.notify(f"data: {text}", title=f"title {text}")  # the default a widget would use
        app.notify(f"app data: {text}")
        shows = f"data: {visible(text)}"  # the toast is painted a moment later: later on a loaded box
        await until(pilot, lambda: shows in OWN_ESCAPES.sub("", terminal(app)))
        check(app, shows)
        assert all(not n.markup for n in notes(app))



def test_every_notify_in_the_tui_is_literal():
    """A toast's message so often carries an entry, a summary, a path or an error text that every
    notify() says markup=False: none is left to remember which ones do."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "tui"
    missing = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "notify"
                    and not any(k.arg == "markup" and getattr(k.value, "value", None) is False
                                for k in node.keywords)):
                missing.append(f"{path.relative_to(root.parent)}:{node.lineno}")
    assert missing == []
