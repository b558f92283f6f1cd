"""Hostile input, every command: `hmc` as a subprocess on copies of the demo home filled with escape
sequences, bidi overrides, markup, lone surrogates and generated secrets (issue 9).

Each case asserts the four things issue 9 asks for:
- no traceback and no hang (a per-case timeout);
- the exit code README promises (0 success, 1 refused or findings, 2 bad usage or unreadable input);
- every file under the home byte-identical unless the command was meant to write it;
- no generated secret (unless `--reveal`) and no raw control or bidi code point on stdout or stderr.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import sqlite3
import string
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.store.memory import serialize
from tests.cli.conftest import copy_home

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 30  # seconds per command: a hang fails the case instead of the suite

# -- generated secrets (built at run time, never written in this file) ---------------------------------

SEED = int(os.environ.get("HMC_SEED", "20261120"))  # printed when a secret leaks; HMC_SEED replays or explores
_rng = random.Random(SEED)
_ALNUM = string.ascii_letters + string.digits
OPENAI = "sk-proj-" + "".join(_rng.choice(_ALNUM) for _ in range(48))
GITHUB = "ghp_" + "".join(_rng.choice(string.ascii_letters) for _ in range(36))  # letters only: real ones can be
AWS = "AKIA" + "".join(_rng.choice(string.ascii_uppercase) for _ in range(16))  # no digit, as one in 28 real ids
SECRETS = (OPENAI, GITHUB, AWS)

# -- hostile strings ---------------------------------------------------------------------------------------

ESC = "\x1b"
OSC52 = ESC + "]52;c;aGFja2Vk\x07"  # writes the clipboard
OSC0 = ESC + "]0;pwned\x07"  # retitles the terminal
CLEAR = ESC + "[2J" + ESC + "[H"  # clears the screen
CSI1 = "\u009b31m"  # one-byte CSI
RLO = "\u202eevil\u202c"  # right-to-left override
ISOLATE = "\u2066iso\u2069"
MARKUP = "[bold]b[/bold] [@click=app.quit]q[/] closing [/x] tag"
CONTROLS = "nul\x00bel\x07cr\rdel\x7f"
HOSTILE = OSC52 + OSC0 + CLEAR + CSI1 + RLO + ISOLATE + MARKUP + CONTROLS
HOSTILE_ARG = HOSTILE.replace("\x00", "")  # argv can't carry NUL
WORD = "quokkaword"  # a unique word so search finds the hostile rows

RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
SGR = re.compile("\x1b\\[[0-9;]*m")  # rich's own styling, when colour is forced

# pending record ids
R_REPLACE, R_REMOVE, R_SECRET, R_ACTION, R_SURROGATE, R_BATCH, R_CLEAN = (
    "a0000001", "a0000002", "a0000003", "a0000004", "a0000005", "a0000006", "a0000007")
BROKEN_NAME = "zz" + OSC52 + OSC0 + ".json"


def _record(rid: str, action: str, payload: dict, summary: str, created: float) -> dict:
    return {"id": rid, "subsystem": "memory", "action": action, "summary": summary, "origin": "foreground",
            "created_at": created, "payload": payload}


def make_hostile(home: Path) -> None:
    """Fill a demo home with hostile strings and secrets in every place hmc reads text from."""
    memories = home / "memories"
    (memories / "MEMORY.md").write_text(serialize([
        f"Deploy key {OPENAI} {WORD} {HOSTILE}",
        f"Markup note {MARKUP} and a bidi {RLO} {WORD}",
        "Tests run with uv run pytest -q",
        "User prefers pnpm over npm for all JS projects.",
    ]), encoding="utf-8")
    (memories / "USER.md").write_text(serialize([
        f"GitHub token {GITHUB}",
        f"AWS deploy user key id {AWS}",
        "Name: Ana",
    ]), encoding="utf-8")
    folder = home / "pending" / "memory"
    for old in folder.iterdir():
        old.unlink()
    t = 1_794_000_000.0
    records = [
        _record(R_REPLACE, "replace", {"action": "replace", "target": "user", "content": f"AWS key rotated {HOSTILE}",
                                       "old_text": "AWS deploy", "matched_entry": f"AWS deploy user key id {AWS}"},
                f"replace {HOSTILE} {OPENAI}", t),
        _record(R_REMOVE, "remove", {"action": "remove", "target": "user", "old_text": "GitHub token",
                                     "matched_entry": f"GitHub token {GITHUB}"}, f"remove GitHub token {GITHUB}", t + 1),
        _record(R_SECRET, "add", {"action": "add", "target": "memory", "content": f"new key {OPENAI}"},
                f"add new key {OPENAI}", t + 2),
        _record(R_ACTION, "add" + OSC0 + CLEAR, {"action": "add" + OSC0, "target": "memory", "content": "a plain note"},
                "odd action", t + 3),
        _record(R_SURROGATE, "add", {"action": "add", "target": "memory", "content": "lone \ud800 surrogate"},
                "surrogate \udfff summary", t + 4),
        _record(R_BATCH, "batch", {"action": "batch", "target": "user", "operations": [
            {"action": "replace", "old_text": "AWS deploy", "content": f"AWS id is {AWS} {HOSTILE}"},
            {"action": "add", "content": f"token {GITHUB}"}]}, f"batch {HOSTILE}", t + 5),
        _record(R_CLEAN, "add", {"action": "add", "target": "memory", "content": "Staging DB runs Postgres 16"},
                "add to memory: Staging DB runs Postgres 16", t + 6),
    ]
    for rec in records:
        (folder / f"{rec['id']}.json").write_text(json.dumps(rec), encoding="utf-8")  # \ud800 stays an escape
    (folder / BROKEN_NAME).write_text('{"id": "zz", "payl', encoding="utf-8")

    db = sqlite3.connect(home / "state.db")
    try:
        sid = db.execute("SELECT id FROM sessions ORDER BY started_at LIMIT 1").fetchone()[0]
        db.execute("UPDATE sessions SET source = ?, title = ? WHERE id = ?",
                   ("cli" + OSC52 + OSC0, f"title {HOSTILE} {WORD}", sid))
        mid = db.execute("SELECT MIN(id) FROM messages WHERE session_id = ? AND role = 'user'", (sid,)).fetchone()[0]
        db.execute("UPDATE messages SET role = ?, content = ?, timestamp = ? WHERE id = ?",
                   ("user" + CLEAR, f"{WORD} says {HOSTILE} key {OPENAI}", "2026-10-20T10:00:00", mid))
        db.execute("INSERT INTO messages (session_id, role, content, tool_name, timestamp, active) "
                   "VALUES (?, 'tool', ?, ?, ?, 1)", (sid, f"{WORD} tool output {HOSTILE} {AWS}",
                                                     "terminal" + OSC0, "garbage"))
        db.commit()
    finally:
        db.close()
    work = home / "profiles" / "work"
    work.mkdir(parents=True)
    (work / "config.yaml").write_text("memory: {}\n", encoding="utf-8")
    shutil.copy2(home / "state.db", work / "state.db")


@pytest.fixture(scope="module")
def hostile_base(demo_template, tmp_path_factory) -> tuple[Path, str]:
    home = copy_home(demo_template, tmp_path_factory.mktemp("hostile") / "home")
    make_hostile(home)
    sid = sqlite3.connect(f"file:{home / 'state.db'}?mode=ro&immutable=1", uri=True).execute(
        "SELECT id FROM sessions ORDER BY started_at LIMIT 1").fetchone()[0]
    return home, sid


@pytest.fixture
def home(hostile_base, tmp_path) -> Path:
    copy = tmp_path / "home"
    shutil.copytree(hostile_base[0], copy)
    return copy


# -- running and checking ----------------------------------------------------------------------------------


def files(home: Path) -> dict[str, str]:
    """Every file under the home (relative path → sha256), names kept as the OS gives them.

    An empty `<file>.lock` is left out: it is Hermes's lock protocol (every writer, Hermes included,
    creates it to take the lock), not content.
    """
    out = {}
    for path in sorted(home.rglob("*")):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            if path.suffix == ".lock" and not data:
                continue
            out[str(path.relative_to(home))] = hashlib.sha256(data).hexdigest()
    return out


def run(home: Path, *args: str, color: bool = False) -> tuple[int, str, str]:
    env = dict(os.environ, COLUMNS="160")
    env.pop("NO_COLOR", None)
    env.pop("FORCE_COLOR", None)
    env["NO_COLOR" if not color else "FORCE_COLOR"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    proc = subprocess.run([sys.executable, "-m", "tui.cli", "--home", str(home), "--today", "2026-11-15", *args],
                          capture_output=True, env=env, timeout=TIMEOUT)
    # output must be valid UTF-8: a lone surrogate never reaches the terminal as bytes
    return proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")


def assert_clean(out: str, err: str, *, reveal: bool = False, color: bool = False) -> None:
    both = out + err
    assert "Traceback" not in both, err
    shown = SGR.sub("", both) if color else both
    bad = RAW.search(shown)
    assert bad is None, f"raw {bad.group()!r} at {bad.start()}: {shown[max(0, bad.start() - 60):bad.start() + 20]!r}"
    if not reveal:
        for secret in SECRETS:
            body = secret[4:-4]
            leaks = [body[i:i + 10] for i in range(len(body) - 9) if body[i:i + 10] in both]
            assert not leaks, f"secret {secret[:4]}… leaked ({leaks[0]!r}; secrets from HMC_SEED={SEED})"


def check(home: Path, args: tuple[str, ...], code: int, writes: tuple[str, ...] = (), *,
          color: bool = False) -> tuple[str, str]:
    before = files(home)
    rc, out, err = run(home, *args, color=color)
    assert_clean(out, err, reveal="--reveal" in args, color=color)
    assert rc == code, f"hmc {' '.join(args)} exited {rc}, not {code}\nstdout: {out[-800:]}\nstderr: {err[-800:]}"
    after = files(home)
    changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    # a write also gives the home its identity, once (core.store.home_id's marker); a read writes nothing
    unexpected = sorted(p for p in changed if not p.startswith(writes or ("\0",)) and not (writes and p == MARKER))
    assert not unexpected, f"hmc {' '.join(args)} changed {unexpected}"
    if code == 2:
        assert err.strip() and len(err.strip().splitlines()) == 1, err  # one line on stderr
    return out, err


MEM = ("memories/",)
MARKER = ".hmc-home"
PEND = ("pending/",)
BOTH = ("memories/", "pending/")

READS = [
    (("status",), 0),
    (("status", "--json"), 0),
    (("memory", "list"), 0),
    (("memory", "list", "--json"), 0),
    (("memory", "prompt"), 0),
    (("memory", "prompt", "--target", "user"), 0),
    (("pending", "list"), 0),
    (("pending", "list", "--json"), 0),
    (("pending", "show", R_REPLACE), 0),
    (("pending", "show", R_REPLACE, "--json", "--raw", "--unified"), 0),
    (("pending", "show", R_REMOVE, "--raw", "--unified"), 0),
    (("pending", "show", R_SECRET, "--json", "--raw"), 0),
    (("pending", "show", R_ACTION), 0),
    (("pending", "show", R_SURROGATE, "--raw"), 0),
    (("pending", "show", R_SURROGATE, "--json"), 0),
    (("pending", "show", R_BATCH, "--raw", "--unified"), 0),
    (("pending", "show", R_BATCH, "--json"), 0),
    (("pending", "show", BROKEN_NAME), 2),
    (("search", WORD), 0),
    (("search", WORD, "--json", "--all"), 0),
    (("search", WORD, "--since", "1y", "--all"), 0),
    (("search", WORD, "--all-profiles", "--limit", "2"), 0),
    (("search", WORD, "--all-profiles", "--json", "--sort", "newest"), 0),
    (("review",), 0),
    (("review", "--json"), 0),
    (("review", "--check"), 1),
    (("memory", "add", "--target", "\x1b[2J"), 2),  # bad usage: the typed value is quoted, visibly
    (("pending", "show", "\x1b]0;x\x07"), 2),
]


@pytest.mark.long
def test_every_read_command_is_clean_and_writes_nothing(home):
    for args, code in READS:
        check(home, args, code, ("state/",) if args[0] == "review" else ())


def test_sessions_by_id_are_clean(home, hostile_base):
    sid = hostile_base[1]
    check(home, ("session", sid), 0)
    check(home, ("session", sid, "--json", "--window", "3"), 0)


WRITES = [
    (("memory", "add", "--target", "memory", f"{WORD} {HOSTILE_ARG}"), 1, ()),  # the scanner refuses it
    (("memory", "add", "--target", "memory", "x" * 2_500), 1, ()),  # over the limit
    (("memory", "add", "--target", "memory", "A plain new note"), 0, MEM),
    (("memory", "replace", "--target", "user", "AWS deploy", "AWS key rotated on 2026-11-01"), 0, MEM),
    (("memory", "remove", "--target", "user", "GitHub token"), 0, MEM),
    (("memory", "remove", "--target", "memory", "Deploy key"), 0, MEM),
    (("pending", "approve", R_REMOVE), 0, BOTH),
    (("pending", "approve", R_REPLACE), 1, ()),  # scanner hit: kept
    (("pending", "approve", R_REPLACE, "--force"), 1, ()),  # Hermes's own scan refuses the bidi control: never forced
    (("pending", "approve", R_BATCH, "--json"), 1, ()),
    (("pending", "reject", R_SURROGATE), 0, PEND),
]


@pytest.mark.parametrize("args, code, writes", WRITES, ids=lambda v: str(v)[:40] if isinstance(v, tuple) else None)
def test_writes_are_clean_and_touch_only_their_files(home, args, code, writes):
    check(home, args, code, writes)


def test_approve_all_and_reject_all(home):
    out, _ = check(home, ("pending", "approve", "all"), 1, BOTH)
    assert "kept zz␛]52;" in out  # the broken file's name, literally
    check(home, ("pending", "reject", "invalid"), 0, PEND)
    check(home, ("pending", "reject", "all"), 0, PEND)
    assert not [p for p in (home / "pending" / "memory").iterdir() if p.suffix == ".json"]


def test_reveal_shows_secrets_but_never_controls(home):
    out, _ = check(home, ("memory", "list", "--target", "memory", "--reveal"), 0)
    assert OPENAI in out
    out, _ = check(home, ("pending", "show", R_REMOVE, "--json", "--reveal"), 0)
    assert GITHUB in out


def test_forced_colour_emits_only_rich_styles(home, hostile_base):
    for args in (("memory", "list"), ("pending", "list"), ("pending", "show", R_REPLACE),
                 ("search", WORD, "--all"), ("session", hostile_base[1])):
        check(home, args, 0, color=True)


def test_json_escapes_controls_and_keeps_the_values(home):
    _, out, _ = run(home, "pending", "show", R_SURROGATE, "--json", "--reveal")
    data = json.loads(out)  # valid JSON, valid UTF-8, the text around the surrogate kept
    assert data["payload"]["content"] in ("lone \ud800 surrogate", "lone \ufffd surrogate")
    _, out, _ = run(home, "memory", "list", "--target", "memory", "--json", "--reveal")
    assert "\\u001b]52" in out and "\\u009b" in out and "\\u202e" in out
    text = json.loads(out)[0]["entries"][0]["text"]  # the values themselves are unchanged
    assert OSC52 + OSC0 + CLEAR + CSI1 + RLO + ISOLATE + MARKUP in text and OPENAI in text


# -- hypothesis: arbitrary text in an entry, a record and a session ----------------------------------------

_hostile_chars = st.sampled_from([ESC, "\x07", "\x9b", "\x90", "\u202e", "\u2066", "\x00", "\r", "[", "]", "/",
                                  "@", "=", "§", "\n", "é", "漓", "🚀"])
_text = st.lists(st.one_of(_hostile_chars, st.text(alphabet=string.ascii_letters + " ;", max_size=4)),
                 min_size=1, max_size=30).map("".join)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_text)
def test_any_text_anywhere_stays_literal(hostile_base, text):
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        shutil.copytree(hostile_base[0], home)
        (home / "memories" / "MEMORY.md").write_text(serialize([f"{WORD} {text}", "Plain"]), encoding="utf-8")
        rec = _record("b0000001", "add", {"action": "add", "target": "memory", "content": f"x {text}"},
                      f"add {text}", 1_794_000_000.0)
        (home / "pending" / "memory" / "b0000001.json").write_text(json.dumps(rec), encoding="utf-8")
        db = sqlite3.connect(home / "state.db")
        db.execute("UPDATE sessions SET title = ?, source = ? WHERE id = ?", (text, text or "cli", hostile_base[1]))
        db.commit()
        db.close()
        check(home, ("memory", "list", "--json"), 0)
        check(home, ("pending", "show", "b0000001"), 0)
        check(home, ("search", WORD, "--all"), 0)


# -- every command is in this suite -------------------------------------------------------------------------


def leaf_commands() -> set[tuple[str, ...]]:
    """Every runnable command of the parser: ("status",), ("memory", "list"), …"""
    import argparse

    from tui.cli.main import build_parser

    def walk(parser, prefix):
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            yield prefix
            return
        for action in subs:
            for name, sub in action.choices.items():
                yield from walk(sub, (*prefix, name))

    return set(walk(build_parser(), ()))


def covered() -> set[tuple[str, ...]]:
    out = set()
    for args, *_ in READS + WRITES:
        out.add(args[:1] if args[0] in ("status", "search", "review", "session") else args[:2])
    return out | {("session",), ("pending", "approve"), ("pending", "reject"), ("demo",)}


def test_every_command_meets_hostile_input(home):
    """A command added later without a case here still runs on the hostile home (bare, read-only)."""
    missing = sorted(leaf_commands() - covered())
    for leaf in missing:
        if leaf == ("pending", "approval"):
            check(home, leaf, 0)
            check(home, (*leaf, "on"), 0, ("config.yaml",))
            continue
        before = files(home)
        rc, out, err = run(home, *leaf)
        assert_clean(out, err)
        assert rc in (0, 1, 2) and files(home) == before, (leaf, rc, err)


def test_demo_with_a_file_for_a_folder(tmp_path):
    (tmp_path / "README.md").write_text("not a folder")
    for target in (tmp_path / "README.md", tmp_path / "README.md" / "sub"):
        rc, out, err = run(tmp_path, "demo", "--dir", str(target), "--no-tui")
        assert rc == 2 and "is not a folder" in err and len(err.splitlines()) == 1
        assert_clean(out, err)
    assert (tmp_path / "README.md").read_text() == "not a folder"
