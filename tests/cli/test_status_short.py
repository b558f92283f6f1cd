"""`hmc status --short`: one line for a shell prompt, from a summary hmc keeps, never stale.

Each change a person or Hermes makes (an entry written, a record staged or approved, a review done,
config.yaml edited, another profile made active) changes the next line at once, even when it lands
in the same second as the summary and keeps the file's size; a damaged summary is read again; a bad
--format is one line and exit 2. Every run here is a real `hmc` process (tests/cli/runner.py).
"""

from __future__ import annotations

import json
import os
import shutil
from datetime import date
from pathlib import Path

import pytest

from core import attention
from tests.cli.runner import hmc

TODAY = "2026-11-15"


@pytest.fixture
def home(demo_copy) -> Path:
    return demo_copy


def short(home: Path, *args: str, profile: str | None = None) -> str:
    head = ["--profile", profile] if profile else []
    done = hmc(*head, "status", "--short", *args, home=home)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout


def summaries() -> list[Path]:
    folder = Path(os.environ["XDG_CACHE_HOME"]) / "hmc" / "attention"
    return sorted(folder.glob("*.cache")) if folder.is_dir() else []


def age(home: Path, *paths: Path) -> None:
    """Files last changed a minute ago: the summary then trusts them (the 2-second rule)."""
    for path in paths:
        os.utime(path, (os.stat(path).st_atime, os.stat(path).st_mtime - 60))


def test_the_line_agrees_with_status_json_and_is_kept(home):
    data = json.loads(hmc("status", "--json", home=home).stdout)
    line = short(home)
    memory = data["targets"]["memory"]
    expected_full = f"{memory['percent']}%" if memory["percent"] >= attention.FULL_AT else ""
    assert line == " ".join(p for p in ("hmc", f"✎{data['pending']['count']}+{data['pending']['skills']['count']}",
                                        "⚠review", expected_full) if p) + "\n"
    assert len(summaries()) == 1
    assert short(home) == line  # from the summary


def test_every_field_of_the_format(home):
    fmt = ("{pending}|{pending_memory}|{pending_skills}|{pending_total}|{review}|{full}|{memory_percent}|"
           "{user_percent}|{problems}|{profile}|{pending_total:>4}")
    data = json.loads(hmc("status", "--json", home=home).stdout)
    out = short(home, "--format", fmt).rstrip("\n").split("|")
    m, s = data["pending"]["count"], data["pending"]["skills"]["count"]
    assert out == [f"✎{m}+{s}", str(m), str(s), str(m + s), "⚠review", out[5],
                   f"{data['targets']['memory']['percent']}%", f"{data['targets']['user']['percent']}%", "",
                   "default", f"{m + s:>4}"]
    assert set(attention.FIELDS) <= set(fmt.replace("}", "{").split("{"))


@pytest.mark.parametrize("fmt, says", [
    ("{nope}", "isn't a field"),
    ("{pending.__class__}", "isn't a field"),
    ("{pending[0]}", "isn't a field"),
    ("{0}", "isn't a field"),
    ("{pending!r}", "no conversion"),
    ("{pending", "expected '}'"),
    ("}", "Single '}'"),
    ("{pending_total:{profile}}", "nested"),
    ("{pending:d}", "--format"),
])
def test_a_bad_format_is_one_line_and_exit_2(home, fmt, says):
    for _ in range(2):  # before and after a summary exists
        done = hmc("status", "--short", "--format", fmt, home=home)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.count("\n") == 1 and says in done.stderr, done.stderr
        short(home)


def test_the_options_that_need_short_and_the_one_that_excludes_it(home):
    for args in (["--format", "{pending}"], ["--quiet-when-clear"]):
        done = hmc("status", *args, home=home)
        assert done.returncode == 2 and "go with --short" in done.stderr
    done = hmc("status", "--short", "--json", home=home)
    assert done.returncode == 2 and json.loads(done.stdout)["exit"] == 2


def test_quiet_when_clear(tmp_path):
    home = tmp_path / "quiet"
    (home / "memories").mkdir(parents=True)
    (home / "memories" / "MEMORY.md").write_text("One small fact", encoding="utf-8")
    (home / "config.yaml").write_text("memory:\n  memory_enabled: true\n", encoding="utf-8")
    assert short(home) == "hmc ⚠review\n"  # never reviewed
    from core.review.decisions import ReviewStore
    from core.store.journal import claim_state_dir

    ReviewStore(claim_state_dir(home), home).mark_reviewed(date.fromisoformat(TODAY))
    assert short(home) == "hmc\n"
    assert short(home, "--quiet-when-clear") == ""
    assert short(home, "--quiet-when-clear") == ""  # from the summary too
    assert short(home, "--quiet-when-clear", "--format", "{memory_percent}") == ""


def test_each_change_shows_at_once_same_second_same_size(home):
    """The summary is written, then each file changes within the same second, keeping its size
    where it can: the next line has the change."""
    memory_file = home / "memories" / "MEMORY.md"
    age(home, memory_file, home / "config.yaml", home / "pending" / "memory", home / "pending" / "skills")
    first = short(home, "--format", "{pending_memory} {pending_skills} {memory_percent} {review} {profile}")
    assert first.startswith("13 7 ") and first.endswith("⚠review default\n")
    fmt = ("--format", "{pending_memory} {pending_skills} {memory_percent} {review} {profile}")

    text = memory_file.read_text(encoding="utf-8")  # same size, one character changed
    memory_file.write_text(text[:-1] + ("x" if text[-1] != "x" else "y"), encoding="utf-8")
    assert short(home, *fmt) == first  # same figures, but read again: nothing to miss
    memory_file.write_text(text[: len(text) // 2], encoding="utf-8")
    halved = short(home, *fmt)
    assert halved != first and halved.split()[2] != first.split()[2]

    record = next((home / "pending" / "memory").glob("*.json"))
    record.unlink()  # approved or rejected in Hermes
    assert short(home, *fmt).split()[0] == "12"
    shutil.copy(next((home / "pending" / "skills").glob("*.json")), home / "pending" / "skills" / "zz-new.json")
    assert short(home, *fmt).split()[1] == "8"

    config = home / "config.yaml"
    config.write_text(config.read_text(encoding="utf-8").replace("memory_char_limit: 2200", "memory_char_limit: 99999"),
                      encoding="utf-8")
    assert short(home, *fmt).split()[2] == "0%"

    from core.review.decisions import ReviewStore
    from core.store.journal import claim_state_dir

    ReviewStore(claim_state_dir(home), home).mark_reviewed(date.fromisoformat(TODAY))
    assert "⚠review" not in short(home, *fmt)

    (home / "active_profile").write_text("ops\n", encoding="utf-8")
    assert short(home, *fmt).split()[-1] == "ops"


def test_the_day_is_part_of_the_summary(home):
    from core.review.decisions import ReviewStore
    from core.store.journal import claim_state_dir

    ReviewStore(claim_state_dir(home), home).mark_reviewed(date(2026, 11, 1))
    assert "⚠review" not in hmc("status", "--short", home=home, today="2026-11-15").stdout
    assert "⚠review" in hmc("status", "--short", home=home, today="2026-12-15").stdout
    assert "⚠review" not in hmc("status", "--short", home=home, today="2026-11-16").stdout


def test_profiles_have_their_own_lines(home):
    assert "⚠review" in short(home, "--format", "{profile} {review}", profile="ops")
    assert short(home, "--format", "{profile}", profile="contenu") == "contenu\n"
    assert short(home, "--format", "{profile}") == "default\n"
    assert len(summaries()) == 3


@pytest.mark.parametrize("damage", ["garbage", "truncated", "shape", "percent", "empty"])
def test_a_damaged_summary_is_read_again(home, damage):
    line = short(home)
    [path] = summaries()
    raw = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(b"\x00" * 100)
    elif damage == "truncated":
        path.write_bytes(raw[: len(raw) // 2])
    elif damage == "empty":
        path.write_bytes(b"")
    else:  # a frame that checks out around figures of the wrong shape or range
        import marshal

        from core.hmc_cache import frame, framed_body

        obj = marshal.loads(framed_body(raw)[0])
        if damage == "percent":
            obj["data"]["stores"]["memory"]["percent"] = 150  # a share no store can have
        else:
            obj["data"]["pending"] = "99"  # a string: if it were used, the line would say ✎99
        body = marshal.dumps(obj)
        path.write_bytes(frame(body) + body)
    assert short(home) == line


def test_an_unreadable_store_is_counted_and_a_missing_home_is_exit_2(home, tmp_path):
    memory_file = home / "memories" / "MEMORY.md"
    memory_file.unlink()
    memory_file.mkdir()  # a folder where the file should be
    assert short(home, "--format", "{problems}") == "⚠1\n"
    done = hmc("status", "--short", home=tmp_path / "nowhere")
    assert done.returncode == 2 and done.stdout == "" and "no Hermes home" in done.stderr


def test_a_closed_pipe_ends_quietly(home):
    short(home)  # the summary is there: the fast path
    import subprocess
    import sys

    from tests.cli.runner import ROOT

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(f"'{sys.executable}' -m tui.cli --home '{home}' --today {TODAY} status --short | true",
                          shell=True, capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0 and done.stderr == ""


def test_old_summaries_are_removed_when_another_is_saved(home):
    short(home, profile="ops")
    [old] = summaries()
    week_ago = os.stat(old).st_mtime - 7 * 86400
    os.utime(old, (week_ago, week_ago))
    stray = old.with_name("not-a-summary.txt")
    stray.write_text("x", encoding="utf-8")
    os.utime(stray, (week_ago, week_ago))
    short(home)  # another profile's line: a new summary, and the week-old one goes
    assert len(summaries()) == 1 and summaries()[0] != old and stray.exists()
