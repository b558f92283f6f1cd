"""The rule object the scanner's tables are made of, plus small value heuristics.

A check is one `Rule`: an id, a precompiled regex, a severity and a one-line summary.
Optional parts: `secret_group` (the named group holding a secret value, masked in
details), `refine` (a function that may drop a match or adjust its severity and add a
note) and `gate` (lowercase substrings that every match necessarily contains, checked
with `in` before the regex runs: this keeps a 2,200-char scan to a millisecond or two).

A gate is written "a|b|c" (any of them) or as a tuple of such strings (each must
hit). It must never hide a match; tests check that on the corpora and on fuzzed text.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Callable

SEVERITIES = ("info", "warning", "error", "critical")


@dataclass(frozen=True)
class Verdict:
    """What a refine function decided about one match."""

    severity: str | None = None  # None keeps the rule's severity
    note: str = ""               # appended to the finding's detail


KEEP = Verdict()

Refiner = Callable[[re.Match[str]], "Verdict | None"]


@dataclass(frozen=True)
class Rule:
    id: str
    pattern: str
    severity: str
    summary: str
    explanation: str = ""
    hermes: bool = False            # one of Hermes's own pattern ids
    kind: str = "injection"         # injection | role | c2 | exfiltration | persistence | secret
    secret_group: str | None = None
    refine: Refiner | None = None
    gate: tuple[tuple[str, ...], ...] = ()
    script: str | None = None       # "cyrillic" | "cjk": the text must contain that script
    flags: int = re.IGNORECASE

    @property
    def regex(self) -> re.Pattern[str]:
        """Compiled on first use (most rules' gates stay closed on most texts): a faster start."""
        return compiled(self.pattern, self.flags)

    def gate_open(self, folded: str, seen: dict[str, bool] | None = None) -> bool:
        """True when the regex is worth running; `folded` is `gate_text(normalised text)`.

        `seen` caches stem and script lookups across the rules of one scan.
        """
        if self.script is not None:
            key = "\0" + self.script
            has = seen.get(key) if seen is not None else None
            if has is None:
                has = SCRIPTS[self.script].search(folded) is not None
                if seen is not None:
                    seen[key] = has
            if not has:
                return False
        if seen is None:
            return all(any(stem in folded for stem in group) for group in self.gate)
        for group in self.gate:
            for stem in group:
                hit = seen.get(stem)
                if hit is None:
                    hit = seen[stem] = stem in folded
                if hit:
                    break
            else:
                return False
        return True


SCRIPTS = {"cyrillic": re.compile("[\u0400-\u04ff]"), "cjk": re.compile("[\u3400-\u9fff\uf900-\ufaff]")}

# Characters Python's case-insensitive matching equates with a letter that lower()
# (after NFKC) does not produce: fold them so a substring gate stays exact.
_GATE_FOLD = {0x130: "i", 0x131: "i", 0x1C80: "в", 0x1C81: "д", 0x1C82: "о", 0x1C83: "с",
              0x1C84: "т", 0x1C85: "т", 0x1C86: "ъ"}


def gate_text(normalised: str) -> str:
    """The text gates look at: lowercased, with re's extra case equivalences folded."""
    return normalised.translate(_GATE_FOLD).lower()


def _parse_gate(gate: str | tuple[str, ...] | None) -> tuple[tuple[str, ...], ...]:
    if not gate:
        return ()
    groups = (gate,) if isinstance(gate, str) else tuple(gate)
    parsed = tuple(tuple(stem for stem in g.split("|") if stem) for g in groups)
    for g in parsed:
        if not g or any(stem != stem.lower() for stem in g):
            raise ValueError(f"gate stems must be non-empty lowercase: {gate!r}")
    return parsed


def rule(
    id: str,
    pattern: str,
    severity: str,
    summary: str,
    *,
    flags: int = re.IGNORECASE,
    **kw,
) -> Rule:
    """A table entry; its regex compiles on first use (a test compiles every one)."""
    if severity not in SEVERITIES:
        raise ValueError(f"unknown severity {severity!r} for {id}")
    gate = _parse_gate(kw.pop("gate", None))
    return Rule(id=id, pattern=pattern, severity=severity, summary=summary, gate=gate, flags=flags, **kw)


@functools.lru_cache(maxsize=None)
def compiled(pattern: str, flags: int) -> re.Pattern[str]:
    """`re.compile`, once per pattern and flags: rules and their refiners compile on first use."""
    return re.compile(pattern, flags)


# ── value heuristics shared by the secret checks ─────────────────────────────

def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


def char_classes(value: str) -> int:
    """How many of lower, upper, digit, other appear."""
    return (any(c.islower() for c in value) + any(c.isupper() for c in value)
            + any(c.isdigit() for c in value) + any(not c.isalnum() for c in value))


def looks_random(value: str, *, min_len: int = 16, min_entropy: float = 3.0) -> bool:
    """Long enough, mixed enough and varied enough to be a generated key."""
    return (len(value) >= min_len and entropy(value) >= min_entropy
            and any(c.isdigit() for c in value) and any(c.isalpha() for c in value))


_PLACEHOLDER_WORDS = (
    "example", "changeme", "change_me", "change-me", "placeholder", "your_", "your-", "yourkey",
    "yourtoken", "yourpassword", "xxxx", "dummy", "redacted", "sample", "fake", "todo", "tbd",
    "foobar", "notreal", "not_real", "insert", "replace", "...", "…", "***", "<", ">",
)
_REFERENCE_MARKERS = (
    "os.environ", "getenv", "process.env", "env[", "env(", "env.", "secrets.", "settings.",
    "config.", "vault", "keyring", "://", "op://", "arn:",
)
_IDENTIFIER_REF = re.compile(
    r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(.*)?|[A-Za-z_]\w*\(.*|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+"
)
_WINDOWS_VAR = re.compile(r"%\w+%")
_EMPTYISH = {"none", "null", "nil", "true", "false", "undefined", "empty", "secret", "password",
             "token", "pass", "passwd", "pwd", "apikey", "api_key", "hidden", "string"}


def is_placeholder(value: str) -> bool:
    """A value that stands for a secret rather than being one."""
    v = value.strip().strip("\"'`")
    if not v:
        return True
    low = v.lower()
    if low in _EMPTYISH:
        return True
    if v[0] in "${[<" or v.startswith(("~/", "./", "/", "../")) or _WINDOWS_VAR.fullmatch(v):
        return True
    if any(w in low for w in _PLACEHOLDER_WORDS) or any(m in low for m in _REFERENCE_MARKERS):
        return True
    if len(set(low)) <= 2:
        return True
    if _IDENTIFIER_REF.fullmatch(v):
        return True
    return False


_SLUG = re.compile(r"[a-z]{3,}")


def looks_like_prose_slug(value: str) -> bool:
    """`min-12-chars-with-digits`: several word-like parts, probably not a key."""
    parts = [p for p in re.split(r"[-_.]", value) if p]
    if len(parts) < 3:
        return False
    wordy = sum(1 for p in parts if _SLUG.fullmatch(p))
    return wordy * 2 > len(parts)
