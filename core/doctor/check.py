"""One doctor run: find the installed Hermes, ask it the fixed cases through the driver (in its own
interpreter, in a subprocess, on scratch homes hmc builds), ask hmc's rules for the detected
release the same, and compare. Never touches the user's home, files or state.db; needs no network.

Two driver runs: the first reads, edits, prompts, stages and builds a state.db; the second approves
what the first staged (hmc approves a byte-identical copy of the same staged home).
"""

from __future__ import annotations

import functools
from contextlib import contextmanager
import hashlib
import shutil
import time
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path
from typing import Callable

from core.doctor import cases as C
from core.hermes import probe
from core.hermes.memory import prompt_block
from core.hermes.release import Release, VersionError, for_version, parse_version
from core.store.atomic import read_regular, read_small  # noqa: F401  (read_small: re-exported)

SHOWN = 90  # characters of each side a difference line shows (around the first difference)


@dataclass
class Difference:
    area: str
    case: str
    hermes: str   # what Hermes did
    hmc: str      # what hmc would do

    def line(self) -> str:
        return f"{self.area}: {self.case} — Hermes: {self.hermes}; hmc would: {self.hmc}"


@dataclass
class Verdict:
    status: str                       # "agree" | "differ" | "error"
    version: str | None = None        # the installed release's version, as found
    where: str | None = None
    how: str | None = None            # why this interpreter
    rules: str | None = None          # the release whose rules hmc applies
    notice: str | None = None         # set when hmc follows another release's rules
    reported: str | None = None       # what Hermes's interpreter says it has (distribution + version)
    python: str | None = None
    areas: dict = field(default_factory=dict)   # area -> {"agreed": n, "run": n, "skipped": n}
    differences: list = field(default_factory=list)  # [Difference]
    error: str | None = None
    hermes_digest: str | None = None
    hmc_digest: str | None = None
    checked_at: float | None = None
    seconds: float | None = None

    @property
    def agreed(self) -> int:
        return sum(a["agreed"] for a in self.areas.values())

    @property
    def run(self) -> int:
        return sum(a["run"] for a in self.areas.values())

    @property
    def differing_areas(self) -> list[str]:
        return [name for name, a in self.areas.items() if a["agreed"] < a["run"]]

    def exit_code(self) -> int:
        return {"agree": 0, "differ": 1}.get(self.status, 2)

    def summary(self) -> str:
        """One line: "checked against your Hermes 0.23.1: 52/52" or the areas that differ."""
        if self.status == "error":
            return f"can't check against your Hermes: {self.error}"
        head = f"checked against your Hermes {self.version}: {self.agreed}/{self.run}"
        if self.status == "differ":
            head += " — differs in " + ", ".join(C.AREA_NAMES.get(a, a) for a in self.differing_areas)
        return head

    def as_dict(self) -> dict:
        out = asdict(self)
        out["differences"] = [asdict(d) for d in self.differences]
        out.update(agreed=self.agreed, run=self.run, summary=self.summary(), differing_areas=self.differing_areas)
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "Verdict":
        known = {f for f in cls.__dataclass_fields__}
        kw = {k: v for k, v in data.items() if k in known}
        kw["differences"] = [Difference(**d) for d in data.get("differences") or []]
        return cls(**kw)


CHECKED = ("hermes", "doctor", "store", "pending", "sessions", "timeline")  # the code a verdict vouches for


@functools.lru_cache(maxsize=1)  # the code doesn't change while hmc runs
def hmc_digest() -> str:
    """hmc's rules and the code the cases exercise (core/hermes, store, pending, sessions, timeline)
    and the doctor's cases: a verdict holds only for these."""
    digest = hashlib.sha256()
    core = Path(__file__).resolve().parents[1]
    for path in sorted(p for package in CHECKED for p in (core / package).glob("*.py")):
        digest.update(f"{path.parent.name}/{path.name}".encode() + b"\0" + read_regular(path, 1 << 20) + b"\0")
    return digest.hexdigest()


def shorten(a: str, b: str, width: int = SHOWN) -> tuple[str, str]:
    """Both texts cut to a window around their first difference, never inside a secret (core.scan.
    mask.clip): the masking where a difference is shown (or --reveal) sees every key whole."""
    from core.scan.mask import clip

    if len(a) <= width and len(b) <= width:
        return a, b
    i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    start = max(0, i - width // 3)
    return clip(a, width, start), clip(b, width, start)


# ------------------------------------------------------------------------------ the two sides


def _raised(ans: dict) -> str | None:
    r = ans.get("raised")
    return f"raises {r.get('type')}: {r.get('message')}" if r else None


def _hermes_reading(ans: dict, case: C.Case) -> str:
    return _raised(ans) or f"reads {C.lits(ans['memory_entries'])}"


def _hmc_reading(home: Path, case: C.Case, release: Release) -> str:
    snap = C.store(home, "memory", release, case.limits).read()
    return f"error: {snap.error}" if snap.error else f"reads {C.lits(snap.entries)}"


def _hermes_drift(ans: dict, case: C.Case) -> str:
    return _raised(ans) or ("drift" if ans["drift"] else "no drift")


def _hmc_drift(home: Path, case: C.Case, release: Release) -> str:
    snap = C.store(home, "memory", release, case.limits).read()
    return f"error: {snap.error}" if snap.error else ("drift" if snap.drift is not None else "no drift")


def _hermes_call(ans: dict, case: C.Case) -> str:
    name = C.FILE_NAMES[case.call.get("target") or "memory"]
    after = C.text_of(C.b64(ans["files"][name]))
    if ans.get("raised"):
        return f"{_raised(ans)}; {name} = {after}"
    res = ans["result"] or {}
    if res.get("success"):
        return f"ok ({res.get('usage')}); {name} = {after}"
    if "drift_backup" in res:
        return f"refused (drift); {name} = {after}"
    return f"refused: {res.get('error')}; {name} = {after}"


def _hmc_call(home: Path, case: C.Case, release: Release, call: dict) -> str:
    name = C.FILE_NAMES[call.get("target") or "memory"]
    ok, what = C.hmc_call(home, call, release, case.limits)
    after = C.text_of(C.store_bytes(home)[name])
    if ok:
        return f"ok ({what}); {name} = {after}"
    return f"refused (drift); {name} = {after}" if what == "drift" else f"refused: {what}; {name} = {after}"


def _hermes_prompt(ans: dict, case: C.Case) -> str:
    return _raised(ans) or f"memory {C.lit(ans['memory'] or '')}, user {C.lit(ans['user'] or '')}"


def _hmc_prompt(home: Path, case: C.Case, release: Release) -> str:
    blocks = []
    for target in ("memory", "user"):
        st = C.store(home, target, release, case.limits)
        snap = st.read()
        if snap.error:
            return f"error: {snap.error}"
        blocks.append(prompt_block(target, snap.entries, st.limit, release))
    return f"memory {C.lit(blocks[0])}, user {C.lit(blocks[1])}"


def _files_line(files: dict) -> str:
    return "; ".join(f"{name} = {C.text_of(files[name])}" for name in ("MEMORY.md", "USER.md"))


def _hermes_pending(ans: dict, case: C.Case) -> str:
    if ans.get("raised") or ans.get("load_raised"):
        return _raised(ans) or f"raises {ans['load_raised'].get('type')}"
    files = {n: C.b64(v) for n, v in ans["files"].items()}
    return f"{_files_line(files)}; {len(ans['pending'])} left pending"


def _hmc_pending(home: Path, case: C.Case, release: Release, scratch: Path) -> str:
    try:
        curator = _scratch_curator(home, release, scratch)
        curator.pending.approve_all()
        left = len(curator.pending.list())
    except Exception as exc:  # noqa: BLE001 - any failure is hmc's answer to the case
        return f"error: {exc}"
    return f"{_files_line(C.store_bytes(home))}; {left} left pending"


def _build(conversations: dict) -> list:
    build, t = [], C.T0
    for sid, (source, msgs) in conversations.items():
        messages = []
        for role, content in msgs:
            t += 1.0
            messages.append({"role": role, "content": content, "timestamp": t})
        build.append({"id": sid, "source": source, "kwargs": {"model": "m"}, "started_at": C.T0,
                      "messages": messages})
    return build


def _hmc_search(db, query: str) -> str:
    from core.sessions.model import ROLES

    if db is None:
        return "error: no state.db"
    try:
        return f"hits {[h.message_id for h in db.search(query, include_hidden=True, roles=ROLES).hits]}"
    except Exception as exc:  # noqa: BLE001 - hmc's answer, whatever it is
        return f"error: {exc}"


def _hermes_search(res: dict) -> str:
    if "unsupported" in res:
        return "n/a"
    return _raised(res) or f"hits {[h['id'] for h in res['hits']]}"


# ------------------------------------------------------------------------------ the run


def _error(message: str, **kw) -> Verdict:
    return Verdict("error", error=message, hmc_digest=hmc_digest(), checked_at=time.time(), **kw)


def probe_error(exc: probe.ProbeError) -> str:
    """A ProbeError for people: what the driver printed cut never inside a secret (core.scan.mask.
    clip), so that the masking where it is shown (or --reveal) sees every key whole."""
    from core.scan.mask import clip

    return exc.said(lambda text: clip(text, 120))


def doctor(home_root: Path | None, *, path: str | None = None, timeout: float = probe.TIMEOUT,
           progress: Callable[[str], None] | None = None, installed: probe.Installed | None = None,
           rules: str | None = None, should_stop: Callable[[], bool] | None = None) -> Verdict:
    """Check hmc against the Hermes installed for `home_root`, with the rules hmc follows for its
    version (or for `rules`, an explicit --hermes-version). Never raises for Hermes's sake: a Hermes
    that can't be found or run, or that answers something hmc can't read, is a Verdict with status
    "error". Raises probe.ProbeStopped when `should_stop()` turns true (nothing is left running,
    and the scratch folder is removed)."""
    say = progress or (lambda _text: None)
    started = time.monotonic()
    try:
        installed = installed or probe.find(home_root, path, read_small)
    except probe.ProbeError as exc:
        return _error(probe_error(exc))
    found = dict(version=installed.version, where=installed.where, how=installed.how,
                 python=str(installed.python))
    try:
        release, notice = for_version(parse_version(rules or installed.version))
    except VersionError as exc:
        return _error(str(exc), **found)
    scratch = probe.scratch_dir()
    stop = should_stop or (lambda: False)
    try:
        verdict = _run(installed, release, notice, scratch, timeout, say, found, stop)
    except probe.ProbeStopped:
        raise
    except probe.ProbeError as exc:
        verdict = _error(probe_error(exc), rules=release.name, notice=notice, **found)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    verdict.seconds = round(time.monotonic() - started, 2)
    return verdict


def _run(installed, release: Release, notice, scratch: Path, timeout: float, say, found: dict,
         stop: Callable[[], bool]) -> Verdict:
    all_cases = C.cases()
    homes = scratch / "homes"
    pairs = []
    requests: list[dict] = [{"op": "hello"}]
    session_home = homes / "sessions-hermes"
    session_home.mkdir(parents=True)
    for i, case in enumerate(all_cases):
        theirs = C.write_home(homes / f"{i:02d}-hermes", case)
        ours = C.write_home(homes / f"{i:02d}-hmc", case)
        pairs.append((case, theirs, ours))
        lim = list(case.limits)
        if case.area == "reading":
            requests.append({"op": "read", "home": str(theirs), "limits": lim})
        elif case.area == "drift":
            requests.append({"op": "drift", "home": str(theirs), "target": "memory", "limits": lim})
        elif case.area == "ops":
            entries = C.store(ours, case.call.get("target") or "memory", release, case.limits).read().entries
            call = C.in_release_verbs(case.call, release, entries)
            pairs[-1] = (case, theirs, ours, call)
            requests.append({"op": "apply", "home": str(theirs), "ops": [call], "limits": lim})
        elif case.area == "prompt":
            requests.append({"op": "prompt", "home": str(theirs), "limits": lim})
        elif case.area == "pending":
            entries = C.store(ours, "memory", release, case.limits).read().entries
            writes = [{**C.in_release_verbs(w, release, entries), "origin": "foreground"} for w in case.writes]
            requests.append({"op": "stage", "home": str(theirs), "writes": writes, "limits": lim})
        else:
            requests.append(None)  # sessions: one request for all queries, below
    story_home = homes / "timeline-hermes"
    requests.append({"op": "record", "home": str(story_home), "steps": C.story_steps()})
    queries = [q for case in all_cases for q in case.queries]
    requests.append({"op": "sessions", "home": str(session_home), "build": _build(C.CONVERSATIONS),
                     "search": [{"query": q} for q in queries]})
    sent = [r for r in requests if r is not None]
    say(f"asking Hermes {installed.version} ({len(sent)} requests)…")
    answers = iter(probe.run(installed, sent, scratch / "driver-1", timeout=timeout, should_stop=stop, cleanup=scratch))
    by_case = [next(answers) if r is not None else None for r in requests]
    hello, story_answer, search_answer, by_case = by_case[0], by_case[-2], by_case[-1], by_case[1:-2]
    if "error" in hello:
        raise probe.ProbeError("Hermes could not be loaded", shown=f"{hello.get('error')}: {hello.get('message')}",
                               quoted=False)

    # the second run: approve what the first staged (hmc gets a byte-identical copy first)
    approvals = []
    for pair, ans in zip(pairs, by_case):
        case, theirs, ours = pair[:3]
        if case.area == "pending" and ans is not None and "unsupported" not in ans and "error" not in ans:
            shutil.rmtree(ours)
            shutil.copytree(theirs, ours, symlinks=True)
            approvals.append((case, {"op": "pending", "home": str(theirs), "args": ["approve", "all"],
                                     "limits": list(case.limits)}))
    approved = {}
    if approvals:
        say("approving what Hermes staged…")
        got = probe.run(installed, [r for _c, r in approvals], scratch / "driver-2", timeout=timeout,
                        should_stop=stop, cleanup=scratch)
        approved = {id(c): a for (c, _r), a in zip(approvals, got)}

    say("comparing with hmc's rules…")
    verdict = Verdict("agree", rules=release.name, notice=notice, hermes_digest=hello.get("code_digest"),
                      reported=f"{hello.get('dist')} {hello.get('version')}" if hello.get("dist") else None,
                      hmc_digest=hmc_digest(), checked_at=time.time(), **found)
    verdict.areas = {a: {"agreed": 0, "run": 0, "skipped": 0} for a in C.AREAS}

    def record(case: C.Case, hermes: str | None, hmc: str) -> None:
        tally = verdict.areas[case.area]
        if hermes is None:
            tally["skipped"] += 1
            return
        tally["run"] += 1
        if hermes == hmc:
            tally["agreed"] += 1
        else:
            verdict.differences.append(Difference(case.area, case.name, *shorten(hermes, hmc)))

    db = _open_db(session_home, release)
    results = search_answer.get("search") or []
    search_results = iter(results if isinstance(results, list) else [])

    def compare(case: C.Case, pair: tuple, ans: dict) -> None:
        ours = pair[2]
        if case.area == "sessions":
            for q in case.queries:
                res = next(search_results, None)
                if res is None:
                    record(case, f"no answer ({search_answer.get('error') or search_answer.get('unsupported')})",
                           _hmc_search(db, q))
                else:
                    theirs_text = _hermes_search(res)
                    record(case, None if theirs_text == "n/a" else theirs_text, _hmc_search(db, q))
        elif "unsupported" in ans:
            record(case, None, "")
        elif "error" in ans:
            record(case, f"the driver couldn't ask ({ans.get('error')}: {ans.get('message')})", "an answer")
        elif case.area == "reading":
            record(case, _hermes_reading(ans, case), _hmc_reading(ours, case, release))
        elif case.area == "drift":
            record(case, _hermes_drift(ans, case), _hmc_drift(ours, case, release))
        elif case.area == "ops":
            record(case, _hermes_call(ans, case), _hmc_call(ours, case, release, pair[3]))
        elif case.area == "prompt":
            record(case, _hermes_prompt(ans, case), _hmc_prompt(ours, case, release))
        elif case.area == "pending":
            got = approved.get(id(case))
            if got is None or "unsupported" in got:
                record(case, None, "")
            elif "error" in got:
                record(case, f"the driver couldn't approve ({got.get('error')}: {got.get('message')})", "")
            else:
                record(case, _hermes_pending(got, case), _hmc_pending(ours, case, release, scratch))

    try:
        for pair, ans in zip(pairs, by_case):
            if stop():
                raise probe.ProbeStopped("the check was stopped")
            with unreadable(pair[0]):
                compare(pair[0], pair, ans)
    finally:
        if db is not None:
            db.close()
    with unreadable(C.Case("timeline", "recording sessions")):
        _compare_story(story_answer, story_home, homes / "timeline-hmc", release, scratch, record)
    if verdict.differences:
        verdict.status = "differ"
    return verdict


@contextmanager
def unreadable(case: C.Case):
    """Hermes's answer to `case` missing a key hmc reads, or holding the wrong type: the doctor's
    one-line "answered something hmc can't read", with the case named (never an unexpected error)."""
    try:
        yield
    except (KeyError, TypeError, AttributeError, ValueError, IndexError) as exc:
        what = f"no {exc.args[0]!r}" if isinstance(exc, KeyError) and exc.args else f"{type(exc).__name__}: {exc}"
        raise probe.ProbeError(f"Hermes answered something hmc can't read ({case.area}, {case.name})",
                               shown=what, quoted=False) from None


def _scratch_curator(home: Path, release: Release, scratch: Path):
    """A curator for a scratch home whose journal stays in the scratch folder (never hmc's state)."""
    from core.curator import Curator
    from core.home import resolve_home
    from core.store.journal import History

    history = History(home, folder=scratch / "journal" / home.name)
    return Curator(resolve_home(home), date.today(), history=history, hermes_version=release.name)


def _compare_story(answer: dict, theirs: Path, ours: Path, release: Release, scratch: Path, record) -> None:
    """Each moment of the history hmc rebuilds from the state.db Hermes recorded equals the files
    Hermes left then; and each entry's writer is the session whose call first left that text."""
    from core.hermes.memory import parse
    from core.timeline import build_timeline

    if "unsupported" in answer or "error" in answer:
        reason = answer.get("unsupported") or f"{answer.get('error')}: {answer.get('message')}"
        record(C.Case("timeline", "recording sessions"),
               None if "unsupported" in answer else f"the driver couldn't record ({reason})", "")
        return
    shutil.copytree(theirs, ours, symlinks=True)
    try:
        timeline = build_timeline(_scratch_curator(ours, release, scratch), cache=False)
        error = None
    except Exception as exc:  # noqa: BLE001 - hmc's answer to every check below
        timeline, error = None, f"error: {exc}"
    steps = C.story_steps()
    writer: dict = {"memory": {}, "user": {}}
    before = {"memory": (), "user": ()}
    for step, rec in zip(steps, answer["steps"]):
        if "call" not in step:
            continue
        files = {t: tuple(parse(rec["files"][t] or "")) for t in ("memory", "user")}
        for t in files:
            for entry in files[t]:
                if entry not in before[t]:
                    writer[t][entry] = step["session"]
        before = files
        case = C.Case("timeline", f"after {C.describe_call(step['call'])}")
        hermes = "; ".join(f"{t} {C.lits(files[t])}" for t in files)
        if timeline is None:
            record(case, hermes, error)
            continue
        got = timeline.state_at(step["ts"] + 1)
        record(case, hermes, "; ".join(f"{t} {C.lits(got.get(t, ()))}" for t in files))
    for t in ("memory", "user"):
        case = C.Case("timeline", f"who wrote each {t} entry")
        hermes = ", ".join(f"{C.lit(e)} by {writer[t].get(e)}" for e in before[t])
        if timeline is None:
            record(case, hermes, error)
            continue
        blame = timeline.blame(t)
        record(case, hermes, ", ".join(f"{C.lit(b.text)} by {b.origin.session_id if b.origin else None}"
                                       for b in blame))


def _open_db(home: Path, release: Release):
    from core.sessions.search import SessionDB

    if not (home / "state.db").is_file():
        return None
    try:
        return SessionDB(home / "state.db", release=release)
    except Exception:  # noqa: BLE001 - each search reports it
        return None
