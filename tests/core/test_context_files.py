"""Where "already in AGENTS.md" looks (issue 34): the project folders the agent ran in, from
state.db's sessions.cwd, with the detected release's rules (tests/conformance/test_context_files.py
holds those to every release); never the home's own AGENTS.md, which Hermes doesn't load."""

from __future__ import annotations

import sqlite3
from datetime import date

from core.curator import open_curator
from core.review.context_files import DEFAULT_CAP, cap_for, project_files
from core.hermes.release import NEWEST, for_version
from core.review import findings as R
from tests.core.test_review import make_home, working_in

TODAY = date(2026, 11, 15)
RULE = "Never push straight to main in any repo; always open a pull request from a feature branch."
ENTRY = "Never push straight to main in any repo — always open a PR from a feature branch."


def _found(root):
    return [f for f in R.run_review(open_curator(root, None, TODAY), stale_days=90, old_days=None)
            if f.kind == "redundant-context"]


def test_the_projects_agents_md_is_found_and_named_with_its_folder(tmp_path):
    root = make_home(tmp_path / "h", [ENTRY])
    working_in(root, tmp_path / "code" / "tideway", {"AGENTS.md": RULE})
    (found,) = _found(root)
    assert found.source == "tideway/AGENTS.md" and "when it runs in tideway" in found.detail


def test_the_homes_own_agents_md_is_not_what_hermes_loads(tmp_path):
    root = make_home(tmp_path / "h", [ENTRY])
    (root / "AGENTS.md").write_text(RULE, encoding="utf-8")
    assert _found(root) == []


def test_soul_md_is_loaded_in_every_session(tmp_path):
    root = make_home(tmp_path / "h", [ENTRY], files={"SOUL.md": RULE})
    (found,) = _found(root)
    assert found.source == "SOUL.md" and "in every session" in found.detail


def test_a_folder_that_is_gone_or_a_state_db_without_cwd_names_nothing(tmp_path):
    root = make_home(tmp_path / "h", [ENTRY])
    gone = tmp_path / "gone"
    working_in(root, gone, {"AGENTS.md": RULE})
    (gone / "AGENTS.md").unlink()
    gone.rmdir()
    assert _found(root) == []
    con = sqlite3.connect(root / "state.db")  # an older state.db: no cwd column at all
    con.execute("ALTER TABLE sessions DROP COLUMN cwd")
    con.commit()
    con.close()
    assert _found(root) == []


def test_old_sessions_name_no_project(tmp_path):
    root = make_home(tmp_path / "h", [ENTRY])
    working_in(root, tmp_path / "code" / "tideway", {"AGENTS.md": RULE})
    con = sqlite3.connect(root / "state.db")
    con.execute("UPDATE sessions SET started_at = 1600000000")  # 2020: past the 90 days looked at
    con.commit()
    con.close()
    assert _found(root) == []


def test_the_cap_and_what_it_keeps(tmp_path):
    body = "\n".join(f"line {i}" for i in range(10_000))
    (tmp_path / "AGENTS.md").write_text(body, encoding="utf-8")
    (f,) = project_files(tmp_path, NEWEST)
    assert f.cut and len(f.head) == int(DEFAULT_CAP * 0.7) and len(f.tail) == int(DEFAULT_CAP * 0.2)
    assert "line 9999" in f.tail and "line 5000" not in f.text
    assert cap_for(NEWEST, 50_000) == 50_000 and cap_for(NEWEST, 0) == DEFAULT_CAP
    assert cap_for(NEWEST, "50000") == DEFAULT_CAP and cap_for(NEWEST, True) == DEFAULT_CAP
    old, _ = for_version((0, 16, 0))
    assert cap_for(old, 50_000) == DEFAULT_CAP  # 0.16 had no such setting
    assert project_files(tmp_path / "missing", NEWEST) == []
