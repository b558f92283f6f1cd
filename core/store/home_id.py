"""Which Hermes home hmc's own state (journal, review decisions, locks) belongs to: the home's
identity, not its path.

The identity is an id in a small marker file inside the home folder (`.hmc-home`, one line of hex
digits), written the first time hmc writes its own state for the home (reading writes nothing). Why a marker, and not something
Hermes keeps:
- it travels with the home: `cp -a`, rsync and a backup carry it, so a copied or moved home keeps
  its history;
- a new home at the same path (a reinstall, `rm -rf ~/.hermes`, a backup taken before hmc ran) has
  none, or another one, so it starts clean instead of inheriting another home's writes;
- nothing Hermes keeps is both stable and copied: state.db's sessions are pruned, its file's inode
  changes with every copy, and config.yaml is edited.

The state folder is `<state root>/homes/<name>-<id>`, and `home.json` there names the path hmc last
saw the home at. Opening a home whose marker names a folder last seen at another path: when that
path still holds a home with the same marker, this one is a copy: it gets a new id and a copy of
the history so far (both then go their own way); otherwise the home was moved, and the folder
follows it. A folder hmc kept by path before this marker existed is adopted once, by the first
home hmc writes for at that path (its id is that folder's name, so nothing moves); a home without a
marker at a path whose folder another home claimed starts clean. A home whose folder can't take the marker (read-only, missing) keeps
the folder named by its path.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from pathlib import Path

from core.store.atomic import atomic_write, flock_within, open_lock, open_regular, private_dir, read_fd, write_private

MARKER = ".hmc-home"
HOME_FILE = "home.json"
LOCK = "homes.lock"
_ID = re.compile(r"[0-9a-f]{12}|[0-9a-f]{32}")  # a path's folder adopted (12), or new (32)
LOCK_TIMEOUT = 10.0


SLUG_BYTES = 100  # of the home's folder name in a state folder's name: a profile's name may be 255


def _slug(resolved: str) -> str:
    """The home folder's name, for people, cut to SLUG_BYTES of UTF-8 (whole characters): the state
    folder's name adds a dash and an id, and a name over 255 bytes can't be made (a long profile
    name refused every write)."""
    name = Path(resolved).name.strip(".") or "home"
    return name.encode("utf-8", "surrogatepass")[:SLUG_BYTES].decode("utf-8", "ignore") or "home"


def by_path(root: Path, resolved: str) -> Path:
    """The folder hmc kept for a home by its path (before the marker, and when it can't be written)."""
    digest = hashlib.sha256(resolved.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return root / "homes" / f"{_slug(resolved)}-{digest}"


def by_id(root: Path, resolved: str, hid: str) -> Path:
    """The folder of the home with id `hid`: the one already named for it (its name keeps the folder
    name the home had when hmc first wrote for it, wherever the home is now), else a new name."""
    try:
        with os.scandir(root / "homes") as it:
            for entry in it:
                if entry.name.endswith(f"-{hid}"):
                    return Path(entry.path)
    except OSError:
        pass
    return root / "homes" / f"{_slug(resolved)}-{hid}"


def read_marker(home: Path) -> str | None:
    """The id a home's marker holds (None: none, or not one hmc wrote)."""
    try:
        fd = open_regular(home / MARKER, follow_symlinks=False)
    except OSError:
        return None
    try:
        text = read_fd(fd, 64, home / MARKER, head=True).decode("ascii", "replace").strip()
    except OSError:
        return None
    finally:
        os.close(fd)
    return text if _ID.fullmatch(text) else None


def _write_marker(home: Path, hid: str) -> bool:
    try:
        atomic_write(home / MARKER, (hid + "\n").encode("ascii"), 0o644, prefix=f"{MARKER}.", suffix=".tmp")
        return True
    except OSError:
        return False


def _seen_at(folder: Path) -> str | None:
    try:
        fd = open_regular(folder / HOME_FILE, follow_symlinks=False)
        try:
            data = json.loads(read_fd(fd, 1 << 16, folder / HOME_FILE, head=True))
        finally:
            os.close(fd)
    except (OSError, ValueError):
        return None
    path = data.get("path") if isinstance(data, dict) else None
    return path if isinstance(path, str) else None


def _note_path(folder: Path, resolved: str) -> None:
    write_private(folder / HOME_FILE, json.dumps({"path": resolved}).encode("utf-8", "surrogatepass"), durable=False)


def _owned(folder: Path) -> bool:
    """A folder some marked home has claimed (hmc before the marker wrote no home.json)."""
    return os.path.lexists(folder / HOME_FILE)


def state_folder(root: Path, home_root: Path) -> Path:
    """hmc's state folder for the home at `home_root`, read only (nothing written: `claim` makes
    it the home's on the first write). `root` is hmc's state root. Never raises."""
    resolved = str(Path(home_root).resolve())
    hid = read_marker(Path(resolved))
    if hid is not None:
        return by_id(root, resolved, hid)
    legacy = by_path(root, resolved)
    # the folder this path had belongs to another home (one with a marker): this one starts clean
    return legacy if not _owned(legacy) else legacy.with_name(legacy.name + "-unclaimed")


def claim(root: Path, home_root: Path) -> Path:
    """The home's state folder, made the home's own before hmc writes there: the marker written
    (a first write), the folder following a moved home, or a copy of it made for a copied home
    (core.store.home_id's docstring). Never raises: a home that can't take a marker keeps its
    path's folder."""
    resolved = str(Path(home_root).resolve())
    home = Path(resolved)
    hid = read_marker(home)
    if hid is not None and _seen_at(by_id(root, resolved, hid)) == resolved:
        return by_id(root, resolved, hid)  # the common case: nothing to settle, nothing locked
    if not home.is_dir():
        return state_folder(root, home_root)
    try:
        private_dir(root / "homes", up_to=root)
        lock = open_lock(root / "homes" / LOCK)
    except OSError:
        return state_folder(root, home_root)
    try:
        flock_within(lock, LOCK_TIMEOUT)
        return _settle(root, home, resolved)
    except OSError:
        return state_folder(root, home_root)
    finally:
        os.close(lock)


def _settle(root: Path, home: Path, resolved: str) -> Path:
    """Under the lock: give the home its identity (new, adopted, moved or forked) and its folder."""
    hid = read_marker(home)
    if hid is None:
        legacy = by_path(root, resolved)
        # the path's own folder (kept before the marker, or never made) becomes this home's: its id is
        # the folder's name, so nothing moves; one another home claimed makes this one a new id
        hid = legacy.name.rsplit("-", 1)[1] if not _owned(legacy) else _new_id()
        if not _write_marker(home, hid):
            return state_folder(root, home)
        folder = by_id(root, resolved, hid)
        private_dir(folder, up_to=root)
        _note_path(folder, resolved)
        return folder
    folder = by_id(root, resolved, hid)
    seen = _seen_at(folder)
    if seen is None or seen == resolved or read_marker(Path(seen)) != hid:
        private_dir(folder, up_to=root)  # new here, or moved: the folder follows the home
        _note_path(folder, resolved)
        return folder
    # a copy: the original is still where the folder was kept, with the same marker
    fresh = _new_id()
    copy = by_id(root, resolved, fresh)
    if folder.is_dir():
        shutil.copytree(folder, copy, symlinks=True, ignore=shutil.ignore_patterns(HOME_FILE, "*.lock"))
    private_dir(copy, up_to=root)
    if not _write_marker(home, fresh):
        shutil.rmtree(copy, ignore_errors=True)
        return folder
    _note_path(copy, resolved)
    return copy


def _new_id() -> str:
    import uuid  # (it imports `platform`: only when a folder is claimed anew)

    return uuid.uuid4().hex
