"""How a release reads the config.yaml values hmc cares about (HERMES-FORMATS.md §6, measured).

- `memory.memory_enabled` / `memory.user_profile_enabled`: up to 0.20 the agent tests the merged
  value by Python truthiness, so a missing key is on (the default), `false`/`no`/`off`/`0`/empty are
  off, and any non-empty *string* is on — even the string "false". 0.22 reads them as booleans:
  empty is the default (on), a string is on only when it is 1/true/yes/on.
- `memory.write_approval` (0.17+): a bool counts as itself; a string is on when, stripped and
  lower-cased, it is one of on/true/yes/1/approve/enabled; anything else (an int 1 included) is
  off. Releases before 0.17 have no write approval at all.
- the limits: passed to the store as they are; a whole number is the limit.

Each reader returns the value and, when the release's reading would surprise a person, a sentence
saying so (hmc shows it as a config problem but follows the release).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.hermes.release import NEWEST

if TYPE_CHECKING:  # pragma: no cover
    from core.hermes.release import Release

WRITE_APPROVAL_ON = frozenset({"on", "true", "yes", "1", "approve", "enabled"})
WRITE_APPROVAL_OFF = frozenset({"off", "false", "no", "0", "disable", "disabled", ""})
MISSING = object()


def describe(value: object) -> str:
    """A short, safe description of a config value (never the repr of an arbitrary object)."""
    if value is None:
        return "empty"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        text = str(value)
        return text if len(text) <= 40 else text[:39] + "…"
    if isinstance(value, str):
        shown = "".join(c if c.isprintable() else "?" for c in value[:40])
        return f"'{shown}'" + ("…" if len(value) > 40 else "")
    return f"a {'list' if isinstance(value, list) else 'mapping' if isinstance(value, dict) else 'value'}"


TRUTHY = frozenset({"1", "true", "yes", "on"})


def enabled(value: object, key: str, release: "Release" = NEWEST) -> tuple[bool, str | None]:
    """memory_enabled / user_profile_enabled as the agent reads them (MISSING: the default, on).

    Up to 0.20 by Python truthiness; from 0.22 as a boolean: empty is the default (on), a string is
    on only when it reads 1/true/yes/on, anything else by truthiness."""
    if value is MISSING:
        return True, None
    if release.boolean_store_flags:
        if value is None:
            return True, None
        if isinstance(value, str):
            on = value.strip().lower() in TRUTHY
            if not on and value.strip().lower() not in ("false", "no", "off", "0", ""):
                return False, (f"config.yaml: memory.{key} = {describe(value)} is not a yes/no word; "
                               f"Hermes {release.name} reads it as off")
            return on, None
        return bool(value), None
    on = bool(value)
    if isinstance(value, bool):
        return on, None
    if isinstance(value, str) and value.strip().lower() in ("false", "no", "off", "0", "disabled"):
        return True, (f"config.yaml: memory.{key} = {describe(value)} is a string, and Hermes reads any "
                      "non-empty string as on: this store is enabled (write false without quotes)")
    if value is None:
        return False, f"config.yaml: memory.{key} is empty, which Hermes reads as off"
    return on, None


def write_approval(value: object, release: "Release" = NEWEST) -> tuple[bool, str | None]:
    """memory.write_approval (or skills.write_approval) as the release reads it."""
    if value is MISSING or value is None:
        return False, None
    if not release.write_approval:
        if value is True or (isinstance(value, str) and value.strip().lower() in WRITE_APPROVAL_ON):
            return False, (f"config.yaml: write_approval is set, but Hermes {release.name} has no write "
                           "approval (0.17 and later do): writes are applied at once")
        return False, None
    if isinstance(value, bool):
        return value, None
    if isinstance(value, str):
        word = value.strip().lower()
        if word in WRITE_APPROVAL_ON:
            return True, None
        if word in WRITE_APPROVAL_OFF:
            return False, None
        return False, (f"config.yaml: write_approval = {describe(value)} is not on/off; Hermes reads "
                       "it as off")
    return False, (f"config.yaml: write_approval = {describe(value)} is not true/false or a word like "
                   "'on', so Hermes reads it as off")


def limit(value: object, key: str, default: int) -> tuple[int, str | None]:
    """A character limit: a whole number as it is; anything else falls back to the default."""
    if value is MISSING:
        return default, None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value, None
    return default, (f"config.yaml: memory.{key} = {describe(value)} is not a character count "
                     f"(Hermes can't use it either): using {default:,}")
