"""The JSON contract for scripts (issue 34): a filter narrows a document, never changes its shape
(`--target`, `--subsystem`), and every entry position is given twice, `index` counted from 0 (its
place in the file's list) and `number` counted from 1 (the `#2` and `2.` the text prints)."""

from __future__ import annotations

import json

import pytest

from tui.cli.main import main


@pytest.fixture(scope="module")
def demo(demo_module):
    return demo_module


def doc(capsys, demo, *args):
    code = main(["--home", str(demo), "--today", "2026-11-15", *args, "--json"])
    out = capsys.readouterr().out
    assert code in (0, 1), out
    return json.loads(out)


@pytest.mark.parametrize("command", [("memory", "list"), ("blame",), ("memory", "list", "--at", "2026-11-01")],
                         ids=" ".join)
def test_a_target_narrows_the_list_of_stores(capsys, demo, command):
    both = doc(capsys, demo, *command)
    assert isinstance(both, list) and [d["target"] for d in both] == ["memory", "user"]
    for target in ("memory", "user"):
        one = doc(capsys, demo, *command, "--target", target)
        assert isinstance(one, list) and len(one) == 1
        assert one[0].keys() == both[0].keys() and one[0]["target"] == target


def test_every_pending_list_has_the_same_shape(capsys, demo):
    forms = {s: doc(capsys, demo, "pending", "list", "--subsystem", s) for s in ("memory", "skills", "all")}
    for subsystem, d in forms.items():
        assert {"subsystem", "count", "counts", "queues", "records"} <= d.keys()
        assert d["subsystem"] == subsystem and d["count"] == len(d["records"]) == sum(d["counts"].values())
        assert all({"subsystem", "folder", "write_approval", "count"} <= q.keys() for q in d["queues"])
        assert all(r["subsystem"] in ("memory", "skills") for r in d["records"])
    assert forms["all"]["counts"] == {"memory": forms["memory"]["count"], "skills": forms["skills"]["count"]}
    assert {"folder", "write_approval"} <= forms["memory"].keys()  # one queue's form keeps them at the top
    assert doc(capsys, demo, "pending", "list") == forms["memory"]


def test_every_entry_position_says_its_number_as_the_text_prints_it(capsys, demo):
    for store in doc(capsys, demo, "memory", "list"):
        assert all(e["number"] == e["index"] + 1 for e in store["entries"])
    for store in doc(capsys, demo, "blame"):
        assert all(e["number"] == e["index"] + 1 for e in store["entries"])
    findings = doc(capsys, demo, "review")["findings"]
    with_entries = [f for f in findings if f["entries"]]
    assert with_entries and all(f["numbers"] == [i + 1 for i in f["entries"]] for f in with_entries)
    main(["--home", str(demo), "--today", "2026-11-15", "review"])
    text = capsys.readouterr().out
    assert all(f"#{n}" in text for f in with_entries for n in f["numbers"])
    evidence = [e for c in doc(capsys, demo, "why", "staging DB")["causes"] for e in c["evidence"]
                if e.get("kind") == "entry"]
    assert evidence and all(e["number"] == e["index"] + 1 for e in evidence)


@pytest.mark.parametrize("argv", [["--today", "2026-13-45", "status", "--json"], ["memory", "add", "--json"],
                                  ["why", "--json"], ["search", "x", "--offset", "-1", "--json"]],
                         ids=lambda a: " ".join(a))
def test_a_usage_error_with_json_is_a_json_document_too(capsys, demo, argv):
    with pytest.raises(SystemExit) as stop:
        main(["--home", str(demo), *argv])
    out, err = capsys.readouterr()
    assert stop.value.code == 2 and err.startswith("hmc: ")
    doc = json.loads(out)
    assert doc["exit"] == 2 and doc["error"] in err
