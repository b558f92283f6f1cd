"""The test run's own user folders, and the guard that the user's real ones stay untouched.

`isolate()` runs once, when tests/conftest.py is imported by the process that runs pytest, before
any fixture (module- and session-scoped ones included) and before any test module is imported:
HOME and every XDG folder platformdirs reads point into one temporary folder for the whole run,
which the xdist workers and every subprocess inherit. The per-test fixture in conftest.py then
narrows them to the test's own tmp_path.

The one folder the run may keep in the user's cache is the Hermes releases' (the conformance
oracle's pip installs, reused across runs like pip's own cache): its place is resolved from the
real environment first and passed on in HMC_TESTS_RELEASE_CACHE.

`changed()` compares the user's real hmc folders (and ~/.hermes) with how they were when the run
started; tests/conftest.py fails the run when anything there was created, changed or removed.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

ROOT_ENV = "HMC_TESTS_USER"
RELEASE_CACHE_ENV = "HMC_TESTS_RELEASE_CACHE"
PYCACHE_ENV = "HMC_TESTS_PYCACHE"  # the bytecode folder of this run's subprocesses (tests/conftest.py)
RELEASES = "hermes-releases"
# platformdirs' variables on Linux and macOS (XDG_*), with the sub-folder each gets in a run.
FOLDERS = {
    "HOME": "home",
    "XDG_CACHE_HOME": "cache",
    "XDG_CONFIG_HOME": "config",
    "XDG_DATA_HOME": "data",
    "XDG_STATE_HOME": "state",
    "XDG_RUNTIME_DIR": "runtime",
}
_MAX_LISTED = 50_000  # files listed per guarded folder (a user's real state folder can be large)


@contextmanager
def environ(values: dict[str, str | None]):
    """This process's environment with `values` set (None: unset), restored on the way out."""
    old = {k: os.environ.get(k) for k in values}
    try:
        _set_environ(values)
        yield
    finally:
        _set_environ(old)


def _set_environ(values: dict[str, str | None]) -> None:
    for k, v in values.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def _real_folders(env: dict) -> list[tuple[Path, frozenset[str]]]:
    """The user's real folders hmc or a test could write to, each with the names it may keep."""
    import platformdirs

    with environ({k: env.get(k) for k in FOLDERS}):
        home = Path(os.path.expanduser("~"))
        return [
            (Path(platformdirs.user_cache_path("hmc")), frozenset({RELEASES})),
            (Path(platformdirs.user_state_path("hmc")), frozenset()),
            (Path(platformdirs.user_config_path("hmc")), frozenset()),
            (Path(platformdirs.user_data_path("hmc")), frozenset()),
            (home / ".hermes", frozenset()),
        ]


def fingerprint(folders: list[tuple[Path, frozenset[str]]]) -> dict[str, tuple]:
    """Every file and folder under the guarded folders: its path, mode, size and mtime. A guarded
    folder itself is not listed (one that appears holding only the names it may keep is no change)."""
    seen: dict[str, tuple] = {}
    for top, kept in folders:
        if not top.is_dir() or top.is_symlink():
            if os.path.lexists(top):
                seen[str(top)] = ("not a folder",)
            continue
        listed = 0
        for dirpath, dirnames, filenames in os.walk(top):
            if Path(dirpath) == top:
                dirnames[:] = [d for d in dirnames if d not in kept]
            for name in filenames + dirnames:
                path = os.path.join(dirpath, name)
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                seen[path] = (st.st_mode, st.st_size, st.st_mtime_ns)
                listed += 1
            if listed > _MAX_LISTED:
                break
    return seen


_GUARD: dict = {}


def isolate() -> None:
    """Point this process (and what it starts) at a run-wide temporary user; once per run."""
    if os.environ.get(ROOT_ENV):
        return  # an xdist worker, or a nested run: the process that started it did this
    real = dict(os.environ)
    folders = _real_folders(real)
    os.environ.setdefault(RELEASE_CACHE_ENV, str(folders[0][0] / RELEASES))
    _GUARD["folders"] = folders
    _GUARD["before"] = fingerprint(folders)
    root = Path(tempfile.mkdtemp(prefix="hmc-tests-user-"))
    os.environ[ROOT_ENV] = str(root)
    for var, sub in FOLDERS.items():
        (root / sub).mkdir(mode=0o700)
        os.environ[var] = str(root / sub)
    os.environ.pop("HERMES_HOME", None)


def run_root() -> Path | None:
    """The run's temporary user folder, in the process that made it (None elsewhere)."""
    return Path(os.environ[ROOT_ENV]) if _GUARD and os.environ.get(ROOT_ENV) else None


def changed() -> list[str]:
    """What the run changed in the user's real folders (empty when nothing, or not the guard's process)."""
    if not _GUARD:
        return []
    before, after = _GUARD["before"], fingerprint(_GUARD["folders"])
    out = []
    for path in sorted(set(before) | set(after)):
        if before.get(path) != after.get(path):
            what = "created" if path not in before else "removed" if path not in after else "changed"
            out.append(f"{what}: {path}")
    return out
