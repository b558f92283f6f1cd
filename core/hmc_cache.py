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


HEAD_BYTES = 100  # a frame's header line is shorter


def _header(first: bytes) -> tuple[bytes, int, int] | None:
    """(the body's digest, where it starts, where it ends) from a file's first bytes, or None."""
    newline = first.find(b"\n", 0, HEAD_BYTES)
    head = first[:newline].split(b" ") if newline > 0 else []
    if len(head) != 2 or not head[1].isdigit():
        return None
    return head[0], newline + 1, newline + 1 + int(head[1])


def _checks(digest: bytes, body) -> bool:
    return digest == hashlib.sha256(body).hexdigest().encode("ascii")


def framed_body(data: bytes) -> tuple[memoryview, int] | None:
    """(the body as a view of `data`, where it ends in `data`) for a file that starts with a frame
    whose digest checks out, or None (no frame, torn, corrupt or edited: not what hmc wrote).
    What follows the body, if anything, is the caller's."""
    head = _header(data)
    if head is None or head[2] > len(data):
        return None
    digest, start, end = head
    body = memoryview(data)[start:end]  # nothing copied: a history cache is tens of MB
    return (body, end) if _checks(digest, body) else None


def read_framed(opened: "OpenFile", size: int) -> tuple[bytes, int] | None:
    """framed_body for an open file of `size` bytes, reading its header and body only: what follows
    stays in the file, for the caller to read as FileSpans."""
    head = _header(opened.read(0, HEAD_BYTES))
    if head is None or head[2] > size:
        return None
    digest, start, end = head
    body = opened.read(start, end - start)
    return (body, end) if len(body) == end - start and _checks(digest, body) else None


class OpenFile:
    """A file descriptor closed when the object is dropped (with the last FileSpan of it): the
    bytes of a cache file that another run may replace meanwhile (hmc renames a new file over
    it), read later from the file as it was when it was opened."""

    __slots__ = ("fd",)

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def read(self, offset: int, size: int) -> bytes:
        """Up to `size` bytes at `offset` (fewer where the file ends first)."""
        parts = []
        while size > 0:
            part = os.pread(self.fd, min(size, 1 << 30), offset)
            if not part:
                break
            parts.append(part)
            offset += len(part)
            size -= len(part)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def __del__(self) -> None:
        try:
            os.close(self.fd)
        except OSError:
            pass


class FileSpan:
    """`size` bytes at `offset` of an OpenFile, read when asked: a part of a cache file a run may
    never need (a history update that only appends never reads the cached writes)."""

    __slots__ = ("opened", "offset", "size")

    def __init__(self, opened: OpenFile, offset: int, size: int) -> None:
        self.opened, self.offset, self.size = opened, offset, size

    def __len__(self) -> int:
        return self.size

    def read(self) -> bytes:
        """The bytes (fewer where the file was cut short: the caller's digest check finds that)."""
        return self.opened.read(self.offset, self.size)
