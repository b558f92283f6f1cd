"""The demo home reads like a real person's (issue 36): distinct conversations whose titles say what
they are about, in the six languages, and search pages that aren't one sentence seven times."""

from __future__ import annotations

import re
import sqlite3
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from core.demo import build as demo
from core.demo.dialogues import DIALOGUES
from core.demo.sessions import SessionPlanner
from core.demo.story_talk import STORY_TALK
from core.sessions.promises import claims, requests
from core.sessions.search import SessionDB

INTERACTIVE = ("cli", "telegram", "discord")
_CJK = re.compile(r"[\u3400-\u9fff]+")


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    return demo.build_demo_home(tmp_path_factory.mktemp("variety") / "hermes")


@pytest.fixture(scope="module")
def db(home):
    conn = sqlite3.connect(f"file:{home / 'state.db'}?mode=ro", uri=True)
    yield conn
    conn.close()


def shape(text: str) -> str:
    """A text with its numbers, ids and code spans made alike: two texts of one template (a slot
    filled with another test name, table or count) have the same shape."""
    text = re.sub(r"`[^`]*`", "`x`", text)
    return re.sub(r"[0-9a-f]{6,}|\d+([.,]\d+)*", "#", text.lower())


def words(text: str) -> set[str]:
    """A title's content words: Latin and Cyrillic words of four letters or more, and each pair of
    adjacent Han characters (Chinese has no spaces)."""
    out = {w for w in re.findall(r"[^\W\d_]{4,}", text.lower()) if not _CJK.fullmatch(w)}
    for run in _CJK.findall(text):
        out |= {run[i:i + 2] for i in range(len(run) - 1)}
    return out


def test_no_two_sessions_share_a_title(db):
    """A title names one session: only a compressed session's continuation ('X #2' under 'X') and a
    cron job's runs (named after the job) repeat one."""
    rows = db.execute("SELECT s.title, s.source, p.end_reason FROM sessions s LEFT JOIN sessions p "
                      "ON p.id = s.parent_session_id WHERE s.title IS NOT NULL").fetchall()
    bases = Counter(re.sub(r" #\d+$", "", title) for title, source, parent_end in rows
                    if source != "cron" and parent_end != "compression")
    assert [t for t, n in bases.items() if n > 1] == []
    assert sum(bases.values()) > 120


def test_no_user_message_is_said_in_two_sessions(db):
    """What a person types is said once: no user message of the chat sources (cron jobs repeat their
    prompt by design) has the same shape as one in another session."""
    seen: dict[str, set[str]] = defaultdict(set)
    rows = db.execute("SELECT m.session_id, m.content FROM messages m JOIN sessions s ON s.id = m.session_id "
                      "WHERE m.role = 'user' AND m.display_kind IS NULL AND s.source IN (?, ?, ?)", INTERACTIVE)
    for sid, content in rows:
        seen[shape(content)].add(sid)
    assert len(seen) > 300
    assert {text[:60]: len(sids) for text, sids in seen.items() if len(sids) > 1} == {}


@pytest.mark.parametrize("query", ["staging", "deploy", "миграция", "数据库", "Paylane", "préprod",
                                   "invoice export"])
def test_a_page_of_hits_holds_distinct_messages(home, db, query):
    """The first page of hits for a common word shows different messages from different sessions."""
    sessions = SessionDB(home / "state.db")
    try:
        hits = sessions.search(query, limit=20).hits
    finally:
        sessions.close()
    texts = [db.execute("SELECT content FROM messages WHERE id = ?", (h.message_id,)).fetchone()[0] for h in hits]
    assert len(hits) >= 3
    assert len({shape(t) for t in texts}) == len(texts)
    assert len({h.snippet_text for h in hits}) == len(hits)
    assert len({h.session_id for h in hits}) >= min(len(hits), 3)


def test_each_title_is_what_its_session_talks_about(db):
    """Most of a titled conversation's title words are said in it (a title generator names what was
    said, it doesn't invent a topic)."""
    said: dict[str, str] = defaultdict(str)
    for sid, content in db.execute("SELECT session_id, content FROM messages WHERE role IN ('user', 'assistant')"):
        said[sid] += " " + (content or "").lower()
    checked = 0
    for sid, title in db.execute("SELECT id, title FROM sessions WHERE title IS NOT NULL AND source IN (?, ?, ?)",
                                 INTERACTIVE):
        want = words(re.sub(r" #\d+$", "", title))
        found = {w for w in want if w in said[sid]}
        assert len(found) * 2 >= len(want), (title, want - found)
        checked += 1
    assert checked > 120


def test_six_languages_in_a_natural_spread():
    plans = SessionPlanner(seed=7, today=demo.DEMO_TODAY).plan(sessions=demo.DEMO_SESSIONS,
                                                              messages=demo.DEMO_MESSAGES)
    talk = [p for p in plans if p.kind == "talk"]
    langs = Counter(p.lang for p in talk)
    assert set(langs) == {"en", "fr", "es", "it", "ru", "zh"}
    assert langs["en"] > langs["fr"] > max(langs["es"], langs["it"], langs["ru"], langs["zh"]) >= 5
    assert len({p.extra["dialogue"] for p in talk}) == len(talk)  # no dialogue is told twice
    assert Counter(p.project for p in talk).most_common()[-1][1] >= 15


def test_the_written_lines_are_distinct_and_make_no_memory_promise():
    """Every line of the dialogues and the story's talk is its own, and none promises or asks for a
    memory write (the demo's promises are its story's: `hmc why` and the review show those)."""
    lines: list[tuple[str, bool]] = []
    for _, _, _, _, turns in DIALOGUES:
        assert len(turns) % 2 == 0
        lines += [(t, i % 2 == 0) for i, t in enumerate(turns)]
    for talk in STORY_TALK.values():
        lines += [x for user, answer in talk for x in ((user, True), (answer, False))]
    assert len({shape(t) for t, _ in lines}) == len(lines)
    assert [t for t, user in lines if (requests(t) if user else claims(t))] == []
    assert len({d[3] for d in DIALOGUES}) == len(DIALOGUES)
