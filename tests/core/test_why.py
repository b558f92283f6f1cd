"""`hmc why`: for every cause, a home where it is the cause gets it as `yes`, named first or second;
bad text gets a one-line refusal; secrets are masked. (The end-to-end case with the real agent loop
is in tests/e2e: a scripted model that claims a save without calling the tool.)"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from core.curator import open_curator
from core.why import CAUSES, FactError, why
from core.review.facts import Fact
from tests.core.pending_support import stage
from tests.core.snapshot_fixtures import make_db, prompt, sha

FACT = "we deploy on Fridays"
T0 = 1_790_000_000.0
DAY = 86_400.0


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


class Home:
    """A home with a state.db in 0.22's layout: sessions with stored prompts, then messages."""

    def __init__(self, root: Path, memory=(), user=(), config: str = "memory:\n  memory_enabled: true\n"):
        self.root = root
        (root / "memories").mkdir(parents=True)
        self.write(memory, user)
        (root / "config.yaml").write_text(config, encoding="utf-8")
        self.sessions: list[dict] = []
        self.prompts: dict[str, str] = {}
        self.messages: list[tuple] = []
        self.meta: list[tuple] = []

    def write(self, memory=(), user=()):
        for name, entries in (("MEMORY.md", memory), ("USER.md", user)):
            (self.root / "memories" / name).write_text("\n§\n".join(entries), encoding="utf-8")

    def session(self, sid, source="cli", loaded=(), start=T0, ended=True):
        text = prompt(loaded)
        self.prompts[sha(text)] = text
        self.sessions.append({"id": sid, "source": source, "title": sid, "started_at": start,
                              "ended_at": start + 600 if ended else None, "last_activity_at": start + 600,
                              "system_prompt_hash": sha(text)})

    def say(self, sid, role, content, at, tool_calls=None, call_id=None, tool_name=None):
        self.messages.append((sid, role, content, call_id, tool_calls, tool_name, at))

    def call(self, sid, args, result, at):
        cid = f"c{len(self.messages)}"
        self.say(sid, "assistant", "", at, json.dumps([{"id": cid, "type": "function", "function": {
            "name": "memory", "arguments": json.dumps(args)}}]))
        self.say(sid, "tool", json.dumps(result), at + 1, call_id=cid, tool_name="memory")

    def build(self):
        path = self.root / "state.db"
        make_db(path, self.sessions, list(self.prompts.items()), meta=self.meta)
        import sqlite3

        conn = sqlite3.connect(path)
        conn.executemany("INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, "
                         "timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)", self.messages)
        conn.commit()
        conn.close()
        return open_curator(self.root, None, date(2026, 10, 1), clock=lambda: T0 + 30 * DAY)


def ask(curator, text=FACT):
    answer = why(curator, text)
    assert [c.cause for c in answer.causes if True] and len(answer.causes) == len(CAUSES)
    return answer


def top(answer, n=2):
    return [c.cause for c in answer.causes if c.verdict == "yes"][:n]


def chat(h, sid, user, reply, at, source="cli", loaded=()):
    h.session(sid, source, loaded, start=at)
    h.say(sid, "user", user, at + 1)
    h.say(sid, "assistant", reply, at + 2)


def test_in_memory(tmp_path):
    h = Home(tmp_path, memory=["Deploys happen on Fridays only"])
    chat(h, "s1", "hello", "hi", T0, loaded=["Deploys happen on Fridays only"])
    a = ask(h.build())
    assert top(a) == ["in-memory"]
    assert a.causes[0].evidence[0]["index"] == 0


def test_not_loaded_names_the_chat_still_on_an_old_snapshot(tmp_path):
    h = Home(tmp_path, memory=["Deploys happen on Fridays only"])
    h.session("tg", "telegram", loaded=[], start=T0, ended=False)
    h.say("tg", "user", "when do we deploy?", T0 + 5)
    a = ask(h.build())
    assert top(a)[0] == "not-loaded"
    assert "telegram" in a.causes[0].detail and "tg" in a.causes[0].detail
    assert "/new or /reset" in a.causes[0].action or "/new" in a.causes[0].action


def test_pending(tmp_path):
    h = Home(tmp_path)
    stage(h.root, content="The team deploys on Fridays", rid="a1b2c3d4")
    a = ask(h.build())
    assert top(a)[0] == "pending" and "a1b2c3d4" in a.causes[0].detail
    assert a.causes[0].action == "Approve it: `hmc pending approve a1b2c3d4` (or key 2 in hmc)."


def test_refused_says_the_reason_for_a_person(tmp_path):
    h = Home(tmp_path, memory=["x" * 2190])
    h.session("s1", "cli")
    h.say("s1", "user", "please remember that we deploy on Fridays", T0 + 1)
    h.call("s1", {"action": "add", "target": "memory", "content": "Team deploys on Fridays"},
           {"success": False, "error": "Memory at 2,190/2,200 chars. Adding this entry (23 chars) would exceed "
                                       "the limit. Replace or remove existing entries first."}, T0 + 2)
    h.say("s1", "assistant", "I couldn't save it, memory is full.", T0 + 4)
    a = ask(h.build())
    assert top(a)[0] == "refused"
    assert "chars over its limit" in a.causes[0].detail and "hmc review" in a.causes[0].action


def test_removed_names_the_write(tmp_path):
    h = Home(tmp_path, memory=["something else"])
    h.session("s1", "cli")
    h.call("s1", {"action": "add", "target": "memory", "content": "Team deploys on Fridays"},
           {"success": True, "entry_count": 1}, T0 + 1)
    h.call("s1", {"action": "add", "target": "memory", "content": "something else"},
           {"success": True, "entry_count": 2}, T0 + 3)
    h.call("s1", {"action": "remove", "target": "memory", "old_text": "Fridays"},
           {"success": True, "entry_count": 1}, T0 + 5)
    a = ask(h.build())
    assert top(a)[0] == "removed"
    assert "hmc rollback" in a.causes[0].action


@pytest.mark.parametrize("reply", ["Got it, saved.", "C'est noté, je m'en souviendrai.", "好的，我记住了。"])
def test_never_saved_a_promise_without_a_call(tmp_path, reply):
    h = Home(tmp_path)
    chat(h, "s1", "Remember that we deploy on Fridays.", reply, T0)
    a = ask(h.build())
    assert top(a)[0] == "never-saved"
    assert "made no memory call" in a.causes[0].detail


def test_never_saved_a_request_with_no_write(tmp_path):
    h = Home(tmp_path)
    chat(h, "s1", "Please remember that we deploy on Fridays.", "Sure, Fridays it is.", T0)
    a = ask(h.build())
    assert top(a)[0] == "never-saved" and "the user asked to remember it" in a.causes[0].detail


def test_a_promise_kept_by_a_call_in_the_turn_is_not_flagged(tmp_path):
    h = Home(tmp_path, memory=["Team deploys on Fridays"])
    h.session("s1", "cli", loaded=["Team deploys on Fridays"])
    h.say("s1", "user", "Remember that we deploy on Fridays.", T0 + 1)
    h.call("s1", {"action": "add", "target": "memory", "content": "Team deploys on Fridays"},
           {"success": True, "entry_count": 1}, T0 + 2)
    h.say("s1", "assistant", "Got it, saved.", T0 + 4)
    a = ask(h.build())
    assert top(a) == ["in-memory"]
    assert next(c for c in a.causes if c.cause == "never-saved").verdict == "no"


def test_not_asked(tmp_path):
    h = Home(tmp_path)
    chat(h, "s1", "fyi we deploy on Fridays, the pipeline is slow", "The pipeline is slow because…", T0)
    a = ask(h.build())
    assert top(a)[0] == "not-asked" and a.causes[0].evidence[0]["session_id"] == "s1"


def test_other_profile(tmp_path):
    h = Home(tmp_path)
    ops = tmp_path / "profiles" / "ops" / "memories"
    ops.mkdir(parents=True)
    (ops.parent / "config.yaml").write_text("", encoding="utf-8")  # a profile as `hermes profile create` leaves it
    (ops / "MEMORY.md").write_text("Ops deploys on Fridays", encoding="utf-8")
    a = ask(h.build())
    assert top(a)[0] == "other-profile" and "Profile ops holds it" in a.causes[0].detail


def test_the_stale_default_profile_folder(tmp_path):
    h = Home(tmp_path)
    stale = tmp_path / "profiles" / "default" / "memories"
    stale.mkdir(parents=True)
    (stale / "MEMORY.md").write_text("Team deploys on Fridays", encoding="utf-8")
    a = ask(h.build())
    assert top(a)[0] == "other-profile"
    assert "stale profiles/default/ folder Hermes never reads" in a.causes[0].detail
    assert f"the default profile's memory is {tmp_path / 'memories'}." in a.causes[0].detail  # the real path, no placeholder


@pytest.mark.parametrize("config", ["memory:\n  memory_enabled: false\n  user_profile_enabled: false\n",
                                    "agent:\n  disabled_toolsets: [memory]\n",
                                    "platform_toolsets:\n  telegram: [terminal]\n"])
def test_disabled(tmp_path, config):
    h = Home(tmp_path, config=config)
    chat(h, "s1", "Remember that we deploy on Fridays.", "Sure.", T0, source="telegram")
    a = ask(h.build())
    assert top(a)[0] == "disabled"
    assert a.causes[0].evidence[0]["kind"] == "config"


def test_provider(tmp_path):
    h = Home(tmp_path, config="memory:\n  provider: honcho\n")
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "left-core-honcho.failed").write_text("3")
    a = ask(h.build())
    assert top(a)[0] == "provider" and "automatic install failed" in a.causes[0].detail
    (tmp_path / "cache" / "left-core-honcho.failed").unlink()
    a = ask(open_curator(tmp_path, None, date(2026, 10, 1)))
    assert top(a)[0] == "provider" and "can't see inside it" in a.causes[0].detail


def test_pruned(tmp_path):
    h = Home(tmp_path, config="sessions:\n  auto_prune: true\n  retention_days: 30\n")
    h.meta.append(("last_auto_prune", str(T0)))
    chat(h, "s1", "something unrelated", "ok", T0)
    a = ask(h.build())
    assert top(a)[0] == "pruned"


def test_no_state_db_and_a_damaged_one(tmp_path):
    Home(tmp_path, memory=["Team deploys on Fridays"])
    a = ask(open_curator(tmp_path, None, date(2026, 10, 1)))
    assert top(a) == ["in-memory"]
    (tmp_path / "state.db").write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    a = ask(open_curator(tmp_path, None, date(2026, 10, 1)))
    assert top(a) == ["in-memory"] and a.problems


@pytest.mark.parametrize("text, message", [
    ("", "give the fact"), ("   \n\t ", "give the fact"), ("x" * 10_000, "10,000 characters"),
    ("the of and is", "no word that carries a meaning"), ("\x00\x1b\x07", "give the fact"),
])
def test_bad_text_is_refused_in_one_line(text, message):
    with pytest.raises(FactError) as exc:
        Fact(text)
    assert message in str(exc.value) and "\n" not in str(exc.value)


@pytest.mark.parametrize("text", ['deploy "unclosed', "NOT deploy OR (friday", "deploy*", "a:b col:umn", "ملف النشر",
                                  "การปรับใช้", "部署 staging"])
def test_search_syntax_and_unknown_scripts_are_plain_words(tmp_path, text):
    h = Home(tmp_path)
    chat(h, "s1", f"note: {text}", "ok", T0)
    a = ask(h.build(), text)
    assert not a.problems


def test_cli_text_json_and_masking(tmp_path, capsys, monkeypatch):
    from tests.core.test_review import fake_key
    from tui.cli.main import main

    monkeypatch.setenv("COLUMNS", "200")
    key = fake_key()
    h = Home(tmp_path, memory=[f"Deploy token for fridays is {key}"])
    h.build()
    assert main(["--home", str(tmp_path), "why", "deploy", "token", "fridays"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Why doesn't Hermes know 'deploy token fridays'? (profile default)")
    assert "yes in-memory" in out and key not in out
    assert main(["--home", str(tmp_path), "why", "--json", "deploy token fridays"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["cause"] for c in data["causes"]][0] == "in-memory" and key not in json.dumps(data)
    assert set(data["causes"][0]) == {"cause", "verdict", "detail", "evidence", "action"}
    assert main(["--home", str(tmp_path), "why", ""]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "give the fact" in err
