"""Moving or copying one entry to another profile's store (memory mode's `M`, `hmc memory move` and
`hmc memory copy`).

Both sides go through the store exactly as any write does (core.store.group: the lock, the re-read,
the release's checks, hmc's scan, the limit, the atomic replace, the journal). The two locks are
taken in one order (by path), so two hmc processes moving in opposite directions can't hold one
each. Under both locks:

- the entry must still be in the source, word for word (else: "changed meanwhile", nothing written);
- the target gets an add, refused as any add is (full, scanned, disabled, drifted);
- the target is written first, then the source loses the entry (a move). When the source's write
  fails, the target is put back as it was, still under its lock: no half-move is left. A target that
  already holds the entry word for word is left as it is (the move only removes it from the source;
  a copy is refused: there is nothing to copy).

The two journal records share a tag naming the move and both profiles, so `undo` from either
profile (undo_last) puts both files back, only if both still hold what hmc wrote.
"""

from __future__ import annotations

import secrets
from contextlib import ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.store.group import Group
from core.store.journal import Record, tagged
from core.store.memory import FILE_NAMES, Conflict, Op, StoreError, check_drift

if TYPE_CHECKING:  # pragma: no cover
    from core.curator import Curator

TAG = "profile-move:"  # + token:kind:from:to (profile names hold no ":"; core.profiles.discovery)


@dataclass(frozen=True)
class Transfer:
    kind: str  # move | copy
    target: str  # memory | user (the same store on both sides)
    entry: str
    source: str  # profile names
    destination: str
    added: bool  # False: the destination held the entry already
    usage_after: str  # the destination's usage label after the write
    findings: tuple = ()  # hmc's scan of the text (forced through: the person saw them)

    def to_json(self) -> dict:
        return {"kind": self.kind, "target": self.target, "entry": self.entry, "from": self.source,
                "to": self.destination, "added": self.added, "usage_after": self.usage_after}


def transfer(source: "Curator", destination: "Curator", target: str, entry: str, *, move: bool,
             force: bool = False) -> Transfer:
    """Copy `entry` (its exact text) from `source`'s `target` store to `destination`'s, and with
    `move` remove it from the source in the same operation. Raises Conflict when the entry changed,
    StoreError (ScanRefused: the scan flagged it and `force` is off) when either side refuses."""
    kind = "move" if move else "copy"
    if source.home.root == destination.home.root:
        raise StoreError(f"{source.home.profile} is the profile the entry is in; choose another one")
    here, there = source.stores[target], destination.stores[target]
    name = FILE_NAMES[target]
    if not there.enabled:
        raise StoreError(f"{name} is disabled in profile {destination.home.profile}'s config.yaml; nothing was written")
    stores = sorted([here, there], key=lambda s: str(s.lock_path))
    token = f"{TAG}{secrets.token_hex(6)}:{kind}:{source.home.profile}:{destination.home.profile}"
    with ExitStack() as stack:
        groups = {id(s): stack.enter_context(Group.held(s)) for s in stores}
        mine, theirs = groups[id(here)], groups[id(there)]
        if mine.error is not None or theirs.error is not None:
            error = mine.error or theirs.error
            raise type(error)(str(error))  # an Unwritable store stays one
        if entry not in mine.snap.entries:
            raise Conflict(f"the entry is no longer in profile {source.home.profile}'s {name} (it changed meanwhile); "
                           "nothing was written", mine.snap.raw or "", mine.snap.entries)
        added = entry not in theirs.snap.entries
        if not added and not move:
            raise StoreError(f"profile {destination.home.profile}'s {name} holds this entry already; nothing to copy")
        result = theirs.apply([Op("add", content=entry)], force=force) if added else None
        if move:
            mine.apply([Op("remove", old_text=entry, matched_entry=entry)])
        with tagged(token):
            if added:
                theirs.commit(f"{kind}-in", f"{kind} from profile {source.home.profile}")
            if move:
                try:
                    mine.commit("move-out", f"moved to profile {destination.home.profile}")
                except StoreError:
                    if added:  # the destination back as it was (its lock is still held), the add undone
                        written = there.history.undoable(target) if there.history else None
                        undoes = written.id if written is not None and written.tag == token else None
                        there._replace_locked(there.read(), theirs.start.raw or "", "undo",
                                              f"the move from profile {source.home.profile} failed", undoes)
                    raise
    return Transfer(kind, target, entry, source.home.profile, destination.home.profile, added,
                    result.label if result else there.figures().file_label, tuple(result.findings) if result else ())


def partner(record: Record) -> tuple[str, str, str] | None:
    """(kind, from, to) when `record` is one side of a move or copy between profiles."""
    tag = record.tag or ""
    if not tag.startswith(TAG):
        return None
    parts = tag[len(TAG):].split(":")
    return (parts[1], parts[2], parts[3]) if len(parts) == 4 else None


def undo_last(curator: "Curator") -> list[Record]:
    """Undo hmc's last memory write in this profile, as History.undo does; when it was one side of
    a move or copy between profiles, both sides, together, and only if both files still hold what
    hmc wrote (else Conflict, nothing written). A side whose profile or record is gone (or was
    undone already) is left out: undoing the rest loses nothing. Returns the records undone."""
    history = curator.history
    rec = history.undoable()
    if rec is None:
        raise StoreError(f"{history.problem}: nothing can be undone" if history.problem else "nothing to undo")
    pair = partner(rec)
    if pair is None:
        history.undo(curator.stores)
        return [rec]
    kind, source, destination = pair
    sides = [(curator, rec)]
    try:
        other = curator.switch_profile(destination if curator.home.profile == source else source)
    except Exception:  # noqa: BLE001 - the other profile is gone: this side alone (nothing of it is lost)
        other = None
    if other is not None and other.history is not None:
        records = other.history.records()
        undone = {r.undoes for r in records}
        theirs = next((r for r in reversed(records) if r.tag == rec.tag and r.undoes is None), None)
        if theirs is not None and theirs.id not in undone:
            sides.append((other, theirs))
    stores = sorted(((c.stores[r.target], r) for c, r in sides), key=lambda pair: str(pair[0].lock_path))
    with ExitStack() as stack:
        for store, _ in stores:
            stack.enter_context(store.locked())
        for store, r in stores:
            if check_drift(r.before, store.limit, store.release):
                raise StoreError(f"the text to restore in {store.name} is not in Hermes's form; undo refused")
            now = store.read().raw or ""
            if now != r.after:
                raise Conflict(f"{store.name} in profile {_profile_of(sides, r)} changed since hmc's {kind}; undo "
                               "refused so that change is not lost", r.after, store.read().entries)
        done = []
        for store, r in stores:
            try:
                store._replace_locked(store.read(), r.before, "undo", f"undo #{r.id} ({r.action})", r.id)
            except StoreError:
                for back, b in done:  # the other side back as hmc's move left it
                    back._replace_locked(back.read(), b.after, "undo rolled back", f"undo of #{b.id} failed")
                raise
            done.append((store, r))
    return [r for _, r in sides]


def _profile_of(sides, record: Record) -> str:
    return next(c.home.profile for c, r in sides if r is record)
