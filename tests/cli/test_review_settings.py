"""`hmc review` honours hmc's settings file ([review] old_days) as the TUI's review mode does."""
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


def test_old_days_from_the_settings_file(tmp_path):
    home = make_home(tmp_path / "hermes", ["As of 2026-10-01 staging runs Postgres 14."])  # 45 days before today
    assert stale_rules(home) == []  # the default: 90 days
    settings_file().write_text("[review]\nold_days = 30\n", encoding="utf-8")
    assert stale_rules(home) == ["stale-30"]
    settings_file().write_text("[review]\nold_days = 60\n", encoding="utf-8")
    assert stale_rules(home) == []


def test_a_bad_setting_is_a_note_and_the_default(tmp_path):
    home = make_home(tmp_path / "hermes", ["As of 2026-07-01 staging runs Postgres 14."])  # 137 days
    settings_file().write_text("[review]\nold_days = \"soon\"\n", encoding="utf-8")
    out = hmc(home, "review", "--json")
    assert out.returncode == 0 and "review.old_days" in out.stderr and out.stderr.startswith("hmc: note:")
    assert [f["rule"] for f in json.loads(out.stdout)["findings"] if f["kind"] == "stale"] == ["stale-90"]
    settings_file().write_text("theme = 3\n", encoding="utf-8")  # not the review's business: no note
    assert hmc(home, "review").stderr == ""
