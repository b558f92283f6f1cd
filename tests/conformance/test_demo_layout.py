"""The demo's state.db is a 0.22.2 store: its sqlite_master equals what 0.22.2's own SessionDB
creates on an empty HERMES_HOME, the release opens it without changing its layout, and the
release's search finds in it what hmc finds.

Only 0.22.2 can answer (the demo is in its layout); under any other release these tests are n/a.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from core.demo import build as demo
from core.demo import layout
from core.sessions.search import ROLES, SessionDB
from tests.conformance.hmc_side import release_of

pytestmark = pytest.mark.area("sessions")

# word, phrase, prefix, boolean and CJK (trigram) queries that all hit the demo; on interactive
# sources, as test_sessions.py compares (hmc's extra default exclusions are deviations)
QUERIES = ["alembic", "pnpm", '"rate limit"', "deplo*", "docker OR podman", "invoice NOT export",
           "数据库", "Postgres", "zanzibarquux", "webhook signature", "nothing-matches-this"]
INTERACTIVE = ["cli", "telegram", "discord"]


def _only_022(oracle) -> None:
    if release_of(oracle).name != "0.22.2":
        pytest.skip(f"hermes {release_of(oracle).name} can't answer: the demo is in 0.22.2's layout",
                    allow_module_level=False)


def master(db_path: Path) -> list[tuple[str, str, str, str | None]]:
    """sqlite_master as (type, name, table, sql with whitespace runs made one space), sorted."""
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT type, name, tbl_name, sql FROM sqlite_master").fetchall()
    finally:
        con.close()
    return sorted((t, n, tb, None if sql is None else re.sub(r"\s+", " ", sql).strip()) for t, n, tb, sql in rows)


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory) -> Path:
    return demo.build_demo_home(tmp_path_factory.mktemp("demo") / "hermes")


def test_the_demo_layout_is_the_releases(oracle, make_home, demo_home):
    _only_022(oracle)
    fresh = make_home()
    out = oracle.sessions(fresh)  # the release's SessionDB on an empty home, nothing else
    assert out["schema_version"] == layout.SCHEMA_VERSION == demo.SCHEMA_VERSION
    theirs, ours = master(fresh / "state.db"), master(demo_home / "state.db")
    assert [r[:3] for r in ours] == [r[:3] for r in theirs]
    for a, b in zip(ours, theirs):
        assert a == b, a[1]
    con = sqlite3.connect(f"file:{demo_home / 'state.db'}?mode=ro", uri=True)
    try:
        assert con.execute("SELECT version FROM schema_version").fetchall() == [(31,)]
        keys = [k for (k,) in con.execute("SELECT key FROM state_meta ORDER BY rowid")]
    finally:
        con.close()
    fresh_con = sqlite3.connect(f"file:{fresh / 'state.db'}?mode=ro", uri=True)
    try:
        assert keys == [k for (k,) in fresh_con.execute("SELECT key FROM state_meta ORDER BY rowid")]
    finally:
        fresh_con.close()


def test_the_release_opens_the_demo_as_is_and_finds_what_hmc_finds(oracle, make_home, demo_home):
    _only_022(oracle)
    home = make_home()
    shutil.copy2(demo_home / "state.db", home / "state.db")
    before = master(home / "state.db")
    out = oracle.sessions(home, search=[{"query": q, "source_filter": INTERACTIVE, "limit": 50}
                                        for q in QUERIES])
    assert master(home / "state.db") == before  # no migration, no repair: already its layout
    db = SessionDB(home / "state.db", release=release_of(oracle))
    try:
        total = 0
        for q, res in zip(QUERIES, out["search"]):
            assert res.get("raised") is None, (q, res)
            theirs = [h["id"] for h in res["hits"]]
            ours = [h.message_id for h in db.search(q, sources=INTERACTIVE, include_hidden=True, roles=ROLES,
                                                     limit=50).hits]
            assert ours == theirs, q
            total += len(theirs)
        assert total > 50  # the queries did find things
    finally:
        db.close()


def test_the_releases_display_columns_match_the_demos(oracle, make_home, demo_home):
    """The release, asked for a story session's transcript, returns the rows hmc's demo wrote, with the
    uids the demo minted (its read path backfills nothing: identity and order are already set)."""
    _only_022(oracle)
    home = make_home()
    shutil.copy2(demo_home / "state.db", home / "state.db")
    con = sqlite3.connect(home / "state.db")
    try:
        (sid,) = con.execute("SELECT session_id FROM messages WHERE tool_name = 'memory' LIMIT 1").fetchone()
        rows = con.execute("SELECT id, message_uid, display_identity, display_order FROM messages "
                           "WHERE session_id = ? AND active = 1 ORDER BY id", (sid,)).fetchall()
    finally:
        con.close()
    out = oracle.sessions(home, get=[{"session_id": sid}])
    got = out["get"][0]["rows"]
    assert [(r["id"], r["message_uid"]) for r in got] == [(i, uid) for i, uid, _, _ in rows]
    con = sqlite3.connect(home / "state.db")
    try:
        after = con.execute("SELECT id, message_uid, display_identity, display_order FROM messages "
                            "WHERE session_id = ? AND active = 1 ORDER BY id", (sid,)).fetchall()
    finally:
        con.close()
    assert after == rows
