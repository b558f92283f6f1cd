"""Helpers for the pending-queue tests: a small Hermes home and records staged as Hermes does."""

from __future__ import annotations

import json
import os
import tempfile
from datetime import date
from pathlib import Path

from core.curator import Curator, open_curator
from core.store.memory import serialize

NOW = 1_794_744_000.0  # 2026-11-15 12:00 UTC
TODAY = date(2026, 11, 15)
DAY = 86_400.0

MEMORY = [
    "Project hmc lives in ~/code/hmc; run tests with .venv/bin/pytest -q",
    "Deploys go through the staging cluster first, then prod on Tuesdays",
    "User's editor: neovim with lazy.nvim; prefers tabs of 4; dark theme; font Iosevka",
]
USER = [
    "Name: Dana. Timezone Europe/Berlin.",
    "Prefers short answers with code first",
]


STAGED_BY = "0.19.0"  # `stage` writes records as 0.19 staged them (no pins); the home says it runs 0.19


def make_home(root: Path, memory=MEMORY, user=USER, config: str | None = None,
              hermes: str | None = STAGED_BY) -> Path:
    return build_home(root / "hermes", memory, user, config, hermes)


def build_home(home: Path, memory=MEMORY, user=USER, config: str | None = None,
               hermes: str | None = STAGED_BY) -> Path:
    """A Hermes home whose Hermes is `hermes` (a checkout at <home>/hermes-agent, found as hmc finds
    an installed release; None: no install, so hmc follows the newest release it knows)."""
    if hermes is not None:
        (home / "hermes-agent").mkdir(parents=True, exist_ok=True)
        (home / "hermes-agent" / "pyproject.toml").write_text(
            f'[project]\nname = "hermes-agent"\nversion = "{hermes}"\n', encoding="utf-8")
    (home / "memories").mkdir(parents=True, exist_ok=True)
    (home / "pending" / "memory").mkdir(parents=True, exist_ok=True)
    (home / "memories" / "MEMORY.md").write_text(serialize(memory), encoding="utf-8")
    (home / "memories" / "USER.md").write_text(serialize(user), encoding="utf-8")
    (home / "config.yaml").write_text(config if config is not None else
                                      "memory:\n  write_approval: true\n  memory_char_limit: 2200\n"
                                      "  user_char_limit: 1375\n", encoding="utf-8")
    return home


def curator(home: Path, now: float = NOW, hermes_version: str | None = None) -> Curator:
    return open_curator(home, today=TODAY, clock=lambda: now, hermes_version=hermes_version)


_counter = [0]


def stage(home: Path, action: str = "add", target: str = "memory", *, content: str = "", old_text: str = "",
          matched_entry: str | None = None, operations: list | None = None, rid: str | None = None,
          created_at: float | None = None, origin: str = "foreground", summary: str | None = None,
          extra: dict | None = None) -> str:
    """Write a record the way Hermes does: pretty JSON, non-ASCII kept, temp file + rename."""
    _counter[0] += 1
    rid = rid or f"{_counter[0]:08x}"
    if action == "batch":
        payload = {"action": "batch", "target": target, "operations": operations or []}
    else:
        payload = {"action": action, "target": target, "content": content, "old_text": old_text}
        if matched_entry is not None:
            payload["matched_entry"] = matched_entry
    record = {
        "id": rid, "subsystem": "memory", "action": action,
        "summary": summary if summary is not None else f"{action} in {target}: {content or old_text}"[:120],
        "origin": origin, "created_at": created_at if created_at is not None else NOW - DAY + _counter[0],
        "payload": payload,
    }
    record.update(extra or {})
    write_raw(home, f"{rid}.json", json.dumps(record, indent=2, ensure_ascii=False))
    return rid


def write_raw(home: Path, name: str, text: str | bytes) -> Path:
    folder = home / "pending" / "memory"
    folder.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8") if isinstance(text, str) else text
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".part")
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.replace(tmp, folder / name)
    return folder / name


def entries(home: Path, target: str = "memory") -> list[str]:
    from core.store.memory import parse

    name = "MEMORY.md" if target == "memory" else "USER.md"
    return parse((home / "memories" / name).read_text(encoding="utf-8"))


def pending_files(home: Path) -> list[str]:
    return sorted(p.name for p in (home / "pending" / "memory").iterdir())


def two_staged_writes(home: Path) -> Path:
    """build_home with two staged writes waiting: an add (0000000a, 5 days old) and a replace of
    MEMORY[2]'s editor (0000000b, 3 days old), as the queue's Pilot tests use them."""
    build_home(home)
    stage(home, content="Likes espresso", rid="0000000a", created_at=NOW - 5 * DAY)
    stage(home, "replace", content="User's editor: helix", old_text="neovim with lazy.nvim", rid="0000000b",
          created_at=NOW - 3 * DAY)
    return home
