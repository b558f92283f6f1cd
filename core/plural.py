"""Counts in words: "1 entry", "2 entries", "1,234 messages" (never "1 entries"). Shared by the
command line and the TUI; imports nothing."""

from __future__ import annotations


def noun(n: int, singular: str, plural: str | None = None) -> str:
    """`singular` for exactly one, else `plural` (default: `singular` + "s")."""
    return singular if n == 1 else (plural if plural is not None else singular + "s")


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """`n` (with thousands separators) and its noun: counted(1, "entry", "entries") -> "1 entry"."""
    return f"{n:,} {noun(n, singular, plural)}"
