"""Hostile pending records: each is inspected in isolation, so whatever one file holds (deep nesting,
odd numbers, lone surrogates, a FIFO, 20,000 operations) it is that record alone that is broken,
and list, show, approve all and reject keep working — the hostile record can always be rejected."""

from __future__ import annotations

import json
import math
import os
import socket
import threading

import pytest

from core import timefmt
from core.pending import inspection
from core.pending import records as P
from core.pending.queue import ApproveRefused, PendingError
from tests.core.pending_support import (
    MEMORY, NOW, curator, entries, make_home, pending_files, stage, write_raw,
)

HANG = 20.0  # seconds: a case that takes longer than this hangs


@pytest.fixture
def home(tmp_path):
    return make_home(tmp_path)


def within(seconds: float, fn, *args):
    """Run fn in a thread; fail (not hang) when it doesn't return in time."""
    out: dict[str, object] = {}

    def run() -> None:
        try:
            out["value"] = fn(*args)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            out["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"{getattr(fn, '__name__', fn)} did not return within {seconds} s"
    if "error" in out:
        raise out["error"]  # type: ignore[misc]
    return out.get("value")


def whole_queue_works(home, hostile: str) -> None:
    """list, inspect_all, show (get + inspect) and approve all work around the hostile file, the good
    record is applied, and the hostile one is then rejected."""
    good = stage(home, content="Likes espresso")
    q = curator(home).pending
    records = within(HANG, q.list)
    assert {r.file for r in records} == {f"{good}.json", hostile}
    inspections = within(HANG, q.inspect_all, records)
    bad = next(i for i in inspections if i.record.file == hostile)
    assert not bad.can_apply and bad.reason_kind in P.NEVER_APPLIES and bad.never_applies
    rid = bad.record.id if bad.record.valid_id else bad.record.file
    assert within(HANG, q.inspect, rid).reason_kind == bad.reason_kind
    report = within(HANG, q.approve_all)
    assert [a.id for a in report.done] == [good] and [f.id for f in report.failed] == [bad.record.id]
    assert entries(home)[-1] == "Likes espresso"
    with pytest.raises(ApproveRefused):
        within(HANG, q.approve, rid)
    within(HANG, q.reject, rid)
    assert pending_files(home) == []
    json.dumps([vars(r) | {"path": str(r.path), "ops": None} for r in q.list()])  # nothing left to trip on


def nested(depth: int) -> str:
    return '{"id": "0000dee9", "payload": ' + "[" * depth + "]" * depth + "}"


@pytest.mark.parametrize("depth", [100_000, 5_000, 990, P.MAX_DEPTH + 1])
def test_deep_nesting_breaks_only_its_own_record(home, depth):
    write_raw(home, "0000dee9.json", nested(depth))
    q = curator(home).pending
    assert "nested too deeply" in q.get("0000dee9").broken
    whole_queue_works(home, "0000dee9.json")


def test_nesting_hermes_uses_still_reads(home):
    rid = stage(home, "batch", operations=[{"action": "add", "content": "x", "meta": [[[["fine"]]]]}])
    assert curator(home).pending.get(rid).usable


HOSTILE = {
    "huge integer": '{"id": "0000bad1", "created_at": ' + "9" * 5000 + ', "payload": {}}',
    "NaN literal": '{"id": "0000bad1", "created_at": NaN, "payload": {"action": "add", "target": "memory", "content": 1}}',
    "surrogate in content": '{"payload": {"action": "add", "target": "memory", "content": "a \\ud800 b"}}',
    "surrogate in old_text": '{"payload": {"action": "remove", "target": "memory", "old_text": "\\udfff"}}',
    "surrogate in pin": '{"payload": {"action": "remove", "target": "memory", "old_text": "x", "matched_entry": "\\ud800"}}',
    "surrogate in target": '{"payload": {"action": "add", "target": "\\ud800", "content": "x"}}',
    "surrogate in action": '{"payload": {"action": "\\ud800", "target": "memory", "content": "x"}}',
    "surrogate key": '{"\\ud800": 1, "payload": {"action": "add", "target": "memory", "content": 5}}',
    "action is an object": '{"payload": {"action": {"a": [1, 2, 3]}, "target": "memory"}}',
    "target is a huge list": '{"payload": {"action": "add", "target": [' + ",".join(["1"] * 50_000) + ']}}',
    "subsystem is a list": '{"subsystem": [1], "payload": {"action": "add", "target": "memory", "content": "x"}}',
    "operations is text": '{"payload": {"action": "batch", "target": "memory", "operations": "abc"}}',
    "a JSON string": '"\\ud800"',
    "a JSON number": "1e400",
    "null bytes": '{"payload": {"action": "add", "target": "memory", "content": "\\u0000"}}\x00',
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_content_breaks_only_its_own_record(home, name):
    write_raw(home, "0000bad1.json", HOSTILE[name])
    whole_queue_works(home, "0000bad1.json")


@pytest.mark.parametrize("value", ["Infinity", "-Infinity", "NaN", "1e400", "-1e400", "-5", "true", '"yesterday"',
                                   "null", "[]", "99999999999999999999"])
def test_odd_created_at_uses_the_file_time_and_says_so(home, value):
    text = json.dumps({"id": "0000cafe", "summary": "odd time", "created_at": "X",
                       "payload": {"action": "add", "target": "memory", "content": "Odd time note"}})
    write_raw(home, "0000cafe.json", text.replace('"X"', value))
    os.utime(home / "pending" / "memory" / "0000cafe.json", (NOW - 7200, NOW - 7200))
    later = stage(home, content="staged later", created_at=NOW - 60)
    q = curator(home).pending
    records = q.list()
    rec = records[0]
    assert rec.id == "0000cafe" and [r.id for r in records] == ["0000cafe", later]
    if value == "-5":  # a real (if odd) time: 1969
        assert rec.dated and rec.created_at == -5.0 and q.age(rec) == "56 years ago"
    else:
        assert not rec.dated and rec.created_at == pytest.approx(NOW - 7200)
        assert q.age(rec) == "2 hours ago" and math.isfinite(rec.created_at)
        ins = q.inspect(rec)
        assert ins.can_apply and any("created_at is" in w and "not a time" in w for w in ins.warnings)
    assert q.approve("0000cafe").changed and "Odd time note" in entries(home)


def test_records_with_the_same_time_sort_by_file_name(home):
    for rid in ("0000000c", "0000000a", "0000000b"):
        stage(home, content=f"same {rid}", rid=rid, created_at=NOW)
    write_raw(home, "0000000d.json", '{"created_at": NaN, "payload": 1}')
    os.utime(home / "pending" / "memory" / "0000000d.json", (NOW, NOW))
    assert [r.id for r in curator(home).pending.list()] == ["0000000a", "0000000b", "0000000c", "0000000d"]


def test_file_times_beyond_any_clock_never_break_the_listing(home):
    rid = stage(home, content="far future")
    path = home / "pending" / "memory" / f"{rid}.json"
    write_raw(home, f"{rid}.json", path.read_text().replace(f'"created_at": {NOW - 86400.0 + 0}', '"x": 0'))
    os.utime(path, ns=(2 ** 62, 2 ** 62))
    q = curator(home).pending
    rec = q.get(rid)
    assert timefmt.valid(rec.created_at) is not None
    assert isinstance(q.age(rec), str) and q.oldest_age() is not None


# -- lone surrogates ---------------------------------------------------------------------------


def test_a_surrogate_in_the_summary_is_shown_as_a_replacement_character(home):
    rid = "0000d801"  # a JSON escape is the only way a lone surrogate gets into a record (no UTF-8 holds one)
    write_raw(home, f"{rid}.json", json.dumps({
        "id": rid, "summary": "odd \ud800 summary", "origin": "fore\udfffground", "created_at": NOW,
        "payload": {"action": "add", "target": "memory", "content": "Plain entry", "note": ["\udc00"]}}))
    q = curator(home).pending
    rec = q.get(rid)
    assert rec.title == "odd \ufffd summary" and rec.origin == "fore\ufffdground"
    rec.title.encode("utf-8")
    json.dumps(rec.payload, ensure_ascii=False).encode("utf-8")
    approval = q.approve(rid)
    assert approval.changed and entries(home)[-1] == "Plain entry"
    rec = curator(home).history.records()[-1]
    assert rec.action == f"approve {rid}"
    for line in curator(home).history.path.read_bytes().splitlines():
        line.decode("ascii")


@pytest.mark.parametrize("field", ["content", "old_text", "matched_entry"])
def test_a_surrogate_in_a_text_to_write_never_applies_and_writes_nothing(home, field):
    payload = {"action": "replace", "target": "memory", "content": "new", "old_text": "Deploys",
               "matched_entry": MEMORY[1]}
    payload[field] = payload[field] + " \ud800"
    write_raw(home, "0000d800.json", json.dumps({"id": "0000d800", "created_at": NOW, "payload": payload}))
    before = (home / "memories" / "MEMORY.md").read_bytes()
    q = curator(home).pending
    ins = q.inspect("0000d800")
    assert ins.reason_kind == P.MALFORMED and "lone surrogate (U+D800)" in ins.reason and ins.never_applies
    with pytest.raises(ApproveRefused):
        q.approve("0000d800")
    assert (home / "memories" / "MEMORY.md").read_bytes() == before
    journal = curator(home).history.path
    assert not journal.exists() or journal.stat().st_size == 0 or curator(home).history.records() == []
    assert not journal.exists(), "a refused approval left a journal file behind"
    q.reject("0000d800")
    assert pending_files(home) == []


def test_a_file_name_that_is_not_utf8_is_listed_printable_and_can_be_rejected(home):
    folder = home / "pending" / "memory"
    bad = os.fsencode(folder) + b"/\xff\xfe.json"
    with open(bad, "wb") as fh:
        fh.write(b"{}")
    q = curator(home).pending
    (rec,) = q.list()
    assert rec.file == "\ufffd\ufffd.json" and rec.broken
    rec.file.encode("utf-8")
    q.reject(rec.file)
    assert os.listdir(folder) == []


# -- files that aren't regular files -----------------------------------------------------------


def test_a_fifo_in_place_of_a_record_never_blocks(home):
    os.mkfifo(home / "pending" / "memory" / "0000f1f0.json")
    q = curator(home).pending
    assert "named pipe (FIFO)" in within(HANG, q.get, "0000f1f0").broken
    whole_queue_works(home, "0000f1f0.json")


def test_a_socket_or_folder_in_place_of_a_record(home):
    import tempfile

    sock = socket.socket(socket.AF_UNIX)
    short = Path(tempfile.mkdtemp(dir="/tmp")) / "s"  # AF_UNIX paths are capped at ~107 bytes
    sock.bind(str(short))
    os.rename(short, home / "pending" / "memory" / "000050c4.json")
    (home / "pending" / "memory" / "0000d1d0.json").mkdir()
    try:
        q = curator(home).pending
        by = {r.id: r for r in within(HANG, q.list)}
        assert "socket" in by["000050c4"].broken and "folder" in by["0000d1d0"].broken
        q.reject("000050c4")
        with pytest.raises(PendingError, match="folder"):
            q.reject("0000d1d0")
        assert pending_files(home) == ["0000d1d0.json"]
    finally:
        sock.close()


def test_an_oversized_file_is_named_not_read(home):
    write_raw(home, "0000b16b.json", b" " * (P.MAX_RECORD_BYTES + 1))
    q = curator(home).pending
    rec = q.get("0000b16b")
    assert "too large" in rec.broken and f"{P.MAX_RECORD_BYTES + 1:,} bytes" in rec.broken
    whole_queue_works(home, "0000b16b.json")


# -- records over hmc's limits ---------------------------------------------------------------------


def test_a_20000_operation_batch_is_over_the_limit_and_shows_what_it_can(home):
    ops = [{"action": "add", "content": f"note {i}"} for i in range(20_000)]
    rid = "0000b7c4"
    write_raw(home, f"{rid}.json", json.dumps({"id": rid, "created_at": NOW, "payload": {
        "action": "batch", "target": "memory", "operations": ops}}, separators=(",", ":")))
    q = curator(home).pending
    rec = within(HANG, q.get, rid)
    assert rec.op_count == 20_000 and len(rec.ops) == P.DESCRIBED
    assert rec.title.startswith("add to memory: note 0; add to memory: note 1")
    assert rec.title.endswith("… and 19,995 more operations")
    ins = within(HANG, q.inspect, rid)
    assert ins.reason_kind == P.TOO_LARGE and "20,000 operations" in ins.reason and ins.never_applies
    with pytest.raises(ApproveRefused) as err:
        q.approve(rid)
    assert err.value.kind == P.TOO_LARGE
    assert q.reject_invalid().done == (rid,)


def test_a_batch_at_the_limit_is_inspected(home, tmp_path):
    big = make_home(tmp_path / "big", config="memory:\n  memory_char_limit: 100000\n")
    ops = [{"action": "add", "content": f"note {i}"} for i in range(P.MAX_OPS)]
    rid = stage(big, "batch", operations=ops)
    ins = within(HANG, curator(big).pending.inspect, rid)
    assert ins.can_apply and ins.used_after > ins.used_before and ins.record.op_count == P.MAX_OPS


# -- whatever goes wrong inside inspection stays with its record ------------------------------------


def test_an_unexpected_failure_while_inspecting_is_that_records_alone(home, monkeypatch):
    bad = stage(home, content="trips the scanner")
    good = stage(home, content="Likes tea")
    real = inspection._scan

    def scan(text, *rest):
        if text == "trips the scanner":
            raise RecursionError("maximum recursion depth exceeded")
        return real(text, *rest)

    monkeypatch.setattr(inspection, "_scan", scan)
    q = curator(home).pending
    by = {i.id: i for i in q.inspect_all()}
    assert by[bad].reason_kind == P.BROKEN and "too complex to inspect" in by[bad].reason
    assert by[good].can_apply


def test_unexpected_failure_while_parsing_is_that_records_alone(home, monkeypatch):
    stage(home, content="one", rid="0000aaa1")
    stage(home, content="two", rid="0000aaa2")
    real = P._parse_record

    def parse(data, rid, base):
        if rid == "0000aaa1":
            raise TypeError("boom")
        return real(data, rid, base)

    monkeypatch.setattr(P, "_parse_record", parse)
    by = {r.id: r for r in curator(home).pending.list()}
    assert by["0000aaa1"].broken == "can't be read as a record (TypeError)" and by["0000aaa2"].usable


# -- a queue folder hmc may not read -----------------------------------------------------------------


def test_an_unreadable_queue_folder_is_a_pending_error_never_an_os_error(home, monkeypatch):
    rid = stage(home, content="x")
    folder = str(home / "pending" / "memory")
    real_scandir, real_lstat, real_listdir, real_rename = os.scandir, os.lstat, os.listdir, os.rename

    def denied(real):
        def call(path, *args, **kwargs):
            if str(path).startswith(folder):
                raise PermissionError(13, "Permission denied", str(path))
            return real(path, *args, **kwargs)
        return call

    # what a mode-000 pending/memory does to a user other than root
    monkeypatch.setattr(os, "scandir", denied(real_scandir))
    monkeypatch.setattr(os, "lstat", denied(real_lstat))
    monkeypatch.setattr(os, "listdir", denied(real_listdir))
    monkeypatch.setattr(os, "rename", denied(real_rename))
    q = curator(home).pending
    for call in (q.list, q.count, q.token, q.inspect_all, q.approve_all, q.reject_all,
                 lambda: q.get(rid), lambda: q.approve(rid), lambda: q.reject(rid), lambda: q.inspect(rid)):
        with pytest.raises(PendingError, match="(?i)permission denied"):
            call()
    assert q.recover_claims() == []


# -- any JSON in any field (property) ------------------------------------------------------------------

from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from core.pending.inspection import inspect_ops  # noqa: E402
from core.pending.records import parse_record  # noqa: E402
from core.store.memory import Snapshot  # noqa: E402
from pathlib import Path  # noqa: E402

ANY_TEXT = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=30) | st.sampled_from(
    ["\ud800", "a\udfffb", "\x1b]52;c;eA==\x07", "\u202e", "add", "memory", "user", "batch", ""])
SCALARS = (st.none() | st.booleans() | st.integers() | st.integers(min_value=10 ** 30) |
           st.floats(allow_nan=True, allow_infinity=True) | ANY_TEXT)
ANY_JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ANY_TEXT, inner, max_size=4),
                        max_leaves=12)
OP = st.fixed_dictionaries({"action": st.sampled_from(["add", "replace", "remove"]) | ANY_JSON},
                           optional={"content": ANY_JSON, "old_text": ANY_JSON, "matched_entry": ANY_JSON,
                                     "new_text": ANY_JSON})
PAYLOAD = st.fixed_dictionaries(
    {"action": st.sampled_from(["add", "replace", "remove", "batch"]) | ANY_JSON,
     "target": st.sampled_from(["memory", "user"]) | ANY_JSON},
    optional={"content": ANY_JSON, "old_text": ANY_JSON, "matched_entry": ANY_JSON,
              "operations": st.lists(OP, max_size=4) | ANY_JSON}) | ANY_JSON
RECORD = st.fixed_dictionaries({"payload": PAYLOAD}, optional={
    "id": ANY_JSON, "subsystem": st.just("memory") | ANY_JSON, "summary": ANY_JSON, "origin": ANY_JSON,
    "created_at": ANY_JSON, "action": ANY_JSON})


def dumps(obj) -> bytes:
    return json.dumps(obj, ensure_ascii=True, allow_nan=True).encode("ascii")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(RECORD, st.sampled_from(["0000abcd.json", "\udcff.json", "notes.json"]))
@example({"payload": {"action": "batch", "target": "memory", "operations": [{"action": "add", "content": "\ud800"}, None]}},
         "\udcff.json")
@example({"payload": {"action": "replace", "target": "user", "old_text": "", "content": float("nan")},
          "created_at": float("inf")}, "0000abcd.json")
def test_any_json_in_any_field_gives_a_record_and_an_inspection_never_an_exception(obj, name):
    record = parse_record(dumps(obj), Path("/q") / name, (1, 1), 1_794_744_000.0)
    assert record.broken or record.problem or record.ops
    assert math.isfinite(record.created_at)
    snap = Snapshot("memory", entries=("Deploys go through staging", "Likes tea"), raw="Deploys go through staging\n§\nLikes tea",
                    exists=True)
    ins = inspect_ops(record, record.ops, record.target, snap, 2200, True)
    # everything a command may print or dump is text a UTF-8 terminal and a JSON writer take
    shown = [record.file, record.id, record.title, record.summary, record.origin, record.action, ins.reason or "",
             *ins.warnings, *(c.after or "" for c in ins.changes)]
    for text in shown:
        text.encode("utf-8")
    json.dumps(record.payload, ensure_ascii=False, allow_nan=False).encode("utf-8")
    assert ins.can_apply or ins.reason_kind
