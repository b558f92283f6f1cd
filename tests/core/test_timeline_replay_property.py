"""The history's indexed replay (core.timeline.state) equals a plain reference replay on random call
sequences: adds (exact re-adds, blanks), replaces and removes by substring (ambiguous ones, misses),
0.22 patches, batches that fail half way, duplicates a replace makes, count mismatches, echoed
stores, hmc journal records and snapshots that reorder. Compared: every write's changes, notes,
entries before and after, the divergences and the blame; also after a cache round trip mid-way.

The reference is deliberately naive: lists of entries, the release's `locate` on every lookup, the
whole store copied per write. A failure prints the seed; HMC_SEED replays or explores other seeds."""

from __future__ import annotations

import marshal
import os
import random

import pytest

from core.hermes.memory import DELIMITER, Op, OpError, locate, parse, patch_entry
from core.hermes.release import KNOWN, NEWEST
from core.sessions.memory_calls import Call
from core.store.journal import Record
from core.timeline.history import _Replay, finish

BASE_SEED = int(os.environ.get("HMC_SEED", "20261202"))
OLD = next(r for r in KNOWN if r.name == "0.19.0")
WORDS = ["ab", "abc", "b c", "abc d", "cd", "d", "x y", "ab ab", "  ab ", "", "§", "c\x00d"]


class _L:
    def __init__(self, text):
        self.text, self.origin, self.first, self.revisions = text, None, None, 1


class Reference:
    """The replay's rules on plain lists (what the history did before it was indexed)."""

    def __init__(self, release):
        self.release = release
        self.lines = {"memory": [], "user": []}
        self.writes: list[dict] = []
        self.divs: list[tuple] = []
        self.outside = 0
        self.offset = {"memory": 0, "user": 0}

    def texts(self, t):
        return tuple(line.text for line in self.lines[t])

    def _write(self, wid, ts, by, t, action, before, changes, note=None):
        w = {"id": wid, "ts": ts, "by": by, "target": t, "action": action, "before": before,
             "after": self.texts(t), "changes": tuple(changes), "note": note}
        self.writes.append(w)
        return w

    def _morph(self, t, new):
        new = list(dict.fromkeys(new))
        old = self.lines[t]
        by_text = {line.text: line for line in old}
        out = [by_text.get(x) for x in new]
        kept = {id(line) for line in out if line is not None}
        gone = [line for line in old if id(line) not in kept]
        fresh = [i for i, line in enumerate(out) if line is None]
        changes, touched = [], []
        if len(gone) == 1 and len(fresh) == 1:
            line = gone[0]
            changes.append((line.text, new[fresh[0]]))
            line.text = new[fresh[0]]
            line.revisions += 1
            out[fresh[0]] = line
            touched.append(line)
        else:
            changes += [(line.text, None) for line in gone]
            for i in fresh:
                out[i] = _L(new[i])
                touched.append(out[i])
                changes.append((None, new[i]))
        self.lines[t] = out
        return touched, changes

    def observe(self, t, texts, ts, found_at):
        texts = tuple(dict.fromkeys(texts))
        self.offset[t] = 0
        if self.texts(t) == texts:
            return
        before = self.texts(t)
        touched, changes = self._morph(t, texts)
        self.outside += 1
        rows = {}  # one row per change (x3, x3.2, …), the first holding the store's whole change
        first = None
        for k, change in enumerate(changes or [None]):
            w = self._write(f"x{self.outside}" if k == 0 else f"x{self.outside}.{k + 1}", ts, "unknown", t,
                            "outside", before if k == 0 else self.texts(t), (change,) if change else (),
                            "changed outside the agent and hmc: no recorded call")
            first = first or w
            if change is not None and change[1] is not None:
                rows.setdefault(change[1], w)
        for line in touched:
            line.origin = None
            line.first = line.first or rows.get(line.text, first)
        for line in self.lines[t]:
            if any(line.text == a for _, a in changes):
                line.origin = None
        self.divs.append((t, found_at))

    def record(self, rec):
        wid = f"h{rec.id}"
        self.observe(rec.target, parse(rec.before), rec.ts, wid)
        before = self.texts(rec.target)
        touched, changes = self._morph(rec.target, parse(rec.after))
        w = self._write(wid, rec.ts, "hmc", rec.target, rec.action, before, changes)
        for line in touched:
            line.origin = w
            line.first = line.first or w
        for line in self.lines[rec.target]:
            if any(line.text == a for _, a in changes):
                line.origin = w

    def call(self, call, ts):
        t = call.target
        old = list(self.lines[t])
        saved = {id(line): (line.text, line.revisions) for line in old}
        before = self.texts(t)
        ops = ([Op(o.get("action", ""), content=o.get("content") or "", old_text=o.get("old_text") or "")
                for o in call.operations] if call.action == "batch"
               else [Op(call.action, content=call.content or "", old_text=call.old_text or "")])
        wid, note, lines, touched = f"m{call.result_id}", None, list(old), []
        try:
            for i, op in enumerate(ops):
                pos = f"Operation {i + 1} ({op.action or 'unknown'})" if call.action == "batch" else None
                lines = self._apply(lines, op, pos, touched)
        except OpError as exc:
            for line in old:
                line.text, line.revisions = saved[id(line)]
            lines, touched = None, []
            note = f"fails: {exc}"
            self.divs.append((t, wid))
        if lines is not None:
            count = len(lines)
            seen = {}
            for line in lines:
                seen.setdefault(line.text, line)
            self.lines[t] = list(seen.values())
            offset = call.entry_count - count if call.entry_count is not None else None
            if call.entries is None and offset is not None and offset != self.offset[t]:
                self.offset[t] = offset
                note = f"counted {call.entry_count}, replayed {count}"
                self.divs.append((t, wid))
        new = self.lines[t]
        new_ids, old_ids = {id(x) for x in new}, {id(x) for x in old}
        changes = [(saved[id(x)][0], None if id(x) not in new_ids else x.text) for x in old
                   if id(x) not in new_ids or x.text != saved[id(x)][0]]
        changes += [(None, x.text) for x in new if id(x) not in old_ids]
        w = self._write(wid, ts, "agent", t, call.action, before, changes, note)
        for line in new:
            if any(line is x for x in touched):
                line.origin = w
                line.first = line.first or w
        if call.entries is not None:
            self.observe(t, call.entries, ts, wid)

    def _apply(self, lines, op, pos, touched):
        texts = [line.text for line in lines]
        content = (op.content or "").strip()
        if op.action == "add":
            if not content:
                raise OpError("empty")
            if content in texts:
                return lines
            touched.append(_L(content))
            return [*lines, touched[-1]]
        if op.action == "replace" and not content:
            raise OpError("empty")
        i = locate(texts, op.old_text or "", None, self.release, op.action, pos)
        if op.action == "remove":
            return lines[:i] + lines[i + 1:]
        line = lines[i]
        new = content if op.action == "replace" else patch_entry(line.text, op.old_text or "", op.content or "",
                                                                  self.release, scan=False)
        if new != line.text or op.action == "patch":
            line.text = new
            line.revisions += 1
            touched.append(line)
        return lines

    def blame(self, t):
        return [(line.text, line.origin["id"] if line.origin and line.origin["by"] != "unknown" else None,
                 line.first["id"] if line.first else None, line.revisions) for line in self.lines[t]]


def _text(rng, live):
    if live and rng.random() < 0.6:
        entry = rng.choice(live)
        if rng.random() < 0.5 or len(entry) < 2:
            return entry
        a = rng.randrange(len(entry))
        return entry[a:rng.randrange(a + 1, len(entry) + 1)]
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 2)))


def events(seed: int, n: int = 120):
    """Random calls (and a few journal records and snapshots), time-ordered with some equal times."""
    rng = random.Random(seed)
    out, live, ts, rid = [], {"memory": [], "user": []}, 1_790_000_000.0, 0
    for i in range(n):
        ts += rng.choice((0, 1, 1, 2))
        t = rng.choice(("memory", "memory", "user"))
        kind = rng.random()
        if kind < 0.08:
            rid += 1
            before = DELIMITER.join(live[t] if rng.random() < 0.8 else rng.sample(live[t], len(live[t])))
            after = list(live[t])
            rng.shuffle(after) if rng.random() < 0.3 else None
            if after and rng.random() < 0.5:
                after[rng.randrange(len(after))] = _text(rng, live[t]) or "z"
            after.append(_text(rng, []) or "w")
            out.append(("rec", ts, Record(rid, ts, t, "/x", "edit", "d", before, DELIMITER.join(after))))
            live[t] = parse(DELIMITER.join(after))
            continue
        if kind < 0.12:
            snap = list(live[t])
            rng.shuffle(snap)
            if snap and rng.random() < 0.5:
                snap.pop()
            out.append(("snap", ts, (t, DELIMITER.join(snap))))
            continue
        ops = []
        for _ in range(rng.randint(2, 4) if kind > 0.85 else 1):
            action = rng.choice(("add", "add", "add", "replace", "replace", "remove", "patch"))
            op = {"action": action}
            if action != "remove":
                op["content"] = _text(rng, live[t] if rng.random() < 0.3 else [])
            if action != "add":
                op["old_text"] = _text(rng, live[t])
            ops.append(op)
        entries = None
        if rng.random() < 0.1:
            entries = tuple(rng.sample(live[t], len(live[t])))
        count = rng.choice((None, len(live[t]), len(live[t]) + 1)) if rng.random() < 0.5 else None
        if len(ops) > 1:
            call = Call(i, 10_000 + i, "s", ts, f"c{i}", t, "batch", operations=tuple(ops), entries=entries,
                        entry_count=count)
        else:
            op = ops[0]
            call = Call(i, 10_000 + i, "s", ts if rng.random() > 0.05 else None, f"c{i}", t, op["action"],
                        op.get("content"), op.get("old_text"), entries=entries, entry_count=count)
        out.append(("call", ts, call))
        # what the store holds now, roughly (the generator only needs plausible texts)
        for op in ops:
            c = (op.get("content") or "").strip()
            if op["action"] == "add" and c and c not in live[t]:
                live[t].append(c)
            elif op["action"] != "add":
                hit = [e for e in live[t] if (op.get("old_text") or "").strip() and op["old_text"].strip() in e]
                if len(set(hit)) == 1:
                    k = live[t].index(hit[0])
                    if op["action"] == "remove":
                        live[t].pop(k)
                    elif c:
                        live[t][k] = c
                live[t] = list(dict.fromkeys(live[t]))
        if entries is not None:
            live[t] = list(dict.fromkeys(entries))
    return out


def _split(evts):
    calls = [e[2] for e in evts if e[0] == "call"]
    records = [e[2] for e in evts if e[0] == "rec"]
    snaps: dict = {"memory": [], "user": []}
    for kind, ts, item in evts:
        if kind == "snap":
            snaps[item[0]].append((ts + 0.5, item[1]))
    return calls, records, snaps


def reference(evts, release, current):
    ref = Reference(release)
    calls, records, snaps = _split(evts)
    merged = []
    last = 0.0
    for c in calls:
        last = c.timestamp if c.timestamp is not None else last
        merged.append((last, 1, c))
    merged += [(r.ts, 2, r) for r in records]
    merged += sorted(((ts, 0, (t, ts, text)) for t, items in snaps.items() for ts, text in items),
                     key=lambda e: e[0])
    import heapq
    ordered = heapq.merge([m for m in merged if m[1] == 1], [m for m in merged if m[1] == 2],
                          [m for m in merged if m[1] == 0], key=lambda e: e[0])
    for ts, kind, item in ordered:
        if kind == 1:
            ref.call(item, ts)
        elif kind == 2:
            ref.record(item)
        else:
            ref.observe(item[0], parse(item[2]), item[1], None)
    final_ts = max([m[0] for m in merged], default=0.0)
    for t in ("memory", "user"):
        ref.observe(t, current[t], final_ts, None)
    return ref


def compare(seed, release, replay, ref, current):
    blame = finish(replay.builder, current, replay.last_ts)
    writes = list(replay.builder.writes)
    got = [(w.id, w.by, w.target, w.action, w.changes, w.before, w.after) for w in writes]
    want = [(w["id"], w["by"], w["target"], w["action"], w["changes"], w["before"], w["after"]) for w in ref.writes]
    assert got == want, f"seed {seed} ({release.name}): writes differ"
    assert [bool(w.note) for w in writes] == [bool(w["note"]) for w in ref.writes], f"seed {seed}: notes differ"
    assert [(d.target, d.write_id) for d in replay.builder.divergences] == ref.divs, f"seed {seed}: divergences"
    for t in ("memory", "user"):
        mine = [(b.text, b.origin.id if b.origin else None, b.first_seen.id if b.first_seen else None, b.revisions)
                for b in blame[t]]
        assert mine == ref.blame(t), f"seed {seed} ({release.name}): blame of {t} differs"


@pytest.mark.parametrize("release", [NEWEST, OLD], ids=lambda r: r.name)
@pytest.mark.parametrize("n", range(40))
def test_indexed_replay_equals_the_reference(release, n):
    seed = BASE_SEED + n
    evts = events(seed)
    calls, records, snaps = _split(evts)
    rng = random.Random(seed ^ 0xBEEF)
    current = {"memory": tuple(_text(rng, ["ab", "abc d"]) or "q" for _ in range(3)), "user": ()}
    ref = reference(evts, release, current)
    replay = _Replay(release)
    replay.feed(calls, records, snaps, {})
    compare(seed, release, replay, ref, current)


@pytest.mark.parametrize("n", range(15))
def test_a_replay_saved_mid_way_and_continued_equals_the_reference(n):
    seed = BASE_SEED + 1000 + n
    evts = [e for e in events(seed) if e[0] == "call"]  # a cache resumes calls in order
    calls, records, snaps = _split(evts)
    cut = len(calls) // 2
    current = {"memory": ("ab",), "user": ()}
    ref = reference(evts, NEWEST, current)
    first = _Replay(NEWEST)
    first.feed(calls[:cut], [], {"memory": [], "user": []}, {})
    second = _Replay.load(marshal.loads(marshal.dumps(first.dump())), NEWEST)
    second.feed(calls[cut:], [], {"memory": [], "user": []}, {})
    compare(seed, NEWEST, second, ref, current)


@pytest.mark.parametrize("freeze_after", [64, 0], ids=["freeze late", "freeze early"])
@pytest.mark.parametrize("release", [NEWEST, OLD], ids=lambda r: r.name)
@pytest.mark.parametrize("n", range(30))
def test_the_calls_only_replay_equals_the_reference(release, n, freeze_after, monkeypatch):
    """The agent's calls alone take the calls-only loop, where plain adds add to the entries'
    columns, any other write makes them lines first, and a run of plain adds as long as the store
    makes the lines columns again (early: whenever the adds outnumber the lines)."""
    from core.timeline import state

    monkeypatch.setattr(state, "FREEZE_AFTER", freeze_after)
    seed = BASE_SEED + 2000 + n
    evts = [e for e in events(seed) if e[0] == "call"]
    calls, records, snaps = _split(evts)
    current = {"memory": ("ab",), "user": ()}
    ref = reference(evts, release, current)
    replay = _Replay(release)
    replay.feed(calls, [], {"memory": [], "user": []}, {})
    compare(seed, release, replay, ref, current)
