"""hmc and a running Hermes write the same store: nothing lost, nothing torn, even under SIGKILL."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from core.store.memory import MemoryStore, Op, check_drift, parse, serialize

# A writer that behaves exactly like Hermes (HERMES-FORMATS §2.6), written independently of core.
HERMES_WRITER = textwrap.dedent(r'''
    import fcntl, os, sys, tempfile
    path, count = sys.argv[1], int(sys.argv[2])
    lock = path + ".lock"
    for n in range(count):
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            try:
                text = open(path, encoding="utf-8").read()
            except FileNotFoundError:
                text = ""
            entries = [e.strip() for e in text.split("\n§\n") if e.strip()]
            entries.append(f"hermes entry {n}")
            tmp_fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".mem_", suffix=".tmp")
            with os.fdopen(tmp_fd, "w", encoding="utf-8") as fh:
                fh.write("\n§\n".join(entries))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        finally:
            os.close(fd)
''')


def test_hmc_and_hermes_write_at_once_without_losing_entries(tmp_path):
    path = tmp_path / "MEMORY.md"
    store = MemoryStore("memory", path, 10**7)
    writer = tmp_path / "hermes_writer.py"
    writer.write_text(HERMES_WRITER)
    hermes = subprocess.Popen([sys.executable, str(writer), str(path), "300"])
    kept, removed = set(), set()
    try:
        n = 0
        while hermes.poll() is None or n < 120:
            store.apply([Op("add", content=f"hmc entry {n}")])
            kept.add(f"hmc entry {n}")
            if n % 3 == 2:
                victim = f"hmc entry {n - 1}"
                store.apply([Op("remove", old_text=victim, matched_entry=victim)])
                kept.discard(victim)
                removed.add(victim)
            n += 1
            if n > 5000:
                break
    finally:
        assert hermes.wait(timeout=60) == 0
    text = path.read_text(encoding="utf-8")
    entries = parse(text)
    assert serialize(entries) == text and check_drift(text, 10**7) is None
    assert {f"hermes entry {i}" for i in range(300)} <= set(entries)
    assert kept <= set(entries)
    assert not (removed & set(entries))
    assert not list(tmp_path.glob(".mem_*"))


KILLED_WRITER = textwrap.dedent(r'''
    import sys
    sys.path.insert(0, sys.argv[3])
    from core.store.memory import MemoryStore, Op
    store = MemoryStore("memory", __import__("pathlib").Path(sys.argv[1]), 10**7)
    n = int(sys.argv[2])
    print("ready", flush=True)
    while True:
        n += 1
        entry = f"entry {n} " + "x" * (n % 400)
        store.apply([Op("add", content=entry)])
        if n % 2:
            store.apply([Op("replace", old_text=entry, matched_entry=entry, content=entry + " (edited)")])
''')


def test_sigkill_never_leaves_a_partial_or_non_canonical_file(tmp_path):
    path = tmp_path / "MEMORY.md"
    path.write_text("seed entry")
    writer = tmp_path / "killed_writer.py"
    writer.write_text(KILLED_WRITER)
    rng = random.Random(3)  # the kill moments (timing varies anyway: the round is in every message)
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    for round_ in range(12):
        proc = subprocess.Popen([sys.executable, str(writer), str(path), str(round_ * 100_000), root],
                                stdout=subprocess.PIPE, env=env)
        assert proc.stdout.readline().strip() == b"ready"
        time.sleep(rng.uniform(0.01, 0.15))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        raw = path.read_bytes().decode("utf-8")  # never torn: always valid UTF-8
        entries = parse(raw)
        assert serialize(entries) == raw, f"round {round_} (kill times from random.Random(3)): non-canonical file"
        assert entries[0] == "seed entry", f"round {round_} (kill times from random.Random(3))"
    # leftover temp files from killed writers are harmless and never the store itself
    assert path.exists()
