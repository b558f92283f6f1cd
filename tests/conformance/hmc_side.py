"""hmc's side of the differential tests: the question the oracle answered, asked of hmc's code.

Everything here runs in the test process and uses hmc only (never Hermes). Each helper returns
plain values shaped like the oracle's answers, so a test compares like with like:

- ``release_of(oracle)``: hmc's Release for the oracle's version (exact, never a fallback);
- ``read(home, target, release, limits)``: what hmc shows of a store (entries, drift, error);
- ``call(home, call, release, limits)``: one memory_tool-style call replayed through
  ``MemoryStore.apply(..., person=False)`` (the exact-replay mode), as an ``Outcome``;
- ``normalise_notice``: the one order-insensitive spot (invisible ids, see README.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from core.hermes.memory import FILE_NAMES, EmptiesStore, Op, OpError
from core.hermes.release import Release, for_version, parse_version
from core.store.memory import DriftError, MemoryStore, ScanRefused, Snapshot, StoreError

SEP = "\n§\n"
DEFAULT_LIMITS = (2200, 1375)
TARGETS = ("memory", "user")


def release_of(oracle) -> Release:
    release, notice = for_version(parse_version(oracle.version))
    assert notice is None, f"hmc doesn't know hermes {oracle.version} exactly: {notice}"
    assert release.name == oracle.version
    return release


def limit_for(target: str, limits=DEFAULT_LIMITS) -> int:
    return limits[0] if target == "memory" else limits[1]


def store(home, target: str, release: Release, limits=DEFAULT_LIMITS) -> MemoryStore:
    """hmc's store for one target of a home, with the release's rules and no journal."""
    path = Path(home) / "memories" / FILE_NAMES[target]
    return MemoryStore(target, path, limit_for(target, limits), True, None, release=release)


def read(home, target: str, release: Release, limits=DEFAULT_LIMITS) -> Snapshot:
    return store(home, target, release, limits).read()


def store_bytes(home) -> dict:
    """{"MEMORY.md": bytes | None, "USER.md": bytes | None}, like the oracle's "files"."""
    out = {}
    for name in FILE_NAMES.values():
        p = Path(home) / "memories" / name
        out[name] = p.read_bytes() if p.is_file() else None
    return out


# ------------------------------------------------------------------------------------ ops


def ops_of(call: dict) -> tuple[str, list[Op], bool]:
    """(target, ops, is_batch) for a memory_tool call dict (action/content/old_text or operations)."""
    target = call.get("target") or "memory"
    if call.get("operations"):
        ops = [Op(o.get("action") or "", content=o.get("content") or "", old_text=o.get("old_text") or "")
               for o in call["operations"]]
        return target, ops, True
    return target, [Op(call["action"], content=call.get("content") or "",
                       old_text=call.get("old_text") or "")], False


@dataclass
class Outcome:
    """One call's result, either side: success, the failure's text, and what kind it was."""

    ok: bool
    error: str | None = None
    kind: str | None = None  # hmc: op | drift | scan | empties | store ; oracle: error | raised
    usage: str | None = None  # the success usage label
    matches: list | None = None
    current_entries: list | None = None
    exc: BaseException | None = field(default=None, repr=False)


def hmc_call(home, call: dict, release: Release, limits=DEFAULT_LIMITS, *, allow_empty: bool = True,
             force: bool = True, person: bool = False) -> Outcome:
    """Replay one memory_tool call with hmc's store.

    `force=True` skips hmc's own, wider scan (a listed deviation, tested on its own); the release's
    scan still refuses, in its words, because `person=False`. `allow_empty=True` lets a batch empty
    a store as the release does (hmc asks first otherwise; tested on its own).
    """
    target, ops, _ = ops_of(call)
    st = store(home, target, release, limits)
    try:
        result = st.apply(ops, force=force, person=person, allow_empty=allow_empty)
    except EmptiesStore as exc:
        return Outcome(False, str(exc), "empties", exc=exc)
    except OpError as exc:
        return Outcome(False, str(exc), "op", matches=exc.matches, current_entries=exc.current_entries,
                       exc=exc)
    except DriftError as exc:
        return Outcome(False, str(exc), "drift", exc=exc)
    except ScanRefused as exc:
        return Outcome(False, str(exc), "scan" if exc.hermes else "hmc-scan", exc=exc)
    except StoreError as exc:
        return Outcome(False, str(exc), "store", exc=exc)
    return Outcome(True, usage=result.label)


def oracle_outcome(answer: dict) -> Outcome:
    """The same shape from an oracle apply() answer (its last call)."""
    if answer["raised"] is not None:
        r = answer["raised"]
        return Outcome(False, f"{r['type']}: {r['message']}", "raised")
    res = answer["result"]
    if res.get("success"):
        return Outcome(True, usage=res.get("usage"))
    return Outcome(False, res.get("error"), "drift" if "drift_backup" in res else "error",
                   matches=res.get("matches"), current_entries=res.get("current_entries"))


# ------------------------------------------------------------------------------------ text

_BLOCKED = re.compile(r"(\[BLOCKED: \S+ entry contained threat pattern\(s\): )([^\]]*?)(\. Removed from)")
_INV = re.compile(r"^invisible_unicode_U\+([0-9A-F]{4,6})$")


def sorted_ids(ids) -> list[str]:
    """Invisible ids by code point first, then the pattern ids in their given order."""
    ids = list(ids)
    inv = sorted((i for i in ids if _INV.match(i)), key=lambda i: int(_INV.match(i).group(1), 16))
    return inv + [i for i in ids if not _INV.match(i)]


def normalise_notice(text: str | None) -> str | None:
    """Sort the invisible ids inside every [BLOCKED: …] notice (the releases list them in Python
    set order, which depends on the hash seed; hmc lists them by code point)."""
    if text is None:
        return None
    return _BLOCKED.sub(lambda m: m.group(1) + ", ".join(sorted_ids(m.group(2).split(", "))) + m.group(3),
                        text)


def invisible_count(text: str, release: Release) -> int:
    from core.hermes.scan import invisible_set

    return len(set(text) & invisible_set(release))
