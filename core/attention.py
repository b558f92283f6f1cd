"""What needs the person's attention, in one line for a shell prompt, a status bar or cron
(`hmc status --short`): the writes waiting for approval in both queues, whether the monthly review
is due, how full the fuller store is, and whether something can't be read.

The figures come from the curator, as the profiles view reads them (core.profiles.overview.files),
and are kept in a small summary in hmc's cache, `<cache>/hmc/attention/<key>.cache` (the frame
every hmc cache has: core.hmc_cache), with the state of every file and folder they were read from:
each one's modification and change times, size, inode and device, or its absence. A later run with
the same inputs (the home and profile asked for, $HERMES_HOME, the release override, $PATH, the
day) stats those paths; when every one is as it was, it prints from the summary without importing
the rest of hmc, and otherwise reads everything again and saves a new summary. So the line is never
stale: an entry added or removed, a record staged, approved or dropped (its folder changes), a
review done, config.yaml edited, another profile made active each change a path it checks.

A file changed twice within the timestamp resolution of its file system, to the same size, would
look the same: a summary whose paths changed in the 2 seconds before it was saved is never used
(git's "racy" rule), so such a change is always read again.

This module imports only the standard library and core.hmc_cache at the top: the summary's check
and the line's format are the whole of a prompt's work. Reading the figures imports the curator's
parts when needed.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import time

TYPE_CHECKING = False  # (typing itself is ~3 ms to import: a prompt's line doesn't need it)
if TYPE_CHECKING:  # pragma: no cover
    from typing import Iterable

    from core.curator import Curator

VERSION = 2  # 2: each store's percent is kept as computed (core.hermes.memory.percent), not recomputed
FULL_AT = 80  # a store at or above this share of its limit is shown (the guides: keep it under 80%)
RACY_NS = 2_000_000_000  # paths changed this close to the save are read again next time
MAX_SUMMARY_BYTES = 64 * 1024  # a summary is well under 2 KB; anything larger isn't hmc's
KEEP_DAYS = 3  # a summary unused this long (another day's, a home gone) is removed when another is saved
DEFAULT_FORMAT = "hmc {pending} {review} {full} {problems}"

# --format's fields: name -> what it shows
FIELDS = {
    "pending": "✎ and the staged writes, memory+skills (✎3+2, ✎3); empty when none",
    "pending_memory": "staged memory writes (a number)",
    "pending_skills": "staged skill writes (a number)",
    "pending_total": "both queues (a number)",
    "review": "⚠review when the monthly review is due; empty otherwise",
    "full": f"the fuller store's use of its limit when at or above {FULL_AT}% (87%, mem 87%); empty otherwise",
    "memory_percent": "MEMORY.md's use of its limit (64%)",
    "user_percent": "USER.md's use of its limit (31%)",
    "problems": "⚠ and how many things can't be read (an unreadable store or queue); empty otherwise",
    "profile": "the profile's name",
}


class FormatError(ValueError):
    """A --format that names an unknown field or isn't a format string."""


# -- the figures -----------------------------------------------------------------------------------

def paths(curator: "Curator") -> list[str]:
    """Every file and folder the figures of the curator's profile are read from (and the ones that
    decide which profile that is)."""
    from core.review.decisions import FILE
    from core.store.home_id import MARKER
    from core.store.journal import state_dir

    home = curator.home
    out = [home.base / "active_profile", home.base / "profiles", home.root / MARKER, home.memories,
           home.config_path, home.pending_dir, home.skills_pending_dir, state_dir(home.root) / FILE,
           *(store.path for store in curator.stores.values())]
    return [str(p) for p in out]


def figures(curator: "Curator") -> dict:
    """The figures of the curator's profile, as the profiles view reads them."""
    from core.hermes.memory import percent
    from core.profiles.overview import files

    part = files(curator)
    return {
        "profile": curator.home.profile,
        "stores": {t: {"percent": None if g.chars is None else percent(g.chars, g.limit)}  # None: unreadable
                   for t, g in part.gauges.items()},
        "pending": part.pending, "skills": part.skills,
        "review_due": part.review_due, "problems": list(part.problems),
    }


def fields(data: dict) -> dict[str, object]:
    """Every --format field's value for these figures."""
    from core.hermes.oneline import one_line

    pending, skills = data["pending"], data["skills"]
    memory, user = (data["stores"].get(t, {}) for t in ("memory", "user"))
    shares = {t: _share(s) for t, s in data["stores"].items()}
    fuller = max((t for t in shares if shares[t] is not None), key=lambda t: shares[t], default=None)
    full = ""
    if fuller is not None and shares[fuller] >= FULL_AT:
        full = f"{shares[fuller]}%" if fuller == "memory" else f"user {shares[fuller]}%"
    waiting = (pending or 0) + (skills or 0)
    problems = len(data["problems"])
    return {
        "pending": f"✎{pending or 0}" + (f"+{skills}" if skills else "") if waiting else "",
        "pending_memory": pending or 0, "pending_skills": skills or 0, "pending_total": waiting,
        "review": "⚠review" if data["review_due"] else "",
        "full": full,
        "memory_percent": "" if _share(memory) is None else f"{_share(memory)}%",
        "user_percent": "" if _share(user) is None else f"{_share(user)}%",
        "problems": f"⚠{problems}" if problems else "",
        "profile": one_line(data["profile"]),
    }


def _share(store: dict) -> int | None:
    return store.get("percent") if store else None


def clear(data: dict) -> bool:
    """Nothing to say: no staged write, no review due, no store at FULL_AT, nothing unreadable."""
    f = fields(data)
    return not (f["pending"] or f["review"] or f["full"] or f["problems"])


def check_format(fmt: str) -> None:
    """Raises FormatError unless every field `fmt` names is one of FIELDS, plainly (no attribute,
    index or conversion: a format string is never a way into the objects behind it)."""
    import string

    try:
        parts = list(string.Formatter().parse(fmt))
    except ValueError as exc:
        raise FormatError(f"--format {fmt!r}: {exc}") from None
    for _, name, spec, conversion in parts:
        if name is None:
            continue
        if name not in FIELDS:
            raise FormatError(f"--format names {{{name}}}, which isn't a field; the fields: "
                              + ", ".join(FIELDS))
        if conversion or spec and "{" in spec:
            raise FormatError(f"--format: {{{name}}} takes no conversion or nested field")


def line(data: dict, fmt: str = DEFAULT_FORMAT) -> str:
    """The line: `fmt` filled in, runs of spaces left by empty fields made one, ends trimmed. Raises
    FormatError (check_format, or a spec that doesn't suit the value: `{pending:d}`)."""
    check_format(fmt)
    try:
        text = fmt.format_map(fields(data))
    except (ValueError, TypeError) as exc:
        raise FormatError(f"--format {fmt!r}: {exc}") from None
    return " ".join(part for part in text.split(" ") if part) if fmt == DEFAULT_FORMAT else text


# -- the summary -----------------------------------------------------------------------------------

def key(home: str | None, profile: str | None, hermes_version: str | None, today: str,
        environ: dict | None = None) -> str:
    """The summary's name for these inputs (what decides the home, the profile, the release's rules
    and the review's due date)."""
    env = os.environ if environ is None else environ
    home_in = os.path.abspath(os.path.expanduser(home)) if home else None
    inputs = (VERSION, home_in, profile, hermes_version, today, env.get("HERMES_HOME"),
              env.get("HMC_HERMES_VERSION"), env.get("PATH"), env.get("HOME"))
    return hashlib.sha256(repr(inputs).encode("utf-8", "surrogatepass")).hexdigest()[:32]


def summary_path(name: str) -> str:
    from core.hmc_cache import hmc_cache

    return os.path.join(hmc_cache(), "attention", f"{name}.cache")


def signature(path: str) -> tuple | None:
    """What a path's state is (None: it isn't there; 'error': it can't be looked at)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return ("error",)
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, st.st_dev)


def load(name: str) -> dict | None:
    """The figures of the summary `name` when every path it was read from is as it was, else None
    (no summary, another format, a torn or foreign file, a path changed or changed too close to the
    save)."""
    from core.hmc_cache import framed_body
    from core.store.atomic import read_regular  # (a FIFO at the summary's path never blocks)

    try:
        raw = read_regular(summary_path(name), MAX_SUMMARY_BYTES)
    except (OSError, ValueError):
        return None
    got = framed_body(raw)
    if got is None:
        return None
    try:
        obj = marshal.loads(got[0])
    except (EOFError, ValueError, TypeError):
        return None
    if not (isinstance(obj, dict) and obj.get("format") == _format() and isinstance(obj.get("checks"), list)
            and isinstance(obj.get("saved_ns"), int) and _valid(obj.get("data"))):
        return None
    racy_from = obj["saved_ns"] - RACY_NS
    for item in obj["checks"]:
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)):
            return None
        path, was = item
        now = signature(path)
        if now != was or now is not None and now[0] != "error" and max(now[0], now[1]) >= racy_from:
            return None
    return obj["data"]


def save(name: str, data: dict, checks: Iterable[tuple[str, tuple | None]]) -> None:
    """Keeps the figures and the state of the paths they came from (`before`, taken before the
    figures were read)."""
    from core.hmc_cache import frame
    from core.store.atomic import private_dir, write_private

    path = summary_path(name)
    obj = {"format": _format(), "saved_ns": time.time_ns(), "data": data,
           "checks": [(p, s) for p, s in checks]}
    body = marshal.dumps(obj)
    try:
        private_dir(os.path.dirname(path))
        write_private(path, frame(body) + body, durable=False)
    except OSError:
        return  # a cache that can't be written: the next run reads everything again
    _forget_old(os.path.dirname(path))


def _forget_old(folder: str) -> None:
    """Removes the summaries not written for KEEP_DAYS. The day is part of a summary's key, so each
    home and profile gets a new one every day: without this the folder would grow a file a day.
    Today's are never that old."""
    cutoff = time.time() - KEEP_DAYS * 86400
    try:
        with os.scandir(folder) as it:
            old = [e.path for e in it if e.name.endswith(".cache") and e.is_file(follow_symlinks=False)
                   and e.stat(follow_symlinks=False).st_mtime < cutoff]
    except OSError:
        return
    for path in old:
        try:
            os.unlink(path)
        except OSError:
            pass


def before(paths: Iterable[str]) -> list[tuple[str, tuple | None]]:
    """Each path's state, taken before the figures are read: a change while they are read makes the
    saved state older than the files, so the next run reads again (never a stale line)."""
    return [(p, signature(p)) for p in paths]


def _format() -> str:
    return f"{VERSION}/{marshal.version}/{sys.version_info[0]}.{sys.version_info[1]}"


def _valid(data: object) -> bool:
    """The shape `gather` writes, every field of it."""
    if not isinstance(data, dict) or not isinstance(data.get("stores"), dict):
        return False
    if not isinstance(data.get("profile"), str) or not isinstance(data.get("review_due"), bool):
        return False
    if not all(x is None or type(x) is int and x >= 0 for x in (data.get("pending"), data.get("skills"))):
        return False
    if not isinstance(data.get("problems"), list) or not all(isinstance(p, str) for p in data["problems"]):
        return False
    for target, store in data["stores"].items():
        if not (isinstance(target, str) and isinstance(store, dict)):
            return False
        share = store.get("percent")
        if not (share is None or type(share) is int and 0 <= share <= 100):
            return False
    return True
