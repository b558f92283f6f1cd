"""hmc's own cache folder and the frame of its cache files, shared by every cache hmc keeps (the
history's, core/timeline/cache.py; config.yaml's, core/config_cache.py).

A cache file is a header line, `<SHA-256 of the body> <body length>`, then the body: a torn, edited
or foreign file fails the check and is never decoded (the caller rebuilds what it held). The
folder is platformdirs' user cache folder for hmc, never a Hermes home; everything in it is safe
to delete at any time."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import platformdirs

_ROOTS: dict[tuple, Path] = {}  # the folder by the variables platformdirs reads (it costs ~1 ms a call)


def hmc_cache() -> Path:
    """`~/.cache/hmc` on Linux (XDG_CACHE_HOME respected), as platformdirs says elsewhere."""
    key = (os.environ.get("XDG_CACHE_HOME"), os.environ.get("HOME"), os.environ.get("LOCALAPPDATA"))
    root = _ROOTS.get(key)
    if root is None:
        root = _ROOTS[key] = Path(platformdirs.user_cache_path("hmc"))
    return root


def frame(body: bytes) -> bytes:
    """The header line that `body` follows in a cache file."""
    return f"{hashlib.sha256(body).hexdigest()} {len(body)}\n".encode("ascii")


def framed_body(data: bytes) -> tuple[memoryview, int] | None:
    """(the body as a view of `data`, where it ends in `data`) for a file that starts with a frame
    whose digest checks out, or None (no frame, torn, corrupt or edited: not what hmc wrote).
    What follows the body, if anything, is the caller's."""
    newline = data.find(b"\n", 0, 100)
    head = data[:newline].split(b" ") if newline > 0 else []
    if len(head) != 2 or not head[1].isdigit():
        return None
    start = newline + 1
    end = start + int(head[1])
    body = memoryview(data)[start:end]  # nothing copied: a history cache is tens of MB
    if end > len(data) or head[0] != hashlib.sha256(body).hexdigest().encode("ascii"):
        return None
    return body, end
