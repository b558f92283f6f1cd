"""The doctor's verdict, remembered per installed release and code digest in hmc's state folder
(`<state>/doctor/`), and what a write must say before it goes ahead under rules shown to differ.

A verdict file is named for the release's version, the digest of Hermes's code (the driver's
`hello`) and the digest of hmc's rules: a new Hermes build or a new hmc makes a fresh check. An
index maps each interpreter to its last verdict, so `hmc status` and the TUI find it without
running Hermes. Every file is private (0700 folders, 0600 files), like the rest of the state tree.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from core.hermes import probe
from core.store.atomic import read_regular, read_small, write_private
from core.store.journal import private_state_folder, state_root

if TYPE_CHECKING:  # pragma: no cover
    from core.doctor.check import Verdict
# The check (its cases, the driver's protocol) is imported where a remembered verdict is read or
# written: `hmc status` asks for_home on every run, and most homes have no Hermes hmc can run.

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
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: nesting deeper than json's
        return None
    return data if isinstance(data, dict) else None


_OPTIONAL_TEXT = ("where", "how", "rules", "notice", "reported", "error", "hermes_digest")
_COUNTS = ("agreed", "run", "skipped")


def _number(v) -> bool:
    return type(v) in (int, float) and math.isfinite(v)


MAX_TEXT = 4_096  # any text field hmc writes is shorter (a path, a version, a shortened answer)
MAX_CASE = 200  # a case is named by hmc ("a byte-order mark before entry 1")
MAX_DIFFERENCES = 1_000


def problem(data: dict) -> str | None:
    """What is wrong with a remembered verdict, field by field (None: every field is as hmc writes it,
    each text no longer than hmc writes it: a 100,000-character case was printed whole in a refusal)."""
    from core.doctor.cases import AREA_NAMES

    if data.get("status") not in ("agree", "differ"):
        return "its status"
    for key in ("version", "python", "hmc_digest"):
        if type(data.get(key)) is not str or not data[key] or len(data[key]) > MAX_TEXT:
            return f"its {key}"
    for key in _OPTIONAL_TEXT:
        if data.get(key) is not None and (type(data[key]) is not str or len(data[key]) > MAX_TEXT):
            return f"its {key}"
    for key in ("checked_at", "seconds"):
        if data.get(key) is not None and not _number(data[key]):
            return f"its {key}"
    areas = data.get("areas")
    if type(areas) is not dict or not areas:
        return "its areas"
    for name, counts in areas.items():
        if name not in AREA_NAMES or type(counts) is not dict or set(counts) != set(_COUNTS) \
                or not all(type(counts[k]) is int and counts[k] >= 0 for k in _COUNTS) \
                or counts["agreed"] > counts["run"]:
            return f"its area {name[:40]!r}"
    differences = data.get("differences")
    if type(differences) is not list or len(differences) > MAX_DIFFERENCES:
        return "its differences"
    for d in differences:
        if type(d) is not dict or set(d) != {"area", "case", "hermes", "hmc"} \
                or not all(type(v) is str and len(v) <= MAX_TEXT for v in d.values()) or d["area"] not in areas \
                or len(d["case"]) > MAX_CASE:
            return "a difference"
    differs = any(c["agreed"] < c["run"] for c in areas.values())
    if differs != (data["status"] == "differ") or differs != bool(differences):
        return "its status and counts, which disagree"
    return None


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


class Remembered(NamedTuple):
    """A remembered verdict, or none; a damaged one is ignored, and `damaged` names it."""

    verdict: Verdict | None
    damaged: str | None = None


def load(python: str | Path, version: str) -> Remembered:
    """The last verdict for this interpreter, when it was for this version and hmc's rules haven't
    changed since (else no verdict: the check is due again). A file hmc can't read back exactly as it
    wrote it (any field of another type or shape, a status its counts contradict, JSON nested past
    the parser's depth) is ignored, and the second item says which file and what is wrong."""
    from core.doctor.check import Verdict, hmc_digest

    index_path = folder() / INDEX
    index = _read_json(index_path) if index_path.exists() else {}
    if index is None:
        return Remembered(None, f"hmc's doctor index ({index_path}) can't be read")
    name = index.get(str(python))
    if name is None:
        return Remembered(None)
    if not isinstance(name, str) or "/" in name or "\\" in name or name.startswith(".") or not name.endswith(".json"):
        return Remembered(None, f"hmc's doctor index ({index_path}) names no verdict file")
    path = folder() / name
    if not path.exists():
        return Remembered(None)
    data = _read_json(path)
    wrong = "it can't be read as JSON" if data is None else problem(data)
    if wrong is not None:
        return Remembered(None, f"hmc's remembered doctor verdict ({path}) is damaged ({wrong.removeprefix('its ')})")
    verdict = Verdict.from_dict(data)
    if verdict.version != version or verdict.hmc_digest != hmc_digest():
        return Remembered(None)
    return Remembered(verdict)


def for_home(home_root: Path | None, path: str | None = None) -> tuple[probe.Installed | None, Remembered]:
    """The installed Hermes hmc would check for this home, and its remembered verdict (no subprocess)."""
    try:
        installed = probe.find(home_root, path, read_small)
    except probe.ProbeError:
        return None, Remembered(None)
    return installed, load(installed.python, installed.version)


def differences_for(verdict: Verdict | None, write: str) -> list[str]:
    """One line per area a `write` ("memory" | "approve") depends on where this Hermes was shown
    to differ: "your Hermes reads its files differently from what hmc expects (reading: a
    byte-order mark before entry 1)"."""
    if verdict is None or verdict.status != "differ":
        return []
    from core.doctor.cases import AREA_NAMES

    out = []
    for area in WRITES[write]:
        cases = [d.case for d in verdict.differences if d.area == area]
        if cases:
            more = f" and {len(cases) - 1} more" if len(cases) > 1 else ""
            out.append(f"your Hermes {verdict.version} {SAYS[area]} from what hmc expects "
                       f"({AREA_NAMES[area]}: {cases[0]}{more})")
    return out
