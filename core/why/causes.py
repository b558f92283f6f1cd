"""The verdicts: one per cause, from a core.why.trace.Trace, most likely first.

Each cause says yes, no or unknown, with a sentence (`detail`), the rows, records, files and config
keys it rests on (`evidence`), and one thing to do (`action`). The order: the causes that answer
"yes" by how directly they explain a forgotten fact (memory off beats a refusal, a refusal beats a
promise never kept…), then the unknowns, then the noes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from core.home import tilde
from core.store.memory import FILE_NAMES
from core.plural import counted
from core.timefmt import local_time
from core.review.facts import Fact
from core.why.trace import Trace, trace

if TYPE_CHECKING:  # pragma: no cover
    from core.curator import Curator

# the causes, in the order a "yes" is most likely the answer
CAUSES = ("disabled", "not-loaded", "refused", "pending", "never-saved", "removed", "other-profile", "in-memory",
          "not-asked", "provider", "pruned")
VERDICTS = ("yes", "unknown", "no")


@dataclass(frozen=True)
class Cause:
    cause: str
    verdict: str  # yes | no | unknown
    detail: str
    evidence: tuple[dict, ...] = ()
    action: str | None = None

    def to_json(self) -> dict:
        return {"cause": self.cause, "verdict": self.verdict, "detail": self.detail,
                "evidence": list(self.evidence), "action": self.action}


@dataclass(frozen=True)
class Answer:
    fact: str
    profile: str
    causes: tuple[Cause, ...]
    problems: tuple[str, ...] = field(default=())

    @property
    def found(self) -> tuple[Cause, ...]:
        return tuple(c for c in self.causes if c.verdict == "yes")

    def to_json(self) -> dict:
        return {"fact": self.fact, "profile": self.profile, "causes": [c.to_json() for c in self.causes],
                "problems": list(self.problems)}


def why(curator: "Curator", text: str, *, other_profiles: bool = True) -> Answer:
    """Every cause's verdict for the fact `text` (raises core.review.facts.FactError on text that
    can't be a fact)."""
    fact = Fact(text)
    t = trace(curator, fact, other_profiles=other_profiles)
    causes = [check(t) for check in (_disabled, _not_loaded, _refused, _pending, _never_saved, _removed,
                                     _other_profile, _in_memory, _not_asked, _provider, _pruned)]
    order = {c: i for i, c in enumerate(CAUSES)}
    causes.sort(key=lambda c: (VERDICTS.index(c.verdict), order[c.cause]))
    return Answer(fact.text, t.profile, tuple(causes), tuple(t.problems))


def _when(ts) -> str:
    return (local_time(ts) or "?")[:16] if ts else "?"


def _n(count: int, word: str) -> str:
    return counted(count, word)


def _in_memory(t: Trace) -> Cause:
    if not t.entries:
        return Cause("in-memory", "no", f"No entry of MEMORY.md or USER.md in profile {t.profile} holds it.")
    where = ", ".join(f"{FILE_NAMES[f.target]} entry {f.index + 1}" for f in t.entries[:3])
    return Cause("in-memory", "yes", f"It is in memory now (profile {t.profile}: {where}): every session that "
                 "starts from now on loads it.", tuple(f.to_json() for f in t.entries),
                 "Nothing to add. If a chat still doesn't know it, start a new session there (/new).")


def _not_loaded(t: Trace) -> Cause:
    if not t.entries:
        return Cause("not-loaded", "no", "It isn't in memory now, so no snapshot could hold it.")
    if not t.missing_in:
        if not t.sessions_recorded:
            return Cause("not-loaded", "no", f"Profile {t.profile} has no state.db: no session is recorded.")
        if t.loaded_in:
            return Cause("not-loaded", "no", f"The recent and open sessions loaded it ({_n(t.loaded_in, 'session')}).")
        return Cause("not-loaded", "unknown", "No recent session's loaded memory could be read.")
    s = t.missing_in[0]
    resumed = " (it may have been resumed: a resumed session keeps its first prompt)" if s.open else ""
    where = s.where
    detail = (f"It is in memory, but {where} (session {s.id}, started {_when(s.started_at)}) loaded memory without "
              f"it{resumed}" + (f"; {_n(len(t.missing_in) - 1, 'other session')} too" if len(t.missing_in) > 1 else "")
              + ". A session reads memory once, when it starts.")
    action = (f"Send /new or /reset in that {s.source} chat" if s.chat else "Start a new session (/new), not a resumed one")
    return Cause("not-loaded", "yes", detail,
                 tuple({"kind": "session", "session_id": x.id, "source": x.source, "chat": x.chat,
                        "started": _when(x.started_at), "open": x.open} for x in t.missing_in[:10]),
                 action + ", so that it loads memory as it is now.")


def _pending(t: Trace) -> Cause:
    if not t.records:
        return Cause("pending", "no", "No staged record holds it.")
    record, text = t.records[0]
    if t.entries:
        return Cause("pending", "no", f"It is in memory already; record {record.id}, waiting for approval, holds it "
                     "too (approving it may add a near-copy).", _records(t))
    who = "Hermes's background review" if record.auto else "the agent"
    return Cause("pending", "yes", f"A write waiting for approval holds it: record {record.id}, staged "
                 f"{_when(record.created_at)} by {who}. Until someone approves it, it isn't in memory.",
                 _records(t), f"Approve it: `hmc pending approve {record.id}` (or key 2 in hmc).")


def _records(t: Trace) -> tuple[dict, ...]:
    return tuple({"kind": "record", "id": r.id, "file": str(r.path), "staged": _when(r.created_at),
                  "origin": r.origin or "agent", "text": x} for r, x in t.records)


def _refused(t: Trace) -> Cause:
    if not t.history:
        return Cause("refused", "unknown", "The history can't be read, so refused writes can't be checked.")
    if not t.refusals:
        return Cause("refused", "no", "No memory call for it was refused.")
    r = t.refusals[-1]
    if t.entries:
        return Cause("refused", "no", f"It is in memory now, though the tool refused a write of it once "
                     f"({_when(r.call.timestamp)}: {r.said.rstrip('.')}).", tuple({"kind": "refusal", **x.to_json()} for x in t.refusals[-5:]))
    actions = {
        "limit": "Make room (`hmc review` finds what to merge or drop), then add it: `hmc memory add`.",
        "consolidation-cap": "Make room (`hmc review`), then add it yourself: `hmc memory add`.",
        "blocked": "Write it without what the scan flags (a secret, an instruction to the agent), then add it.",
        "disabled": "Turn the store back on in config.yaml, then add it.",
        "no-match": "Add it as a new entry: `hmc memory add`.",
        "ambiguous": "Edit the entry you mean in hmc (key 1), or add it as a new entry.",
    }
    return Cause("refused", "yes", f"The agent tried to save it {_when(r.call.timestamp)} (session "
                 f"{r.call.session_id}, {r.call.action} on {FILE_NAMES[r.call.target]}) and the tool refused: "
                 f"{r.said}", tuple({"kind": "refusal", **r.to_json()} for r in t.refusals[-10:]),
                 actions.get(r.kind, "Add it yourself: `hmc memory add`."))


def _never_saved(t: Trace) -> Cause:
    if not t.sessions_recorded:
        return Cause("never-saved", "no", f"Profile {t.profile} has no state.db: no conversation is recorded.")
    if not t.sessions:
        return Cause("never-saved", "unknown", "state.db can't be searched, so promises can't be checked.")
    if not t.unsaved:
        return Cause("never-saved", "no", "No turn that asked to remember it, or claimed a save, went unsaved.")
    if t.entries or t.saves:
        return Cause("never-saved", "no", "A turn claimed or asked a save that didn't happen then, but it was "
                     "saved later (the background review, or another turn).",
                     tuple({"kind": "turn", **u.to_json()} for u in t.unsaved[:5]))
    u = t.unsaved[-1]
    if u.claim:
        said = f"the agent answered {u.claim!r}"
        happened = {"no-call": "and made no memory call", "refused": "but its memory call was refused",
                    "staged": f"but the write was only staged (record {u.detail})"}[u.outcome]
        detail = f"In session {u.session_id} ({u.source}, {_when(u.timestamp)}) {said} {happened}."
    else:
        detail = (f"In session {u.session_id} ({u.source}, {_when(u.timestamp)}) the user asked to remember it, "
                  "and no memory write followed.")
    return Cause("never-saved", "yes", detail, tuple({"kind": "turn", **x.to_json()} for x in t.unsaved[-10:]),
                 "Add it yourself: `hmc memory add` (or m on that message in search). Small models often say "
                 "they saved without calling the tool.")


def _removed(t: Trace) -> Cause:
    if not t.history:
        return Cause("removed", "unknown", "The history can't be read.")
    if not t.removals:
        return Cause("removed", "no", "No recorded write removed or replaced an entry holding it.")
    if t.entries:
        return Cause("removed", "no", "A write removed it once, but it is in memory again.",
                     tuple(_write(w, old, new) for w, old, new in t.removals[-5:]))
    w, old, new = t.removals[-1]
    what = "replaced it" if new else "removed it"
    by = {"agent": f"the agent (session {w.session_id})", "hmc": "hmc", "unknown": "a write no session recorded"}
    return Cause("removed", "yes", f"It was in {FILE_NAMES[w.target]} until {_when(w.timestamp)}, when "
                 f"{by.get(w.by, w.by)} {what} (write {w.id}).",
                 tuple(_write(w, o, n) for w, o, n in t.removals[-10:]),
                 f"`hmc rollback {w.id}` puts it back (a new write, checked like any other).")


def _write(w, old, new) -> dict:
    return {"kind": "write", "id": w.id, "time": _when(w.timestamp), "by": w.by, "source": w.source,
            "session_id": w.session_id, "target": w.target, "old": old, "new": new}


def _other_profile(t: Trace) -> Cause:
    stale = [f for f in t.other_entries if f.profile == "profiles/default"]
    others = [f for f in t.other_entries if f.profile != "profiles/default"]
    if stale:
        real = Path(stale[0].path).parents[3] / "memories"  # <home>/profiles/default/memories/X.md -> <home>/memories
        return Cause("other-profile", "yes", f"It is in {tilde(Path(stale[0].path))}, a stale profiles/default/ folder Hermes "
                     f"never reads: the default profile's memory is {tilde(real)}.",
                     tuple(f.to_json() for f in stale), "Add it to the real store (`hmc memory add`) and remove "
                     "the stale profiles/default/ folder, so it stops misleading.")
    if others:
        f = others[0]
        return Cause("other-profile", "yes", f"Profile {f.profile} holds it ({FILE_NAMES[f.target]} entry "
                     f"{f.index + 1}), not profile {t.profile}: each profile has its own memory.",
                     tuple(x.to_json() for x in others), f"Add it to profile {t.profile} too, or run Hermes with "
                     f"the profile that has it (`hermes -p {f.profile}`).")
    if t.other_messages:
        m = t.other_messages[0]
        return Cause("other-profile", "yes", f"It was said in profile {m.profile}'s sessions (session "
                     f"{m.session_id}, {_when(m.timestamp)}), not in profile {t.profile}.",
                     tuple(x.to_json() for x in t.other_messages[:10]),
                     f"Add it to profile {t.profile}'s memory if it belongs there.")
    return Cause("other-profile", "no", "No other profile's memory or sessions hold it.")


def _disabled(t: Trace) -> Cause:
    setup = t.setup
    if setup is None:
        return Cause("disabled", "unknown", "The config couldn't be read.")
    off = [target for target, on in setup.stores.items() if not on]
    if off:
        keys = ", ".join(f"memory.{'memory_enabled' if x == 'memory' else 'user_profile_enabled'}" for x in off)
        return Cause("disabled", "yes", f"Memory is off for {', '.join(FILE_NAMES[x] for x in off)} in config.yaml "
                     f"({keys}): the agent can't write it.", tuple({"kind": "config", "key": k.strip()}
                                                                    for k in keys.split(",")),
                     "Turn it back on in config.yaml (`hmc config` shows the file).")
    platforms = {m.source for m in t.messages} | {"cli"}
    tools = [a for p, a in setup.tools.items() if p in platforms and a.on is False]
    if tools and t.entries:
        return Cause("disabled", "no", f"The agent has no memory tool on {tools[0].platform} ({tools[0].why}), but "
                     "the fact is in the file, and the file is still loaded into every session.",
                     tuple({"kind": "config", "key": x.key, "platform": x.platform, "why": x.why} for x in tools))
    if tools:
        a = tools[0]
        return Cause("disabled", "yes", f"The agent has no memory tool on {a.platform}: {a.why}.",
                     tuple({"kind": "config", "key": x.key, "platform": x.platform, "why": x.why} for x in tools),
                     f"Give the memory tool back in config.yaml ({a.key}).")
    unknown = [a for p, a in setup.tools.items() if p in platforms and a.on is None]
    if unknown:
        return Cause("disabled", "unknown", f"Whether the agent had its memory tool on {unknown[0].platform} can't be "
                     f"told: {unknown[0].why}.", tuple({"kind": "config", "key": a.key} for a in unknown))
    return Cause("disabled", "no", "Memory is on for both stores, and the memory tool is on where it was said.")


def _provider(t: Trace) -> Cause:
    p = t.setup.provider if t.setup is not None else None
    if p is None or (p.name is None and not p.problem):
        return Cause("provider", "no", "No external memory provider is set (memory.provider).")
    evidence = ({"kind": "config", "key": "memory.provider", "value": p.name},)
    if p.problem:
        return Cause("provider", "yes", f"{p.problem}.", evidence, "Fix memory.provider in config.yaml.")
    if p.failed_install:
        return Cause("provider", "yes", f"memory.provider is {p.name}, but its automatic install failed "
                     f"({tilde(p.failed_install)}): external memory is off.", evidence + ({"kind": "file", "path":
                                                                                     str(p.failed_install)},),
                     f"Run `hermes plugins install {p.name}`.")
    where = "its plugin folder is there" if p.folder else "no plugins/ folder of that name (bundled, or missing)"
    detail = (f"memory.provider is {p.name} ({where}): an external memory plugin runs next to MEMORY.md and "
              "USER.md, with its own tools, and hmc can't see inside it.")
    if t.entries:
        return Cause("provider", "no", detail + " The fact is in the built-in memory anyway.", evidence)
    return Cause("provider", "yes", detail + " A fact the agent saved through it is not in MEMORY.md, and is "
                 "recalled only when the provider finds it.", evidence,
                 f"Ask the agent to search {p.name}'s memory, or add the fact to MEMORY.md to have it in every "
                 "session's prompt.")


def _pruned(t: Trace) -> Cause:
    p = t.pruning
    if p is None:
        return Cause("pruned", "unknown", "Hermes's session pruning couldn't be read.")
    cutoff = p.cutoff
    if cutoff is None:
        return Cause("pruned", "no", "Hermes has never pruned sessions here (sessions.auto_prune).")
    sentence = f"Hermes deleted sessions inactive for {p.retention_days} days (last run {_when(p.last_run)})"
    if t.messages or t.entries or t.records or t.refusals or t.removals or t.other_entries or t.other_messages:
        return Cause("pruned", "no", f"{sentence}, but it was found anyway.")
    return Cause("pruned", "yes", f"{sentence}: if it was said before {_when(cutoff)[:10]}, that conversation is "
                 "gone from state.db.", ({"kind": "config", "key": "sessions.retention_days", "value": p.retention_days},),
                 "Raise sessions.retention_days if old sessions matter to you; re-tell the agent the fact.")


def _not_asked(t: Trace) -> Cause:
    if not t.sessions_recorded:
        return Cause("not-asked", "no", f"Profile {t.profile} has no state.db: no conversation is recorded.")
    if not t.sessions:
        return Cause("not-asked", "unknown", "state.db can't be searched.")
    if not t.messages:
        return Cause("not-asked", "no", f"No message of profile {t.profile}'s sessions holds it.")
    tried = t.entries or t.records or t.refusals or t.removals or t.saves or t.unsaved
    if tried:
        return Cause("not-asked", "no", "A save of it was asked for or attempted (see the other causes).",
                     tuple(m.to_json() for m in t.messages[:3]))
    m = t.messages[0]
    return Cause("not-asked", "yes", f"It was only said in conversation ({_n(len(t.messages), 'message')}; first "
                 f"found in session {m.session_id}, {m.source}, {_when(m.timestamp)}): nobody asked the agent to "
                 "remember it, and it never tried.", tuple(m.to_json() for m in t.messages[:10]),
                 "Add it yourself (`hmc memory add`, or m on the message: `hmc search` finds it), or ask the "
                 "agent to remember it.")


def evidence_line(item: dict) -> str:
    """One evidence item on one line (an entry's, a message's or a record's text cut short)."""
    kind = item.get("kind")
    text = str(item.get("text") or item.get("content") or item.get("new") or item.get("old") or "")
    text = " ".join(text.split())
    from core.scan.mask import clip  # never cut inside a secret: the masking comes later

    short = clip(text, 89)
    if kind == "entry":
        return f"{item['profile']} · {item['target']} entry {item['index'] + 1}: {short}"
    if kind == "message":
        when = (item["time"] or "?")[:16].replace("T", " ")
        return f"session {item['session_id']} ({item['source']}, {when}) {item['role']}: {short}"
    if kind == "record":
        return f"record {item['id']} ({item['origin']}, staged {item['staged']}): {short}"
    if kind == "session":
        return f"session {item['session_id']} ({item['source']}{' · ' + item['chat'] if item['chat'] else ''}, " \
               f"started {item['started']}{', still open' if item['open'] else ''})"
    if kind == "refusal":
        return f"session {item['session_id']}: {item['action']} {item['target']} refused ({item['kind']}): {short}"
    if kind == "write":
        return f"write {item['id']} {item['time']} by {item['by']}: {short}"
    if kind == "turn":
        said = item.get("claim") or "(no claim)"
        return f"session {item['session_id']} ({item['source']}): asked {' '.join(item['request'].split())[:60]!r}, " \
               f"answered {said!r}, {item['outcome']}"
    if kind == "config":
        return f"config.yaml {item.get('key')}" + (f" = {item['value']}" if item.get("value") is not None else "")
    if kind == "file":
        return f"file {item.get('path')}"
    return short
