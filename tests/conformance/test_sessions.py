"""state.db written by the release's own SessionDB: hmc's search hits (message ids, in order) equal
the release's `search_messages`, its transcript windows equal `get_messages`, and provenance finds
the memory writes the release recorded.

"The same default exclusions": the release excludes rewound rows (0.16+: inactive; 0.18+: inactive
and not compaction-archived) and nothing else. hmc also hides the kanban/subagent/tool sources and
system prompts, and ranks cron sessions after interactive ones: compared here with
`include_hidden=True, roles=ROLES` on interactive sources; hmc's extra defaults are asserted exactly
in test_deviations.py.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.sessions.search import ROLES, SessionDB
from tests.conformance.hmc_side import release_of
from tests.conformance.strategies import Scratch, examples

pytestmark = pytest.mark.area("sessions")

T0 = 1_700_000_000.0

CONVERSATIONS = {
    "s-docker": ("cli", [
        ("user", "how do I run docker compose in the background"),
        ("assistant", "Use docker compose up -d; the -d flag detaches."),
        ("user", "and kubernetes?"),
        ("assistant", "With kubernetes you apply a deployment manifest instead of compose."),
        ("tool", '{"success": true, "message": "Entry added."}'),
        ("user", "thanks, deploy it to staging"),
    ]),
    "s-python": ("telegram", [
        ("user", "Prefer pathlib over os.path in new Python code"),
        ("assistant", "Noted: pathlib for paths. The node.js scripts stay as they are."),
        ("user", "run pytest -q before pushing; C++ builds use cmake"),
        ("assistant", "pytest -q it is. chat-send is the bot command for replies."),
    ]),
    "s-cjk": ("cli", [
        ("user", "请用中文回答我的问题"),
        ("assistant", "好的，我会用中文回答。"),
        ("user", "日本語でも大丈夫ですか"),
        ("assistant", "はい、日本語でも大丈夫です 🚀"),
        ("user", "naïve café résumé ÜNÏCÖDÉ"),
    ]),
    "s-long": ("discord", [("user" if i % 2 == 0 else "assistant",
                            f"message {i} about deploy step {i} with docker and staging notes")
                           for i in range(30)]),
}
QUERIES = ["docker", "docker compose", '"docker compose"', "deplo*", "docker OR kubernetes",
           "docker NOT compose", "pytest", "pathlib", "node.js", "chat-send", "staging", "compose",
           "中文回答", "中文", "日本語", "大丈夫", "naïve", "ÜNÏCÖDÉ", "cafe", "message 12",
           "step", "nothing-matches-this", "KUBERNETES", "deploy staging"]


def _build(conversations: dict, t0: float = T0) -> tuple[list, list]:
    """The oracle's build list, and every message in insertion order (ids are 1, 2, …)."""
    build, flat = [], []
    t = t0
    for sid, (source, msgs) in conversations.items():
        messages = []
        for role, content in msgs:
            t += 1.0
            messages.append({"role": role, "content": content, "timestamp": t})
            flat.append((sid, role, content))
        build.append({"id": sid, "source": source, "kwargs": {"model": "m"}, "started_at": t0,
                      "messages": messages})
    return build, flat


def _columns(db_path: Path) -> set:
    con = sqlite3.connect(db_path)
    try:
        return {r[1] for r in con.execute("PRAGMA table_info(messages)")}
    finally:
        con.close()


def _run(oracle, home: Path, conversations: dict, queries: list, *, rewound=(), compacted=()):
    """Build state.db with the release, rewind / compact some messages by id, then ask both sides."""
    build, flat = _build(conversations)
    sql = []
    if rewound or compacted:
        # the columns exist from 0.16 (active) and 0.18 (compacted); build first to see which
        oracle.sessions(home, build=build)
        cols = _columns(home / "state.db")
        build = []
        if "active" in cols:
            sql += [f"UPDATE messages SET active = 0 WHERE id = {i}" for i in rewound]
        if "compacted" in cols:
            sql += [f"UPDATE messages SET active = 0, compacted = 1 WHERE id = {i}" for i in compacted]
    out = oracle.sessions(home, build=build, sql=sql, search=[{"query": q} for q in queries],
                          get=[{"session_id": sid} for sid in conversations])
    if build:
        assert [i for ids in out["built"].values() for i in ids] == list(range(1, len(flat) + 1))
    db = SessionDB(home / "state.db", release=release_of(oracle))
    try:
        for q, res in zip(queries, out["search"]):
            assert res.get("raised") is None, (q, res)
            theirs = [h["id"] for h in res["hits"]]
            ours = [h.message_id for h in db.search(q, include_hidden=True, roles=ROLES).hits]
            assert ours == theirs, q
        for sid, res in zip(conversations, out["get"]):
            theirs = [r["id"] for r in res["rows"]]
            shown = db.window(sid, None, before=0, after=10_000).messages
            assert [m.id for m in shown if not m.compacted] == theirs, sid
            # a window around a message: its neighbours in that same sequence
            ids = [m.id for m in shown]
            for pos in range(0, len(ids), 3):
                w = db.window(sid, ids[pos], before=2, after=2)
                assert [m.id for m in w.messages] == ids[max(0, pos - 2):pos + 3], (sid, ids[pos])
    finally:
        db.close()
    return out


def test_search_hits_and_windows(oracle, make_home):
    _run(oracle, make_home(), CONVERSATIONS, QUERIES)


def test_rewound_and_compacted_rows(oracle, make_home):
    """Rewound rows are hidden from both; compaction-archived rows (0.18+) are found by search on
    both sides, and hmc's window shows them marked `compacted`, where get_messages leaves them out
    (the comparison above drops them; the deviation is asserted in test_deviations.py)."""
    home = make_home()
    out = _run(oracle, home, CONVERSATIONS, QUERIES, rewound=(1, 2, 8), compacted=(3, 4, 20))
    cols = _columns(home / "state.db")
    found = {h["id"] for res in out["search"] for h in res["hits"]}
    if "active" in cols:  # the release has rewinding: the case did exercise it
        assert not found & {1, 2, 8}
    if "compacted" in cols:
        assert {4, 20} <= found


def test_search_pages_past_the_first(oracle, make_home):
    home = make_home()
    build, _ = _build(CONVERSATIONS)
    out = oracle.sessions(home, build=build, search=[{"query": "docker", "limit": 5, "offset": o}
                                                     for o in (0, 5, 10, 15)])
    db = SessionDB(home / "state.db", release=release_of(oracle))
    try:
        for o, res in zip((0, 5, 10, 15), out["search"]):
            ours = db.search("docker", include_hidden=True, roles=ROLES, limit=5, offset=o)
            assert [h.message_id for h in ours.hits] == [h["id"] for h in res["hits"]], o
    finally:
        db.close()


WORDS = ["docker", "compose", "deploy", "staging", "pytest", "pathlib", "kubernetes", "node", "js", "tea",
         "Ada", "notes", "release", "friday", "中文", "回答", "café", "naïve", "x1", "v2"]
# (a query made only of emoji is a listed deviation: hmc finds it by substring, the release can't)


@st.composite
def conversations(draw):
    out = {}
    for n in range(draw(st.integers(1, 3))):
        msgs = []
        for _ in range(draw(st.integers(1, 8))):
            words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=8))
            msgs.append((draw(st.sampled_from(["user", "assistant", "tool"])), " ".join(words)))
        out[f"s{n}"] = (draw(st.sampled_from(["cli", "telegram", "discord"])), msgs)
    return out


@examples(12)
@given(convs=conversations(), queries=st.lists(st.sampled_from(WORDS + ["docker compose", "deplo*", "tea OR café",
                                                                          '"docker compose"', "中文回答"]),
                                               min_size=3, max_size=6, unique=True))
def test_generated_state_dbs(oracle, tmp_path, convs, queries):
    _run(oracle, Scratch(tmp_path)(), convs, queries)


# ── hand-picked cases for each release's retries and partial indexes (HERMES-FORMATS.md §0) ──

def _version(oracle) -> tuple[int, int]:
    return release_of(oracle).version[:2]


def _ask(oracle, home: Path, build: list, cases: list, *, builder=None) -> list[list[int]]:
    """Each case is (query, hmc's search kwargs, the release's search_messages kwargs): both sides
    are asked, they must agree, and the release's hit ids are returned for the case's own check
    (None for a case the release can't take, e.g. a keyword it doesn't have).
    *builder*: another release's oracle that writes the database first (the release then opens it)."""
    t = T0
    for sess in build:  # one clock over every session, as one Hermes appends them
        for msg in sess["messages"]:
            t += 1.0
            msg["timestamp"] = t
    if builder is not None:
        builder.sessions(home, build=build)
        build = []
    out = oracle.sessions(home, build=build, search=[{"query": q, "limit": 50, **theirs} for q, _, theirs in cases])
    db = SessionDB(home / "state.db", release=release_of(oracle))
    found = []
    try:
        for (q, ours_kw, theirs_kw), res in zip(cases, out["search"]):
            if "unsupported" in res:  # e.g. `sort` before the release had it: nothing to compare
                found.append(None)
                continue
            assert res.get("raised") is None, (q, res)
            theirs = [h["id"] for h in res["hits"]]
            expected = theirs
            if ours_kw.get("sort", "relevance") == "relevance":  # hmc ranks cron last (test_deviations.py)
                expected = ([h["id"] for h in res["hits"] if h["source"] != "cron"]
                            + [h["id"] for h in res["hits"] if h["source"] == "cron"])
            ours = db.search(q, include_hidden=True, limit=50, **({"roles": ROLES} | ours_kw))
            assert [h.message_id for h in ours.hits] == expected, (q, ours_kw, theirs_kw)
            found.append(theirs)
    finally:
        db.close()
    return found


def _session(sid: str, source: str, *msgs, **kwargs) -> dict:
    return {"id": sid, "source": source, "kwargs": {"model": "m", **kwargs},
            "messages": [{"role": r, "content": c} for r, c in msgs]}


def SUBSTRINGS():
    return [_session("s1", "cli", ("user", "please concatenate the two files"),
             ("assistant", "alpha beta gamma, in that order"), ("user", "the tests are green"))]


def test_substring_retry_when_the_words_find_nothing(oracle, make_home):
    """0.20+: no whole-word hit, so the release searches its trigram index: `cat` is found inside
    `concatenate`, and the phrase "alpha gamma" as its two words anywhere; a token under three
    characters (`te`) is not retried; 0.19 finds none of them."""
    found = _ask(oracle, make_home(), SUBSTRINGS(), [
        ("cat", {}, {}), ('"alpha gamma"', {}, {}), ("te", {}, {}), ("oncat gree", {}, {}),
        ("concat AND files", {}, {}), ("cat OR dog", {}, {}), ("atenat", {"sort": "newest"}, {"sort": "newest"}),
    ])
    retried = _version(oracle) >= (0, 20)
    expected = [[1], [2], [], [], [1], [1], [1]] if retried else [[], [], [], [], [], [], []]
    assert found[:6] == expected[:6] and found[6] in (expected[6], None)  # None: a release without `sort`


def test_no_substring_retry_for_a_tool_role_filter(oracle, make_home):
    found = _ask(oracle, make_home(), [_session("s1", "cli", ("user", "please concatenate"),
                                                ("tool", "concatenated 3 files"))],
                 [("cat", {"roles": ["user", "tool"]}, {"role_filter": ["user", "tool"]}),
                  ("cat", {"roles": ["user", "assistant"]}, {"role_filter": ["user", "assistant"]})])
    if _version(oracle) >= (0, 22):  # a tool role filter is a plain scan: substrings by nature
        assert found == [[2, 1], [1]]
    elif _version(oracle) >= (0, 20):
        assert found == [[], [1]]
    else:
        assert found == [[], []]


def test_or_relaxed_retry_on_0_22(oracle, make_home):
    """0.22 only: still nothing, so the words are joined by OR; not for a query that says OR or
    NOT, nor for a single unit (a phrase is one)."""
    found = _ask(oracle, make_home(), SUBSTRINGS(), [
        ("alpha zzzz", {}, {}), ("gamma zzzz tests", {}, {}), ('"alpha zzzz"', {}, {}),
        ("zzzz NOT alpha", {}, {}), ('"alpha beta" zzzz', {}, {}), ("alpha and zzzz", {}, {}),
        ("alpha or zzzz", {}, {}),
    ])
    if _version(oracle) >= (0, 22):
        assert found[0] == [2] and set(found[1]) == {2, 3} and found[4] == [2] and found[5] == [2]
        assert found[2] == found[3] == found[6] == []
    else:
        assert all(ids == [] for ids in found)


def test_tool_text_past_8192_characters(oracle, make_home):
    """0.22 indexes the first 8,192 characters of a tool message: a word past them is found only by
    a role filter naming tool (a plain scan of the full text). Earlier releases index it all."""
    long_output = "x" * 9_200 + " needleword at the end"
    found = _ask(oracle, make_home(), [_session("s1", "cli", ("user", "run it"), ("tool", long_output),
                                                ("tool", "needleword early"))], [
        ("needleword", {}, {}), ("needleword", {"roles": ["tool"]}, {"role_filter": ["tool"]}),
        ("needleword", {"roles": ["tool", "user"]}, {"role_filter": ["tool", "user"]}),
    ])
    if _version(oracle) >= (0, 22):
        assert found == [[3], [3, 2], [3, 2]]
    else:
        assert sorted(found[0]) == sorted(found[1]) == sorted(found[2]) == [2, 3]


def test_what_the_trigram_index_leaves_out(oracle, make_home):
    """The substring retry only finds what the trigram index holds: every row on 0.19's layout, no
    tool rows on 0.20's, and on 0.22's neither cron, subagent nor delegated sessions."""
    build = [
        _session("s1", "cli", ("user", "修改youer服务端 please"), ("tool", "xxzorbqxx output")),
        _session("s2", "cron", ("user", "nightly prefixquixosuffix job 服务端")),
        _session("s3", "subagent", ("assistant", "subagent saw wobblequaxx")),
        _session("s4", "cli", ("assistant", "delegated child says flimzorp123"), model_config={"_delegate_from": "s1"}),
    ]
    found = _ask(oracle, make_home(), build, [
        ("youer", {}, {}), ("quixo", {}, {}), ("zorbq", {}, {}), ("quaxx", {}, {}), ("flimzorp", {}, {}),
        ("服务端", {}, {}), ("服务端", {"roles": ["tool", "user"]}, {"role_filter": ["tool", "user"]}),
        ("服务端", {"sources": ["cron"]}, {"source_filter": ["cron"]}),
    ])
    v = _version(oracle)
    if v >= (0, 22):
        assert found[:5] == [[1], [], [], [], []]
        assert found[5] == [1] and sorted(found[6]) == [1, 3] and found[7] == [3]
    elif v >= (0, 20):
        assert found[:5] == [[1], [3], [], [4], [5]]
        assert sorted(found[5]) == [1, 3] and sorted(found[6]) == [1, 3] and found[7] == [3]
    else:
        assert found[:5] == [[], [], [], [], []]
        assert sorted(found[5]) == [1, 3] and found[7] == [3]


def test_a_database_0_19_made_keeps_its_layout(oracle, oracle_pool, make_home):
    """A state.db 0.19 created keeps 0.19's index layout when a newer release opens it (it only
    stamps its own schema number): the substring retry then finds tool rows and cron sessions
    too, on both sides, because the layout is read from sqlite_master, never from the number."""
    if _version(oracle) < (0, 20):
        pytest.skip(f"hermes {oracle.version} is not newer than 0.19.0: no older layout to keep")
    home = make_home()
    build = [_session("s1", "cli", ("user", "hello"), ("tool", "xxzorbqxx output")),
             _session("s2", "cron", ("user", "nightly prefixquixosuffix job"))]
    found = _ask(oracle, home, build, [("zorbq", {}, {}), ("quixo", {}, {})], builder=oracle_pool.get("0.19.0"))
    assert found == [[2], [3]]
    con = sqlite3.connect(home / "state.db")
    try:
        version = con.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
        fts = con.execute("SELECT sql FROM sqlite_master WHERE name = 'messages_fts'").fetchone()[0]
    finally:
        con.close()
    assert version == release_of(oracle).schema and "tool_name" not in fts
