"""All-or-nothing file writes, the way Hermes writes its stores (HERMES-FORMATS.md §2.6).

A temp file in the same folder (`.mem_*.tmp` unless told otherwise) is written, flushed and
fsynced, renamed over the target with `os.replace`, and the folder is fsynced so the rename itself
survives a crash. A failed write leaves the target byte-for-byte as it was and no temp file behind.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write(path: str | Path, data: bytes, mode: int | None = None, *,
                 prefix: str = ".mem_", suffix: str = ".tmp") -> None:
    """Replace `path` with `data`, or raise (OSError) and leave it untouched.

    `mode` is given to the new file (pass the old file's to keep it); without it the file keeps
    the private 0600 of its temp file.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=prefix, suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fsync_dir(path.parent)


def fsync_dir(folder: str | Path) -> None:
    """Make a rename or unlink in `folder` durable (best effort: some systems can't fsync a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass
