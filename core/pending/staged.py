"""The records a queue folder holds, by name: what both queues list and count (pending/memory/ and
pending/skills/), and what `hmc status --short` and the profiles view count without loading either
queue's machinery. Standard library only."""

from __future__ import annotations

import os


def names(folder: str | os.PathLike) -> list[os.DirEntry]:
    """The staged records in `folder` (`*.json`, hidden files left out: a claim in progress, an
    editor's temporary file), in no particular order; [] when the folder doesn't exist. Any other
    OSError (not a folder, no permission) is raised for the caller to word."""
    try:
        with os.scandir(folder) as it:
            return [e for e in it if e.name.endswith(".json") and not e.name.startswith(".")]
    except FileNotFoundError:
        return []


def count(folder: str | os.PathLike) -> int:
    """How many records wait in `folder` (names only, nothing parsed); raises as `names` does."""
    return len(names(folder))


def problem(folder: str | os.PathLike, exc: OSError) -> str:
    """Why `folder` can't be listed, in one line (what `names` raised)."""
    if isinstance(exc, NotADirectoryError):
        return f"{folder} is not a folder"
    return f"can't list {folder}: {exc.strerror or exc}"
