"""core.settings.describe / set_setting: every setting with its value and source; one set,
validated as loading validates, written atomically, the rest of the file kept (comments too)."""

from __future__ import annotations

import os
import tomllib

import pytest

from core import settings as S


@pytest.fixture
def path(tmp_path):
    return tmp_path / "cfg" / "hmc" / "config.toml"


def rows(path) -> dict:
    return {r.key: r for r in S.describe(path).rows}


def test_no_file_lists_every_default(path):
    view = S.describe(path)
    assert not view.exists and view.problems == ()
    got = rows(path)
    assert list(got) == ["theme", "poll_interval", "review.stale_days", "review.old_days"]
    assert all(r.source == "default" and r.value == r.default for r in got.values())


def test_values_from_the_file_and_a_bad_one_falls_back_to_the_default(path):
    path.parent.mkdir(parents=True)
    path.write_text('theme = "nord"\npoll_interval = 99\n[review]\nold_days = 30\nstale_days = 60\n'
                    '[keys]\n"memory.add" = "a,plus"\n')
    got = rows(path)
    assert got["theme"].value == "nord" and got["theme"].source == "file"
    assert got["poll_interval"].value == S.DEFAULT_POLL and got["poll_interval"].source == "default"
    assert got["review.old_days"].value == 30 and got["review.old_days"].source == "file"
    assert got["keys.memory.add"].value == "a,plus"
    assert any("poll_interval must be" in p for p in S.describe(path).problems)


def test_set_keeps_every_other_line_and_comment(path):
    path.parent.mkdir(parents=True)
    original = ('# my settings\r\ntheme = "nord"  # dark\r\npoll_interval = 1 # fast\r\n\r\n[review]\r\n'
                '# how old is stale\r\nstale_days = 30\r\n\r\n[keys]\r\n"memory.add" = "plus"\r\n')
    path.write_text(original, newline="")
    S.set_setting("poll_interval", "2.5", path)
    S.set_setting("review.stale_days", "45", path)
    S.set_setting("review.old_days", "400", path)  # added at the end of [review]
    S.set_setting("keys.pending.approve_all", "ctrl+a", path)
    text = path.read_bytes().decode()
    assert "poll_interval = 2.5  # fast\r\n" in text  # the comment kept (two spaces before it) and "# how old is stale\r\nstale_days = 45\r\nold_days = 400\r\n" in text
    assert text.startswith('# my settings\r\ntheme = "nord"  # dark\r\n')
    assert tomllib.loads(text) == {"theme": "nord", "poll_interval": 2.5,
                                   "review": {"stale_days": 45, "old_days": 400},
                                   "keys": {"memory.add": "plus", "pending.approve_all": "ctrl+a"}}


def test_set_creates_the_file_and_its_folder(path):
    row = S.set_setting("review.old_days", "30", path)
    assert row.value == 30 and row.source == "file"
    assert tomllib.loads(path.read_text()) == {"review": {"old_days": 30}}
    assert S.load(path).problems  # the old_days notice, as loading says it: still a set, not a refusal


@pytest.mark.parametrize("key,value,fragment", [
    ("poll_interval", "0", "poll_interval must be a number of seconds from 0.1 to 60"),
    ("poll_interval", "fast", 'not "fast"'),
    ("poll_interval", "nan", "poll_interval must be"),
    ("review.stale_days", "3.5", "whole number of days"),
    ("review.old_days", "99999", "whole number of days"),
    ("review.old_days", "true", "whole number of days"),
    ("theme", "", "theme must be a theme's name"),
    ("theme", "x" * 101, "theme must be"),
    ("keys.memory.add", " ", 'keys.memory.add must be a key like "ctrl+a"'),
    ("colour", "red", "unknown setting"),
    ("keys.", "a", "unknown setting"),
    ("review", "1", "unknown setting"),
])
def test_a_bad_key_or_value_is_refused_and_nothing_is_written(path, key, value, fragment):
    path.parent.mkdir(parents=True)
    path.write_text("# keep me\n")
    with pytest.raises(S.SettingsError) as err:
        S.set_setting(key, value, path)
    assert fragment in str(err.value) and "\n" not in str(err.value)
    assert path.read_text() == "# keep me\n"


def test_a_file_that_does_not_parse_is_never_rewritten(path):
    path.parent.mkdir(parents=True)
    path.write_text("theme = [unclosed\n")
    with pytest.raises(S.SettingsError, match="not valid TOML"):
        S.set_setting("poll_interval", "1", path)
    assert path.read_text() == "theme = [unclosed\n"


def test_a_layout_it_cannot_edit_safely_is_refused(path):
    path.parent.mkdir(parents=True)
    path.write_text("review = { stale_days = 30 }\n")  # an inline table
    with pytest.raises(S.SettingsError, match="edit it by hand"):
        S.set_setting("review.stale_days", "40", path)
    assert path.read_text() == "review = { stale_days = 30 }\n"


def test_the_file_mode_is_kept_and_no_temp_file_is_left(path):
    path.parent.mkdir(parents=True)
    path.write_text("poll_interval = 1\n")
    path.chmod(0o600)
    S.set_setting("poll_interval", "2", path)
    assert (os.stat(path).st_mode & 0o777) == 0o600 and os.listdir(path.parent) == ["config.toml"]


def test_an_unwritable_folder_is_one_line(path, tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes anywhere")
    path.parent.mkdir(parents=True)
    path.parent.chmod(0o500)
    try:
        with pytest.raises(S.SettingsError, match="can't be written"):
            S.set_setting("poll_interval", "2", path)
    finally:
        path.parent.chmod(0o700)


def test_the_theme_still_saves_as_before(path):
    S.save_theme("gruvbox", path)
    assert rows(path)["theme"].value == "gruvbox"
