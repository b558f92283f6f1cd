"""The agent's memory writes as state.db recorded them, read strictly read-only.

How the releases record a memory tool call (measured on 0.13.0 … 0.19.0, hermes_state.SessionDB and
the agent's message flush):
- an `assistant` row whose `tool_calls` column is a JSON list; each call is OpenAI-shaped
  (`{"id", "type": "function", "function": {"name": "memory", "arguments": "<JSON text>"}}`) or,
  from some code paths, flat (`{"name": "memory", "arguments": …}`, sometimes without an id);
- then one `tool` row per call, `tool_call_id` = the call's id, `tool_name` `memory` (NULL from
  some older paths), `content` = the tool's JSON result: `{"success": true, …}` when the write
  landed, `{"success": true, "staged": true, "pending_id": …}` when write approval only staged it,
  `{"success": false, "error": …}` when it was refused. Releases before 0.17 also echo the whole
  store (`"entries"`) in a success result; newer ones give `entry_count` only.

Only succeeded, not-merely-staged calls are writes. A refused call is kept aside with the release's
reason (`Harvest.refused`, the newest MAX_REFUSED): "I told it and it forgot" is most often a write the
tool said no to. A staged call is kept aside (`Harvest.staged`,
with its record's `pending_id`): when the record is approved, in hmc or in Hermes, that call is who
proposed the write (core.timeline.attribution). Rows that can't be read as a memory call
(malformed or oversized arguments, a tool merely named like `memory`) are skipped and counted,
never fatal.

The indexed route: the FTS index covers `tool_name` and `tool_calls` since schema 11, so the rows
mentioning `memory` come from it (a column filter where the index has those columns); a database
without a usable index is scanned, and so is one whose messages are mostly memory rows (the index
sampled first: fetching each row by id then costs more than reading the table). New messages
since a cached run are read by id range (the primary key). In WAL mode the rows are paired as
SQLite reads them. tests/bench/bench_timeline.py measures the routes, bench_scale.py the dense case.
"""

from __future__ import annotations

import json
import operator
import re
import sqlite3
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, Callable, Iterable, NamedTuple

import orjson

from core.sessions.db import Schema, as_epoch
from core.store.atomic import read_regular

TOOL = "memory"
MAX_ARGUMENT_CHARS = 262_144  # ~100× the largest store limit: a call this big is not a real write
MAX_RESULT_CHARS = 1_048_576
MAX_TOOL_CALLS_CHARS = 4 * MAX_RESULT_CHARS  # a turn's calls together; beyond it, not read at all
TARGETS = ("memory", "user")
MAX_CACHED_CALLS_BYTES = 1 << 30  # the timeline cache's calls file
MAX_REFUSED = 5_000  # refused calls kept (the newest): a model stuck in a loop of refusals can't grow the cache
MAX_REFUSAL_CHARS = 2_000  # of a refusal's reason (the releases' are a few hundred characters)

STAGED_ID = re.compile(r"[0-9a-f]{8}")  # a pending record's id, as Hermes names them (HERMES-FORMATS.md §4)
_COLUMNS = "id, session_id, role, tool_call_id, tool_calls, tool_name, content, timestamp"
# what harvest_rows reads of each row: an assistant row's tool_calls (never NULL: the queries ask for
# them), a tool row's content and time (an assistant's text, often long, stays in SQLite); the role
# itself isn't read, as tool_calls tells it (a column less: 9% of reading the rows)
_ROW_COLUMNS = ("id, session_id, tool_call_id, CASE WHEN role = 'assistant' THEN tool_calls END, tool_name, "
                "CASE WHEN role = 'tool' THEN content END, CASE WHEN role = 'tool' THEN timestamp END")
# The rows a memory call or its result can be in (the LIKE is only a cheap pre-filter: the JSON decides).
_WANTED = ("((role = 'assistant' AND tool_calls IS NOT NULL AND instr(tool_calls, 'memory') > 0) "
           "OR (role = 'tool' AND (tool_name = 'memory' OR tool_name IS NULL)))")
_WANTED_CALLS_AND_NAMED = ("((role = 'assistant' AND tool_calls IS NOT NULL AND instr(tool_calls, 'memory') > 0) "
                           "OR (role = 'tool' AND tool_name = 'memory'))")


class Call(NamedTuple):
    """One memory tool call that really wrote (succeeded, not staged). A named tuple: tens of
    thousands are made per history build, and the cache's calls file is their JSON arrays as they are."""

    message_id: int  # the assistant message holding the call
    result_id: int  # the tool message holding its result
    session_id: str
    timestamp: float | None  # when the result was recorded
    call_id: str
    target: str
    action: str  # add | replace | remove | patch (0.22) | batch
    content: str | None = None
    old_text: str | None = None
    operations: tuple[dict, ...] | None = None  # a batch: [{action, content?, old_text?}]
    entries: tuple[str, ...] | None = None  # the store after the call, when the release echoes it
    entry_count: int | None = None

    def to_json(self) -> dict:
        return {"message_id": self.message_id, "result_id": self.result_id, "session_id": self.session_id,
                "timestamp": self.timestamp, "call_id": self.call_id, "target": self.target, "action": self.action,
                "content": self.content, "old_text": self.old_text,
                "operations": list(self.operations) if self.operations is not None else None,
                "entries": list(self.entries) if self.entries is not None else None, "entry_count": self.entry_count}

    @classmethod
    def from_cache(cls, d: list) -> "Call":
        """From the cache's calls file (a call's fields as a JSON array, in order), whose digest
        checked out: only the shape is checked."""
        if type(d) is not list or len(d) != CALL_FIELDS or d[5] not in TARGETS or d[6] not in ACTIONS:
            raise ValueError("call")
        ops, entries = d[9], d[10]
        if ops is not None:
            d[9] = tuple(ops)
        if entries is not None:
            d[10] = tuple(entries)
        return cls._make(d)

    @classmethod
    def from_json(cls, data: dict) -> "Call":
        """Raises ValueError/TypeError/KeyError on anything not written by to_json."""
        ops = data["operations"]
        entries = data["entries"]
        call = cls(
            message_id=_int(data["message_id"]), result_id=_int(data["result_id"]),
            session_id=_str(data["session_id"]), timestamp=_opt_float(data["timestamp"]),
            call_id=_str(data["call_id"]), target=_choice(data["target"], TARGETS),
            action=_choice(data["action"], ACTIONS),
            content=_opt_str(data["content"]), old_text=_opt_str(data["old_text"]),
            operations=tuple(_op_dict(o) for o in _list(ops)) if ops is not None else None,
            entries=tuple(_str(e) for e in _list(entries)) if entries is not None else None,
            entry_count=_opt_int(data["entry_count"]),
        )
        return call


ACTIONS = ("add", "replace", "remove", "patch", "batch")
CALL_FIELDS = len(Call._fields)


class Open(NamedTuple):
    """A memory call whose result row hasn't been read yet (it comes in a later message)."""

    message_id: int
    session_id: str
    call_id: str  # "" when the call carried no id: paired with the session's next memory result
    arguments: dict

    def to_json(self) -> dict:
        return self._asdict()

    @classmethod
    def from_json(cls, data: dict) -> "Open":
        args = data["arguments"]
        if not isinstance(args, dict):
            raise TypeError("arguments")
        return cls(_int(data["message_id"]), _str(data["session_id"]), _str(data["call_id"]), args)


@dataclass
class Harvest:
    """What reading the rows found: the writes, the calls still waiting for a result, and counts.

    A harvest from the cache leaves its calls in the cache's calls file (`cached`: its path and the
    digest it must have; `n_cached` calls) until `all_calls()` needs them: an update that only
    appends to the replay never reads them. `calls` then holds only the calls read in this run.
    A cache that didn't keep its calls (`cached` is (None, None)) can't give them: `all_calls()`
    raises ValueError, and the caller reads state.db again from the start."""

    calls: list[Call] = field(default_factory=list)
    cached: tuple | None = None
    n_cached: int = 0
    open: list[Open] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> rows/calls skipped
    ignored: dict[str, int] = field(default_factory=dict)  # failed / staged calls (not writes)
    last_id: int = 0
    sources: dict[str, str] = field(default_factory=dict)  # session id -> its source (cli, telegram…)
    # the calls write approval only staged: (the pending record's id, the call), oldest first
    staged: list[tuple[str, Call]] = field(default_factory=list)
    # the calls the tool refused, oldest first: (the call as it was asked, the release's reason)
    refused: list[tuple[Call, str]] = field(default_factory=list)
    # the rows all this came from, as the cache checks them (core.timeline.rowprints.RowPrints)
    prints: Any = None

    @property
    def total(self) -> int:
        return len(self.calls) + (self.n_cached if self.cached is not None else 0)

    def all_calls(self) -> list[Call]:
        """Every call, oldest first (parses the cached ones; raises ValueError/TypeError/KeyError on
        a cache that doesn't hold calls)."""
        if self.cached is not None:
            import hashlib

            path, digest = self.cached
            if path is None or not digest:
                raise ValueError("the cache didn't keep its calls")
            try:
                body = read_regular(path, MAX_CACHED_CALLS_BYTES)
            except OSError as exc:  # a FIFO, folder or oversized file in its place: not the calls
                raise ValueError(f"cached calls: {exc}") from None
            if hashlib.sha256(body).hexdigest() != digest:
                raise ValueError("cached calls changed")
            raw = json.loads(body)
            if not isinstance(raw, list) or len(raw) != self.n_cached:
                raise ValueError("cached calls")
            self.calls = [Call.from_cache(c) for c in raw] + self.calls
            self.cached = None
        return self.calls

    def skip(self, reason: str, n: int = 1) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + n

    def ignore(self, reason: str) -> None:
        self.ignored[reason] = self.ignored.get(reason, 0) + 1

    def refuse(self, call: Call, reason: str) -> None:
        self.refused.append((call, reason))
        if len(self.refused) > 2 * MAX_REFUSED:  # trimmed now and then, not on every call
            del self.refused[:-MAX_REFUSED]


class _Uncounted:
    """A harvest's skip() that counts nothing: a refused call's arguments are read for what it
    asked, and one that can't be read was never going to be a write (its refusal is counted)."""

    @staticmethod
    def skip(reason: str, n: int = 1) -> None:
        pass


# -- validation helpers (cache and rows alike) -----------------------------------------------------

def _int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError("int")
    return v


def _opt_int(v: Any) -> int | None:
    return None if v is None else _int(v)


def _str(v: Any) -> str:
    if not isinstance(v, str):
        raise TypeError("str")
    return v


def _opt_str(v: Any) -> str | None:
    return None if v is None else _str(v)


def _opt_float(v: Any) -> float | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError("float")
    return float(v)


def _list(v: Any) -> list:
    if not isinstance(v, list):
        raise TypeError("list")
    return v


def _choice(v: Any, allowed: tuple[str, ...]) -> str:
    if v not in allowed:
        raise ValueError(f"not one of {allowed}")
    return v


def _op_dict(v: Any) -> dict:
    if not isinstance(v, dict):
        raise TypeError("operation")
    out = {"action": _str(v.get("action", ""))}
    for key in ("content", "old_text"):
        if v.get(key) is not None:
            out[key] = _str(v[key])
    if not out.get("content") and v.get("new_text") is not None:
        out["content"] = _str(v["new_text"])  # 0.20+'s alias; a call that wrote used it as content
    return out


# -- parsing one row ---------------------------------------------------------------------------------

_scan_once = json.JSONDecoder().scan_once

# The common row's three texts are read with orjson (2-3x the standard library's speed on these
# short texts), where its answer is the one json.loads gives:
# - it refuses what only json.loads takes (NaN, Infinity, 1e400, lone surrogates): those rows are
#   read again with json, so they read as before;
# - a text this short nests at most 500 deep, far inside both parsers' limits (json.loads's depends
#   on the caller's stack; orjson's is 1024);
# - the one value it reads otherwise: an integer past 64 bits comes back as a float. Only a call's
#   id and a result's entry_count are read as numbers (every other field must be a string, a list
#   or a dict, and a float fails those checks as the int did), so a row where either isn't a
#   string or an int is read again with json. tests/core/test_memory_calls_fast_json.py holds the
#   two readings side by side.
FAST_JSON_CHARS = 1_000
_fast_loads = orjson.loads


def _loads(text: str) -> Any:
    """json.loads, with the C scanner called directly for text that is one value and nothing else
    (every row hmc reads): json.loads's own wrapper costs twice its parse on short texts. Anything
    else (whitespace around the value, data after it, no value) goes through json.loads, so the
    results and the errors are json.loads's."""
    try:
        obj, end = _scan_once(text, 0)
    except StopIteration:
        return json.loads(text)
    return obj if end == len(text) else json.loads(text)


def memory_calls(tool_calls: Any, harvest: Harvest) -> list[tuple[str, Any]]:
    """(call id, arguments) of each memory call in an assistant row's `tool_calls`; a row that isn't
    a JSON list, or a call named like the tool but not it, is counted and skipped."""
    if not isinstance(tool_calls, str):
        return []
    if len(tool_calls) > MAX_TOOL_CALLS_CHARS:
        harvest.skip("oversized tool_calls")
        return []
    try:
        calls = _loads(tool_calls)
    except (ValueError, RecursionError):
        harvest.skip("tool_calls that aren't JSON")
        return []
    return calls_in(calls, harvest)


def calls_in(calls: Any, harvest: Harvest) -> list[tuple[str, Any]]:
    """memory_calls's answer for `tool_calls` already parsed."""
    if not isinstance(calls, list):
        harvest.skip("tool_calls that aren't a list")
        return []
    out = []
    for call in calls:
        if type(call) is not dict:  # json gives plain dicts
            continue
        fn = call.get("function")
        if type(fn) is not dict:
            fn = call
        name = fn.get("name")
        if name != TOOL:
            if isinstance(name, str) and TOOL in name.lower():
                harvest.skip("other tools named like memory")
            continue
        cid = call.get("id") or call.get("call_id") or call.get("tool_call_id") or ""
        out.append((cid if isinstance(cid, str) else str(cid), fn.get("arguments")))
    return out


def parse_arguments(raw: Any, harvest: Harvest) -> dict | None:
    """The call's arguments as a dict, or None (counted) when they can't be a memory write."""
    short = False
    if isinstance(raw, str):
        if len(raw) > MAX_ARGUMENT_CHARS:
            harvest.skip("oversized arguments")
            return None
        # JSON text re-encoded grows by less than 8x (a space after ':' and ',', a float such as
        # 1e15 spelled out: 4.5x; escapes only shrink): a short text needn't be encoded to be measured
        short = 8 * len(raw) <= MAX_ARGUMENT_CHARS
        try:
            raw = _loads(raw)
        except (ValueError, RecursionError):
            harvest.skip("malformed arguments")
            return None
    if not isinstance(raw, dict):
        harvest.skip("malformed arguments")
        return None
    if not short and len(json.dumps(raw, ensure_ascii=False, default=str)) > MAX_ARGUMENT_CHARS:
        harvest.skip("oversized arguments")
        return None
    return raw


def parse_result(content: Any) -> dict | None:
    if not isinstance(content, str) or len(content) > MAX_RESULT_CHARS:
        return None
    text = content.strip()
    try:
        obj = _loads(text)
    except (ValueError, RecursionError):
        start, end = text.find("{"), text.rfind("}")  # a result wrapped in a notice
        if start < 0 or end <= start:
            return None
        try:
            obj = json.loads(text[start:end + 1])
        except (ValueError, RecursionError):
            return None
    return obj if isinstance(obj, dict) else None


def make_call(pending: Open, result_row: tuple, result: dict | None, harvest: Harvest) -> Call | None:
    """The write a call made, given its result; None (counted) when it didn't write."""
    if result is None:
        harvest.ignore("result unreadable")
        return None
    return _made(pending, result_row[0], result_row[7], result, harvest)


def _made(pending: Open, rid: Any, ts: Any, result: dict, harvest: Harvest) -> Call | None:
    """make_call with the result read (a dict) and its row's id and time."""
    get = result.get
    if get("success") is not True:
        harvest.ignore("failed")
        call = _parse_call(pending, rid, ts, get, _Uncounted)
        if call is not None:
            reason = get("error")
            if type(reason) is not str:
                reason = get("message") if type(get("message")) is str else ""
            harvest.refuse(call, reason[:MAX_REFUSAL_CHARS])
        return None
    if get("staged"):
        harvest.ignore("staged for approval")
        pid = get("pending_id")
        if type(pid) is str and STAGED_ID.fullmatch(pid):
            call = _parse_call(pending, rid, ts, get, harvest)
            if call is not None:  # the staging call: what an approval of `pid` writes, and who proposed it
                harvest.staged.append((pid, call))
        return None
    return _parse_call(pending, rid, ts, get, harvest)


def _parse_call(pending: Open, rid: Any, ts: Any, get: Callable, harvest: Harvest) -> Call | None:
    """The call's fields, checked; None (counted) when its arguments can't be a memory write."""
    message_id, session_id, call_id, args = pending
    aget = args.get
    target = aget("target")
    if target is None:
        target = "memory"
    # the names as hmc's own strings, one each, not a copy per call (tens of thousands are kept)
    target = _TARGET_NAMES.get(target) if type(target) is str else None
    if target is None:
        harvest.skip("malformed arguments")
        return None
    ops = aget("operations")
    try:
        entries = get("entries")
        if entries is not None:
            entries = tuple(_str(e) for e in entries) if isinstance(entries, list) else None
        count = get("entry_count")
        if count is not None and (type(count) is not int and (not isinstance(count, int) or isinstance(count, bool))):
            count = None
        if type(ts) is not float or not -1e11 <= ts <= 1e11:  # Hermes's REAL seconds are taken as they are
            ts = as_epoch(ts)
        if ops:
            operations = tuple(_op_dict(o) for o in _list(ops))
            return _new_call(Call, (message_id, rid, session_id, ts, call_id, target, "batch", None, None, operations,
                                    entries, count))
        action = aget("action")
        action = _SINGLE_NAMES.get(action) if type(action) is str else None
        if action is None:
            harvest.skip("malformed arguments")
            return None
        # 0.20+ take `new_text` for a missing content; 0.19 refused the keyword, so a call that
        # wrote with it was one of theirs
        content = aget("content")
        if content is not None and type(content) is not str:
            raise TypeError("str")
        if not content:
            content = _opt_str(aget("new_text"))
        old_text = aget("old_text")
        if old_text is not None and not isinstance(old_text, str):
            raise TypeError("str")
        return _new_call(Call, (message_id, rid, session_id, ts, call_id, target, action, content, old_text, None,
                                entries, count))
    except (TypeError, ValueError):
        harvest.skip("malformed arguments")
        return None


_SESSION_OF = operator.attrgetter("session_id")
_new_call = tuple.__new__  # a named tuple made from its fields' tuple, without the Python-level __new__


_SINGLE = ("add", "replace", "remove", "patch")
_SINGLE_NAMES = {name: name for name in _SINGLE}
_TARGET_NAMES = {name: name for name in TARGETS}


# -- reading rows ------------------------------------------------------------------------------------

def route_for(schema: Schema) -> str:
    """`fts-columns` (the index has tool_name/tool_calls columns), `fts` (one column holding them),
    or `scan` (no usable index)."""
    if schema.fts == "current" and {"tool_name", "tool_calls"} <= set(schema.fts_columns):
        return "fts-columns"
    if schema.fts in ("inline", "current") and "tool_calls" in schema.message_columns:
        return "fts"
    return "scan"


DENSE_SHARE = 0.75  # of the messages (by id) in the index's answer: a plain scan is cheaper
DENSE_SAMPLES, DENSE_WINDOW = 8, 512  # the windows of message ids where the index is asked (spread evenly)


def _scan_when_dense(conn: sqlite3.Connection, route: str, upto: int) -> str:
    """`scan` instead of an index route when most messages are memory rows (a database of memory
    calls and little else): fetching each of them by its id costs more than reading the table in
    order (~1.25x the scan's time at 100,000 memory rows of 100,600). The index is asked how many of
    the ids in a few windows spread over the messages it would give (the index alone, no row
    read: under a millisecond, where counting all it gives took 11 ms). A database smaller than the
    windows keeps the index's route: either is quick there."""
    if upto < DENSE_SAMPLES * DENSE_WINDOW:
        return route
    sql = "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ? AND rowid > ? AND rowid <= ?"
    hits = 0
    try:
        for k in range(DENSE_SAMPLES):
            low = upto * k // DENSE_SAMPLES
            row = conn.execute(sql, (_MATCH[route], low, low + DENSE_WINDOW)).fetchone()
            hits += row[0] if row and type(row[0]) is int else 0
    except sqlite3.OperationalError:
        return "scan"  # an index that can't answer: the query would fall back to the scan anyway
    return "scan" if hits >= DENSE_SHARE * DENSE_SAMPLES * DENSE_WINDOW else route


_MATCH = {"fts-columns": "{tool_name tool_calls} : memory", "fts": "memory"}


def query_for(route: str, after_id: int, upto: int) -> tuple[str, tuple]:
    """The SQL reading the rows a memory call or result can be in, with after_id < id <= upto."""
    if after_id > 0 or route == "scan":
        return (f"SELECT {_ROW_COLUMNS} FROM messages WHERE id > ? AND id <= ? AND {_WANTED} ORDER BY id",
                (after_id, upto))
    match = _MATCH["fts-columns" if route == "fts-columns" else "fts"]
    return (f"SELECT {_ROW_COLUMNS} FROM messages WHERE id IN (SELECT rowid FROM messages_fts WHERE messages_fts "
            f"MATCH ?) AND id <= ? AND {_WANTED_CALLS_AND_NAMED} ORDER BY id", (match, upto))


def harvest_rows(rows: Iterable[tuple], harvest: Harvest, conn: sqlite3.Connection | None = None) -> None:
    """Pair calls with their results, in message order; what stays unpaired stays open. `rows` are
    _ROW_COLUMNS's: (id, session_id, tool_call_id, tool_calls, tool_name, content, timestamp), the
    tool_calls of an assistant row only (a tool row has None there), the content and time of a tool
    row only.

    Tens of thousands of rows: the common row (one memory call as the releases write it, its
    arguments and its result short JSON texts that orjson reads as json does, see FAST_JSON_CHARS)
    is read in this loop; anything else goes through memory_calls / parse_arguments / parse_result,
    which read it again from the start with json, so that what they count and return is what they
    always did."""
    # the calls waiting for their result, as an Open's fields (a plain tuple: the few left at the end are made Opens)
    by_id: dict[tuple[str, str], tuple] = {(o.session_id, o.call_id): o for o in harvest.open if o.call_id}
    anonymous: dict[str, list[tuple]] = {}
    for o in harvest.open:
        if not o.call_id:
            anonymous.setdefault(o.session_id, []).append(o)
    found = harvest.calls.append
    pop = by_id.pop
    same_session = {}.setdefault  # one string per session id, not one per row (the calls keep theirs)
    fast = _fast_loads
    last = harvest.last_id
    for mid, sid, call_id, tool_calls, tool_name, content, ts in rows:
        if type(mid) is not int:  # what SQLite gives: int, float, str, bytes or None
            continue
        if mid > last:
            last = mid
        if type(sid) is not str:
            sid = str(sid)
        if tool_calls is not None:  # an assistant row
            if type(tool_calls) is not str:
                continue
            sid = same_session(sid, sid)
            calls = None
            if len(tool_calls) <= FAST_JSON_CHARS:
                try:
                    calls = fast(tool_calls)
                except ValueError:
                    pass
            if type(calls) is list and len(calls) == 1 and type(first := calls[0]) is dict \
                    and type(fn := first.get("function")) is dict and fn.get("name") == TOOL \
                    and type(cid := first.get("id") or first.get("call_id") or first.get("tool_call_id") or "") is str:
                found_calls = ((cid, fn.get("arguments")),)  # the common row: one call, OpenAI-shaped
            else:
                found_calls = memory_calls(tool_calls, harvest)  # anything else, read with json as always
            for cid, raw in found_calls:
                args = None
                if type(raw) is str and len(raw) <= FAST_JSON_CHARS:
                    try:
                        args = fast(raw)
                    except ValueError:
                        pass
                if type(args) is not dict:
                    args = parse_arguments(raw, harvest)
                    if args is None:
                        continue
                pending = (mid, sid, cid, args)  # an Open's fields: made one only if it stays open
                if cid:
                    by_id[(sid, cid)] = pending
                else:
                    anonymous.setdefault(sid, []).append(pending)
        else:  # a tool row
            pending = pop((sid, call_id), None) if call_id and type(call_id) is str else None
            if pending is None and tool_name == TOOL and anonymous.get(sid):
                pending = anonymous[sid].pop(0)
            if pending is None:
                continue
            result = None
            if type(content) is str and len(content) <= FAST_JSON_CHARS:
                try:
                    result = fast(content)
                except ValueError:
                    pass
                else:
                    if type(result) is dict and type(result.get("entry_count")) is float:
                        result = None  # perhaps an integer past 64 bits: json reads it as it is
            if type(result) is not dict:
                result = parse_result(content)
                if result is None:
                    harvest.ignore("result unreadable")
                    continue
            call = _made(pending, mid, ts, result, harvest)
            if call is not None:
                found(call)
    harvest.last_id = last
    harvest.open = sorted([_new_call(Open, o) for o in chain(by_id.values(), *anonymous.values())],
                          key=operator.itemgetter(0))


def read_sources(conn: sqlite3.Connection, ids: Iterable[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    ids = sorted(set(ids))
    for i in range(0, len(ids), 500):
        chunk = ids[i:i + 500]
        marks = ",".join("?" * len(chunk))
        for sid, source in conn.execute(f"SELECT id, source FROM sessions WHERE id IN ({marks})", chunk):
            if isinstance(sid, str):
                out[sid] = source if isinstance(source, str) else ""
    return out


def read_calls(conn: sqlite3.Connection, schema: Schema | None, harvest: Harvest, route: str | None = None) -> str:
    """Read the memory rows after `harvest.last_id` into `harvest`; returns the route taken (`ids`:
    after a cached position, by id, where no schema is needed).

    The read position and the rows come from one snapshot: the last message id is read first, in
    the same read transaction as the rows, and every query is bounded by it. (Read apart — the rows,
    then `MAX(id)` — a writer committing in between left its calls behind the read position, and
    later runs, reading only what comes after it, never saw them.)"""
    first = harvest.last_id == 0
    chosen = route is None or (first and route == "ids")
    if chosen:
        if schema is None:
            raise ValueError("reading from the start needs the schema")
        route = route_for(schema)
    before, start = len(harvest.calls), harvest.last_id
    own = not conn.in_transaction
    if own:
        conn.execute("BEGIN")
    rows: list | None = None
    try:
        row = conn.execute("SELECT MAX(id) FROM messages").fetchone()
        upto = row[0] if row and isinstance(row[0], int) else 0
        if upto > harvest.last_id:
            # the routes to try in turn: an FTS index that can't answer (damaged, unknown
            # tokenizer) is replaced by the scan; a scan chosen because the memory rows are most
            # of the messages that fails (a row it reads that the index's answer leaves out, such
            # as a result without its tool's name holding text that isn't UTF-8) by the index's
            # route, as before the choice
            attempts = [route, "scan"] if first and route != "scan" else [route]
            if chosen and first and route != "scan" and _scan_when_dense(conn, route, upto) == "scan":
                attempts = ["scan", route]
            stream = _streams(conn)
            counts = (dict(harvest.skipped), dict(harvest.ignored), len(harvest.staged), len(harvest.refused))
            for k, route in enumerate(attempts):
                try:
                    rows = _rows(conn, route, harvest, upto, stream)
                    break
                except sqlite3.OperationalError:
                    if k == len(attempts) - 1:
                        raise
                    del harvest.calls[before:]  # what a stream had read before the route failed
                    harvest.skipped, harvest.ignored = dict(counts[0]), dict(counts[1])
                    del harvest.staged[counts[2]:], harvest.refused[counts[3]:]
    finally:
        if own:
            conn.rollback()  # a read: nothing to keep, and the writers' lock is free again
    if upto <= start:
        return route
    if rows is not None:  # fetched whole (streamed rows were paired as they came)
        harvest_rows(rows, harvest, conn)
    if first and route != "scan" and harvest.open:
        _late_results(conn, harvest, upto)
    new = set(map(_SESSION_OF, harvest.calls[before:])).difference(harvest.sources)  # C's loop: 50,000 calls
    if new:
        harvest.sources.update(read_sources(conn, new))
    harvest.last_id = max(harvest.last_id, upto)
    return route


def _streams(conn: sqlite3.Connection) -> bool:
    """Whether the rows can be paired as SQLite reads them, inside the read transaction: in WAL
    mode, where a reader never holds a writer back. (Fetched whole first, a quarter of the scan's
    time went to keeping 100,000 rows alive at once, and the pairing then walked them again out of
    the CPU's caches.) In the other journal modes a reader blocks the writers' commits: the rows
    are fetched whole and the transaction ends before they are paired."""
    try:
        row = conn.execute("PRAGMA journal_mode").fetchone()
    except sqlite3.Error:
        return False
    return bool(row) and row[0] == "wal"


def _rows(conn: sqlite3.Connection, route: str, harvest: Harvest, upto: int, stream: bool) -> list | None:
    """The rows of the route's query: paired into `harvest` as they come when streaming (None
    returned: the pairing is done), else fetched whole for the caller to pair."""
    sql, params = query_for(route, harvest.last_id, upto)
    cursor = conn.execute(sql, params)
    if not stream:
        return cursor.fetchall()
    harvest_rows(cursor, harvest, conn)
    return None


def _late_results(conn: sqlite3.Connection, harvest: Harvest, upto: int) -> None:
    """Results the index route can't see (a result row without tool_name): looked up per open call."""
    still = []
    for pending in harvest.open:
        if not pending.call_id:
            still.append(pending)
            continue
        row = conn.execute(
            f"SELECT {_COLUMNS} FROM messages WHERE session_id = ? AND id > ? AND id <= ? AND role = 'tool' "
            "AND tool_call_id = ? ORDER BY id LIMIT 1", (pending.session_id, pending.message_id, upto, pending.call_id),
        ).fetchone()
        if row is None:
            still.append(pending)
            continue
        call = make_call(pending, row, parse_result(row[6]), harvest)
        if call is not None:
            harvest.calls.append(call)
    harvest.calls.sort(key=lambda c: c.result_id)
    harvest.open = still
