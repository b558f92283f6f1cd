"""The monthly review: every detector over both stores, plus remembered decisions.

`run_review(curator)` returns `Finding`s grouped by kind (urgent kinds first), most severe first
within a kind. The checklist it implements is the one
the Hermes guides prescribe: capacity under 80%, no duplicates (Hermes rejects only exact ones), no
contradictions, no stale or relative dates, nothing a skill or a context file already says, no
secrets or injections, nothing too vague or too wordy to be worth its characters.

Two kinds speak of time. `stale` reads the entry: its newest written date is older than
`stale_days`. `old` reads the history (core.review.ages, from state.db): the entry's text has not
changed for more than `old_days`, dated or not. An entry already stale is not also called old.

`unsaved` reads the sessions since the last review (core.review.unsaved): an assistant turn that
claims a save with no memory write behind it, whose fact is in neither the files nor the queue.
"""
from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

from core.plural import counted
from core.review import textnorm as tn
from core.review.ages import SEEN, Age, Ages, entry_ages, short_date
from core.review.dates import ABSOLUTE, NO_YEAR, RELATIVE, find_dates, newest, resolve_relative
from core.review.duplicates import compare, specifics
from core.store.atomic import read_regular
from core.store.memory import FILE_NAMES, TARGETS, percent, usage, usage_label
from core.review.decisions import REVIEW_EVERY_DAYS, ReviewStore, review_due_on  # noqa: F401  (re-exported)

if TYPE_CHECKING:  # pragma: no cover
    from core.curator import Curator
    from core.store.memory import Snapshot

KINDS = ("duplicate", "similar", "conflicting", "stale", "relative-date", "scanner", "capacity",
         "drift", "redundant-skill", "redundant-context", "vague", "verbose", "old", "unsaved", "cross-profile",
         "default-trap")
SEVERITIES = ("info", "warning", "error", "critical")


def severity_counts(findings: Iterable["Finding"]) -> list[tuple[str, str]]:
    """(severity, "2 errors") for each severity present, most severe first: the review's header in
    the TUI and its summary line on the command line ("1 info", "3 info": info has no plural)."""
    counts = {s: 0 for s in SEVERITIES}
    for f in findings:
        counts[f.severity] = counts.get(f.severity, 0) + 1
    return [(s, counted(counts[s], s, s if s == "info" else None)) for s in reversed(SEVERITIES) if counts[s]]
RANK = {s: i for i, s in enumerate(SEVERITIES)}
KIND_ORDER = {k: i for i, k in enumerate(("drift", "scanner", "capacity", "conflicting", "duplicate",
                                          "unsaved", "default-trap", "cross-profile", "similar", "stale", "relative-date", "redundant-skill",
                                          "redundant-context", "verbose", "vague", "old"))}
LABELS = {"memory": "memory", "user": "user"}
STALE_DAYS, VERY_STALE_DAYS = 90, 365
OLD_DAYS = 180  # `old`: an entry whose text has been unchanged longer than this (from the history)
MAX_SOURCE_BYTES = 256 * 1024
MAX_SKILLS = 500
MAX_REVIEW_ENTRIES = 2_000  # per-entry detectors; a store this long is far over any limit already
MAX_PAIR_ENTRIES = 200  # near-duplicates compare every pair: 200 entries is ~20,000 pairs, ~2 s


@dataclass(frozen=True)
class Finding:
    """One thing the review found. `entries` are 0-based indexes into `targets` (parallel)."""

    kind: str
    severity: str
    target: str  # "memory", "user", or "memory+user" for a pair across both files
    entries: tuple[int, ...] = ()
    rule: str | None = None
    detail: str = ""
    targets: tuple[str, ...] = ()  # the store of each entry in `entries`
    texts: tuple[str, ...] = field(default=(), repr=False)  # entry texts (raw: may hold secrets)
    source: str | None = None  # the skill or context file an entry restates
    since: date | None = None  # `old`: the day the entry got its current text (at the latest)
    fact: str | None = None  # `unsaved`: what the user asked to keep (what the review offers to add)
    profile: str | None = None  # `cross-profile`: the other profile holding the same fact
    other_text: str | None = field(default=None, repr=False)  # `cross-profile`: its entry there (raw)
    ages: tuple[Age | None, ...] = ()  # `conflicting`: when each entry got its text (None: not known)
    saved: date | None = None  # `relative-date`: the day the entry was written (when the history knows it)
    resolved: tuple[tuple[str, str], ...] = ()  # `relative-date`: (phrase, the ISO date it meant then)
    fix: str | None = field(default=None, repr=False)  # `relative-date`: the entry with those dates (raw)
    passage: str | None = field(default=None, repr=False)  # redundant-*: the source's matching lines (raw)
    passage_lines: tuple[int, int] | None = None  # their 1-based first and last line in the source

    @property
    def key(self) -> str:
        """Identity for "keep": kind, rule and the exact texts; changes when an entry changes."""
        parts = [self.kind, self.rule or "", self.target]
        if self.texts:
            parts += sorted(f"{t}\x1f{x}" for t, x in zip(self.targets, self.texts))
        else:  # whole-store findings come back when they get worse
            parts.append(self.severity)
        return hashlib.sha256("\x1e".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:20]

    @property
    def refs(self) -> list[tuple[str, int, str]]:
        """(target, index, text) for each entry involved."""
        return list(zip(self.targets, self.entries, self.texts))

    @property
    def where(self) -> str:
        """'memory #3', 'memory #3 ↔ user #1', or 'memory' (1-based, as lists show them)."""
        if self.kind == "unsaved" and self.rule:
            return "session " + self.rule.split("#")[0]
        if not self.entries:
            return self.target
        if len(set(self.targets)) == 1:
            return f"{self.targets[0]} " + " ↔ ".join(f"#{i + 1}" for i in self.entries)
        return " ↔ ".join(f"{t} #{i + 1}" for t, i in zip(self.targets, self.entries))

    def to_json(self) -> dict:
        data = {"kind": self.kind, "severity": self.severity, "target": self.target,
                "entries": list(self.entries), "numbers": [i + 1 for i in self.entries], "rule": self.rule,
                "detail": self.detail, "key": self.key}
        if len(set(self.targets)) > 1:
            data["targets"] = list(self.targets)
        if self.source:
            data["source"] = self.source
        if self.since:
            data["since"] = self.since.isoformat()
        if self.fact is not None:
            data["fact"] = self.fact
        if self.profile is not None:
            data["profile"] = self.profile
        if self.ages:
            data["written"] = [_written_json(t, i, a) for t, i, a in zip(self.targets, self.entries, self.ages)]
        if self.saved is not None:
            data["saved"] = self.saved.isoformat()
            data["resolved"] = [{"phrase": mask_secrets(p, *self.texts), "date": d} for p, d in self.resolved]
        if self.passage is not None:
            data["passage"] = mask_secrets(self.passage)
            data["passage_lines"] = list(self.passage_lines or ())
        return data


def _written_json(target: str, index: int, age: Age | None) -> dict:
    """When one entry of a pair got its text: `date` null when the history doesn't know; `exact`
    false for a text no recorded write explains (the history shows it by then: maybe earlier)."""
    day = age.day() if age is not None else None
    return {"target": target, "index": index, "number": index + 1,
            "date": day.isoformat() if day else None, "exact": bool(age and age.basis != SEEN and day),
            "by": (age.who or age.by) if age is not None and day else None}


def written_words(refs: Sequence[tuple[str, int]], ages: Sequence[Age | None]) -> str:
    """'memory #3 written 5 Aug 2026 (telegram); memory #7 written 5 Nov 2026 (hmc)': when each entry
    of a pair got its text (core.review.ages, the history memory mode's origin lines read). A date
    the history doesn't know is said to be unknown, never guessed."""
    said = [age.written() if age is not None else "date unknown" for age in ages]
    if all(s == "date unknown" for s in said):
        return "(when each was written is unknown: the history in state.db doesn't show it)"
    return "; ".join(f"{target} #{index + 1} {s}" for (target, index), s in zip(refs, said))


# ------------------------------------------------------------------------------ scanner access

def _scanner():
    try:
        from core.scan import scanner
    except ImportError:  # pragma: no cover - the scanner lands separately
        return None
    return scanner


@lru_cache(maxsize=8192)
def _secrets_in(text: str) -> tuple[str, ...]:
    """The secret values in `text` (cached: a pair's detail masks both entries, for every pair)."""
    sc = _scanner()
    if sc is None or not text:
        return ()
    try:
        return tuple(text[f.start:f.end] for f in sc.scan(text) if getattr(f, "secret", False)
                     and f.end > f.start)
    except Exception:  # the scanner promises not to raise; be safe anyway
        return ()


def mask_secrets(text: str, *also_from: str, scan_text: bool = True) -> str:
    """`text` with every secret the scanner finds in it (or in `also_from`) masked. `scan_text=False`
    masks only the secrets of `also_from` (for a text built from them: no scan of its own)."""
    sc = _scanner()
    if sc is None:
        return text
    secrets = set(_secrets_in(text)) if scan_text else set()
    for other in also_from:
        secrets.update(_secrets_in(other))
    for secret in sorted(secrets, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, sc.mask(secret))
    return text


# ------------------------------------------------------------------------------ detectors

Entry = tuple[str, int, str]  # (target, index, text)


def _num(i: int) -> str:
    return f"#{i + 1}"


def capacity_findings(target: str, entries: Sequence[str], limit: int, total: int | None = None) -> list[Finding]:
    out: list[Finding] = []
    used = usage(entries) if total is None else total
    if limit <= 0:
        return out
    label = usage_label(used, limit)
    name = "MEMORY.md" if target == "memory" else "USER.md"
    if used > limit:
        out.append(Finding("capacity", "critical", target, rule="over-limit",
                           detail=f"{name} is {used - limit:,} chars over its limit ({label}); "
                                  "Hermes refuses every addition until entries are merged or removed"))
    elif percent(used, limit) >= 95:
        out.append(Finding("capacity", "error", target, rule="capacity-95",
                           detail=f"{name} is nearly full ({label}); consolidate now"))
    elif percent(used, limit) >= 80:
        out.append(Finding("capacity", "warning", target, rule="capacity-80",
                           detail=f"{name} is above 80% ({label}); consolidate before adding more"))
    for i, text in enumerate(entries):
        if len(text) * 4 > limit:
            out.append(Finding("capacity", "warning", target, (i,), "large-entry",
                               f"one entry takes {len(text) * 100 // limit}% of the store "
                               f"({len(text):,}/{limit:,} chars)", (target,), (text,)))
    return out


def drift_findings(target: str, snap: "Snapshot") -> list[Finding]:
    name = "MEMORY.md" if target == "memory" else "USER.md"
    if snap.error:
        return [Finding("drift", "error", target, rule="unreadable",
                        detail=f"{snap.error}; Hermes can't load it either")]
    if snap.drift:
        return [Finding("drift", "error", target, rule="drift",
                        detail=f"{name} has drifted from the form Hermes writes ({snap.drift}); "
                               "Hermes refuses to edit it until it is repaired (memory mode, r)")]
    if snap.untidy:
        severity = "warning" if snap.bom else "info"  # a BOM hides entry 1 from the prompt
        return [Finding("drift", severity, target, rule="untidy",
                        detail=f"Hermes reads {name} fine, but it has " + "; ".join(snap.untidy)
                               + ". A tidy-up (memory mode, r) fixes it, with a backup first")]
    return []


def pair_findings(items: Sequence[Entry], ages: Ages | None = None) -> list[Finding]:
    """Duplicates, near-duplicates and conflicts among `items`; a conflict says when each entry was
    written (from `ages`; "date unknown" without them), so "which one is true?" can be answered."""
    out: list[Finding] = []
    first_copy: dict[str, int] = {}
    for n, (_, _, text) in enumerate(items):
        first_copy.setdefault(text.strip(), n)
    for a in range(len(items)):
        for b in range(a + 1, len(items)):
            (ta, ia, xa), (tb, ib, xb) = items[a], items[b]
            copies = (first_copy[xa.strip()] != a) + (first_copy[xb.strip()] != b)
            if copies and xa.strip() != xb.strip():
                continue  # an entry stored twice is compared to the others once, as its first copy
            verdict = compare(xa, xb)
            if verdict is None:
                continue
            severity = "error" if verdict.kind == "conflicting" else "warning"
            target = ta if ta == tb else "memory+user"
            detail = verdict.reason
            if verdict.kind == "duplicate" and ta != tb:
                detail += " — stored in both MEMORY.md and USER.md"
            elif verdict.kind == "similar":
                detail += "; merge them into one entry"
            written: tuple[Age | None, ...] = ()
            if verdict.kind == "conflicting":
                written = tuple(ages.get(t, x) if ages is not None else None for t, x in ((ta, xa), (tb, xb)))
                detail += "; which one is true? " + written_words(((ta, ia), (tb, ib)), written)
            out.append(Finding(verdict.kind, severity, target, (ia, ib), verdict.kind,
                               mask_secrets(detail, xa, xb, scan_text=False), (ta, tb), (xa, xb),
                               ages=written))
    return out


def _human(found) -> str:
    """A resolved date as people read it: '4 Nov 2026', 'Oct 2026', '2025'."""
    if found.precision == "day":
        return short_date(found.value)
    if found.precision == "month":
        return f"{short_date(found.value).split(' ', 1)[1]}"
    return str(found.value.year)


def _age(days: int) -> str:
    if days >= 730:
        return f"{days // 365} years"
    if days >= 60:
        return f"{days // 30} months"
    return f"{days} days"


def date_findings(target: str, index: int, text: str, today: date, stale_days: int = STALE_DAYS,
                  age: Age | None = None) -> list[Finding]:
    """`relative-date` and `stale`. With the entry's `age` (core.review.ages) from the write that
    produced its text, a relative phrase is also read against the day it was saved: the finding
    offers the entry with the dates it meant (`fix`). A text the history only shows by some day
    (SEEN) has no known saved day: no offer."""
    out: list[Finding] = []
    found = find_dates(text, today)
    if not found:
        return out
    ref = ((target,), (text,))
    relative = [f for f in found if f.kind == RELATIVE]
    if relative:
        phrases = ", ".join(f'"{f.text}"' for f in relative[:3])
        detail = f"{phrases} is relative: it meant a day when it was saved and means another one now; "
        saved = age.known_day if age is not None else None
        resolution = resolve_relative(text, saved)
        if resolution is not None and saved is not None:
            meant, fix = resolution
            said = ", ".join(f'"{f.text}" meant {_human(f)}' for f in meant[:3])
            detail += f"saved {short_date(saved)}, so {said}: write the date instead"
            out.append(Finding("relative-date", "warning", target, (index,), "relative-date",
                               mask_secrets(detail, text), *ref, saved=saved,
                               resolved=tuple((f.text, f.iso) for f in meant), fix=fix))
        else:
            out.append(Finding("relative-date", "warning", target, (index,), "relative-date",
                               mask_secrets(detail + "write the date instead", text), *ref))
    yearless = [f for f in found if f.kind == NO_YEAR]
    if yearless and not relative:
        out.append(Finding("relative-date", "info", target, (index,), "no-year",
                           mask_secrets(f'"{yearless[0].text}" has no year; if it is a one-off, '
                                        "add the year so it can't be misread later", text), *ref))
    latest = newest(found, (ABSOLUTE,))
    if latest is not None:
        age = (today - latest.last_day).days
        if age > stale_days:
            very = age > max(VERY_STALE_DAYS, stale_days)
            severity = "error" if very else "warning"
            rule = f"stale-{max(VERY_STALE_DAYS, stale_days)}" if very else f"stale-{stale_days}"
            out.append(Finding("stale", severity, target, (index,), rule,
                               mask_secrets(f'newest date "{latest.text}" is {_age(age)} old; '
                                            "is this still true? update or remove it", text),
                               *ref))
    return out


def old_finding(target: str, index: int, text: str, age: Age | None, today: date,
                old_days: int = OLD_DAYS) -> Finding | None:
    """`old` (info): the entry's text has been unchanged for more than `old_days` (None: not, or
    nothing is known). Based on the write that produced the text, or for a text no recorded write
    explains, on when the history first shows it (so the entry is at least that old)."""
    day = age.day() if age is not None else None
    if day is None:
        return None
    days = (today - day).days
    if days <= old_days:
        return None
    unexplained = age.basis == SEEN
    if unexplained:  # the entry got this text before the history first shows it: at least this old
        detail = (f"unchanged since {short_date(day)} at the latest ({days:,}+ days: when the history first "
                  f"shows this text) — {age.origin()}")
    else:
        detail = f"unchanged since {short_date(day)} ({days:,} days) — {age.origin()}"
    return Finding("old", "info", target, (index,), "old-unexplained" if unexplained else "old",
                   detail, (target,), (text,), since=day)


def scanner_findings(target: str, index: int, text: str, release=None) -> list[Finding]:
    sc = _scanner()
    if sc is None:
        return []
    try:
        hits = sc.scan(text, release)
    except Exception:
        return []
    out: list[Finding] = []
    seen: set[str] = set()
    for hit in hits:
        if hit.rule in seen:
            continue
        seen.add(hit.rule)
        detail = str(hit.detail)
        if getattr(hit, "hermes_blocks", False) and "BLOCKED" not in detail \
                and "Hermes blocks" not in detail:
            detail += " — Hermes blocks this entry from the prompt"
        severity = hit.severity if hit.severity in RANK else "warning"
        out.append(Finding("scanner", severity, target, (index,), hit.rule,
                           mask_secrets(detail, text), (target,), (text,)))
    return out


# -- redundancy with skills and context files

@dataclass(frozen=True)
class Source:
    """A file an entry may restate: a skill or a context file, cut into small windows."""

    label: str  # "skills/deploy/SKILL.md", "AGENTS.md"
    kind: str  # "redundant-skill" | "redundant-context"
    windows: tuple[tuple[str, frozenset[str]], ...]
    vocabulary: frozenset[str] = frozenset()  # every token of the file (a quick pre-check)
    lines: tuple[str, ...] = ()  # the file's lines as written (the windows are cut from them)


def _split_window(chunk: str) -> list[str]:
    return [part for part in chunk.split("\x1f") if part.strip()] or [chunk]


def _windows(text: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """Lines, runs of 2-3 lines and long paragraphs, each with its content tokens."""
    lines = [ln.strip() for ln in text.splitlines()][:5000]
    toks = [frozenset(tn.content_tokens(ln)) if ln else frozenset() for ln in lines]
    out: list[tuple[str, frozenset[str]]] = []
    for i, line in enumerate(lines):
        if not line:
            continue
        for size in (1, 2, 3):
            window = lines[i:i + size]
            if len(window) == size and all(window):
                out.append(("\x1f".join(window), frozenset().union(*toks[i:i + size])))
    start = None
    for i, line in enumerate(lines + [""]):
        if line and start is None:
            start = i
        elif not line and start is not None:
            if i - start > 3:
                out.append(("\x1f".join(lines[start:i]), frozenset().union(*toks[start:i])))
            start = None
    return tuple(out)


_SOURCE_CACHE: dict[tuple[str, str], tuple[tuple[int, int], Source]] = {}


def _source(path: Path, label: str, kind: str) -> Source | None:
    """The file as a Source, re-read only when its size or mtime changed."""
    try:
        if not path.is_file():
            return None
        st = path.stat()
        stamp = (st.st_mtime_ns, st.st_size)
        cached = _SOURCE_CACHE.get((str(path), kind))
        if cached and cached[0] == stamp:
            return cached[1]
        text = read_regular(path, MAX_SOURCE_BYTES, head=True).decode("utf-8", errors="replace")
    except OSError:
        return None
    source = source_of(text, label, kind)
    if len(_SOURCE_CACHE) > 2 * MAX_SKILLS:
        _SOURCE_CACHE.clear()
    _SOURCE_CACHE[(str(path), kind)] = (stamp, source)
    return source


def source_of(text: str, label: str, kind: str) -> Source:
    windows = _windows(text)
    vocabulary = frozenset().union(*(w for _, w in windows)) if windows else frozenset()
    return Source(label, kind, windows, vocabulary, tuple(ln.rstrip() for ln in text.splitlines()[:5000]))


PASSAGE_AROUND = 1  # lines of the source shown before and after the matching ones
PASSAGE_MOST = 7  # lines a passage shows at most (a long matching paragraph is cut around its best line)
PASSAGE_WIDTH = 160  # characters of a line shown at most


def passage_of(source: Source, chunk: str, best: str) -> tuple[str, tuple[int, int]] | None:
    """The lines of `source` a matching window came from, with PASSAGE_AROUND lines either side (not
    past a blank line, which ends a section), cut to PASSAGE_MOST lines around `best` (the window's
    line sharing most words), each line clipped; and their 1-based first and last line numbers."""
    from core.scan.mask import clip

    parts = _split_window(chunk)
    stripped = [ln.strip() for ln in source.lines]
    start = next((i for i in range(len(stripped) - len(parts) + 1)
                  if stripped[i:i + len(parts)] == parts), None)
    if start is None:
        return None
    end = start + len(parts)  # exclusive
    focus = start + parts.index(best) if best in parts else start
    if end - start > PASSAGE_MOST:  # a long paragraph: the lines around its best one
        start = max(start, min(focus - PASSAGE_MOST // 2, end - PASSAGE_MOST))
        end = start + PASSAGE_MOST
    for _ in range(PASSAGE_AROUND):
        if end - start < PASSAGE_MOST and start > 0 and stripped[start - 1]:
            start -= 1
        if end - start < PASSAGE_MOST and end < len(stripped) and stripped[end]:
            end += 1
    lines = [clip(ln, PASSAGE_WIDTH) if len(ln) > PASSAGE_WIDTH else ln for ln in source.lines[start:end]]
    return "\n".join(lines), (start + 1, end)


def load_sources(root: Path, context: Sequence[tuple[str, str]] = ()) -> list[Source]:
    """Skills (`skills/*/SKILL.md`, one level of categories too) and the context files the agent
    loads: `context` as (label, the text its prompt holds), from context_texts."""
    out: list[Source] = []
    skills_dir = root / "skills"
    try:
        paths = sorted(skills_dir.glob("*/SKILL.md")) + sorted(skills_dir.glob("*/*/SKILL.md"))
    except OSError:
        paths = []
    for path in paths[:MAX_SKILLS]:
        source = _source(path, path.relative_to(root).as_posix(), "redundant-skill")
        if source and source.windows:
            out.append(source)
    for label, text in context:
        source = source_of(text, label, "redundant-context")
        if source.windows:
            out.append(source)
    return out


WORKING_FOLDERS_DAYS = 90  # the folders the agent ran in, over this many days, are the projects it knows
MAX_WORKING_FOLDERS = 20


def context_texts(curator: "Curator") -> list[tuple[str, str]]:
    """What the agent loads as context, as (label, the text its prompt holds): SOUL.md from the home
    (always) and, for each folder the agent ran in lately (sessions.cwd), the project files the
    release loads there (core.review.context_files: which, in what order, how much of each)."""
    from core.review import context_files as cf

    release = curator.release
    cap = cf.DEFAULT_CAP
    try:
        raw = read_regular(curator.home.config_path, 1 << 20).decode("utf-8", "replace")
        from core.home import load_yaml

        config = load_yaml(raw, release)
        cap = cf.cap_for(release, config.get("context_file_max_chars") if isinstance(config, dict) else None)
    except (OSError, ValueError):
        pass
    out: list[tuple[str, str]] = []
    soul = curator.home.root / "SOUL.md"  # the identity: loaded in every session, wherever it runs
    try:
        text = read_regular(soul, MAX_SOURCE_BYTES, head=True).decode("utf-8", errors="replace").strip() \
            if soul.is_file() else ""
    except OSError:
        text = ""
    if text:
        out.append(("SOUL.md", "\n".join(part for part in cf.kept("SOUL.md", text, cap) if part)))
    folders: list[str] = []
    try:
        since = datetime.combine(curator.today - timedelta(days=WORKING_FOLDERS_DAYS), datetime.min.time()).timestamp()
        if curator.home.state_db.exists():
            folders = curator.sessions.working_folders(since, MAX_WORKING_FOLDERS)
    except Exception:  # noqa: BLE001 - an unreadable state.db names no project: the review goes on
        folders = []
    for folder in folders:
        for f in cf.project_files(Path(folder), release, cap):
            out.append((f"{Path(folder).name}/{f.label}", f.text))
    return out


REDUNDANT = 0.75  # share of an entry's content words found in one window of a source


def _containment(tokens: frozenset[str], window: frozenset[str]) -> float:
    return len(tokens & window) / len(tokens) if tokens else 0.0


def redundancy_findings(target: str, index: int, text: str, sources: Sequence[Source]) -> list[Finding]:
    tokens = frozenset(tn.content_tokens(text))
    if len(tokens) < 4:
        return []
    named = {s for s in specifics(text) if s in tokens}
    best: tuple[float, Source, str] | None = None
    for source in sources:
        if _containment(tokens, source.vocabulary) < REDUNDANT:
            continue  # the whole file lacks too many of the entry's words
        for chunk, window in source.windows:
            score = _containment(tokens, window)
            if score < REDUNDANT or (named and _containment(frozenset(named), window) < 0.75):
                continue
            if best is None or (score, -len(chunk)) > (best[0], -len(best[2])):
                best = (score, source, chunk)
    if best is None:
        return []
    score, source, chunk = best
    line = max((ln for ln in _split_window(chunk)),
               key=lambda ln: len(tokens & frozenset(tn.content_tokens(ln))))
    from core.scan.mask import clip  # (not at start-up)
    excerpt = clip(line, 69)
    if source.kind == "redundant-skill":
        skill = source.label.split("/")[-2]
        detail = (f'largely restates the skill "{skill}" ({source.label}, {round(score * 100)}% of '
                  "its words); a skill loads on demand without costing memory")
    else:
        where = (f" when it runs in {source.label.split('/')[0]}" if "/" in source.label
                 else " in every session")  # a project's file, or SOUL.md from the home
        detail = (f'largely restates {source.label} ("{excerpt}", {round(score * 100)}% of its '
                  f"words); Hermes already loads that file as context{where}")
    detail = mask_secrets(detail, text, chunk)
    passage = passage_of(source, chunk, line)
    return [Finding(source.kind, "warning", target, (index,), source.kind, detail, (target,), (text,),
                    source.label, passage=passage[0] if passage else None,
                    passage_lines=passage[1] if passage else None)]


# -- vague and verbose

# An unspecified reference: "a project", "something", "un projet", "какой-то проект", "一个项目"…
_UNSPECIFIED = re.compile(
    r"\b(?:a|an|some|one|his|her|their|a\s+few|several)\s+(?:side\s+|new\s+|personal\s+)?"
    r"(?:project|thing|app|idea|task|job|issue|problem|stuff)s?\b|\b(?:something|stuff|things|etc)\b|"
    r"\b(?:un|une|des|quelques)\s+(?:projet|truc|chose|idée|tâche|appli)s?\b|\bquelque\s+chose\b|"
    r"\b(?:un|una|unos|unas|algún|alguna)\s+(?:proyecto|cosa|idea|tarea|app)s?\b|\balgo\b|"
    r"\b(?:un|uno|una|qualche|delle|dei)\s+(?:progett[oi]|cos[ae]|idea|compito|app)\b|\bqualcosa\b|"
    r"(?:какой-то|какие-то|один|одним|некий|свой|своим)\s+(?:проект\w*|дел\w*|задач\w*)|что-то|"
    r"(?:работает|занимается)\s+над\s+проект\w*|"
    r"一个项目|某个|某些|一些东西|东西|一些事",
    re.IGNORECASE)
_NARRATION = re.compile(
    r"\b(?:i|we)\s+(?:discovered|found|noticed|learned|realised|realized|saw|think|believe)\b|"
    r"\bthe\s+user\s+(?:mentioned|said|told\s+me|explained|noted|stated)\b|"
    r"\b(?:during|in)\s+(?:our|the|this)\s+(?:conversation|chat|session|discussion)\b|"
    r"\bit\s+(?:turned\s+out|seems|appears)\s+that\b|\bas\s+(?:we|i)\s+discussed\b|"
    r"\bl['’]utilisat(?:eur|rice)\s+(?:a\s+mentionné|m['’]a\s+dit|a\s+dit|a\s+expliqué)\b|"
    r"\bj['’]ai\s+(?:découvert|remarqué|constaté|appris)\b|\bil\s+s['’]est\s+avéré\b|"
    r"\b(?:au\s+cours|lors)\s+de\s+(?:notre|la)\s+(?:conversation|discussion|échange|session)\b|"
    r"\bel\s+usuario\s+(?:mencionó|me\s+dijo|dijo|comentó|explicó)\b|"
    r"\b(?:descubrí|me\s+di\s+cuenta|noté|aprendí)\b|\bresultó\s+que\b|"
    r"\bdurante\s+(?:nuestra|la)\s+(?:conversación|charla|sesión)\b|"
    r"\bl['’]utente\s+(?:ha\s+menzionato|mi\s+ha\s+detto|ha\s+detto|ha\s+spiegato)\b|"
    r"\bho\s+(?:scoperto|notato|capito|imparato)\b|\bsi\s+è\s+scoperto\b|"
    r"\bdurante\s+(?:la\s+nostra|la)\s+(?:conversazione|chiacchierata|sessione)\b|"
    r"пользовател\w*\s+(?:упомянул|сказал|рассказал|сообщил|объяснил)\w*|"
    r"\bя\s+(?:обнаружил|заметил|выяснил|узнал|понял)\w*|"
    r"(?:в\s+ходе|во\s+время)\s+(?:нашего\s+)?(?:разговора|беседы|сессии)|\bоказалось\b|"
    r"用户(?:提到|告诉我|说过|说|表示)|我(?:发现|注意到|了解到|认为)|在(?:我们的)?(?:对话|聊天|会话)中|结果发现",
    re.IGNORECASE)


def vague_finding(target: str, index: int, text: str) -> Finding | None:
    stripped = text.strip()
    tokens = tn.content_tokens(stripped)
    has_cjk = any(tn.is_cjk(c) for c in stripped)
    reason = None
    if len(stripped) < (5 if has_cjk else 12) or not tokens:
        reason = "too short to act on"
    elif not specifics(stripped) and not re.search(r"\d", stripped):
        few = len(stripped) < 16 if has_cjk else len(tokens) <= 4
        if few and _UNSPECIFIED.search(stripped):
            reason = "too generic to act on: say which one, where, or what to do"
    if reason is None:
        return None
    return Finding("vague", "info", target, (index,), "vague", reason, (target,), (text,))


def verbose_finding(target: str, index: int, text: str) -> Finding | None:
    if len(text) < 120:
        return None
    marker = _NARRATION.search(text)
    words = tn.words(text)
    if not words:
        return None
    content = [w for w in words if w not in tn.STOP_WORDS and len(w) > 1]
    density = sum(len(w) for w in content) / max(1, len(text))
    if marker is None and not (len(text) >= 240 and density < 0.42):
        return None
    target_len = max(40, len(text) // 3)
    why = f'reads like narration ("{marker.group(0)}")' if marker else "mostly filler words"
    detail = f"{why}; the facts would fit in about {target_len:,} of its {len(text):,} chars"
    return Finding("verbose", "info", target, (index,), "narration" if marker else "filler",
                   mask_secrets(detail, text), (target,), (text,))


# ------------------------------------------------------------------------------ the review

def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Kind order (KIND_ORDER: the urgent kinds first), then most severe first within a kind.

    The order of kinds never depends on which findings are left, so keeping or fixing one never
    moves a whole group.
    """
    return sorted(findings, key=lambda f: (KIND_ORDER.get(f.kind, 99), -RANK.get(f.severity, 0),
                                           f.target, f.entries, f.rule or ""))


def group_findings(findings: Iterable[Finding]) -> list[tuple[str, list[Finding]]]:
    """(kind, findings) in the stable order of `sort_findings`."""
    groups: dict[str, list[Finding]] = {}
    for f in sort_findings(findings):
        groups.setdefault(f.kind, []).append(f)
    return list(groups.items())


def review_entries(stores: dict[str, tuple[Sequence[str], int]], today: date,
                   sources: Sequence[Source] = (), snapshots: dict | None = None,
                   stale_days: int = STALE_DAYS, release=None, ages: Ages | None = None,
                   old_days: int = OLD_DAYS) -> list[Finding]:
    """The detectors over plain data: {target: (entries, limit)} (used by run_review and tests);
    `release` is the Hermes release whose scan decides what it blocks (the newest by default);
    `ages` (core.review.ages) gives the `old` findings (none without)."""
    findings: list[Finding] = []
    items: list[Entry] = []
    for target in TARGETS:
        if target not in stores:
            continue
        entries, limit = stores[target]
        if snapshots and target in snapshots:
            findings += drift_findings(target, snapshots[target])
        findings += capacity_findings(target, entries[:MAX_REVIEW_ENTRIES], limit, total=usage(entries))
        if len(entries) > MAX_REVIEW_ENTRIES:
            findings.append(Finding("capacity", "warning", target, rule="too-many-entries", detail=(
                f"{FILE_NAMES[target]} holds {len(entries):,} entries, far more than fits any limit; "
                f"the review looked at the first {MAX_REVIEW_ENTRIES:,} only")))
        for i, text in enumerate(entries[:MAX_REVIEW_ENTRIES]):
            items.append((target, i, text))
            findings += scanner_findings(target, i, text, release)
            dated = date_findings(target, i, text, today, stale_days,
                                  ages.get(target, text) if ages is not None else None)
            findings += dated
            if ages is not None and not any(f.kind == "stale" for f in dated):
                old = old_finding(target, i, text, ages.get(target, text), today, old_days)
                if old:
                    findings.append(old)
            findings += redundancy_findings(target, i, text, sources)
            for f in (vague_finding(target, i, text), verbose_finding(target, i, text)):
                if f:
                    findings.append(f)
    findings += pair_findings(items[:MAX_PAIR_ENTRIES], ages)
    if len(items) > MAX_PAIR_ENTRIES:
        findings.append(Finding("capacity", "info", "memory+user", rule="too-many-to-compare", detail=(
            f"{len(items):,} entries in all: near-duplicates and conflicts were looked for among the "
            f"first {MAX_PAIR_ENTRIES:,} only (comparing every pair grows with the square)")))
    return sort_findings(findings)


def decisions(curator: "Curator") -> ReviewStore:
    """The decision store for this curator's home (hmc's state folder, never the Hermes home)."""
    from core.store.journal import state_dir

    return ReviewStore(state_dir(curator.home.root), curator.home.root)


def run_review(curator: "Curator", *, include_kept: bool = False, fresh: bool = True,
               stale_days: int = STALE_DAYS, old_days: int | None = OLD_DAYS,
               progress: Callable[[int, int], None] | None = None) -> list[Finding]:
    """All findings for the curator's home (sort_findings order); kept ones left out by default.

    `fresh` re-reads both files; the TUI passes False to review the snapshots its file poll keeps
    (reading here would update them behind the poll's back, so it would miss an external change).
    `old_days` None leaves the history alone (no `old` findings); `progress` hears how far a
    rebuild of the history has got (core.timeline.build_timeline).
    """
    snapshots = {t: (curator.stores[t].read() if fresh else curator.stores[t].last)
                 for t in TARGETS if t in curator.stores}
    stores = {t: (list(s.entries), curator.stores[t].limit) for t, s in snapshots.items()}
    ages = entry_ages(curator, progress) if old_days is not None else None
    findings = review_entries(stores, curator.today, load_sources(curator.home.root, context_texts(curator)),
                              snapshots, stale_days,
                              curator.release, ages, old_days if old_days is not None else OLD_DAYS)
    if old_days is not None:  # the sessions too (what reads state.db): promises the agent didn't keep
        from core.review.unsaved import unsaved_findings

        findings = sort_findings([*findings, *(Finding("unsaved", "warning", "memory", rule=rule, detail=detail,
                                                       fact=fact)
                                               for rule, detail, fact in unsaved_findings(curator,
                                                                                          last_review_date(curator)))])
    if old_days is not None:  # the other profiles too: the same fact in two of them, a stale profiles/default/
        findings = sort_findings([*findings, *profile_findings(curator)])
    if include_kept:
        return findings
    kept = decisions(curator).kept_keys()
    return [f for f in findings if f.key not in kept]


def profile_findings(curator: "Curator") -> list[Finding]:
    """`cross-profile`: this profile's entries another profile holds too (core.review.profiles);
    `default-trap`: a stale profiles/default/ folder, in the default profile's review."""
    from core.profiles.discovery import discover
    from core.review.profiles import cross_profile, default_trap
    from core.scan.mask import clip

    found = discover(curator.home.base, curator.release)
    out = []
    trap = default_trap(curator, found)
    if trap:
        out.append(Finding("default-trap", "warning", "memory", rule="profiles/default", detail=trap))
    for leak in cross_profile(curator, found) if len(found.profiles) > 1 else ():
        said = "the same entry" if leak.same else f"nearly the same ({leak.reason})"
        quoted = mask_secrets(clip(leak.their_text, 80), leak.their_text)
        detail = (f"Also in profile {leak.profile}'s {FILE_NAMES[leak.their_target]} #{leak.their_index + 1}: "
                  f"{said}: \"{quoted}\". " + (leak.first + " " if leak.first else "")
                  + "Keep it in one profile (M moves it), remove it from the other, or keep both on purpose (y).")
        out.append(Finding("cross-profile", "warning", leak.target, (leak.index,),
                           rule=f"{leak.profile}:{leak.their_target}:{leak.their_index}", detail=detail,
                           targets=(leak.target,), texts=(leak.text,), profile=leak.profile,
                           other_text=leak.their_text))
    return out


def keep(curator: "Curator", findings: Iterable[Finding]) -> int:
    """Dismiss findings; each returns when one of its entries changes."""
    return decisions(curator).keep(findings, curator.today)


def last_review_date(curator: "Curator") -> date | None:
    return decisions(curator).last_review()


def review_due(curator: "Curator") -> bool:
    """True when there has been no review yet, or the last one is 30 days old or more."""
    return review_due_on(last_review_date(curator), curator.today)


def mark_reviewed(curator: "Curator") -> None:
    decisions(curator).mark_reviewed(curator.today)


def open_problems(findings: Iterable[Finding], kept: Iterable[str] = ()) -> list[Finding]:
    """Findings at warning or above that are neither fixed nor kept."""
    kept = set(kept)
    return [f for f in findings if RANK.get(f.severity, 0) >= RANK["warning"] and f.key not in kept]


def review_complete(findings: Iterable[Finding], kept: Iterable[str] = ()) -> bool:
    """The review is done when no finding at warning or above is left open (fixed or kept)."""
    return not open_problems(findings, kept)


def mark_if_complete(curator: "Curator", findings: Sequence[Finding] | None = None,
                     kept: Iterable[str] | None = None) -> bool:
    """Record today as the last review if the review is complete and today isn't recorded yet.

    `findings` should include kept ones (`run_review(include_kept=True)`); computed when omitted.
    Returns True when it wrote the date. Raises ReviewStoreError when the state folder is read-only.
    """
    store = decisions(curator)
    if findings is None:
        findings = run_review(curator, include_kept=True)
    if kept is None:
        kept = store.kept_keys()
    if not review_complete(findings, kept) or store.last_review() == curator.today:
        return False
    store.mark_reviewed(curator.today)
    return True


def counts(findings: Iterable[Finding]) -> dict[str, int]:
    """Findings per kind, in KINDS order, only kinds present."""
    tally: dict[str, int] = {}
    for f in findings:
        tally[f.kind] = tally.get(f.kind, 0) + 1
    return {k: tally[k] for k in KINDS if k in tally}


def worst(findings: Iterable[Finding]) -> str | None:
    return max((f.severity for f in findings), key=lambda s: RANK.get(s, 0), default=None)


# ------------------------------------------------------------------------------ Markdown report

def _quote(text: str) -> str:
    return "\n".join("> " + (line if line.strip() else "") for line in text.splitlines() or [""])


def markdown_report(curator: "Curator", findings: Sequence[Finding]) -> str:
    """The review as a Markdown document (secrets masked)."""
    home = curator.home
    lines = [f"# Memory review — {curator.today.isoformat()}", "",
             f"Home: `{home.display()}` (profile {home.profile})", ""]
    for target in TARGETS:
        store = curator.stores.get(target)
        if store is None:
            continue
        snap = store.last
        name = "MEMORY.md" if target == "memory" else "USER.md"
        lines.append(f"- {name}: {counted(len(snap.entries), 'entry', 'entries')}, "
                     f"{usage_label(usage(snap.entries), store.limit)}")
    lines.append("")
    if not findings:
        lines += ["**Nothing to fix.** Capacity, duplicates, dates, redundancy and the security scan "
                  "are all clear.", ""]
        return "\n".join(lines)
    by_sev = {s: sum(1 for f in findings if f.severity == s) for s in reversed(SEVERITIES)}
    summary = ", ".join(f"{n} {s}" for s, n in by_sev.items() if n)
    lines += [f"**{len(findings)} finding{'s' if len(findings) != 1 else ''}**: {summary}.", "",
              "| kind | count | most severe |", "|---|---:|---|"]
    groups = group_findings(findings)
    for kind, items in groups:
        lines.append(f"| {kind} | {len(items)} | {worst(items)} |")
    lines.append("")
    for kind, items in groups:
        lines += [f"## {kind} ({len(items)})", ""]
        for f in items:
            lines += [f"### {f.severity} · {f.where}" + (f" · `{f.rule}`" if f.rule else ""), "",
                      f.detail, ""]
            for target, index, text in f.refs:
                lines += [f"{target} #{index + 1}:", "", _quote(mask_secrets(text)), ""]
    lines += ["---", "Generated by hmc (Hermes Memory Curator).", ""]
    return "\n".join(lines)
