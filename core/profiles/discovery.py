"""Which profiles a Hermes home has, and which one a bare `hermes` uses, by the release's own rules
(read from hermes_cli/profiles.py of 0.13-0.22 and checked against it in the conformance suite).

- The default profile is the home itself (`<home>/memories`, `<home>/state.db`), never
  `profiles/default/`: such a folder is a trap (a stale copy people take for the default's memory).
- A named profile is a folder `profiles/<name>/` whose name Hermes accepts (1-64 of `a-z 0-9 _ -`,
  starting with a letter or digit). From 0.22 it must also hold one of config.yaml, .env, SOUL.md,
  profile.yaml, auth.json or state.db (a "half-made" folder is not a profile there) and have no
  tombstone (`profiles/.deleted/<name>`, left by `hermes profile delete`). A link to a folder counts.
- Hermes lists two kinds of folder it can't open: a reserved name (hermes, test, tmp, root, sudo)
  and a name ending in a line break. hmc names them as skipped, with why, as it names every other
  folder under profiles/ that isn't a profile (a file, a FIFO, a dangling link, a bad name). Dot
  folders (`.deleted`, Hermes's `.<name>.staging-<pid>`) are Hermes's own: not listed, not named.
- `<home>/active_profile` names the sticky profile: read as UTF-8 (0.22 drops a BOM), stripped; a
  missing, empty, unreadable or non-UTF-8 file, or "default" in any case, is the default profile.
  Any other text is lower-cased; a name Hermes can't accept, or one naming no profile, makes every
  `hermes` command fail until `hermes profile use default`: hmc opens the default and says so.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from core.hermes.release import NEWEST, Release
from core.store.atomic import TooLarge, read_regular

NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")  # fullmatch
RESERVED = frozenset({"hermes", "default", "test", "tmp", "root", "sudo"})
MARKERS = ("config.yaml", ".env", "SOUL.md", "profile.yaml", "auth.json", "state.db")
MAX_STICKY_BYTES = 1 << 20  # the release reads it whole and strips it (a name padded with blanks still opens)
MAX_FOLDERS = 1000  # folders under profiles/ looked at (a home with more is not one people curate)
MAX_SHOWN_NAME = 40  # characters of a bad folder name quoted in a reason


@dataclass(frozen=True)
class Profile:
    name: str
    root: Path
    default: bool = False
    link: str | None = None  # where a linked profile folder points


@dataclass(frozen=True)
class Skipped:
    shown: str  # the folder's name, quoted with escapes and cut
    why: str


@dataclass(frozen=True)
class Discovery:
    base: Path
    profiles: tuple[Profile, ...]  # default first, then by name
    skipped: tuple[Skipped, ...]
    active: str  # the profile a bare `hermes` uses ("default" when it would fail)
    sticky: str | None  # active_profile's name as the release reads it (None: none)
    sticky_problem: str | None  # why every `hermes` command fails with this active_profile
    default_trap: Path | None  # profiles/default/ exists beside the default's own memories/

    def names(self) -> list[str]:
        return [p.name for p in self.profiles]

    def get(self, name: str) -> Profile | None:
        return next((p for p in self.profiles if p.name == name), None)


def shown(name: str) -> str:
    """A folder name as a line can hold it: control characters escaped, cut."""
    text = repr(name)[1:-1]
    return text if len(text) <= MAX_SHOWN_NAME else text[:MAX_SHOWN_NAME - 1] + "…"


def name_problem(name: str) -> str | None:
    """Why Hermes can't use `name` as a named profile's (None: it can)."""
    if not NAME.fullmatch(name):
        if name.rstrip("\n") != name and NAME.fullmatch(name.rstrip("\n")):
            return "its name ends in a line break: Hermes lists it but can't open it"
        return "not a profile name Hermes accepts (1-64 of a-z, 0-9, _ and -, starting with a letter or digit)"
    if name in RESERVED:
        return f"{name!r} is a reserved name: Hermes lists it but refuses to open it"
    return None


def _marked(folder: Path) -> bool:
    """A marker is a file or a link (a dangling one counts, a folder doesn't), as in the release."""
    for marker in MARKERS:
        try:
            mode = os.lstat(folder / marker).st_mode
        except OSError:
            continue
        if stat.S_ISREG(mode) or stat.S_ISLNK(mode):
            return True
    return False


def _tombstoned(base: Path, name: str) -> bool:
    return os.path.exists(base / "profiles" / ".deleted" / name)  # a link to nothing is none (the release's exists())


def is_live(base: Path, name: str, release: Release = NEWEST) -> bool:
    """Whether `name` opens a profile for this release (a folder, and from 0.22 marked, not tombstoned)."""
    folder = base / "profiles" / name
    if not folder.is_dir():
        return False
    return not release.profile_markers or (_marked(folder) and not _tombstoned(base, name))


def discover(base: Path, release: Release = NEWEST) -> Discovery:
    """The profiles of the home at `base` (never raises for what is under it)."""
    profiles = [Profile("default", base, default=True)]
    skipped: list[Skipped] = []
    trap = None
    folder = base / "profiles"
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)[:MAX_FOLDERS] if folder.is_dir() else []
    except OSError as exc:
        entries = []
        skipped.append(Skipped("profiles/", f"can't be read ({exc.strerror or exc})"))
    for entry in entries:
        name = entry.name
        if name.startswith("."):
            continue
        label = shown(name)
        try:
            st = os.stat(entry.path)  # a link is followed, as the release follows it
        except OSError:
            skipped.append(Skipped(label, "a link to nothing" if entry.is_symlink() else "can't be read"))
            continue
        if not stat.S_ISDIR(st.st_mode):
            kind = "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a file" if stat.S_ISREG(st.st_mode) else "not a folder"
            skipped.append(Skipped(label, f"{kind}, not a profile folder"))
            continue
        if name == "default":
            trap = Path(entry.path)
            continue
        problem = name_problem(name)
        if problem:
            skipped.append(Skipped(label, problem))
            continue
        path = Path(entry.path)
        if release.profile_markers:
            if _tombstoned(base, name):
                skipped.append(Skipped(label, f"deleted (profiles/.deleted/{name}): Hermes {release.name} no longer "
                                              "sees it"))
                continue
            if not _marked(path):
                skipped.append(Skipped(label, f"half-made: none of {', '.join(MARKERS)} is in it, so Hermes "
                                              f"{release.name} doesn't count it as a profile"))
                continue
        link = None
        if entry.is_symlink():
            try:
                link = os.readlink(entry.path)
            except OSError:
                link = "?"
        profiles.append(Profile(name, path, link=link))
    sticky, problem = read_sticky(base, release, {p.name for p in profiles})
    active = sticky if sticky is not None and problem is None else "default"
    return Discovery(base, tuple(profiles), tuple(skipped), active, sticky, problem, trap)


def read_sticky(base: Path, release: Release = NEWEST, live: set[str] | None = None) -> tuple[str | None, str | None]:
    """(the name active_profile holds as the release reads it, or None for the default; why every
    `hermes` command fails with it, or None). `live`: the profiles found (else checked on disk)."""
    path = base / "active_profile"
    try:
        raw = read_regular(path, MAX_STICKY_BYTES)
    except TooLarge as exc:
        return "?", (f"active_profile is {exc.size:,} bytes, not a profile name: every `hermes` command fails "
                     "until `hermes profile use default`")
    except OSError:
        return None, None
    if release.profile_markers and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        return None, None  # the release reads it as no profile
    if not text or text.casefold() == "default":
        return None, None
    name = text.lower()
    problem = name_problem(name)
    if problem:
        return shown(text), (f"active_profile holds {shown(text)!r}, which Hermes refuses ({problem}): every "
                             "`hermes` command fails until `hermes profile use default`")
    exists = name in live if live is not None else is_live(base, name, release)
    if not exists:
        return name, (f"active_profile names {name!r}, which no longer exists: every `hermes` command fails until "
                      "`hermes profile use default` (or the profile is created again)")
    return name, None
