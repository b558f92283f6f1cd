"""The common row is read with orjson (core.sessions.memory_calls.FAST_JSON_CHARS). On any rows,
harvest_rows must give what it gives with the standard library's json alone: the same writes (their
values and their types: an entry_count of 3 is not one of 3.0), the same counts of skipped and
ignored rows, and calls left open that write the same once paired.

The rows are random JSON texts written token by token, so that they hold what json.dumps would never
write: NaN and Infinity, 1e400, integers past 64 bits, lone surrogates, duplicate keys, deep nesting,
text around the value. A failure prints the seed; HMC_SEED replays or explores other seeds."""

from __future__ import annotations

import json
import os
import random

import pytest

from core.sessions import memory_calls as mc
from core.sessions.memory_calls import FAST_JSON_CHARS, Harvest, harvest_rows

BASE_SEED = int(os.environ.get("HMC_SEED", "20261203"))

NUMBERS = ["0", "-0", "3", "3.0", "1e2", "-1", "1.5", str(2**63 - 1), str(2**63), str(2**64 - 1), str(2**64),
           str(-2**63), str(-2**63 - 1), "9" * 30, "-" + "9" * 25, "NaN", "Infinity", "-Infinity", "1e400",
           "-1e400", "4.9e-325"]
WORDS = ["add", "replace", "remove", "patch", "memory", "user", "", "x", "Fact: the tideway", "\\ud800",
         "a\\ud83d\\ude00b", "\\udc00\\ud800", "nul\\u0000", "tab\\tq", "\u00e9t\u00e9 \u91cd\u542f"]


def string(rng: random.Random) -> str:
    return '"' + rng.choice(WORDS) + '"'


def scalar(rng: random.Random) -> str:
    return rng.choice([string(rng), rng.choice(NUMBERS), "true", "false", "null"])


def nested(rng: random.Random) -> str:
    """A value nested deep: under FAST_JSON_CHARS (both parsers read it), or past it."""
    depth = rng.choice([3, 200, FAST_JSON_CHARS // 2 - 20, 900])
    return "[" * depth + scalar(rng) + "]" * depth


def value(rng: random.Random, depth: int = 0) -> str:
    roll = rng.random()
    if depth > 2 or roll < 0.6:
        return scalar(rng)
    if roll < 0.75:
        return "[" + ", ".join(value(rng, depth + 1) for _ in range(rng.randrange(3))) + "]"
    if roll < 0.9:
        return obj(rng, {f"k{i}": value(rng, depth + 1) for i in range(rng.randrange(3))})
    return nested(rng)


def obj(rng: random.Random, fields: dict[str, str]) -> str:
    """A JSON object of raw field texts; now and then a key twice (json and orjson keep the last)."""
    items = list(fields.items())
    if items and rng.random() < 0.1:
        key, _ = rng.choice(items)
        items.insert(rng.randrange(len(items) + 1), (key, value(rng)))
    return "{" + ", ".join(f'"{k}": {v}' for k, v in items) + "}"


def around(rng: random.Random, text: str) -> str:
    """The text as it is, mostly; else with JSON whitespace around it, or something after it."""
    roll = rng.random()
    if roll < 0.85:
        return text
    if roll < 0.95:
        return rng.choice([" ", "\n", "\t\r\n "]) + text + rng.choice(["", " ", "\n"])
    return text + rng.choice(["x", " {}", "]"])


def arguments(rng: random.Random) -> str:
    fields = {"action": rng.choice([string(rng), '"add"', '"add"', '"replace"', scalar(rng)]),
              "target": rng.choice(['"memory"', '"user"', scalar(rng)]),
              "content": rng.choice([string(rng), string(rng), scalar(rng)])}
    if rng.random() < 0.3:
        fields["old_text"] = rng.choice([string(rng), scalar(rng)])
    if rng.random() < 0.2:
        fields["new_text"] = rng.choice([string(rng), scalar(rng)])
    if rng.random() < 0.15:
        ops = [obj(rng, {"action": rng.choice(['"add"', '"remove"', scalar(rng)]), "content": string(rng),
                         "n": value(rng)}) for _ in range(rng.randrange(3))]
        fields["operations"] = rng.choice(["[" + ", ".join(ops) + "]", scalar(rng)])
    if rng.random() < 0.3:
        fields["extra"] = value(rng)
    return around(rng, obj(rng, fields))


CALL_IDS = ['"call_a"', '"call_b"', '""', "null", "0", "7", str(2**64), "9" * 30, "1.5", "-0", "false"]


def tool_calls(rng: random.Random) -> tuple[str, str]:
    """(the assistant row's tool_calls, the id its result names)."""
    cid = rng.choice(CALL_IDS)
    args = arguments(rng)
    raw_args = json.dumps(args) if rng.random() < 0.9 else args  # a text, as the releases write, or an object
    name = '"memory"' if rng.random() < 0.9 else rng.choice(['"Memory"', '"memory_tool"', scalar(rng)])
    call = {"id": cid, "type": '"function"', "function": obj(rng, {"name": name, "arguments": raw_args})}
    if rng.random() < 0.15:
        call["extra_content"] = value(rng)
    if rng.random() < 0.1:  # flat, as some code paths write it
        call = {"id": cid, "name": name, "arguments": raw_args}
    calls = [obj(rng, call)]
    if rng.random() < 0.15:
        calls.append(obj(rng, {"id": '"call_other"', "function": obj(rng, {"name": '"terminal"', "arguments": '"{}"'})}))
        rng.shuffle(calls)
    text = around(rng, "[" + ", ".join(calls) + "]") if rng.random() < 0.95 else value(rng)
    try:
        parsed = json.loads(cid)
        result_id = parsed if isinstance(parsed, str) else str(parsed)
    except ValueError:
        result_id = "call_a"
    return text, result_id


def result(rng: random.Random) -> str:
    fields = {"success": rng.choice(["true", "true", "true", "false", "1", "1.0", '"true"', "null"])}
    if rng.random() < 0.15:
        fields["staged"] = rng.choice(["true", "false", "0", "0.0", str(2**64), "null"])
    if rng.random() < 0.7:
        fields["entry_count"] = rng.choice(["3", "3", "0", "3.0", "true", '"3"', "null", *NUMBERS])
    if rng.random() < 0.2:
        fields["entries"] = rng.choice(["[" + ", ".join(string(rng) for _ in range(rng.randrange(3))) + "]",
                                        "[" + value(rng) + "]", scalar(rng)])
    if rng.random() < 0.1:
        fields["message"] = value(rng)
    text = around(rng, obj(rng, fields))
    if rng.random() < 0.05:
        text = "Notice: approved. " + text  # a result wrapped in a notice: read by parse_result
    return text


def rows(rng: random.Random, n: int) -> list[tuple]:
    out, mid = [], 0
    for _ in range(n):
        sid = rng.choice(["s1", "s2"])
        text, result_id = tool_calls(rng)
        mid += 1
        out.append((mid, sid, None, text, None, None, 1.7e9 + mid))
        if rng.random() < 0.9:
            mid += 1
            call_id = result_id if rng.random() < 0.85 else rng.choice([None, "", "call_z"])
            name = "memory" if rng.random() < 0.9 else None
            out.append((mid, sid, call_id, None, name, result(rng), 1.7e9 + mid))
    return out


def _json_only(text):
    raise ValueError("json alone")


def harvested(rows_: list[tuple], monkeypatch, fast: bool) -> tuple:
    with monkeypatch.context() as m:
        if not fast:
            m.setattr(mc, "_fast_loads", _json_only)
        h = Harvest()
        harvest_rows(rows_, h)
    paired = Harvest()
    opened = [(o.message_id, o.session_id, o.call_id, repr(mc._made(o, 0, 1.0, {"success": True}, paired)))
              for o in h.open]
    return repr(h.calls), h.skipped, h.ignored, opened, paired.skipped


@pytest.mark.parametrize("k", range(40))
def test_orjson_reads_every_row_as_json_does(k, monkeypatch):
    seed = BASE_SEED + k
    rng = random.Random(seed)
    sample = rows(rng, 60)
    fast, slow = harvested(sample, monkeypatch, True), harvested(sample, monkeypatch, False)
    assert fast == slow, f"seed {seed} (HMC_SEED={BASE_SEED}, case {k})"


def _one(call_id_token: str, result_text: str, args: str | None = None) -> list[tuple]:
    args = args or '{"action": "add", "target": "memory", "content": "Fact"}'
    text = '[{"id": %s, "type": "function", "function": {"name": "memory", "arguments": %s}}]' % (
        call_id_token, json.dumps(args))
    try:
        parsed = json.loads(call_id_token)
        result_id = parsed if isinstance(parsed, str) else str(parsed)
    except ValueError:
        result_id = "x"
    return [(1, "s", None, text, None, None, 1.0), (2, "s", result_id, None, "memory", result_text, 2.0)]


@pytest.mark.parametrize("call_id, result_text, args", [
    (str(2**64), '{"success": true}', None),  # an id past 64 bits: orjson reads 1.8e19, json the integer
    ('"call_1"', '{"success": true, "entry_count": %d}' % 2**70, None),  # a count past 64 bits
    ('"call_1"', '{"success": true, "entry_count": %s}' % ("-" + "9" * 20), None),
    ('"call_1"', '{"success": true, "entry_count": NaN}', None),  # only json takes NaN
    ('"call_1"', '{"success": true}', '{"action": "add", "target": "memory", "content": "\\ud800 lone"}'),
    ('"call_1"', '{"success": true}', '{"action": "add", "target": "memory", "content": "x", "n": 1e400}'),
    ('"call_1"', '{"success": true}', '{"action": "add", "content": "x", "deep": %s}' % ("[" * 480 + "]" * 480)),
    ('"call_1"', '{"success": true}', '{"action": "add", "content": "x", "deep": %s}' % ("[" * 990 + "]" * 990)),
    ('"call_1"', '{"success": true}', '{"action": "add", "content": "x", "action": "remove", "old_text": "x"}'),
], ids=["id-past-64-bits", "count-past-64-bits", "negative-count-past-64-bits", "count-NaN", "lone-surrogate",
        "1e400", "nested-480", "nested-990", "duplicate-key"])
def test_the_rare_shapes_read_as_json_reads_them(call_id, result_text, args, monkeypatch):
    sample = _one(call_id, result_text, args)
    assert harvested(sample, monkeypatch, True) == harvested(sample, monkeypatch, False)


def test_an_id_or_count_past_64_bits_is_read_as_the_integer_it_is(monkeypatch):
    h = Harvest()
    harvest_rows(_one(str(2**64), '{"success": true, "entry_count": %d}' % 2**70), h)
    (call,) = h.calls
    assert call.call_id == str(2**64) and call.entry_count == 2**70 and type(call.entry_count) is int


def test_the_common_row_is_read_by_orjson(monkeypatch):
    """The comparisons above would pass with orjson never used: the common row's three texts go to it."""
    seen = []

    def counting(text):
        seen.append(text)
        return mc.orjson.loads(text)

    monkeypatch.setattr(mc, "_fast_loads", counting)
    h = Harvest()
    harvest_rows(_one('"call_1"', '{"success": true, "entry_count": 1}'), h)
    assert len(h.calls) == 1 and len(seen) == 3
