"""The doctor's verdict, remembered per installed release and code digest in hmc's state folder
(`<state>/doctor/`), and what a write must say before it goes ahead under rules shown to differ.

A verdict file is named for the release's version, the digest of Hermes's code (the driver's
`hello`) and the digest of hmc's rules: a new Hermes build or a new hmc makes a fresh check. An
index maps each interpreter to its last verdict, so `hmc status` and the TUI find it without
running Hermes. Every file is private (0700 folders, 0600 files), like the rest of the state tree.
"""

from __future__ import annotations

import json
from pathlib import Path

from core.doctor.cases import AREA_NAMES
from core.doctor.check import Verdict, hmc_digest, read_small
from core.hermes import probe
from core.store.atomic import read_regular, write_private
from core.store.journal import private_state_folder, state_root

INDEX = "index.json"
MAX_BYTES = 1 << 20

# Which areas each kind of hmc write depends on (a write asks first when one of them differs).
WRITES = {
    "memory": ("reading", "drift", "ops"),          # add / edit / remove an entry
    "approve": ("reading", "drift", "ops", "pending"),  # apply a record Hermes staged
}

# How a difference reads in a write's question, by area (the case names it exactly after this).
SAYS = {
    "reading": "reads its files differently",
    "drift": "judges drift differently",
    "ops": "applies edits differently",
    "pending": "approves staged records differently",
    "prompt": "builds the prompt block differently",
    "sessions": "searches sessions differently",
}


def folder() -> Path:
    return state_root() / "doctor"


def file_name(verdict: Verdict) -> str:
    digest = (verdict.hermes_digest or "unknown")[:12]
    return f"{verdict.version or 'unknown'}-{digest}-{(verdict.hmc_digest or '')[:12]}.json"


def _read_json(path: Path) -> dict | None:
    try:
        data = json.loads(read_regular(path, MAX_BYTES).decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None


def save(verdict: Verdict) -> Path | None:
    """Remember a verdict (a Hermes that couldn't run is not remembered). Returns its file, or None
    when the state folder can't be written (the verdict was still shown)."""
    if verdict.status == "error" or not verdict.python:
        return None
    try:
        where = private_state_folder(folder())
        path = where / file_name(verdict)
        write_private(path, json.dumps(verdict.as_dict(), indent=1, ensure_ascii=False).encode("utf-8"))
        index = _read_json(where / INDEX) or {}
        index[verdict.python] = path.name
        write_private(where / INDEX, json.dumps(index, indent=1).encode("utf-8"))
    except OSError:
        return None
    return path


def load(python: str | Path, version: str) -> Verdict | None:
    """The last verdict for this interpreter, when it was for this version and hmc's rules haven't
    changed since (else None: the check is due again)."""
    index = _read_json(folder() / INDEX) or {}
    name = index.get(str(python))
    if not isinstance(name, str) or "/" in name or name.startswith("."):
        return None
    data = _read_json(folder() / name)
    if data is None:
        return None
    try:
        verdict = Verdict.from_dict(data)
    except (TypeError, ValueError):
        return None
    if verdict.version != version or verdict.hmc_digest != hmc_digest():
        return None
    return verdict


def for_home(home_root: Path | None, path: str | None = None) -> tuple[probe.Installed | None, Verdict | None]:
    """The installed Hermes hmc would check for this home, and its remembered verdict (no subprocess)."""
    try:
        installed = probe.find(home_root, path, read_small)
    except probe.ProbeError:
        return None, None
    return installed, load(installed.python, installed.version)


def differences_for(verdict: Verdict | None, write: str) -> list[str]:
    """One line per area a `write` ("memory" | "approve") depends on where this Hermes was shown
    to differ: "your Hermes reads its files differently from what hmc expects (reading: a
    byte-order mark before entry 1)"."""
    if verdict is None or verdict.status != "differ":
        return []
    out = []
    for area in WRITES[write]:
        cases = [d.case for d in verdict.differences if d.area == area]
        if cases:
            more = f" and {len(cases) - 1} more" if len(cases) > 1 else ""
            out.append(f"your Hermes {verdict.version} {SAYS[area]} from what hmc expects "
                       f"({AREA_NAMES[area]}: {cases[0]}{more})")
    return out
