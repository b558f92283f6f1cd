"""The suite stays out of the user's folders, whatever HOME and XDG variables the user has."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import platformdirs
import pytest

from tests import user_folders

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def module_folders():
    """What a module-scoped fixture sees: it runs before the per-test fixture narrows the folders."""
    return {var: os.environ.get(var) for var in user_folders.FOLDERS}, platformdirs.user_state_path("hmc")


def test_a_module_scoped_fixture_already_sees_the_runs_temporary_folders(module_folders):
    seen, state = module_folders
    root = Path(os.environ[user_folders.ROOT_ENV])
    for var, value in seen.items():
        assert value and root in Path(value).parents, f"{var}={value!r} is outside the run's folder {root}"
    assert root in Path(state).parents


def test_every_folder_platformdirs_reads_is_inside_the_tests_tmp_path(tmp_path):
    for path in (platformdirs.user_cache_path("hmc"), platformdirs.user_state_path("hmc"),
                 platformdirs.user_config_path("hmc"), platformdirs.user_data_path("hmc"),
                 platformdirs.user_runtime_path("hmc"), Path.home()):
        assert tmp_path in Path(path).parents, f"{path} is outside {tmp_path}"


@pytest.mark.slow
def test_a_run_with_unusual_xdg_folders_leaves_them_untouched(tmp_path):
    # A nested run of tests that write hmc's journal (from a module-scoped fixture), its history
    # cache and its config cache, with the user's folders somewhere no default would put them.
    user = tmp_path / "the user"
    env = {k: v for k, v in os.environ.items()
           if k not in (user_folders.ROOT_ENV, user_folders.RELEASE_CACHE_ENV, "PYTEST_XDIST_WORKER",
                        "PYTEST_CURRENT_TEST")}
    for var in user_folders.FOLDERS:
        env[var] = str(user / f"odd {var.lower()}")
    # as the user starts pytest: the run's bytecode folder is for the subprocesses of this run (with it,
    # the nested pytest compiled the stdlib, pytest and textual from source: 30-90 s of a 5 s run)
    if env.get("PYTHONPYCACHEPREFIX") == os.environ.get(user_folders.PYCACHE_ENV):
        env.pop("PYTHONPYCACHEPREFIX", None)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop(user_folders.PYCACHE_ENV, None)
    # one test of each kind, by node id (a `-k` would filter every file: it once left only the first)
    tests = ["tests/core/test_approve_all_kill.py::test_kill_9_at_each_step_of_the_group_commit_loses_nothing_"
             "and_applies_nothing_twice[core.pending.claims:take]",
             "tests/core/test_config_cache.py::test_a_changed_config_is_parsed_again",
             "tests/core/test_timeline_resume.py::test_an_interrupted_build_resumes_where_it_stopped"]
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                           "-n", "0", *tests], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "3 passed" in proc.stdout, proc.stdout[-3000:]
    left = sorted(str(p.relative_to(user)) for p in user.rglob("*")) if user.exists() else []
    assert left == [], f"the nested run wrote into the user's folders: {left[:20]}"


def test_the_guard_names_a_file_created_in_a_guarded_folder(tmp_path):
    guarded = tmp_path / "state-hmc"
    folders = [(guarded, frozenset()), (tmp_path / "cache-hmc", frozenset({"hermes-releases"}))]
    before = user_folders.fingerprint(folders)
    (tmp_path / "cache-hmc" / "hermes-releases").mkdir(parents=True)
    (tmp_path / "cache-hmc" / "hermes-releases" / "hermes-0.22.2").mkdir()
    assert user_folders.fingerprint(folders) == before, "the releases' cache is the one name it may gain"
    guarded.mkdir()
    (guarded / "journal.jsonl").write_text("x")
    assert set(user_folders.fingerprint(folders)) - set(before) == {str(guarded / "journal.jsonl")}
    (tmp_path / "cache-hmc" / "history.cache").write_text("x")
    assert str(tmp_path / "cache-hmc" / "history.cache") in user_folders.fingerprint(folders)
