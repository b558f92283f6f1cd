"""`hmc review` as a subprocess on temporary homes: output, JSON, exit codes, files."""
from __future__ import annotations

import json
import os
import random
import string
import subprocess
import sys
from pathlib import Path

import pytest

from core.store.memory import serialize

HMC = [sys.executable, "-m", "tui.cli"]
ROOT = Path(__file__).resolve().parents[2]


def hmc(home: Path, *args: str, today: str = "2026-11-15") -> subprocess.CompletedProcess:
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return subprocess.run([*HMC, "--home", str(home), "--today", today, *args],
                          capture_output=True, text=True, env=env, timeout=60)


def fake_key() -> str:
    rng = random.Random(11)
    return "sk-" + "proj-" + "".join(rng.choices(string.ascii_letters + string.digits, k=40))


def make_home(root: Path, memory: list[str], user: list[str] = ()) -> Path:
    (root / "memories").mkdir(parents=True)
    (root / "memories" / "MEMORY.md").write_text(serialize(memory), encoding="utf-8")
    (root / "memories" / "USER.md").write_text(serialize(list(user)), encoding="utf-8")
    return root


@pytest.fixture
def home(tmp_path):
    return make_home(tmp_path / "hermes", [
        "SSH port for staging is 2222.",
        "SSH port for staging is 3000.",
        f"Bot key: {fake_key()}",
        "Yesterday the logs showed [bold]x[/] and \x1b[31mred\x1b[0m.",
    ], ["Timezone Europe/Paris (CET/CEST)."])


def test_people_get_groups_details_and_entries(home):
    out = hmc(home, "review")
    assert out.returncode == 0, out.stderr
    assert "last review: never" in out.stdout
    assert "conflicting (1)" in out.stdout and "differs in a number: 2222 vs 3000" in out.stdout
    assert "memory #1 ↔ #2" in out.stdout and "relative-date (1)" in out.stdout
    assert "[bold]x[/]" in out.stdout and "\x1b[31m" not in out.stdout  # literal, escapes made visible
    assert fake_key() not in out.stdout
    # looking is not reviewing: the date is not recorded while warnings are open
    again = hmc(home, "review")
    assert "last review: never" in again.stdout and "still open" in again.stdout


def test_json_for_scripts(home):
    out = hmc(home, "review", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["today"] == "2026-11-15" and data["last_review"] is None and data["review_due"] is True
    first = data["findings"][0]
    assert {"kind", "severity", "target", "entries", "rule", "detail", "key"} <= first.keys()
    assert first["kind"] in ("scanner", "conflicting") and first["severity"] in ("critical", "error")
    conflict = next(f for f in data["findings"] if f["kind"] == "conflicting")
    assert conflict["entries"] == [0, 1] and conflict["target"] == "memory"
    assert data["counts"]["conflicting"] == 1 and data["count"] == len(data["findings"])
    assert fake_key() not in out.stdout
    # findings at warning or above are open: looking doesn't make the review done
    assert data["complete"] is False and data["marked"] is False
    assert json.loads(hmc(home, "review", "--json").stdout)["last_review"] is None


def test_plain_review_of_open_findings_does_not_mark_it_done(home):
    out = hmc(home, "review")
    assert out.returncode == 0 and "still open" in out.stdout
    assert json.loads(hmc(home, "review", "--json").stdout)["review_due"] is True


def test_review_is_done_once_every_warning_is_fixed_or_kept(home):
    from core.curator import open_curator
    from core.review import findings as R
    from datetime import date

    curator = open_curator(home, today=date(2026, 11, 15))
    R.keep(curator, R.open_problems(R.run_review(curator, include_kept=True)))
    check = hmc(home, "review", "--check")
    assert check.returncode == 0
    assert json.loads(hmc(home, "review", "--json", "--check").stdout)["last_review"] is None  # --check never marks
    out = hmc(home, "review")
    assert "Review done" in out.stdout and "recorded" in out.stdout
    data = json.loads(hmc(home, "review", "--json").stdout)
    assert data["last_review"] == "2026-11-15" and data["review_due"] is False and data["complete"]


def test_check_exit_codes_for_cron(home, tmp_path):
    out = hmc(home, "review", "--check")
    assert out.returncode == 1 and "at warning or above" in out.stdout
    clean = make_home(tmp_path / "clean", ["Timezone Europe/Paris (CET/CEST)."])
    ok = hmc(clean, "review", "--check")
    assert ok.returncode == 0 and "0 findings" in ok.stdout
    assert json.loads(hmc(clean, "review", "--json", "--check").stdout)["last_review"] is None  # never marks
    # a clean home: any other mode finds the review complete and records it
    assert json.loads(hmc(clean, "review", "--json").stdout)["last_review"] == "2026-11-15"


def test_markdown_report_file(home, tmp_path):
    report = tmp_path / "out" / "review.md"
    report.parent.mkdir()
    out = hmc(home, "review", "--json", "--markdown", str(report))
    assert out.returncode == 0, out.stderr
    text = report.read_text(encoding="utf-8")
    assert text.startswith("# Memory review — 2026-11-15") and "## conflicting (1)" in text
    assert fake_key() not in text
    # a report is not the review: with warnings still open, it stays due
    assert json.loads(out.stdout)["marked"] is False
    assert json.loads(hmc(home, "review", "--json").stdout)["last_review"] is None
    bad = hmc(home, "review", "--markdown", str(tmp_path / "missing" / "r.md"))
    assert bad.returncode == 2 and bad.stderr.startswith("hmc: can't write") and "Traceback" not in bad.stderr


def test_kept_findings_hidden_unless_all(home):
    from core.curator import open_curator
    from core.review import findings as R
    from datetime import date

    curator = open_curator(home, today=date(2026, 11, 15))
    conflict = next(f for f in R.run_review(curator) if f.kind == "conflicting")
    R.keep(curator, [conflict])
    data = json.loads(hmc(home, "review", "--json").stdout)
    assert data["kept"] == 1 and "conflicting" not in data["counts"]
    everything = json.loads(hmc(home, "review", "--json", "--all").stdout)
    assert any(f["kind"] == "conflicting" and f.get("kept") for f in everything["findings"])


def test_no_home_is_one_line_exit_2(tmp_path):
    out = hmc(tmp_path / "nowhere", "review")
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "hmc demo" in out.stderr


def test_old_entries_from_the_history_in_text_and_json(tmp_path):
    """`old` (info) from state.db's memory calls: listed with who and when, in JSON with `since`;
    it never fails --check, and the review can be complete with it open."""
    from tests.core.test_review_ages import TODAY, day_of, home_with_history, T0

    home, _ = home_with_history(tmp_path)
    today = TODAY.isoformat()
    out = hmc(home, "review", today=today)
    assert out.returncode == 0, out.stderr
    assert "old (2)" in out.stdout
    assert "info     memory #1" in out.stdout and "added by the agent in a telegram session" in out.stdout
    assert "(300 days)" in out.stdout and "rewritten by the agent in a cli session" in out.stdout
    data = json.loads(hmc(home, "review", "--json", today=today).stdout)
    old = [f for f in data["findings"] if f["kind"] == "old"]
    assert [(f["target"], f["entries"], f["severity"], f["rule"]) for f in old] == [
        ("memory", [0], "info", "old"), ("memory", [1], "info", "old")]
    assert old[0]["since"] == day_of(T0).isoformat() and data["counts"]["old"] == 2
    assert data["complete"] is True  # info findings never hold the review open
    check = hmc(home, "review", "--check", today=today)
    assert check.returncode == 0 and "0 at warning or above" in check.stdout
    # the threshold from hmc's settings file
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "hmc" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[review]\nstale_days = 90\nold_days = 30\n", encoding="utf-8")
    data = json.loads(hmc(home, "review", "--json", today=today).stdout)
    assert [(f["target"], f["entries"]) for f in data["findings"] if f["kind"] == "old"] == [
        ("memory", [0]), ("memory", [1]), ("user", [0])]
    # no state.db: no old findings, and nothing fails
    (home / "state.db").unlink()
    out = hmc(home, "review", "--json", today=today)
    assert out.returncode == 0 and not [f for f in json.loads(out.stdout)["findings"] if f["kind"] == "old"]


def test_review_flags_a_lone_section_line_left_by_a_doubled_separator(tmp_path):
    """#21: `…Fridays.\n§\n§\nThe CI…` reads as an entry `§\nThe CI…`; the review lists it (not
    "Nothing to fix") and points at the tidy-up."""
    root = tmp_path / "h"
    (root / "memories").mkdir(parents=True)
    (root / "memories" / "MEMORY.md").write_text("Deploys on Fridays.\n§\n§\nThe CI runs on push.", encoding="utf-8")
    result = hmc(root, "review")
    assert result.returncode == 0, result.stderr
    assert "lone § line in entry 2" in result.stdout and "tidy-up" in result.stdout
    data = json.loads(hmc(root, "review", "--json").stdout)
    drift = [f for f in data["findings"] if f["kind"] == "drift"]
    assert len(drift) == 1 and drift[0]["severity"] == "info" and "lone § line" in drift[0]["detail"]


# -- decision aids (issue 36): written dates, the relative date resolved, the skill passage -------------------

def history_home(tmp_path) -> Path:
    from tests.core.test_timeline import Db, add

    root = make_home(tmp_path / "hist", [])
    db = Db(root / "state.db")
    db.session("s-tg", "telegram")
    db.session("s-cli", "cli")
    db.call("s-tg", add("SSH port for staging is 2222."))  # 21 Sep 2026
    db.minute += 45 * 24 * 60
    db.call("s-cli", add("SSH port for staging is 3000."))  # 5 Nov 2026
    db.call("s-cli", add("Yesterday we moved the staging DB to Postgres 16."))
    (root / "memories" / "MEMORY.md").write_text(serialize(
        ["SSH port for staging is 2222.", "SSH port for staging is 3000.",
         "Yesterday we moved the staging DB to Postgres 16."]), encoding="utf-8")
    skill = root / "skills" / "deploy" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(f"# Deploy\n\nSteps:\n1. Deploy harbor-web with kubectl apply -f k8s/web.yaml in prod, key {fake_key()}.\n"
                     "2. Watch the rollout.\n", encoding="utf-8")
    (root / "memories" / "USER.md").write_text(serialize(["Deploy harbor-web with kubectl apply -f k8s/web.yaml in prod."]),
                                                encoding="utf-8")
    return root


def test_people_see_when_each_side_was_written_the_real_date_and_the_skill_lines(tmp_path):
    root = history_home(tmp_path)
    out = hmc(root, "review").stdout
    assert "which one is true? memory #1 written 21 Sep 2026 (telegram); memory #2 written 5 Nov 2026 (cli)" in out
    assert 'saved 5 Nov 2026, so "Yesterday" meant 4 Nov 2026' in out
    assert "skills/deploy/SKILL.md, lines 3-5:" in out
    assert "   4 │ 1. Deploy harbor-web with kubectl apply -f k8s/web.yaml in prod" in out
    assert fake_key() not in out  # the passage is masked like every untrusted text


def test_json_gives_the_written_dates_the_resolved_date_and_the_passage(tmp_path):
    root = history_home(tmp_path)
    data = json.loads(hmc(root, "review", "--json").stdout)
    by_kind = {f["kind"]: f for f in data["findings"]}
    assert [(w["number"], w["date"], w["by"]) for w in by_kind["conflicting"]["written"]] == [
        (1, "2026-09-21", "telegram"), (2, "2026-11-05", "cli")]
    relative = by_kind["relative-date"]
    assert relative["saved"] == "2026-11-05" and relative["resolved"] == [{"phrase": "Yesterday", "date": "2026-11-04"}]
    skill = by_kind["redundant-skill"]
    assert skill["passage_lines"] == [3, 5] and "Watch the rollout." in skill["passage"]
    assert fake_key() not in json.dumps(data)


def test_without_history_the_dates_are_unknown_and_nothing_is_resolved(home):
    data = json.loads(hmc(home, "review", "--json").stdout)
    by_kind = {f["kind"]: f for f in data["findings"]}
    assert [w["date"] for w in by_kind["conflicting"]["written"]] == [None, None]
    assert "when each was written is unknown" in by_kind["conflicting"]["detail"]
    assert "saved" not in by_kind["relative-date"] and "resolved" not in by_kind["relative-date"]
