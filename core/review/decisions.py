"""Remembered review decisions: findings the person chose to keep, and the date of the last review.

One small JSON file, `review.json`, in hmc's own state folder for the home (never in the Hermes
home). A kept finding is remembered by a hash of its kind, rule and the exact entry texts involved
(`Finding.key`), so it comes back by itself as soon as one of those entries changes.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Iterable

from core.store.atomic import PRIVATE_FILE, atomic_write, read_regular
from core.store.journal import private_state_folder

FILE = "review.json"
MAX_BYTES = 16 << 20  # one kept decision per finding: far more than any review makes
VERSION = 1
REVIEW_EVERY_DAYS = 30  # the monthly review is due this long after the last one


def review_due_on(last: date | None, today: date) -> bool:
    """True when there has been no review yet, or the last one is REVIEW_EVERY_DAYS old or more."""
    return last is None or (today - last).days >= REVIEW_EVERY_DAYS


class ReviewStoreError(Exception):
    """The decisions file can't be written; the message says why."""


@dataclass(frozen=True)
class Kept:
    key: str
    kind: str
    kept_on: str  # ISO date
    detail: str


class ReviewStore:
    """Decisions for one Hermes home, stored in `folder/review.json`."""

    def __init__(self, folder: Path, home_root: Path | None = None):
        """`home_root`: the home whose state folder this is (claimed before a save: core.store.home_id)."""
        self.folder = Path(folder)
        self.path = self.folder / FILE
        self.home_root = home_root

    # -- reading (never raises: a missing or damaged file means "no decisions yet") -------------

    def _load(self) -> dict:
        try:
            data = json.loads(read_regular(self.path, MAX_BYTES).decode("utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def kept(self) -> dict[str, Kept]:
        raw = self._load().get("kept", {})
        out: dict[str, Kept] = {}
        if isinstance(raw, dict):
            for key, item in raw.items():
                if isinstance(item, dict):
                    out[key] = Kept(key, str(item.get("kind", "")), str(item.get("kept_on", "")),
                                    str(item.get("detail", "")))
        return out

    def kept_keys(self) -> set[str]:
        return set(self.kept())

    def last_review(self) -> date | None:
        value = self._load().get("last_review")
        try:
            return date.fromisoformat(value) if isinstance(value, str) else None
        except ValueError:
            return None

    # -- writing ----------------------------------------------------------------------------------

    def keep(self, findings: Iterable[object], today: date) -> int:
        """Remember these findings as kept (objects with key, kind, detail). Returns how many."""
        data = self._load()
        kept = data.get("kept") if isinstance(data.get("kept"), dict) else {}
        n = 0
        for f in findings:
            kept[f.key] = {"kind": f.kind, "kept_on": today.isoformat(), "detail": f.detail}
            n += 1
        data["kept"] = kept
        self._save(data)
        return n

    def unkeep(self, keys: Iterable[str]) -> int:
        data = self._load()
        kept = data.get("kept") if isinstance(data.get("kept"), dict) else {}
        n = sum(1 for k in list(keys) if kept.pop(k, None) is not None)
        data["kept"] = kept
        self._save(data)
        return n

    def mark_reviewed(self, day: date) -> None:
        data = self._load()
        data["last_review"] = day.isoformat()
        self._save(data)

    def _save(self, data: dict) -> None:
        data["version"] = VERSION
        text = json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
        try:
            if self.home_root is not None:
                from core.store.journal import claim_state_dir

                self.folder = claim_state_dir(self.home_root)
                self.path = self.folder / FILE
            private_state_folder(self.folder)  # hmc's state is private: folders 0700, files 0600
            atomic_write(self.path, text.encode("utf-8"), PRIVATE_FILE, prefix=".review_")
        except OSError as exc:
            raise ReviewStoreError(
                f"can't save review decisions in {self.folder} ({exc.strerror or exc})") from None
