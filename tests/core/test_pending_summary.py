"""A staged record's summary as Hermes cuts it (`what: detail[:120]`), shown in full from its op."""

from __future__ import annotations

import json
from pathlib import Path

from core.pending.records import SUMMARY_DETAIL, parse_record


def record(tmp_path: Path, action: str, content: str = "", old_text: str = "", summary: str | None = None):
    payload = {"action": action, "target": "memory", "content": content, "old_text": old_text}
    what = {"add": "add to memory", "remove": "remove from memory", "replace": "replace in memory"}[action]
    detail = {"add": content, "remove": old_text,
              "replace": f"entry matching: {old_text}\nwhole entry becomes: {content}"}[action]
    data = {"id": "0000000a", "subsystem": "memory", "summary": summary or f"{what}: {detail[:SUMMARY_DETAIL]}",
            "payload": payload, "created_at": 1_790_000_000}
    path = tmp_path / "0000000a.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return parse_record(path.read_bytes(), path)


def test_a_cut_summary_is_shown_whole(tmp_path):
    long = "This machine: Debian 12, zsh, Docker + Podman, Python via uv, Node 22 LTS via fnm. Editor: Neovim. " * 2
    r = record(tmp_path, "replace", content=long.strip(), old_text="Node 20 via fnm")
    assert len(r.title) < len(r.full_title)
    assert r.full_title == " ".join(f"replace in memory: entry matching: Node 20 via fnm whole entry becomes: {long}".split())
    r = record(tmp_path, "add", content=long.strip())
    assert r.full_title == "add to memory: " + " ".join(long.split())


def test_a_short_or_foreign_summary_stays_as_written(tmp_path):
    assert record(tmp_path, "add", content="Likes espresso").full_title == "add to memory: Likes espresso"
    odd = "x" * 200
    r = record(tmp_path, "add", content="Likes espresso", summary="add to memory: " + odd[:120])
    assert r.full_title == r.title  # the op doesn't continue that text: nothing is made up
