"""The skill write queue (pending/skills/) as the app sees it: the queue object of a curator, a cheap
change token for the file poll, and the count the header shows. Light: imported at start-up."""

from __future__ import annotations

import os
from pathlib import Path

_QUEUES: dict[int, object] = {}


def skill_queue(curator):
    """The SkillQueue of `curator`'s home (one per curator: a profile switch gets a new one)."""
    queue = _QUEUES.get(id(curator))
    if queue is None or Path(getattr(queue, "home", "")) != Path(curator.home.root):
        from core.pending.skills import SkillQueue

        queue = SkillQueue(curator.home.root, history=getattr(curator, "history", None))
        _QUEUES.clear()  # only the current curator's is kept
        _QUEUES[id(curator)] = queue
    return queue


def folder_of(curator) -> Path:
    return Path(curator.home.root) / "pending" / "skills"


def token(curator) -> object:
    """Changes when a record is staged, rewritten, claimed or removed (names, sizes, mtimes)."""
    folder = folder_of(curator)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return ()
    out = []
    for name in names:
        if not name.endswith(".json") or name.startswith("."):
            continue
        try:
            st = os.lstat(folder / name)
        except OSError:
            continue
        out.append((name, st.st_size, st.st_mtime_ns))
    return tuple(out)


def count(curator) -> int:
    """Staged skill writes (every `*.json` record, broken ones too), as the queue lists them."""
    return len(token(curator))  # type: ignore[arg-type]
