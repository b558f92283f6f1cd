"""Scale benchmarks (issue 19: every command costs what its work costs), measured side by side in one
run (not part of the test suite). Every row is a ratio of two timings taken in alternating pairs:

    python tests/bench/bench_scale.py                 # every row (the 1,000,000-message search db is built once)
    python tests/bench/bench_scale.py --quick         # smaller sizes, for a fast look
    python tests/bench/bench_scale.py --only history  # one group: review, history, search, log, approve, keys

1. `hmc review --json` on the demo home with a 20,000-entry MEMORY.md vs the same with 2,000 entries
   (the history's ages included; goal <= 2x);
2. a cold history build (read, replay, reconcile, cache) over 5,000 and 50,000 successful `add`
   calls vs a bare SQL scan of the same rows (goal <= 3x at 50,000; for scale, the least any build
   does: parse, pair, the fields, marshal), and the update after 100 new messages vs that cold
   build (goal <= 5%);
3. `hmc search` of a two-character CJK word (the LIKE route) vs a rare word (FTS) at 1,000,000
   messages, end to end (goal <= 1.5x); `--messages` picks a smaller database;
4. `hmc log --json` with a warm cache vs `hmc memory list` (goal <= 1.5x);
5. approving 1,000 staged records with hmc vs Hermes's own approve-all of the same queue through
   the conformance oracle (goal <= 1.5x; needs the Hermes release the oracle installs);
6. each key of bench_keys.py (a mode switch, a dialog opening and closing) through a real pty:
   frames and how long after its first repaint the screen settles (goal: one frame, <= 50 ms).
   Start-up against a minimal Textual app is bench_startup.py's (`--runs 30`).

Ratios are medians of the pairs' ratios. HOME and the XDG folders point into a temporary folder.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.bench.bench_timeline import side_by_side, verdict  # noqa: E402  (the pairs, timed alike)

BARE_SQL = ("SELECT id, session_id, role, tool_call_id, tool_calls, tool_name, content, timestamp FROM messages "
            "WHERE tool_name = 'memory' OR (role = 'assistant' AND tool_calls LIKE '%\"memory\"%') ORDER BY id")
CJK_WORD = "重启"  # two characters: no trigram, so the LIKE route
NEW_MESSAGES = 100


def cache_dir() -> Path:
    from platformdirs import user_cache_path

    return user_cache_path("hmc") / "bench"


def sandbox(folder: Path) -> dict[str, str]:
    """This process's (and its children's) HOME and XDG folders inside `folder`."""
    env = {"HOME": str(folder / "home"), "XDG_CONFIG_HOME": str(folder / "config"),
           "XDG_CACHE_HOME": str(folder / "cache"), "XDG_STATE_HOME": str(folder / "state"),
           "XDG_DATA_HOME": str(folder / "data")}
    os.environ.update(env)
    for key in ("HERMES_HOME", "HERMES_PROFILE", "HMC_HERMES_VERSION"):
        os.environ.pop(key, None)
    return env


def ms(seconds: float) -> str:
    return f"{seconds * 1000:10.1f} ms"


def row(name: str, ta: float, tb: float, ratio: float, goal: float | None, pct: bool = False) -> None:
    shown = f"{ratio * 100:.1f}%" if pct else f"{ratio:.2f}x"
    goal_text = "" if goal is None else (f" (goal <= {goal * 100:.0f}%)" if pct else f" (goal <= {goal}x)")
    tail = "" if goal is None else f" -> {verdict(ratio, goal)}"
    print(f"   {name:<52} {ms(ta)} {ms(tb)}  {shown}{goal_text}{tail}", flush=True)


def hmc(*args: str, home: Path, check: bool = True) -> subprocess.CompletedProcess:
    out = subprocess.run([sys.executable, "-m", "tui.cli", "--home", str(home), *args], cwd=ROOT,
                         capture_output=True, text=True)
    if check and out.returncode not in (0, 1):
        raise SystemExit(f"hmc {' '.join(args)} failed ({out.returncode}): {out.stderr[-2000:]}")
    return out


# -- databases ------------------------------------------------------------------------------------

def base_db(folder: Path) -> Path:
    """A small demo-layout state.db (the current Hermes schema, FTS included), built once."""
    from core.demo.build import build_state_db

    path = folder / "scale-base.db"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        build_state_db(path, sessions=30, messages=600)
    return path


def add_calls(conn: sqlite3.Connection, n: int, start_ts: float, sid: str) -> list[str]:
    """n successful memory `add` calls (an assistant row and its `tool` result each); the entries."""
    rows, texts = [], []
    for i in range(n):
        text = f"Fact {i}: service {i % 97} builds with flag --opt-{i % 13} on host h{i % 31}"
        texts.append(text)
        cid = f"call_scale_{i}"
        call = json.dumps([{"id": cid, "type": "function", "function": {"name": "memory", "arguments": json.dumps(
            {"action": "add", "target": "memory", "content": text})}}])
        result = json.dumps({"success": True, "target": "memory"})
        ts = start_ts + i
        rows.append((sid, "assistant", "", None, call, None, ts))
        rows.append((sid, "tool", result, cid, None, "memory", ts))
    with conn:
        conn.executemany("INSERT INTO messages(session_id, role, content, tool_call_id, tool_calls, tool_name, "
                         "timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    return texts


def adds_home(folder: Path, n: int) -> Path:
    """A Hermes home whose state.db holds n successful adds, and whose MEMORY.md holds their entries."""
    home = folder / f"adds-{n}"
    if (home / "state.db").exists():
        return home
    home.mkdir(parents=True, exist_ok=True)
    tmp = home / "state.db.building"
    shutil.copyfile(base_db(folder), tmp)
    conn = sqlite3.connect(tmp)
    sid, start = conn.execute("SELECT id, started_at FROM sessions ORDER BY started_at LIMIT 1").fetchone()
    texts = add_calls(conn, n, float(start) + 60, sid)
    conn.close()
    (home / "memories").mkdir(exist_ok=True)
    (home / "memories" / "MEMORY.md").write_text("\n§\n".join(texts), encoding="utf-8")
    (home / "config.yaml").write_text("memory:\n  memory_char_limit: 100000000\n", encoding="utf-8")
    os.replace(tmp, home / "state.db")
    return home


def append_messages(home: Path, n: int) -> None:
    """n new messages at the end of the home's state.db, the last two a memory call and its result,
    and the entry it added at the end of MEMORY.md (as Hermes leaves them: the file agrees)."""
    conn = sqlite3.connect(home / "state.db")
    sid, last = conn.execute("SELECT session_id, MAX(timestamp) FROM messages").fetchone()
    rows = [(sid, "user" if i % 2 else "assistant", f"new message {i}", None, None, None, last + i + 1)
            for i in range(n - 2)]
    call = json.dumps([{"id": "call_new", "type": "function", "function": {"name": "memory", "arguments": json.dumps(
        {"action": "add", "target": "memory", "content": "A fact from the newest session"})}}])
    rows += [(sid, "assistant", "", None, call, None, last + n), (sid, "tool", json.dumps({"success": True}),
                                                                   "call_new", None, "memory", last + n)]
    with conn:
        conn.executemany("INSERT INTO messages(session_id, role, content, tool_call_id, tool_calls, tool_name, "
                         "timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    conn.close()
    memory = home / "memories" / "MEMORY.md"
    memory.write_text(memory.read_text(encoding="utf-8") + "\n§\nA fact from the newest session", encoding="utf-8")


# -- 2. the history ---------------------------------------------------------------------------------

def bench_history(folder: Path, scratch: Path, sizes: list[int], repeat: int) -> None:
    from core.curator import open_curator
    from core.timeline import build_timeline
    from core.timeline import cache as tl_cache

    print("2. cold history build (read, replay, reconcile, write the cache) vs a bare SQL scan of the rows")
    print(f"   {'':<52} {'bare scan':>13} {'hmc':>13}  ratio")
    last_home = None
    for n in sizes:
        home = scratch / f"adds-{n}"
        shutil.copytree(adds_home(folder, n), home)
        db = home / "state.db"
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        curator = open_curator(home, None, date.today())
        cache_file = tl_cache.cache_path(db)

        def bare() -> None:
            conn.execute(BARE_SQL).fetchall()

        def cold() -> None:
            cache_file.unlink(missing_ok=True)
            tl = build_timeline(curator)
            assert len(tl.writes) >= n, len(tl.writes)

        t_bare, t_cold, ratio = side_by_side(bare, cold, repeat if n <= 10_000 else max(3, repeat // 3))
        row(f"{n:,} adds", t_bare, t_cold, ratio, 3.0 if n >= 50_000 else None)
        if n == sizes[-1]:
            t_bare, t_least, ratio = side_by_side(bare, lambda: least_build(conn), max(3, repeat // 3))
            row("(for scale: the least any build does, vs the bare scan)", t_bare, t_least, ratio, None)
        conn.close()
        last_home = (home, curator, cache_file, t_cold)
    home, curator, cache_file, _ = last_home
    cache_file.unlink(missing_ok=True)
    build_timeline(curator)
    saved = cache_file.read_bytes()
    append_messages(home, NEW_MESSAGES)

    def cold() -> None:
        cache_file.unlink(missing_ok=True)
        build_timeline(curator)

    def update() -> None:
        tl = build_timeline(curator)
        assert tl.stats["cache"] == "hit" and tl.stats["replayed"] == "new", tl.stats

    t_cold, t_update, ratio = side_by_side(cold, update, max(3, repeat // 3), before_b=lambda: cache_file.write_bytes(saved))
    row(f"update after {NEW_MESSAGES} messages vs cold ({sizes[-1]:,} adds)", t_cold, t_update, ratio, 0.05, pct=True)
    print()


def least_build(conn: sqlite3.Connection) -> None:
    """For scale, not a build: the work no cold build can skip, on the rows hmc reads — parse each
    call's three JSON texts (with the parser the build uses), pair each call with its result,
    append each write's 15 fields, marshal and hash them. No checks, no entry index, no
    reconciliation, no cache file."""
    import hashlib
    import marshal

    from core.sessions.memory_calls import _fast_loads as loads, query_for

    upto = conn.execute("SELECT MAX(id) FROM messages").fetchone()[0]
    opened: dict = {}
    cols: list[list] = [[] for _ in range(15)]
    add = [col.append for col in cols]
    for mid, sid, call_id, tool_calls, _, content, ts in conn.execute(*query_for("scan", 0, upto)):
        if tool_calls is not None:
            call = loads(tool_calls)[0]
            opened[(sid, call.get("id"))] = (mid, loads(call["function"]["arguments"]))
        elif (found := opened.pop((sid, call_id), None)) is not None:
            result = loads(content)
            if result.get("success") is not True or result.get("staged"):
                continue
            message_id, args = found
            text = (args.get("content") or "").strip()
            for append, value in zip(add, (f"m{mid}", ts, "agent", "cli", args.get("target"), "add", sid, message_id,
                                           None, text, None, None, None, None, (len(cols[0]), text))):
                append(value)
    hashlib.sha256(marshal.dumps(cols, 4)).hexdigest()


# -- 1. review ---------------------------------------------------------------------------------------

def demo_with_entries(folder: Path, n: int) -> Path:
    """The demo home (its state.db and history) with n more short entries in MEMORY.md."""
    from core.demo.build import build_demo_home

    home = build_demo_home(folder / f"review-{n}")
    memory = home / "memories" / "MEMORY.md"
    rng = random.Random(n)  # unrelated pseudo-words: the duplicate detector has no pairs to weigh
    letters = "bcdfghjklmnprstvz"
    extra = "\n§\n".join(" ".join("".join(rng.choice(letters) + rng.choice("aeiou") for _ in range(3))
                                    for _ in range(6)) for _ in range(n))
    memory.write_text(memory.read_text(encoding="utf-8") + "\n§\n" + extra, encoding="utf-8")
    config = home / "config.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    return home


def bench_review(scratch: Path, sizes: tuple[int, int], repeat: int) -> None:
    from core.curator import open_curator
    from core.review.ages import entry_ages

    small, big = (demo_with_entries(scratch, n) for n in sizes)
    print(f"1. review with the demo's history: {sizes[1]:,} vs {sizes[0]:,} more entries in MEMORY.md")
    print(f"   {'':<52} {f'{sizes[0]:,}':>13} {f'{sizes[1]:,}':>13}  ratio")
    for home in (small, big):
        hmc("review", "--json", home=home)  # the history's cache written, as after a first run
    t_a, t_b, ratio = side_by_side(lambda: hmc("review", "--json", home=small), lambda: hmc("review", "--json", home=big),
                                   repeat)
    row("`hmc review --json` (every detector, warm cache)", t_a, t_b, ratio, 2.0)
    cur_a, cur_b = open_curator(small), open_curator(big)
    t_a, t_b, ratio = side_by_side(lambda: entry_ages(cur_a), lambda: entry_ages(cur_b), repeat)
    row("entry ages alone (history from the cache, reconciled)", t_a, t_b, ratio, None)
    print(f"   (the entries are {sizes[1] // sizes[0]}x as many: a linear review is {sizes[1] // sizes[0]}x)\n")


# -- 3. search -------------------------------------------------------------------------------------

def bench_search(folder: Path, messages: int, repeat: int) -> None:
    from core.demo.build import RARE_TERM, build_state_db

    shared = {1_000_000: folder.parent / "full" / "big", 100_000: folder.parent / "quick" / "big"}
    home = shared.get(messages, folder / f"search-{messages}")  # bench_search.py's databases, when built
    db = home / "state.db"
    if not db.exists():
        print(f"   building a {messages:,}-message state.db (once)…", flush=True)
        big = min(100_000, messages // 10)
        build_state_db(db, sessions=max(60, (messages - big) // 100), messages=messages - big,
                       big_session_messages=big)
    print(f"3. `hmc search` end to end at {messages:,} messages: a 2-character CJK word (plain scan) vs a rare word (FTS)")
    print(f"   {'':<52} {'rare word':>13} {CJK_WORD:>12}  ratio")
    out = json.loads(hmc("search", CJK_WORD, "--json", home=home).stdout)
    t_a, t_b, ratio = side_by_side(lambda: hmc("search", RARE_TERM, home=home), lambda: hmc("search", CJK_WORD, home=home),
                                   repeat)
    row(f"first page ({out['total']:,}{'+' if out['count_is_bound'] else ''} hits counted)", t_a, t_b, ratio, 1.5)
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    like = f"%{CJK_WORD}%"

    def bare_page() -> None:
        conn.execute("SELECT id FROM messages WHERE content LIKE ? ORDER BY id DESC LIMIT 21", (like,)).fetchall()

    def bare_count() -> None:
        conn.execute("SELECT COUNT(*) FROM messages WHERE content LIKE ?", (like,)).fetchone()

    t_a, t_b, ratio = side_by_side(bare_page, bare_count, max(3, repeat // 2))
    row("(for scale: sqlite3's bare page vs its full count)", t_a, t_b, ratio, None)
    print()


# -- 4. log ------------------------------------------------------------------------------------------

def bench_log(scratch: Path, repeat: int) -> None:
    from core.demo.build import build_demo_home

    home = build_demo_home(scratch / "log-demo")
    hmc("log", "--json", home=home)  # the cache is warm from here on
    print("4. `hmc log --json` with a warm cache vs `hmc memory list` (the demo home)")
    t_a, t_b, ratio = side_by_side(lambda: hmc("memory", "list", home=home), lambda: hmc("log", "--json", home=home),
                                   repeat)
    row("log vs memory list", t_a, t_b, ratio, 1.5)
    print()


# -- 5. approve-all -----------------------------------------------------------------------------------

def bench_approve(scratch: Path, n: int, repeat: int) -> None:
    from core.curator import open_curator
    from tests.conformance.oracle import OraclePool, copy_home, write_home

    version = "0.22.2"
    limits = (10_000_000, 1_000_000)
    config = f"memory:\n  write_approval: true\n  memory_char_limit: {limits[0]}\n  user_char_limit: {limits[1]}\n"
    pool = OraclePool()
    try:
        oracle = pool.get(version)
        base = write_home(scratch / "approve-base", memory="Seed entry", config=config)
        writes = [{"action": "add", "target": "memory", "content": f"Staged fact {i}: service s{i % 41} "
                   f"listens on port {8000 + i}"} for i in range(n)]
        staged = oracle.stage(base, writes, limits=limits)
        assert staged["gate"] is True and len(staged["pending_ids"]) == n, staged.get("raised")
        print(f"5. approve all of {n:,} staged records: Hermes {version}'s /memory approve all (the oracle) vs hmc")
        count = iter(range(10_000))
        homes = {}

        def fresh(side: str):
            def make() -> None:
                homes[side] = copy_home(base, scratch / f"approve-{side}-{next(count)}")
            return make

        def theirs() -> None:
            out = oracle.approve_all(homes["o"], limits=limits)
            assert out.get("raised") is None and not out["pending"], out.get("raised")

        def ours() -> None:
            report = open_curator(homes["h"], hermes_version=version).pending.approve_all()
            assert len(report.done) == n and not report.failed, (len(report.done), report.failed[:3])

        t_a, t_b, ratio = side_by_side(theirs, ours, repeat, before_a=fresh("o"), before_b=fresh("h"))
        row("hmc vs Hermes", t_a, t_b, ratio, 1.5)
        print()
    finally:
        pool.close()


# -- 6. keys ----------------------------------------------------------------------------------------

def bench_keys(runs: int) -> None:
    """bench_keys.py's rows: each key through a real pty, fresh hmc processes on the demo home."""
    import bench_keys

    print(f"6. a key until the screen settles (through a pty, {runs} fresh starts; goal: one frame, "
          f"settled <= {bench_keys.SETTLE_GOAL * 1000:.0f} ms after its first repaint)")
    try:
        rows = bench_keys.run(runs)
    except bench_keys.BenchError as exc:
        print(f"   bench failed: {exc}")
        return
    for r in rows:
        print(r.line())
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, fewer repeats")
    parser.add_argument("--only", choices=("review", "history", "search", "log", "approve", "keys"), action="append")
    parser.add_argument("--repeat", type=int, default=None, help="timed pairs per row")
    parser.add_argument("--messages", type=int, default=None, help="the search database's size (default 1,000,000)")
    parser.add_argument("--cache", type=Path, default=None, help="where the built databases are kept")
    args = parser.parse_args(argv)
    folder = (args.cache or cache_dir()) / "scale"
    scratch = Path(tempfile.mkdtemp(prefix="hmc-bench-scale-"))
    repeat = args.repeat or (3 if args.quick else 7)
    only = set(args.only or ("review", "history", "search", "log", "approve", "keys"))
    print(f"SQLite {sqlite3.sqlite_version} · Python {sys.version.split()[0]} · {os.cpu_count()} CPUs · "
          f"medians of alternating pairs\n", flush=True)
    folder.mkdir(parents=True, exist_ok=True)
    base_db(folder)  # built with the real HOME's cache dir known: before the sandbox
    if "approve" in only:
        from tests.conformance import releases  # the oracle's releases live in the real user cache

        releases.release_dir("0.22.2")
    sandbox(scratch)
    # bytecode cached as an installed hmc has it (PYTHONDONTWRITEBYTECODE would recompile every module
    # in every `hmc` subprocess, which no installed hmc does)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")
    try:
        if "review" in only:
            bench_review(scratch, (200, 2_000) if args.quick else (2_000, 20_000), repeat)
        if "history" in only:
            bench_history(folder, scratch, [500, 5_000] if args.quick else [5_000, 50_000], repeat)
        if "search" in only:
            bench_search(folder, args.messages or (100_000 if args.quick else 1_000_000), repeat)
        if "log" in only:
            bench_log(scratch, max(repeat, 9))
        if "approve" in only:
            bench_approve(scratch, 100 if args.quick else 1_000, repeat)
        if "keys" in only:
            bench_keys(3 if args.quick else 10)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
