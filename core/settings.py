"""hmc's own settings: `config.toml` in hmc's user config folder (never inside a Hermes home).

    # ~/.config/hmc/config.toml (platformdirs.user_config_path("hmc") / "config.toml")
    theme = "gruvbox"          # any Textual theme; the palette's theme switcher saves it here
    poll_interval = 0.5        # seconds between checks of the memory files, config.yaml and pending/

    [review]
    stale_days = 90            # a dated entry is "stale" once its newest date is older than this
    old_days = 180             # an entry is "old" once its text has been unchanged this long (history)

    [keys]                     # key overrides by binding id (Textual keymap); several keys: "a,plus"
    "pending.approve_all" = "ctrl+a"
    "memory.add" = "a,plus"

Reading never raises: a missing file gives the defaults; a file that can't be read or parsed, or a
value that makes no sense, gives the defaults for what is wrong and a problem naming it (the TUI
shows each problem as a notice). Only the theme is written by hmc, and only its own line changes.

`old_days` once set the stale threshold (before the review knew real ages). A file that sets
`old_days` but not `stale_days` gets a one-line notice saying what each means now (setting
`stale_days` too silences it); nothing is guessed: `old_days` is the `old` threshold either way.
"""

from __future__ import annotations

import dataclasses
import math
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from core.store.atomic import NotRegularFile, TooLarge, atomic_write, read_regular

FILE_NAME = "config.toml"
MAX_BYTES = 64 * 1024  # a settings file is a few lines; anything bigger is not one
DEFAULT_POLL = 0.5
POLL_RANGE = (0.1, 60.0)
DEFAULT_STALE_DAYS = 90
DEFAULT_OLD_DAYS = 180
DAYS_RANGE = (1, 3650)
KNOWN_TOP = {"theme", "poll_interval", "review", "keys"}
KNOWN_REVIEW = {"stale_days", "old_days"}


@dataclass(frozen=True)
class Settings:
    theme: str | None = None  # None: Textual's default theme
    poll_interval: float = DEFAULT_POLL
    stale_days: int = DEFAULT_STALE_DAYS  # the review's `stale` (a dated entry's newest date)
    old_days: int = DEFAULT_OLD_DAYS  # the review's `old` (days the entry's text has been unchanged)
    keys: dict[str, str] = field(default_factory=dict)  # binding id -> keys ("a,plus")
    problems: tuple[str, ...] = ()
    path: Path | None = None


def settings_path() -> Path:
    """Where hmc's config.toml lives (the folder may not exist yet)."""
    from platformdirs import user_config_path

    return user_config_path("hmc") / FILE_NAME


def _shown(path: Path) -> str:
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home):] if home and text.startswith(home + os.sep) else text


def _read_bytes(path: Path) -> tuple[bytes | None, str | None]:
    """The file's bytes, or None and why not. Only a regular file is read (a FIFO never blocks us)."""
    try:
        return read_regular(path, MAX_BYTES), None
    except FileNotFoundError:
        return None, None
    except NotRegularFile as exc:
        return None, f"is a {exc.kind}, not a regular file"
    except TooLarge as exc:
        return None, f"is {exc.size:,} bytes, more than a settings file can be ({MAX_BYTES:,})"
    except OSError as exc:
        return None, f"can't be read ({exc.strerror or exc})"


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _repr(value: object) -> str:
    """A short, safe picture of a value from the file (never a huge or control-laden string)."""
    if isinstance(value, str):
        from core.scan.mask import clip, mask_untrusted  # (not at start-up)
        text = "".join(ch if ch.isprintable() else "?" for ch in clip(mask_untrusted(value), 40, mark=""))
        return f'"{text}"' + ("…" if len(value) > 40 else "")
    if isinstance(value, (dict, list)):
        return "a table" if isinstance(value, dict) else "a list"
    return type(value).__name__ if not isinstance(value, (int, float, bool)) else str(value)[:20]


def parse(text: str, shown: str = FILE_NAME) -> Settings:
    """Settings from the text of a config.toml; problems for whatever is wrong (never raises)."""
    import tomllib  # only when there is a file (start-up time)

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return Settings(problems=(f"{shown}: not valid TOML ({exc}); using the defaults",))
    except (RecursionError, ValueError) as exc:  # pathological nesting
        return Settings(problems=(f"{shown}: can't be parsed ({type(exc).__name__}); using the defaults",))
    problems: list[str] = []
    theme: str | None = None
    raw_theme = data.get("theme")
    if raw_theme is not None:
        if isinstance(raw_theme, str) and raw_theme.strip() and len(raw_theme) <= 100:
            theme = raw_theme.strip()
        else:
            problems.append(f"{shown}: theme must be a theme's name, not {_repr(raw_theme)}")
    poll = DEFAULT_POLL
    if "poll_interval" in data:
        number = _number(data["poll_interval"])
        low, high = POLL_RANGE
        if number is None or not low <= number <= high:
            problems.append(f"{shown}: poll_interval must be a number of seconds from {low:g} to {high:g}, "
                            f"not {_repr(data['poll_interval'])}; using {DEFAULT_POLL:g}")
        else:
            poll = number
    review = data.get("review", {})
    if not isinstance(review, dict):
        problems.append(f"{shown}: [review] must be a table, not {_repr(review)}")
        review = {}
    days = {"stale_days": DEFAULT_STALE_DAYS, "old_days": DEFAULT_OLD_DAYS}
    for name, default in list(days.items()):
        if name not in review:
            continue
        value = review[name]
        low, high = DAYS_RANGE
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            problems.append(f"{shown}: review.{name} must be a whole number of days from {low} to {high:,}, "
                            f"not {_repr(value)}; using {default}")
        else:
            days[name] = value
    bad_old = any("review.old_days" in p for p in problems)  # a bad value: its own problem says enough
    if "old_days" in review and "stale_days" not in review and not bad_old:
        problems.append(f"{shown}: review.old_days now means \"old\" (an entry unchanged that many days); "
                        f"dated entries go stale after review.stale_days ({DEFAULT_STALE_DAYS} unless set; "
                        "setting it silences this note)")
    for key in sorted(set(review) - KNOWN_REVIEW):
        problems.append(f"{shown}: unknown setting review.{_repr(key)[1:-1]} (ignored)")
    keys: dict[str, str] = {}
    raw_keys = data.get("keys", {})
    if not isinstance(raw_keys, dict):
        problems.append(f"{shown}: [keys] must be a table of binding id = \"keys\", not {_repr(raw_keys)}")
        raw_keys = {}
    for binding_id, value in raw_keys.items():
        if not isinstance(value, str) or not value.strip() or len(value) > 100:
            problems.append(f"{shown}: keys.{_repr(binding_id)[1:-1]} must be a key like \"ctrl+a\" "
                            f"(several: \"a,plus\"), not {_repr(value)}")
            continue
        keys[binding_id] = ",".join(part.strip() for part in value.split(",") if part.strip())
    for key in sorted(set(data) - KNOWN_TOP):
        problems.append(f"{shown}: unknown setting {_repr(key)[1:-1]} (ignored)")
    return Settings(theme=theme, poll_interval=poll, stale_days=days["stale_days"], old_days=days["old_days"],
                    keys=keys, problems=tuple(problems))


def load(path: Path | None = None) -> Settings:
    """The settings in `path` (default: hmc's config.toml); defaults plus a problem if it is bad."""
    path = settings_path() if path is None else path
    shown = _shown(path)
    data, why = _read_bytes(path)
    if why:
        return Settings(problems=(f"{shown} {why}; using the defaults",), path=path)
    if data is None:
        return Settings(path=path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return Settings(problems=(f"{shown}: not UTF-8 (byte {exc.start}); using the defaults",), path=path)
    settings = parse(text, shown)
    return dataclasses.replace(settings, path=path)


class SettingsError(Exception):
    """The settings file can't be written; the message says why."""


def _toml_string(value: str) -> str:
    out = ['"']
    for ch in value:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out) + '"'


def _line_key(stripped: str) -> str:
    """The key a `key = value` line sets (quotes dropped), or ''."""
    if "=" not in stripped or stripped.startswith("#"):
        return ""
    key = stripped.split("=", 1)[0].strip()
    return key[1:-1] if len(key) >= 2 and key[0] == key[-1] and key[0] in "\"'" else key


def _trailing_comment(body: str) -> str:
    """The `# …` comment after a `key = value` line's value ('' if none)."""
    import tomllib

    for at in (n for n, ch in enumerate(body) if ch == "#"):  # the first # outside the value
        try:
            tomllib.loads(body[:at])
        except tomllib.TOMLDecodeError:
            continue
        return "  " + body[at:]
    return ""


def _bare_or_quoted(key: str) -> str:
    return key if key and all(ch.isalnum() or ch in "_-" for ch in key) else _toml_string(key)


def with_value(text: str, table: str | None, key: str, literal: str) -> str:
    """`text` with `key = literal` set in `table` (None: the top level), every other line, comment
    and table kept byte for byte. An existing line keeps its trailing comment; a new top-level key
    goes first, a new key of a table at the end of that table, a missing table at the end."""
    lines = text.splitlines(keepends=True)
    ending = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    line = f"{_bare_or_quoted(key)} = {literal}"
    current: str | None = None  # the table the scan is in (None: top level)
    last_of_table = None  # index after the last non-blank line of `table`
    for i, raw in enumerate(lines):
        stripped = raw.strip()
        if stripped.startswith("["):
            current = stripped.strip("[] \t").split("#")[0].strip("[] \t")
            if current == table:
                last_of_table = i + 1
            continue
        if current != table:
            continue
        if stripped and not stripped.startswith("#"):
            last_of_table = i + 1
        if _line_key(stripped) == key:
            end = raw[len(raw.rstrip("\r\n")):] or ending
            lines[i] = raw[: len(raw) - len(raw.lstrip())] + line + _trailing_comment(stripped) + end
            return "".join(lines)
    if table is None:
        return line + ending + "".join(lines)
    if last_of_table is not None:
        lines.insert(last_of_table, line + ending)
        if last_of_table == len(lines) - 1 and last_of_table and not lines[last_of_table - 1].endswith(("\n", "\r")):
            lines[last_of_table - 1] += ending
        return "".join(lines)
    body = "".join(lines)
    if body and not body.endswith(("\n", "\r")):
        body += ending
    gap = ending if body.strip() else ""
    return f"{body}{gap}[{table}]{ending}{line}{ending}"


def with_theme(text: str, theme: str) -> str:
    """`text` with its top-level `theme = …` line set to `theme` (added first if there is none).

    Every other line, comment and table stays byte for byte."""
    return with_value(text, None, "theme", _toml_string(theme))


def _read_text(path: Path, what: str) -> tuple[bytes | None, str]:
    """The file's bytes and text ('' when missing); SettingsError saying `what` was not saved."""
    data, why = _read_bytes(path)
    if why:
        raise SettingsError(f"{_shown(path)} {why}; {what} was not saved")
    try:
        return data, data.decode("utf-8") if data is not None else ""
    except UnicodeDecodeError:
        raise SettingsError(f"{_shown(path)} is not UTF-8; {what} was not saved") from None


def _write_text(path: Path, data: bytes | None, new: str, what: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = stat.S_IMODE(os.stat(path).st_mode) if data is not None else 0o644
        atomic_write(path, new.encode("utf-8"), mode, prefix=".config.")
    except OSError as exc:
        raise SettingsError(f"{_shown(path)} can't be written ({exc.strerror or exc}); {what} was not saved") from None


LOCK_TIMEOUT = 10.0  # seconds another hmc may hold config.toml's lock


def _lock_path(target: Path) -> Path:
    """The lock of one config.toml, in hmc's state folder (never beside the file: a dotfiles
    repository gets no lock file)."""
    import hashlib

    from core.store.journal import private_state_folder, state_root

    digest = hashlib.sha256(str(target).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return private_state_folder(state_root() / "locks") / f"config-{digest}.lock"


def _edit(path: Path, what: str, change: "Callable[[str], str]") -> Path:
    """Edit config.toml as the memory store edits memory: through a symbolic link to the file it
    names (a dotfiles link stays a link), under a lock (two `hmc config set` at once both land),
    the file read again inside it, `change`d (SettingsError refuses), replaced atomically. Returns
    the file written."""
    from core.store.atomic import LockBusy, flock_within, open_lock

    target = Path(os.path.realpath(path))
    try:
        fd = open_lock(_lock_path(target))
    except OSError as exc:
        raise SettingsError(f"hmc's lock for {_shown(path)} can't be made ({exc.strerror or exc}); "
                            f"{what} was not saved") from None
    try:
        try:
            flock_within(fd, LOCK_TIMEOUT)
        except LockBusy:
            raise SettingsError(f"{_shown(path)} is being changed by another hmc; {what} was not saved") from None
        except OSError as exc:
            raise SettingsError(f"{_shown(path)} can't be locked ({exc.strerror or exc}); {what} was not saved") from None
        data, text = _read_text(target, what)
        _write_text(target, data, change(text), what)
    finally:
        os.close(fd)
    return target


def save_theme(theme: str, path: Path | None = None) -> Path:
    """Write `theme` into config.toml (creating it and its folder); raises SettingsError."""
    import tomllib

    path = settings_path() if path is None else path

    def change(text: str) -> str:
        try:  # a file that doesn't parse is the person's to fix: never rewrite it
            tomllib.loads(text)
            new = with_theme(text, theme)
            tomllib.loads(new)
        except (tomllib.TOMLDecodeError, RecursionError):
            raise SettingsError(f"{_shown(path)} is not valid TOML; fix it first (the theme was not saved)") from None
        return new

    _edit(path, "the theme", change)
    return path


# -- every setting, for `hmc config` and the palette ---------------------------------------------------

# (key as written on the command line, its table, its name in the table, what it is)
SETTINGS = (
    ("theme", None, "theme", "the Textual theme (ctrl+p → Change theme saves it here)"),
    ("poll_interval", None, "poll_interval",
     f"seconds between checks of the memory files, config.yaml and pending/ ({POLL_RANGE[0]:g}–{POLL_RANGE[1]:g})"),
    ("review.stale_days", "review", "stale_days",
     f"`stale`: a dated entry whose newest date is older than this ({DAYS_RANGE[0]}–{DAYS_RANGE[1]:,} days)"),
    ("review.old_days", "review", "old_days",
     f"`old`: an entry whose text has been unchanged longer than this ({DAYS_RANGE[0]}–{DAYS_RANGE[1]:,} days)"),
)
KEY_PREFIX = "keys."  # keys.<binding id>: a key override ("ctrl+a", several: "a,plus")
DEFAULTS = {"theme": None, "poll_interval": DEFAULT_POLL, "review.stale_days": DEFAULT_STALE_DAYS,
            "review.old_days": DEFAULT_OLD_DAYS}


@dataclass(frozen=True)
class SettingRow:
    key: str
    value: object  # what hmc uses
    source: str  # "file" (set there and valid) | "default"
    default: object
    about: str


@dataclass(frozen=True)
class SettingsView:
    path: Path
    exists: bool
    rows: tuple[SettingRow, ...]
    problems: tuple[str, ...]

    def as_json(self) -> dict:
        return {"path": str(self.path), "exists": self.exists, "problems": list(self.problems),
                "settings": [{"key": r.key, "value": r.value, "source": r.source, "default": r.default,
                              "about": r.about} for r in self.rows]}


def _file_data(path: Path) -> dict:
    """The file's TOML as a dict ({} when it is missing or can't be read or parsed)."""
    import tomllib

    data, why = _read_bytes(path)
    if why or data is None:
        return {}
    try:
        parsed = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError, ValueError):
        return {}
    return parsed


def describe(path: Path | None = None) -> SettingsView:
    """Every setting with the value hmc uses and where it comes from, the file's path and its problems
    (what `hmc config` prints and the palette can show). Never raises."""
    path = settings_path() if path is None else path
    settings = load(path)
    data = _file_data(path)
    used = {"theme": settings.theme, "poll_interval": settings.poll_interval,
            "review.stale_days": settings.stale_days, "review.old_days": settings.old_days}
    rows = []
    for key, table, name, about in SETTINGS:
        holder = data.get(table, {}) if table else data
        written = isinstance(holder, dict) and name in holder
        valid = written and not any(_names(p, key) for p in settings.problems)
        rows.append(SettingRow(key, used[key], "file" if valid else "default", DEFAULTS[key], about))
    for binding_id, keys in sorted(settings.keys.items()):
        rows.append(SettingRow(KEY_PREFIX + binding_id, keys, "file", None, "key override of a binding id (`?` lists them)"))
    try:
        exists = path.exists()
    except OSError:
        exists = False
    return SettingsView(path, exists, tuple(rows), settings.problems)


def shown_value(value) -> str:
    """A setting's value as `hmc config` and the palette's settings view show it."""
    if value is None:
        return "(Textual's default)"
    return f'"{value}"' if isinstance(value, str) else f"{value:g}" if isinstance(value, float) else str(value)


def view_lines(view: SettingsView, problems: Sequence[str], path: str | None = None) -> list[tuple[str, str]]:
    """What `hmc config` prints and the palette's "Show settings" shows, as (text, kind) lines: kind is
    "path", "setting", "about", "problem" or "hint" (each interface styles its kinds). `path`: how to
    show the file's path (default: as it is)."""
    shown = str(view.path) if path is None else path
    lines = [(shown + ("" if view.exists else " (not created yet: every value is the default)"), "path")]
    width = max(len(r.key) for r in view.rows)
    for row in view.rows:
        default = ("" if row.source == "default" else " (default: the built-in key)" if row.key.startswith(KEY_PREFIX)
                   else " (default: Textual's own)" if row.default is None else f" (default {shown_value(row.default)})")
        lines.append((f"{row.key:<{width}}  {shown_value(row.value):<22} {row.source}{default}", "setting"))
        lines.append((f"{'':<{width}}  {row.about}", "about"))
    lines.extend((f"problem: {problem}", "problem") for problem in problems)
    lines.append(("`hmc config set KEY VALUE` changes one (checked as hmc checks the file).", "hint"))
    return lines


def _literal_for(key: str, value: str) -> str:
    """The TOML literal for a value typed on a command line: a number stays a number for the numeric
    settings (so loading's own checks judge it), anything else is a string."""
    if key in ("poll_interval", "review.stale_days", "review.old_days"):
        text = value.strip()
        try:
            int(text)
            return text
        except ValueError:
            pass
        try:
            number = float(text)
        except ValueError:
            return _toml_string(value)
        return repr(number) if math.isfinite(number) else _toml_string(value)
    return _toml_string(value)


def _locate(key: str) -> tuple[str | None, str]:
    for name, table, field_name, _ in SETTINGS:
        if name == key:
            return table, field_name
    if key.startswith(KEY_PREFIX) and key[len(KEY_PREFIX):].strip():
        return "keys", key[len(KEY_PREFIX):]
    known = ", ".join(name for name, *_ in SETTINGS) + ", keys.<binding id>"
    raise SettingsError(f"unknown setting {_repr(key)} (settings: {known})")


def set_setting(key: str, value: str, path: Path | None = None,
                check: "Callable[[str, str], str | None] | None" = None) -> SettingRow:
    """Set one setting in config.toml, validated exactly as loading validates it (the new file is
    parsed by `parse`; a problem it names for this key refuses the change), written atomically;
    every other line, comment and table is kept. Raises SettingsError (one line) and writes nothing
    on any problem: an unknown key, a bad value, a file that can't be read, parsed or written.

    `check(key, value)` is the interface's own check of what core can't know (a theme's name, a
    binding id), as the app checks them when it loads the file: a sentence refuses the change."""
    import tomllib

    path = settings_path() if path is None else path
    table, name = _locate(key)
    what = f"{key} was not set"
    problem = check(key, value) if check is not None else None
    if problem:
        raise SettingsError(f"{problem} ({what})")

    def change(text: str) -> str:
        try:
            before = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError):
            raise SettingsError(f"{_shown(path)} is not valid TOML; fix it first ({what})") from None
        new = with_value(text, table, name, _literal_for(key, value))
        try:
            after = tomllib.loads(new)
        except (tomllib.TOMLDecodeError, RecursionError):
            raise SettingsError(f"{_shown(path)}: its layout can't be edited safely here; edit it by hand ({what})") from None
        holder = after.get(table, {}) if table else after
        expected = dict(before)  # the file as it was, with this one value set: nothing else may change
        if table:
            expected[table] = dict(before.get(table, {})) if isinstance(before.get(table, {}), dict) else None
        if not isinstance(holder, dict) or name not in holder or (table and expected[table] is None):
            raise SettingsError(f"{_shown(path)}: its layout can't be edited safely here; edit it by hand ({what})")
        (expected[table] if table else expected)[name] = holder[name]
        if after != expected:
            raise SettingsError(f"{_shown(path)}: its layout can't be edited safely here; edit it by hand ({what})")
        old_problems = set(parse(text, _shown(path)).problems)
        mine = [p for p in parse(new, _shown(path)).problems if p not in old_problems and _names(p, key)]
        if mine:
            reason = mine[0].split(": ", 1)[-1]
            raise SettingsError(f"{reason.split('; using')[0]} ({what})")
        return new

    _edit(path, key, change)
    return next(r for r in describe(path).rows if r.key == key)


def _names(problem: str, key: str) -> bool:
    """Is this loading problem a bad value of `key`? (`poll_interval must be…`, `keys.x must be…`; a
    notice such as old_days' new meaning is not.)"""
    body = problem.split(": ", 1)[-1]
    if key.startswith(KEY_PREFIX):
        key = f"keys.{_repr(key[len(KEY_PREFIX):])[1:-1]}"
    return body.startswith(f"{key} must be ")
