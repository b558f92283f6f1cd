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

from core.doctor.cases import in_release_verbs, store_bytes  # noqa: F401  (shared with hmc doctor)
from core.hermes.memory import FILE_NAMES, EmptiesStore, Op, OpError
from core.hermes.release import Release, for_version, parse_version
from core.store.memory import DriftError, MemoryStore, ScanRefused, Snapshot, StoreError

SEP = "\n§\n"
READ_FAILED = "the file exists on disk but could not be read right now"
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


# ------------------------------------------------------------------------------------ ops


def ops_of(call: dict, release: Release | None = None) -> tuple[str, list[Op], bool]:
    """(target, ops, is_batch) for a memory_tool call dict (action/content/old_text or operations),
    read the release's way (new_text from 0.20)."""
    from core.hermes.memory import op_from_call
    from core.hermes.release import NEWEST

    release = release or NEWEST
    target = call.get("target") or "memory"
    if call.get("operations"):
        ops = [op_from_call({k: v for k, v in (o or {}).items() if k != "matched_entry"}, release)
               for o in call["operations"]]
        return target, ops, True
    return target, [op_from_call({k: v for k, v in call.items() if k != "matched_entry"}, release)], False


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
    target, ops, batch = ops_of(call, release)
    st = store(home, target, release, limits)
    try:
        result = st.apply(ops, force=force, person=person, allow_empty=allow_empty, batch=batch,
                          tool=not person)
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
    if READ_FAILED in (res.get("error") or ""):  # 0.20+: a store it can't decode (0.19 raised)
        return Outcome(False, res.get("error"), "raised")
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


_NAMED_CHAR = re.compile(r"invisible unicode character U\+[0-9A-F]{4,6}")


def several_invisible(call: dict, release: Release) -> bool:
    """Some text in the call holds two or more different invisible characters: the release's
    message names the first in Python set order (hash-seed dependent), hmc the lowest code point."""
    texts = [call.get("content") or ""] + [(o or {}).get("content") or "" for o in call.get("operations") or []]
    return any(isinstance(t, str) and invisible_count(t, release) >= 2 for t in texts)


def assert_same_outcome(theirs: Outcome, ours: Outcome, context=None, *, any_invisible: bool = False) -> None:
    """Success or failure alike; a failure's text alike (a drift refusal only by kind: its text is
    a listed deviation); success usage alike (success messages may differ: not compared).
    `any_invisible`: the text holds several invisible characters, so the one a refusal names is
    not compared (which one is named is a listed deviation)."""
    ctx = f"\ncall: {context!r}\nhermes: {theirs}\nhmc: {ours}"
    if any_invisible and not theirs.ok and not ours.ok and theirs.error and ours.error:
        theirs = Outcome(**{**theirs.__dict__, "error": _NAMED_CHAR.sub("invisible unicode character U+…", theirs.error)})
        ours = Outcome(**{**ours.__dict__, "error": _NAMED_CHAR.sub("invisible unicode character U+…", ours.error)})
    assert ours.ok is theirs.ok, ctx
    if theirs.ok:
        assert ours.usage == theirs.usage, ctx
        return
    if theirs.kind == "raised":
        assert ours.kind == "store" and "not valid UTF-8" in ours.error, ctx
        return
    if theirs.kind == "drift":
        assert ours.kind == "drift", ctx
        return
    assert ours.error == theirs.error, ctx
    if theirs.matches is not None:
        assert ours.matches == theirs.matches, ctx
    if theirs.current_entries is not None:
        assert ours.current_entries == theirs.current_entries, ctx


def replay(oracle, home_o, home_h, calls, release: Release, limits=DEFAULT_LIMITS) -> list:
    """Each call on both sides in turn (the release: one fresh agent store per call, so no turn
    state such as 0.18's consolidation-failure cap), comparing outcomes and the two files. Calls
    are written in 0.19's verbs and put in the release's own (`in_release_verbs`)."""
    seen = []
    for call in calls:
        target = call.get("target") or "memory"
        call = in_release_verbs(call, release, read(home_h, target, release, limits).entries)
        theirs = oracle_outcome(oracle.apply(home_o, limits=limits, **call))
        ours = hmc_call(home_h, call, release, limits)
        assert_same_outcome(theirs, ours, call, any_invisible=several_invisible(call, release))
        assert store_bytes(home_h) == store_bytes(home_o), call
        seen.append((theirs, ours))
    return seen


def check_each(cases, check) -> None:
    """Run `check(case)` for every case and report every disagreement at once (many small cases
    in one test keep the default run fast; a failure still names each case)."""
    bad = []
    for case in cases:
        try:
            check(case)
        except AssertionError as exc:
            bad.append(f"{case!r}: {exc}")
    assert not bad, f"{len(bad)} of {len(list(cases))} cases disagree:\n" + "\n".join(bad)
