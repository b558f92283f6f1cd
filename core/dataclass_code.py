"""The code Python's dataclasses compile, kept between runs of hmc.

`@dataclass` writes each class's methods (`__init__`, `__repr__`, `__eq__`, a frozen class's
`__hash__`, `__setattr__` and `__delattr__`) as source text and compiles it when the class is
defined: about 1 ms a class on Python 3.11. `hmc status` defines some fifty classes before it reads
a file, and a third of its start went there. A compiled function depends only on its source text
and the interpreter, so hmc keeps the code by its exact source, as Python keeps a module's bytecode
in a .pyc, and a later run executes the kept code instead of compiling the same text again: each
class is what it would have been.

How: `dataclasses` calls the builtin `exec` through its module's globals. `activate()` puts an
`exec` there that looks the source text up first; on a miss it compiles it as the builtin would (no
`__future__` flag inherited, the same file name). Nothing else in the process changes, and
`deactivate()` takes it away again. A Python whose dataclasses stop calling `exec` just doesn't use
the cache.

The file is `<user cache dir>/hmc/dataclass-code.cache` ($HMC_DATACLASS_CODE names another):
private (0600), in the frame every hmc
cache has (core.hmc_cache: a torn file is never read), its body the interpreter's version line and
then the marshalled `{source: code}`, at most MAX_KEPT entries. A file of another interpreter, or one
that doesn't decode to that, is ignored and written again. It's written only when a run compiled
something new. Like the .pyc files Python writes for the user's own modules, it holds code: it
lives in the user's private cache folder, where anything that can write can already run code as the
user (a shell's rc file, Python's user site-packages).
"""

from __future__ import annotations

import dataclasses
import marshal
import os
import sys
from pathlib import Path
from types import CodeType

FILE_NAME = "dataclass-code.cache"
PATH_ENV = "HMC_DATACLASS_CODE"  # another file for it (the test suite's run shares one)
MAX_KEPT = 4096          # compiled sources (hmc's ~130 classes make some 600)
MAX_BYTES = 16 << 20     # a larger file is not read
VERSION_LINE = f"{sys.version}\n{sys.implementation.cache_tag}\n".encode()


class DataclassCode:
    """The kept code of one cache file; `exec` is what `dataclasses` calls while it's active."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.codes: dict[str, CodeType] = self._load()
        self.compiled = 0  # sources compiled in this run (0: everything came from the file)

    def _load(self) -> dict[str, CodeType]:
        from core.hmc_cache import framed_body
        from core.store.atomic import read_regular

        try:
            checked = framed_body(read_regular(self.path, MAX_BYTES))
        except OSError:
            return {}  # none yet, unreadable, too large or not a regular file
        if checked is None or bytes(checked[0][:len(VERSION_LINE)]) != VERSION_LINE:
            return {}
        try:
            codes = marshal.loads(checked[0][len(VERSION_LINE):])
        except (ValueError, EOFError, TypeError):
            return {}
        if not isinstance(codes, dict) or not all(
                type(k) is str and type(v) is CodeType for k, v in codes.items()):
            return {}
        return codes

    def exec(self, source, globals=None, locals=None, /, **options) -> None:  # noqa: A002 - exec's own names
        if type(source) is not str or options:  # (a later Python's keywords: the builtin, uncached)
            exec(source, globals, locals, **options)
            return
        code = self.codes.get(source)
        if code is None:
            code = self.codes[source] = compile(source, "<string>", "exec", dont_inherit=True)
            self.compiled += 1
        exec(code, globals, locals)

    def save(self) -> None:
        """Write the kept code (the newest MAX_KEPT) when this run compiled any; a cache that can't
        be written costs only the compiling it would have saved."""
        if not self.compiled:
            return
        from core.hmc_cache import frame
        from core.store.atomic import private_dir, write_private

        kept = dict(list(self.codes.items())[-MAX_KEPT:])
        body = VERSION_LINE + marshal.dumps(kept)
        try:
            private_dir(self.path.parent)
            write_private(self.path, frame(body) + body, durable=False)  # atomic; a lost cache costs compiling
            self.compiled = 0
        except OSError:
            pass


_active: DataclassCode | None = None


def activate(path: Path | None = None) -> DataclassCode:
    """Keep what `dataclasses` compiles in this process: in `path`, else the file $HMC_DATACLASS_CODE
    names (the test suite's processes share one), else hmc's cache folder."""
    global _active
    if path is None and os.environ.get(PATH_ENV):
        path = Path(os.environ[PATH_ENV])
    if path is None:
        from core.hmc_cache import hmc_cache

        path = hmc_cache() / FILE_NAME
    deactivate()
    _active = DataclassCode(path)
    dataclasses.exec = _active.exec  # a module global: found before the builtin
    return _active


def active() -> DataclassCode | None:
    return _active


def deactivate() -> None:
    """Write what was compiled and give `dataclasses` the builtin `exec` back."""
    global _active
    kept, _active = _active, None
    vars(dataclasses).pop("exec", None)
    if kept is not None:
        kept.save()
