"""hmc's own config.toml: defaults, every value checked, a bad file never raises, the theme round trip."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from core import settings as S


@pytest.fixture
def path(tmp_path) -> Path:
    return tmp_path / "hmc" / "config.toml"


def test_the_file_lives_in_hmcs_user_config_folder(isolated_user, tmp_path):
    assert S.settings_path() == tmp_path / "xdg-config" / "hmc" / "config.toml"


def test_missing_file_gives_the_defaults_and_no_problem(path):
    got = S.load(path)
    assert (got.theme, got.poll_interval, got.stale_days, got.old_days, got.keys, got.problems) == \
        (None, 0.5, 90, 180, {}, ())


def test_every_setting_is_read(path):
    path.parent.mkdir(parents=True)
    path.write_text('theme = "gruvbox"\npoll_interval = 2\n\n[review]\nstale_days = 45\nold_days = 365\n\n'
                    '[keys]\n"pending.approve_all" = "ctrl+a"\n"memory.add" = "a, plus"\n')
    got = S.load(path)
    assert got.theme == "gruvbox" and got.poll_interval == 2.0
    assert (got.stale_days, got.old_days) == (45, 365)
    assert got.keys == {"pending.approve_all": "ctrl+a", "memory.add": "a,plus"}
    assert got.problems == ()


@pytest.mark.parametrize("text,words", [
    ('theme = "unclosed\n', "not valid TOML"),
    ("poll_interval = 0\n", "poll_interval must be"),
    ("poll_interval = nan\n", "poll_interval must be"),
    ('poll_interval = "fast"\n', "poll_interval must be"),
    ("poll_interval = true\n", "poll_interval must be"),
    ("[review]\nold_days = 0\n", "review.old_days must be"),
    ("[review]\nold_days = 9.5\n", "review.old_days must be"),
    ("[review]\nold_days = 3651\nstale_days = 90\n", "review.old_days must be"),
    ("[review]\nstale_days = 0\n", "review.stale_days must be"),
    ("[review]\nstale_days = true\n", "review.stale_days must be"),
    ('[review]\nstale_days = "90"\n', "review.stale_days must be"),
    ("review = 3\n", "[review] must be a table"),
    ("theme = 3\n", "theme must be"),
    ('theme = ""\n', "theme must be"),
    ("keys = 1\n", "[keys] must be a table"),
    ('[keys]\n"memory.add" = 1\n', "keys.memory.add must be"),
    ('[keys]\n"memory.add" = ""\n', "keys.memory.add must be"),
    ("colour = 1\n", "unknown setting colour"),
    ("[review]\nold = 1\n", "unknown setting review.old"),
    ("a = " + "[" * 5000 + "]" * 5000 + "\n", "using the defaults"),
])
def test_a_bad_value_is_a_problem_never_an_exception(path, text, words):
    path.parent.mkdir(parents=True)
    path.write_text(text)
    got = S.load(path)
    assert any(words in p for p in got.problems), got.problems
    # the defaults stand in for what is wrong
    assert got.poll_interval == 0.5 and (got.stale_days, got.old_days) == (90, 180)


def test_old_days_alone_gets_a_one_line_notice_about_its_new_meaning(path):
    """old_days once set the stale threshold: a file setting it without stale_days is told, once per
    load, what each means now; the value is the `old` threshold either way, stale keeps its default."""
    path.parent.mkdir(parents=True)
    path.write_text("[review]\nold_days = 30\n")
    got = S.load(path)
    assert (got.stale_days, got.old_days) == (90, 30)
    assert len(got.problems) == 1 and "\n" not in got.problems[0]
    assert "review.old_days now means" in got.problems[0] and "review.stale_days" in got.problems[0]
    path.write_text("[review]\nold_days = 30\nstale_days = 30\n")  # both set: nothing to say
    got = S.load(path)
    assert (got.stale_days, got.old_days, got.problems) == (30, 30, ())
    path.write_text("[review]\nstale_days = 30\n")
    assert S.load(path).problems == ()
    path.write_text("[review]\nold_days = 0\n")  # a bad value: one problem, not two
    assert len(S.load(path).problems) == 1


def test_good_values_survive_a_bad_neighbour(path):
    path.parent.mkdir(parents=True)
    path.write_text('theme = "nord"\npoll_interval = -1\n')
    got = S.load(path)
    assert got.theme == "nord" and got.poll_interval == 0.5 and len(got.problems) == 1


def test_unreadable_files_are_problems(path, tmp_path):
    path.parent.mkdir(parents=True)
    path.write_bytes(b"theme = \"\xff\"\n")
    assert "not UTF-8" in S.load(path).problems[0]
    path.unlink()
    path.mkdir()
    assert "not a regular file" in S.load(path).problems[0]
    path.rmdir()
    os.mkfifo(path)  # a FIFO must never block the start
    assert "not a regular file" in S.load(path).problems[0]
    path.unlink()
    path.write_text("#" * (S.MAX_BYTES + 1))
    assert "bytes" in S.load(path).problems[0]


def test_control_characters_in_a_bad_value_never_reach_the_problem(path):
    path.parent.mkdir(parents=True)
    path.write_text('poll_interval = "\\u001b]52;c;aGk=\\u0007"\n')
    problem = S.load(path).problems[0]
    assert "\x1b" not in problem and "\x07" not in problem


def test_theme_round_trip_keeps_every_other_line(path):
    path.parent.mkdir(parents=True)
    original = '# my settings\ntheme = "nord"  # dark\npoll_interval = 1\n\n[keys]\n"memory.add" = "plus"\n'
    path.write_text(original)
    S.save_theme("gruvbox", path)
    text = path.read_text()
    assert text == original.replace('"nord"', '"gruvbox"')
    got = S.load(path)
    assert got.theme == "gruvbox" and got.keys == {"memory.add": "plus"} and got.poll_interval == 1


def test_theme_is_added_before_the_first_table_and_the_folder_is_created(path):
    S.save_theme("textual-light", path)
    assert S.load(path).theme == "textual-light"
    path.write_text('[review]\nold_days = 30\n')
    S.save_theme('odd "name"', path)
    assert tomllib.loads(path.read_text()) == {"theme": 'odd "name"', "review": {"old_days": 30}}


def test_a_broken_file_is_not_overwritten_by_saving_the_theme(path):
    path.parent.mkdir(parents=True)
    path.write_text("theme = [unclosed\n")
    with pytest.raises(S.SettingsError, match="not valid TOML"):
        S.save_theme("nord", path)
    assert path.read_text() == "theme = [unclosed\n"


def test_a_symlinked_config_is_written_through_and_stays_a_link(tmp_path):
    """A dotfiles setup links config.toml to a file in a repository: `config set` and the theme
    change the file the link names, and the link stays a link."""
    target = tmp_path / "dotfiles" / "hmc.toml"
    target.parent.mkdir()
    target.write_text("# mine\npoll_interval = 2\n")
    link = tmp_path / "hmc" / "config.toml"
    link.parent.mkdir()
    link.symlink_to(target)
    S.set_setting("review.stale_days", "30", link)
    S.save_theme("nord", link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert tomllib.loads(target.read_text()) == {"poll_interval": 2, "theme": "nord", "review": {"stale_days": 30}}
    assert "# mine\npoll_interval = 2\n" in target.read_text()  # every other line kept
    assert not list(target.parent.glob("*.lock")) and not list(target.parent.glob(".config.*"))


def test_two_sets_at_once_both_land(tmp_path):
    """Two writers at the same moment (two `hmc config set`, or one and the TUI's theme): each
    reads the file inside the lock, so neither update is lost (9 of 20 rounds lost one before)."""
    import threading

    path = tmp_path / "hmc" / "config.toml"
    for round_ in range(20):
        path.parent.mkdir(exist_ok=True)
        path.write_text("# round %d\n" % round_)
        start = threading.Barrier(2)
        errors = []

        def set_(key, value):
            start.wait()
            try:
                S.set_setting(key, value, path)
            except Exception as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=set_, args=a) for a in (("poll_interval", "3"), ("review.old_days", "45"))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        assert tomllib.loads(path.read_text()) == {"poll_interval": 3, "review": {"old_days": 45}}, f"round {round_}"


def test_a_lock_held_elsewhere_is_one_line_and_writes_nothing(tmp_path, monkeypatch):
    import fcntl

    path = tmp_path / "hmc" / "config.toml"
    path.parent.mkdir()
    path.write_text("poll_interval = 2\n")
    monkeypatch.setattr(S, "LOCK_TIMEOUT", 0.2)
    fd = os.open(S._lock_path(Path(os.path.realpath(path))), os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        with pytest.raises(S.SettingsError, match="being changed by another hmc; poll_interval was not saved"):
            S.set_setting("poll_interval", "3", path)
    finally:
        os.close(fd)
    assert path.read_text() == "poll_interval = 2\n"
