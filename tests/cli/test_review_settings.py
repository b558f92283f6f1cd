"""`hmc review` honours hmc's settings file ([review] stale_days, old_days) as the TUI's review mode does."""
from __future__ import annotations

import json
import os
from pathlib import Path

from tests.cli.test_review_cli import hmc, make_home


def settings_file() -> Path:
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "hmc" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def stale_rules(home: Path) -> list[str]:
    out = hmc(home, "review", "--json")
    assert out.returncode == 0, out.stderr
    return sorted(f["rule"] for f in json.loads(out.stdout)["findings"] if f["kind"] == "stale")


def test_stale_days_from_the_settings_file(tmp_path):
    home = make_home(tmp_path / "hermes", ["As of 2026-10-01 staging runs Postgres 14."])  # 45 days before today
    assert stale_rules(home) == []  # the default: 90 days
    settings_file().write_text("[review]\nstale_days = 30\n", encoding="utf-8")
    assert stale_rules(home) == ["stale-30"]
    settings_file().write_text("[review]\nstale_days = 60\n", encoding="utf-8")
    assert stale_rules(home) == []


def test_old_days_no_longer_moves_stale_and_says_so_once(tmp_path):
    """old_days was the stale threshold before the review knew real ages: set alone, it is the `old`
    threshold now, stale keeps 90 days, and a one-line note says what changed."""
    home = make_home(tmp_path / "hermes", ["As of 2026-10-01 staging runs Postgres 14."])
    settings_file().write_text("[review]\nold_days = 30\n", encoding="utf-8")
    out = hmc(home, "review", "--json")
    assert out.returncode == 0 and [f for f in json.loads(out.stdout)["findings"] if f["kind"] == "stale"] == []
    notes = out.stderr.splitlines()
    assert len(notes) == 1 and notes[0].startswith("hmc: note:") and "review.stale_days" in notes[0]
    settings_file().write_text("[review]\nold_days = 30\nstale_days = 30\n", encoding="utf-8")
    out = hmc(home, "review", "--json")
    assert out.stderr == "" and stale_rules(home) == ["stale-30"]


def test_a_bad_setting_is_a_note_and_the_default(tmp_path):
    home = make_home(tmp_path / "hermes", ["As of 2026-07-01 staging runs Postgres 14."])  # 137 days
    settings_file().write_text("[review]\nstale_days = \"soon\"\nold_days = -1\n", encoding="utf-8")
    out = hmc(home, "review", "--json")
    assert out.returncode == 0 and out.stderr.startswith("hmc: note:")
    assert "review.stale_days must be" in out.stderr and "review.old_days must be" in out.stderr
    assert [f["rule"] for f in json.loads(out.stdout)["findings"] if f["kind"] == "stale"] == ["stale-90"]
    settings_file().write_text("theme = 3\n", encoding="utf-8")  # not the review's business: no note
    assert hmc(home, "review").stderr == ""
