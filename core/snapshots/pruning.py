"""Hermes's pruning of old sessions, said out loud (HERMES-FORMATS.md §8).

With `sessions.auto_prune` on (the default from 0.22; off in 0.19 and 0.20), Hermes deletes, at
most once per `min_interval_hours`, the ended sessions inactive for `sessions.retention_days`
(default 90) with their messages, and records each run in `state_meta.last_auto_prune` (Unix
seconds as text, written even when nothing was deleted). Search, history and ages then lose those
sessions: hmc names the span instead of reading it as "nothing happened".

The settings are read as the releases read them: the value's truth (a YAML `false`, `0` or an
empty value is off) and `retention_days` as a whole number of days (anything else: 90).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

DEFAULT_RETENTION_DAYS = 90
DAY = 86400.0


@dataclass(frozen=True)
class Pruning:
    enabled: bool  # auto_prune as the release reads it
    retention_days: int
    last_run: float | None  # state_meta.last_auto_prune

    @property
    def cutoff(self) -> float | None:
        """Sessions inactive before this were deleted by the last run (None: no run recorded)."""
        return self.last_run - self.retention_days * DAY if self.last_run is not None else None

    def sentence(self, fmt) -> str | None:
        """`sessions before 5 Sep were pruned by Hermes (retention 90 days, last run 4 Dec)`, or
        None when Hermes never pruned. `fmt` turns a Unix time into a short date."""
        if self.last_run is None:
            return None
        return (f"sessions inactive before {fmt(self.cutoff)} were pruned by Hermes "
                f"(retention {self.retention_days} days, last run {fmt(self.last_run)})")

    def short(self, fmt) -> str | None:
        """The same in a line that fits 80 columns: `Sessions before 5 Sep 2026 were pruned by
        Hermes (kept 90 days)`."""
        if self.last_run is None:
            return None
        return f"Sessions before {fmt(self.cutoff)} were pruned by Hermes (kept {self.retention_days} days)"

    def to_json(self) -> dict:
        from core.sessions.model import iso_time

        return {"auto_prune": self.enabled, "retention_days": self.retention_days,
                "last_run": iso_time(self.last_run), "pruned_before": iso_time(self.cutoff)}


def settings(config_path: Path, release) -> tuple[bool, int]:
    """(auto_prune, retention_days) from config.yaml as `release` reads them (defaults on any problem),
    through hmc's config cache (core.home.config_view)."""
    from core.home import config_view

    def view(data: object) -> dict | None:
        section = data.get("sessions") if isinstance(data, dict) else None
        if not isinstance(section, dict):
            return None
        return {key: section[key] for key in ("auto_prune", "retention_days") if key in section}

    enabled_default = release >= (0, 22)
    section = config_view(config_path, release, "sessions-pruning", view, None)
    if not isinstance(section, dict):
        return enabled_default, DEFAULT_RETENTION_DAYS
    enabled = bool(section["auto_prune"]) if "auto_prune" in section else enabled_default
    days = section.get("retention_days", DEFAULT_RETENTION_DAYS)
    if isinstance(days, bool) or not isinstance(days, int) or days <= 0:
        days = DEFAULT_RETENTION_DAYS
    return enabled, days


def last_run(conn: sqlite3.Connection) -> float | None:
    """state_meta.last_auto_prune, or None (no table, no run, or not a time)."""
    from core.sessions.db import as_epoch

    try:
        row = conn.execute("SELECT value FROM state_meta WHERE key = 'last_auto_prune'").fetchone()
    except sqlite3.OperationalError:  # no state_meta: a database no release pruned
        return None
    return as_epoch(row[0]) if row else None
