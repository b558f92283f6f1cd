"""What hmc read from a config.yaml, cached by the file's exact bytes: a start-up whose config.yaml
hasn't changed reads the cache instead of importing and running a YAML parser (PyYAML's import and
parse were ~25 ms before hmc's first frame).

`<user cache dir>/hmc/config/<hash of config.yaml's path>-<policy>.cache`, private (folder 0700,
file 0600), never in the Hermes home: a line with a SHA-256 and a length, then the body (that many
bytes, whose digest that is: a torn or edited file fails the check, and is never decoded), in
Python's `marshal` form: the cache's format and parser (VERSION, marshal's and Python's versions,
the YAML policy and the keys read, PyYAML's installed file), the SHA-256 of config.yaml's bytes, and
the value read from them. Each view of the file (`reads`: the memory section's keys, the tool
settings, the pruning settings, the skills section) has its own file. Only plain values are kept
(None, booleans, numbers, strings, and lists and mappings of strings to those, at most MAX_DEPTH
deep): the caller parses anything else (a date, binary) every time. Checked, not trusted: any difference
(another file content, parser, format; a corrupt, truncated, foreign or oversized file) is a miss,
and the caller parses config.yaml as it would without the cache. Written atomically but not fsynced,
and a write that fails is skipped: the cache is safe to delete at any time.

Bump VERSION whenever what the caller derives from the parse (core.home.memory_section) changes.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
from pathlib import Path

from core.hmc_cache import frame, framed_body, hmc_cache
from core.store.atomic import private_dir, read_regular, write_private

VERSION = 2  # 2: lists and nested mappings are plain; one file per view (reads)
MAX_DEPTH = 16
MAX_CACHE_BYTES = 64 * 1024  # a cached value is a few hundred bytes; a larger file is not hmc's
PLAIN = (type(None), bool, int, float, str)

_PARSER: list = []  # PyYAML's installed file (path, size, mtime), looked up once a process


def cache_path(config: Path, policy: str, reads: tuple[str, ...] = ()) -> Path:
    digest = hashlib.sha256(str(config).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    view = hashlib.sha256("\0".join(reads).encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return hmc_cache() / "config" / f"{digest}-{policy}-{view}.cache"


def _parser() -> list | None:
    """Which PyYAML would parse (its package's file, size and time), without importing it: a PyYAML
    upgraded or reinstalled since the cache was written makes it a miss. None: no PyYAML found."""
    if not _PARSER:
        try:
            from importlib.util import find_spec

            spec = find_spec("yaml")
            origin = spec.origin if spec is not None else None
            st = os.stat(origin) if origin else None
            _PARSER.append([origin, st.st_size, st.st_mtime_ns] if st is not None else None)
        except (OSError, ImportError, ValueError):
            _PARSER.append(None)
    return _PARSER[0]


def _key(data: bytes, policy: str, reads: tuple[str, ...]) -> dict | None:
    parser = _parser()
    if parser is None:
        return None
    return {"format": f"{VERSION}/{marshal.version}/{sys.version_info[0]}.{sys.version_info[1]}",
            "policy": policy, "reads": list(reads), "parser": parser, "sha256": hashlib.sha256(data).hexdigest()}


def is_plain(value: object, depth: int = 0) -> bool:
    """A value the cache keeps exactly: None, a bool, an int, a float, a str, or a list or a dict
    of str to those, MAX_DEPTH deep at most."""
    if type(value) in PLAIN:
        return True
    if depth >= MAX_DEPTH:
        return False
    if type(value) is dict:
        return all(type(k) is str and is_plain(v, depth + 1) for k, v in value.items())
    if type(value) is list:
        return all(is_plain(v, depth + 1) for v in value)
    return False


def load(config: Path, data: bytes, policy: str, reads: tuple[str, ...]) -> tuple[object] | None:
    """(value,) as saved for config.yaml's bytes `data` parsed by `policy` for the keys `reads`, or
    None (a miss)."""
    try:
        key = _key(data, policy, reads)
        if key is None:
            return None
        raw = read_regular(cache_path(config, policy, reads), MAX_CACHE_BYTES)
        checked = framed_body(raw)
        if checked is None or checked[1] != len(raw):
            return None  # torn, corrupt or edited: not what hmc wrote
        obj = marshal.loads(checked[0])
        if type(obj) is not dict or obj.get("key") != key or "value" not in obj or not is_plain(obj["value"]):
            return None  # another content, parser or format, or not what save writes
    except Exception:  # noqa: BLE001 - the cache only saves time: anything wrong with it is a miss
        return None
    return (obj["value"],)


def save(config: Path, data: bytes, policy: str, reads: tuple[str, ...], value: object) -> bool:
    """Keep `value` as what config.yaml's bytes `data` parsed by `policy` give for the keys `reads`;
    False when it isn't kept (not a plain value, no PyYAML found, or the cache can't be written: the
    next start parses again)."""
    try:
        key = _key(data, policy, reads)
        if key is None or not is_plain(value):
            return False
        body = marshal.dumps({"key": key, "value": value}, 4)
        path = cache_path(config, policy, reads)
        private_dir(path.parent, up_to=hmc_cache())
        write_private(path, frame(body) + body, durable=False)  # atomic, not durable: a cache lost in a crash is written again
    except Exception:  # noqa: BLE001 - an unwritable cache (or any failure of it) costs the next start a parse
        return False
    return True
