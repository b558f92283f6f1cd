"""Turn `memory.write_approval` on or off in config.yaml, touching only that one line.

Every other byte of the file (comments, key order, quoting, blank lines, line endings, a BOM)
stays as it was. When the key is absent it is added as the first line under `memory:` (or a
`memory:` block is appended). The result is parsed again and compared with the original: if
anything but `memory.write_approval` would differ, nothing is written. A file that isn't valid
YAML is refused with the line of the problem.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from core.hermes.release import Release
from core.store.atomic import atomic_write, read_regular
from core.home import MAX_CONFIG_BYTES, as_flag, load_yaml, read_config, reason

KEY = "write_approval"
_TOP_MEMORY = re.compile(r"^memory[ \t]*:(?P<rest>[ \t]*(?:#.*)?)$")
_CHILD = re.compile(
    r"^(?P<indent>[ \t]+)write_approval(?P<colon>[ \t]*:)(?P<space>[ \t]*)"
    r"(?P<value>\"[^\"]*\"|'[^']*'|[^#\s](?:[^#]*[^#\s])?)?(?P<tail>[ \t]*(?:#.*)?)$"
)


class ConfigEditError(Exception):
    """config.yaml can't be changed safely; the message says why. Nothing was written."""


@dataclass(frozen=True)
class ConfigEdit:
    path: Path
    before: bool
    after: bool
    created: bool = False  # config.yaml did not exist
    added: bool = False  # the key was absent and was added
    line: int = 0  # 1-based line number of the write_approval line

    @property
    def changed(self) -> bool:
        return self.before != self.after or self.created or self.added


def _load(text: str) -> dict:
    try:
        data = load_yaml(text)
    except ValueError as exc:
        raise ConfigEditError(f"{exc}; fix it first — nothing was changed") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigEditError("config.yaml is not a mapping of settings; nothing was changed")
    return data


def read_write_approval(path: Path, release: "Release | None" = None) -> bool:
    """The current value as the release reads it (False when absent, missing file or unparsable)."""
    return read_config(path, release).write_approval


SECTIONS = ("memory", "skills")


def edit_text(text: str, on: bool, section: str = "memory") -> tuple[str, bool, bool, int]:
    """The new text with <section>.write_approval set (section: memory or skills).
    Returns (text, value before, added, line number)."""
    if section not in SECTIONS:
        raise ValueError(f"unknown section {section!r}")
    top_re = re.compile(_TOP_MEMORY.pattern.replace("memory", section, 1))
    data = _load(text)
    memory = data.get(section)
    if memory is not None and not isinstance(memory, dict):
        raise ConfigEditError(f"config.yaml: '{section}' is not a mapping; set {section}.write_approval by hand")
    memory = memory or {}
    before = as_flag(memory.get(KEY, False))
    value = "true" if on else "false"
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)

    def body(line: str) -> str:
        return line.rstrip("\r\n")

    top = [i for i, line in enumerate(lines) if top_re.match(body(line))]
    if section in data and not top:
        raise ConfigEditError(f"config.yaml: the {section} section is written inline ({section}: {{…}}); hmc only "
                              f"edits the block form, so set {section}.write_approval by hand")
    if len(top) > 1:
        raise ConfigEditError(f"config.yaml has more than one '{section}:' section; set {section}.write_approval "
                              "by hand")
    added = False
    if not top:
        # No memory section: append one at the end.
        head = text + ("" if not text or text.endswith(("\n", "\r")) else newline)
        new_text = head + f"{section}:{newline}  {KEY}: {value}{newline}"
        line_no = head.count("\n") + 2
        added = True
    else:
        start = top[0]
        end = start + 1
        while end < len(lines):
            stripped = body(lines[end])
            if stripped and not stripped[0].isspace() and not stripped.startswith("#"):
                break
            end += 1
        indent = None
        for i in range(start + 1, end):
            stripped = body(lines[i])
            if stripped.strip() and not stripped.lstrip().startswith("#"):
                indent = stripped[: len(stripped) - len(stripped.lstrip())]
                break
        children = [i for i in range(start + 1, end)
                    if (m := _CHILD.match(body(lines[i]))) and m.group("indent") == indent]
        if children:
            i = children[-1]  # YAML keeps the last of duplicate keys
            m = _CHILD.match(body(lines[i]))
            assert m is not None
            ending = lines[i][len(body(lines[i])):]
            space = m.group("space") or " "
            lines[i] = f"{m.group('indent')}{KEY}{m.group('colon')}{space}{value}{m.group('tail') or ''}{ending}"
            line_no = i + 1
        else:
            if not lines[start].endswith(("\n", "\r")):
                lines[start] += newline
            lines.insert(start + 1, f"{indent or '  '}{KEY}: {value}{newline}")
            line_no = start + 2
            added = True
        new_text = "".join(lines)
    # The safety net: the new file must parse to the old settings plus exactly this change.
    try:
        new_data = _load(new_text)
    except ConfigEditError:
        raise ConfigEditError("hmc can't change write_approval safely in this config.yaml; set it by hand") from None
    old_cmp = dict(data)
    old_cmp[section] = {k: v for k, v in memory.items() if k != KEY}
    new_memory = new_data.get(section)
    ok = isinstance(new_memory, dict) and new_memory.get(KEY) is on
    if ok:
        new_cmp = dict(new_data)
        new_cmp[section] = {k: v for k, v in new_memory.items() if k != KEY}
        ok = new_cmp == old_cmp
    if not ok:
        raise ConfigEditError("hmc can't change write_approval safely in this config.yaml; set it by hand")
    return new_text, bool(before), added, line_no


def set_write_approval(path: Path, on: bool, section: str = "memory") -> ConfigEdit:
    """Set <section>.write_approval (memory or skills) in config.yaml (created if missing),
    changing only that line."""
    path = Path(path)
    created = False
    try:
        data = read_regular(path, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        data, created = b"", True
    except OSError as exc:
        raise ConfigEditError(f"config.yaml can't be read ({reason(exc)}); nothing was changed") from None
    bom = data.startswith(b"\xef\xbb\xbf")
    try:
        text = data[3:].decode("utf-8") if bom else data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigEditError(f"config.yaml is not UTF-8 (bad byte at offset {exc.start:,}); nothing was changed") from None
    new_text, before, added, line = edit_text(text, on, section)
    if new_text == text:
        return ConfigEdit(path, before, on, line=line)
    out = (b"\xef\xbb\xbf" if bom else b"") + new_text.encode("utf-8")
    _replace(path, out, expect=None if created else data)
    return ConfigEdit(path, before, on, created=created, added=added and not created, line=line)


def _replace(path: Path, data: bytes, expect: bytes | None) -> None:
    """Atomic replace, keeping the file's mode; refused if the file changed since it was read."""
    if path.is_symlink():
        target = path.resolve()
    else:
        target = path
    mode = None
    try:
        mode = os.stat(target).st_mode & 0o777
    except OSError:
        pass
    try:
        current = read_regular(target, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        current = None
    except OSError as exc:
        raise ConfigEditError(f"config.yaml can't be read ({reason(exc)}); nothing was changed") from None
    if current != expect:
        raise ConfigEditError("config.yaml changed while hmc was editing it; try again — nothing was changed")
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        atomic_write(target, data, mode if mode is not None else 0o644, prefix=".config_")
    except OSError as exc:
        raise ConfigEditError(f"writing config.yaml failed ({reason(exc)}); it is unchanged") from None
