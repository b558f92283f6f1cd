"""Where the Hermes home is, which profile is in use, and what config.yaml says."""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from core.store.atomic import reason  # noqa: F401  (re-exported: the one wording of an OS error)

if TYPE_CHECKING:  # pragma: no cover
    from typing import Callable

    from core.hermes.release import Release
    from core.hermes.toolsets import ToolSettings

DEFAULT_MEMORY_LIMIT = 2200
DEFAULT_USER_LIMIT = 1375
TRUE_STRINGS = {"on", "true", "yes", "1"}
FALSE_STRINGS = {"off", "false", "no", "0", ""}


def as_flag(value: object) -> bool | None:
    """Hermes's reading of an on/off value (an empty value is off; None for something it doesn't understand)."""
    if isinstance(value, bool):
        return value
    if value is None:
        return False
    text = str(value).strip().lower()
    if text in TRUE_STRINGS:
        return True
    if text in FALSE_STRINGS:
        return False
    return None


class HomeError(Exception):
    """The Hermes home or profile can't be used; the message says why."""


@dataclass(frozen=True)
class Config:
    memory_char_limit: int = DEFAULT_MEMORY_LIMIT
    user_char_limit: int = DEFAULT_USER_LIMIT
    memory_enabled: bool = True
    user_profile_enabled: bool = True
    write_approval: bool = False
    problems: tuple[str, ...] = ()

    def limit(self, target: str) -> int:
        return self.memory_char_limit if target == "memory" else self.user_char_limit

    def enabled(self, target: str) -> bool:
        return self.memory_enabled if target == "memory" else self.user_profile_enabled


@dataclass(frozen=True)
class HermesHome:
    base: Path  # the root home (default profile)
    root: Path  # the home folder in use: base, or base/profiles/<name>
    profile: str  # "default" or the profile name
    config: Config = field(default_factory=Config)

    @property
    def memories(self) -> Path:
        return self.root / "memories"

    @property
    def state_db(self) -> Path:
        return self.root / "state.db"

    @property
    def pending_dir(self) -> Path:
        return self.root / "pending" / "memory"

    @property
    def skills_pending_dir(self) -> Path:
        return self.root / "pending" / "skills"

    @property
    def config_path(self) -> Path:
        return self.root / "config.yaml"

    def display(self) -> str:
        """The home path for people: `~` in place of the user's home folder."""
        return tilde(self.root)


def tilde(path: Path) -> str:
    """A path for people: `~` for the user's home folder, on one line (a newline in a folder's
    name shown as `\n`, never a line break: core.hermes.oneline)."""
    from core.hermes.oneline import one_line

    home = os.path.expanduser("~")
    text = str(path)
    if home not in ("", "/") and (text == home or text.startswith(home + os.sep)):
        return one_line("~" + text[len(home):])
    return one_line(text)


def default_home() -> Path:
    env = os.environ.get("HERMES_HOME", "")
    if env.strip():
        return Path(env).expanduser()
    if os.name == "nt":  # pragma: no cover - Windows
        return Path(os.environ.get("LOCALAPPDATA", "~")).expanduser() / "hermes"
    return Path("~/.hermes").expanduser()


def list_profiles(base: Path, release: "Release | None" = None) -> list[str]:
    """'default' first, then every profile the release counts (core.profiles.discovery)."""
    from core.profiles.discovery import discover

    return discover(base, *([release] if release else [])).names()


def resolve_home(home: str | Path | None = None, profile: str | None = None,
                 release: "Release | None" = None) -> HermesHome:
    """Find the home and profile to curate; raise HomeError with a reason a person can act on.
    With no `profile`, the one a bare `hermes` uses (active_profile, read as `release` reads it;
    one it would refuse leaves the default, which discovery then names)."""
    from core.profiles.discovery import name_problem, read_sticky

    base = Path(home).expanduser() if home else default_home()
    if not base.exists():
        raise HomeError(f"no Hermes home at {tilde(base)}")
    if not base.is_dir():
        raise HomeError(f"the Hermes home {tilde(base)} is not a folder")
    base = base.resolve()
    if profile is None:
        sticky, problem = read_sticky(base, *([release] if release else []))
        name = sticky if sticky is not None and problem is None else "default"
    else:
        name = profile.strip()
        name = "default" if name.casefold() == "default" else name.lower()
        problem = name_problem(name) if name != "default" else None
        if problem:
            raise HomeError(f"{visible_name(profile)!r} is not a profile name: {problem}")
        if name != "default" and not (base / "profiles" / name).is_dir():
            raise HomeError(unknown_profile(base, name, release))
    root = base if name == "default" else base / "profiles" / name
    return HermesHome(base=base, root=root, profile=name, config=read_config(root / "config.yaml"))


def visible_name(name: str) -> str:
    from core.profiles.discovery import shown

    return shown(name)


def unknown_profile(base: Path, name: str, release: "Release | None" = None) -> str:
    """"no profile 'opps' in ~/.hermes (did you mean ops?) (profiles: default, contenu, ops)"."""
    import difflib

    known = list_profiles(base, release)
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return (f"no profile {visible_name(name)!r} in {tilde(base)}" + (f" (did you mean {close[0]}?)" if close else "")
            + f" (profiles: {', '.join(known)})")


MAX_CONFIG_BYTES = 256 * 1024  # Hermes's config.yaml is a few KB; a larger one is refused, not parsed


def load_yaml(raw: str, release: "Release | None" = None) -> object:
    """Parse config text safely: no aliases, no deep nesting blowing the stack (raises ValueError).
    `release` picks its YAML policy (0.22: YAML 1.1 with y/n booleans and no repeated keys).
    PyYAML is imported here, on the first text to parse (core.yaml_load), not with this module."""
    from core.yaml_load import load

    return load(raw, yaml11=release is not None and release.boolean_store_flags)


# The memory section's keys read_config reads (what the config cache keeps of a config.yaml).
MEMORY_KEYS = ("memory_char_limit", "user_char_limit", "memory_enabled", "user_profile_enabled", "write_approval")


# What _memory_section gives for a document, or a memory section, that isn't a mapping: strings, so
# that the config cache keeps them as they are (a memory section itself is None or a dict).
NOT_A_MAPPING = "not a mapping"  # the document isn't a mapping
SECTION_NOT_A_MAPPING = "section not a mapping"  # its memory section is neither a mapping nor empty


def _memory_section(data: object) -> object:
    """What read_config reads of a parsed config.yaml: NOT_A_MAPPING, or its memory section as
    Hermes reads it: None (empty), SECTION_NOT_A_MAPPING, or a dict of the MEMORY_KEYS it sets."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return NOT_A_MAPPING
    memory = data.get("memory", {})
    if memory is None:
        return None
    if not isinstance(memory, dict):
        return SECTION_NOT_A_MAPPING
    return {key: memory[key] for key in MEMORY_KEYS if key in memory}


def memory_section(path: Path, data: bytes, release: "Release") -> object:
    """_memory_section of config.yaml's bytes `data` (valid UTF-8) parsed as `release` parses it:
    from hmc's config cache when these exact bytes were parsed before (PyYAML isn't even imported),
    else parsed (raises as load_yaml does) and cached. The same value either way."""
    from core import config_cache

    policy = "yaml11" if release.boolean_store_flags else "safe"
    hit = config_cache.load(path, data, policy, MEMORY_KEYS)
    if hit is not None:
        value = hit[0]
        if value in (None, NOT_A_MAPPING, SECTION_NOT_A_MAPPING) or (
                isinstance(value, dict) and set(value) <= set(MEMORY_KEYS)):
            return value
        # anything else isn't what save wrote: parse
    section = _memory_section(load_yaml(data.decode("utf-8"), release))
    config_cache.save(path, data, policy, MEMORY_KEYS, section)
    return section


def config_view(path: Path, release: "Release | None", name: str, view: Callable[[object], object],
                default: object, decode_errors: str = "strict") -> object:
    """`view` of config.yaml parsed as load_yaml parses it for `release` (`view` takes the parsed
    document, and gives a plain value: core.config_cache.is_plain), from hmc's config cache when
    these exact bytes were seen before (PyYAML isn't even imported), else parsed and cached.
    `default` when the file can't be read, decoded or parsed (read_config names why). `name` tells
    the views apart."""
    from core import config_cache
    from core.store.atomic import read_regular

    try:
        data = read_regular(path, MAX_CONFIG_BYTES)
    except Exception:  # noqa: BLE001 - missing, special or oversized
        return default
    yaml11 = release is not None and release.boolean_store_flags  # load_yaml's policy
    policy, reads = ("yaml11" if yaml11 else "safe"), (name, decode_errors)
    hit = config_cache.load(path, data, policy, reads)
    if hit is not None:
        return hit[0]
    try:
        value = view(load_yaml(data.decode("utf-8", decode_errors), release))
    except Exception:  # noqa: BLE001 - malformed
        return default
    config_cache.save(path, data, policy, reads, value)
    return value


def read_config(path: Path, release: "Release | None" = None) -> Config:
    """config.yaml with defaults, read as `release` reads it; every problem is kept as a sentence.

    Never raises: a missing, unreadable, oversized, special or malformed file gives the defaults
    and a problem naming why.
    """
    from core.hermes import config as rules
    from core.hermes.release import NEWEST
    from core.store.atomic import NotRegularFile, TooLarge, read_regular

    release = release or NEWEST
    problems: list[str] = []
    try:
        data = read_regular(path, MAX_CONFIG_BYTES)
        data.decode("utf-8")
    except FileNotFoundError:
        return Config(problems=("config.yaml not found: using Hermes's defaults",))
    except NotRegularFile as exc:
        return Config(problems=(f"config.yaml is a {exc.kind}, not a file: using Hermes's defaults",))
    except TooLarge as exc:
        return Config(problems=(f"config.yaml is {exc.size:,} bytes, over hmc's {MAX_CONFIG_BYTES:,}-byte "
                                "limit for it: using Hermes's defaults",))
    except (OSError, UnicodeDecodeError) as exc:
        return Config(problems=(f"config.yaml unreadable ({reason(exc)}): using Hermes's defaults",))
    try:
        memory = memory_section(path, data, release)
    except ValueError as exc:
        if release.boolean_store_flags:
            return Config(problems=(f"{exc}: using Hermes's defaults (Hermes {release.name} moves such a file "
                                    "aside to backups/config/ when it starts)",))
        return Config(problems=(f"{exc}: using Hermes's defaults",))
    except Exception as exc:  # a YAML construct PyYAML itself trips over: defaults, never a crash
        return Config(problems=(f"config.yaml can't be read ({type(exc).__name__}): using Hermes's defaults",))
    if memory == NOT_A_MAPPING:
        return Config(problems=("config.yaml is not a mapping: using Hermes's defaults",))
    if memory is None and release >= (0, 19):
        memory = {}
    if not isinstance(memory, dict) and release.boolean_store_flags:
        # 0.22 normalises a section that isn't a mapping to {}: every default applies
        return Config(problems=("config.yaml: the memory section is not a mapping, so Hermes "
                                f"{release.name} uses its defaults for every memory setting",))
    if not isinstance(memory, dict):
        # The agent calls .get on the section: anything but a mapping makes it start without memory
        # (0.19 reads an empty section as the defaults).
        what = "empty" if memory is None else "not a mapping"
        return Config(memory_enabled=False, user_profile_enabled=False, problems=(
            f"config.yaml: the memory section is {what}, so Hermes {release.name} starts without memory "
            "(MEMORY.md and USER.md are neither injected nor written)",))

    def take(reading):
        value, problem = reading
        if problem:
            problems.append(problem)
        return value

    def get(key: str) -> object:
        if key not in MEMORY_KEYS:  # pragma: no cover - a key read here must be in what the cache keeps
            raise KeyError(key)
        return memory.get(key, rules.MISSING)

    return Config(
        memory_char_limit=take(rules.limit(get("memory_char_limit"), "memory_char_limit", DEFAULT_MEMORY_LIMIT)),
        user_char_limit=take(rules.limit(get("user_char_limit"), "user_char_limit", DEFAULT_USER_LIMIT)),
        memory_enabled=take(rules.enabled(get("memory_enabled"), "memory_enabled", release)),
        user_profile_enabled=take(rules.enabled(get("user_profile_enabled"), "user_profile_enabled", release)),
        write_approval=take(rules.write_approval(get("write_approval"), release)),
        problems=tuple(problems),
    )


def is_hermes_home(path: str | Path) -> bool:
    """True when `path` looks like a Hermes home: it holds config.yaml, memories/, state.db or profiles/.

    A folder with none of them (an empty folder, a project checkout) is not one: hmc says so
    instead of creating `memories/MEMORY.md` in it (`--init` in the CLI overrides).
    """
    root = Path(path)
    try:
        return root.is_dir() and any(
            (root / name).exists() for name in ("config.yaml", "memories", "state.db", "profiles"))
    except OSError:  # can't look inside (permissions): let the reading say why, not "not a home"
        return True


def init_home(path: str | Path) -> list[Path]:
    """Make `path` a folder hmc takes for a Hermes home: the folder (and any missing parents) and
    `memories/` in it, owner-only (0700) as Hermes makes them. Nothing else is written: the memory
    files appear with the first entry. Returns the folders created, outermost first.

    What `--init` does, and the TUI's first-run screen. On an OS error (permission denied, a file in
    the way) the folders this call made are removed again and the error is raised.
    """
    root = Path(path).expanduser()
    missing: list[Path] = []
    for folder in (root / "memories", root, *root.parents):
        if folder.is_dir():
            break
        if os.path.lexists(folder):  # a file (or a link to nowhere) where a folder must go
            what = "a file, not a folder" if folder.is_file() else "not a folder"
            raise NotADirectoryError(errno.ENOTDIR, f"{tilde(folder)} is {what}",
                                     str(missing[-1] if missing else folder))
        missing.append(folder)
    missing.reverse()
    made: list[Path] = []
    try:
        for folder in missing:
            folder.mkdir(mode=0o700)  # a file in the way raises FileExistsError / NotADirectoryError
            made.append(folder)
    except OSError:
        for folder in reversed(made):
            try:
                folder.rmdir()
            except OSError:
                pass
        raise
    return made


def os_error_text(exc: OSError, doing: str | None = None) -> str:
    """One line for an OS error: `can't read ~/x/MEMORY.md: permission denied`."""
    what = (exc.strerror or str(exc) or type(exc).__name__).rstrip(".")
    what = what[:1].lower() + what[1:]
    name = getattr(exc, "filename", None)
    where = tilde(name) if isinstance(name, str) else (name.decode(errors="replace") if isinstance(name, bytes) else "")
    head = f"can't {doing}" if doing else ""
    if where:
        head = f"{head} {where}" if head else where
    return f"{head}: {what}" if head else what


def create_home(path) -> list:
    """`--init` and the TUI's first-run screen: make `path` a Hermes home (core.home.init_home), or
    raise CliError with the one-line reason (nothing is left half-made)."""
    from core.errors import CliError

    try:
        return init_home(path)
    except OSError as exc:
        raise CliError(os_error_text(exc, "create")) from None


def skills_section(path: Path) -> dict:
    """config.yaml's skills section (PyYAML's safe policy, undecodable bytes replaced), through
    hmc's config cache; {} when it is missing or isn't a mapping."""
    def view(data: object) -> dict:
        section = data.get("skills") if isinstance(data, dict) else None
        return section if isinstance(section, dict) else {}

    section = config_view(path, None, "skills-section", view, {}, decode_errors="replace")
    return section if isinstance(section, dict) else {}


def skills_write_approval(section: dict) -> bool:
    """skills.write_approval of a skills section (skills_section), as Hermes reads the flag."""
    return bool(as_flag(section.get("write_approval", False)))


def read_tool_settings(path: Path, release: "Release | None" = None) -> "ToolSettings":
    """config.yaml's tool and provider settings (core.hermes.toolsets), read as `release` parses the
    file, through the config cache (config_view). A file read_config can't use gives none:
    read_config already names why."""
    from core.hermes.release import NEWEST
    from core.hermes.toolsets import ToolSettings

    plain = config_view(path, release or NEWEST, "tool-settings", lambda data: ToolSettings.of(data).to_plain(), None)
    return ToolSettings.from_plain(plain)
