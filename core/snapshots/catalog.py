"""Every distinct memory snapshot the sessions of one state.db loaded, each kept once.

A snapshot is what one session loaded of both stores (core.snapshots.blocks.Loaded). A state.db of
100,000 sessions holds a few thousand distinct ones, and each shares most of its entries with the
one before. So the catalog keeps each entry's text once (`pool`) and each snapshot as the places of
its entries in the pool (`enc`); a snapshot is decoded into a Loaded only when it is asked for. That
form is also what core.snapshots.cache writes, as it is: a run that reads the cache decodes only
the snapshots it shows.

An encoded block is `(target, places, used, limit)`, its places packed as unsigned
32-bit integers (bytes: a cache of thousands of snapshots loads in a millisecond); an encoded
snapshot is `(memory block | None, user block | None)`. A snapshot's place in the catalog is its *slot*.
"""

from __future__ import annotations

from array import array
from operator import itemgetter

from core.hermes.memory import TARGETS
from core.snapshots.blocks import Block, Loaded


def places_of(enc_block: tuple) -> array:
    """An encoded block's places, unpacked."""
    out = array("I")
    out.frombytes(enc_block[1])
    return out


def _key(enc: tuple) -> tuple:
    """What two sessions that loaded the same memory share: each block's places and limit."""
    return tuple(None if b is None else (b[1], b[3]) for b in enc)


class Catalog:
    """The distinct snapshots, by slot, and 0.20+'s prompt hashes already parsed."""

    def __init__(self, pool: list[str] | None = None, enc: list[tuple] | None = None,
                 by_hash: dict[str, tuple[int, str | None]] | None = None) -> None:
        self.pool: list[str] = pool if pool is not None else []
        self.enc: list[tuple] = enc if enc is not None else []
        # a prompt hash: (its snapshot's slot, -1 for none; why it isn't known, or None)
        self.by_hash: dict[str, tuple[int, str | None]] = by_hash if by_hash is not None else {}
        self._places: dict[str, int] | None = None  # built when first needed
        self._by_key: dict[tuple, int] | None = None
        self._decoded: dict[int, Loaded] = {}
        self._by_id: dict[int, int] = {}  # id() of a decoded (kept, so the id stays its own) Loaded: its slot
        self._blocks: dict[Block, tuple] = {}  # blocks encoded in this run (the USER block rarely changes)

    def __len__(self) -> int:
        return len(self.enc)

    def places(self) -> dict[str, int]:
        """Each pooled entry's place."""
        if self._places is None:
            self._places = dict(zip(self.pool, range(len(self.pool))))
        return self._places

    def slot(self, loaded: Loaded | None) -> int:
        """The slot of a snapshot, added when new; -1 for None."""
        if loaded is None:
            return -1
        i = self._by_id.get(id(loaded))
        if i is not None:
            return i
        places = self.places()
        enc = (self._encode(loaded.memory, places), self._encode(loaded.user, places))
        if self._by_key is None:
            self._by_key = {_key(e): n for n, e in enumerate(self.enc)}
        key = _key(enc)
        i = self._by_key.get(key)
        if i is None:
            i = self._by_key[key] = len(self.enc)
            self.enc.append(enc)
            self._decoded[i] = loaded
            self._by_id[id(loaded)] = i
        return i

    def get(self, i: int) -> Loaded | None:
        """The snapshot in slot `i` (-1: None)."""
        if i < 0:
            return None
        got = self._decoded.get(i)
        if got is None:
            memory, user = self.enc[i]
            got = self._decoded[i] = Loaded(self._decode(memory), self._decode(user))
            self._by_id[id(got)] = i
        return got

    def canonical(self, loaded: Loaded | None) -> Loaded | None:
        """The one Loaded the catalog hands out for this snapshot."""
        return self.get(self.slot(loaded))

    def _encode(self, block: Block | None, places: dict[str, int]) -> tuple | None:
        if block is None:
            return None
        done = self._blocks.get(block)
        if done is not None:
            return done
        pool, out = self.pool, array("I")
        for entry in block.entries:
            at = places.get(entry)
            if at is None:
                at = places[entry] = len(pool)
                pool.append(entry)
            out.append(at)
        done = self._blocks[block] = (block.target, out.tobytes(), block.used, block.limit)
        return done

    def _decode(self, enc: tuple | None) -> Block | None:
        if enc is None:
            return None
        target, _, used, limit = enc
        if type(used) is not int or type(limit) is not int:
            raise ValueError("block")  # not what hmc writes (a place past the pool: IndexError)
        return Block(target, tuple(map(self.pool.__getitem__, places_of(enc))), used, limit)

    def check(self) -> None:
        """Raises ValueError unless every snapshot has the shape the catalog writes (one read from a
        cache file is checked before it is used; a place past the pool raises IndexError when that
        snapshot is decoded). The hashes are checked as the cache stores them (core.snapshots.cache)."""
        pool, enc = self.pool, self.enc
        if type(pool) is not list or set(map(type, pool)) - {str} or type(enc) is not list:
            raise ValueError("pool")
        # checked a column at a time, in C: a cache holds thousands of snapshots (a block's counts
        # are checked when it is decoded)
        if set(map(type, enc)) - {tuple} or set(map(len, enc)) - {2}:
            raise ValueError("snapshot")
        for target, side in zip(TARGETS, zip(*enc)):
            blocks = [b for b in side if b is not None]
            places = list(map(itemgetter(1), blocks)) if not set(map(type, blocks)) - {tuple} \
                and not set(map(len, blocks)) - {4} and not set(map(itemgetter(0), blocks)) - {target} else None
            if places is None or set(map(type, places)) - {bytes} or any(n % 4 for n in set(map(len, places))):
                raise ValueError("block")
