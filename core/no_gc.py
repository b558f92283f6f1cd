"""A pause of Python's cyclic garbage collector around work that makes many objects and no cycles."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def no_gc() -> Iterator[None]:
    """No collection inside the block; the collector comes back as it was. For a read, replay or
    cache load that makes hundreds of thousands of tuples and strings and no cycles: the collector
    would walk them all again and again (a third of the history's update, most of what loading the
    loaded-memory cache costs over decoding it), and frees nothing."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
