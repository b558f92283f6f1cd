"""Recording real sessions with a release (timeline_recorder.py in a subprocess), for the timeline
tests: the release's SessionDB stores the calls, its memory_tool really writes the files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tests.conformance import releases

RECORDER = Path(__file__).with_name("timeline_recorder.py")
T0 = 1_790_000_000.0  # 2026-09-21: every step's time is T0 + its minute


@dataclass
class Script:
    """Steps for the recorder; each call is a minute after the last step."""

    steps: list = field(default_factory=list)
    minute: int = 0

    def session(self, sid: str, source: str = "cli") -> "Script":
        self.steps.append({"session": sid, "source": source})
        return self

    def call(self, sid: str, call_id: str | None = None, limits=None, **args) -> "Script":
        self.minute += 1
        step = {"call": args, "session": sid, "ts": T0 + 60 * self.minute}
        if call_id is not None:
            step["call_id"] = call_id
        if limits is not None:
            step["limits"] = list(limits)
        self.steps.append(step)
        return self

    def hand(self, target: str, text: str) -> "Script":
        self.minute += 1
        self.steps.append({"hand": {"target": target, "text": text}, "ts": T0 + 60 * self.minute})
        return self

    def message(self, sid: str, **kw) -> "Script":
        self.minute += 1
        self.steps.append({"raw_message": kw, "session": sid, "ts": T0 + 60 * self.minute})
        return self


@dataclass
class Recording:
    home: Path
    steps: list  # per step: {"result"?, "ids"?, "files": {"memory": text|None, "user": …}}
    script: Script

    def time_of(self, i: int) -> float:
        return self.script.steps[i].get("ts", T0)

    def results(self) -> list:
        return [s.get("result") for s in self.steps]


def record(oracle, home: Path, script: Script, config: str | None = None) -> Recording:
    """Run `script` with the oracle's release on `home` (created if needed)."""
    home = Path(home)
    (home / "memories").mkdir(parents=True, exist_ok=True)
    if config is not None:
        (home / "config.yaml").write_text(config, encoding="utf-8")
    start = releases._START_ENV
    env = {"PATH": start.get("PATH", os.defpath), "PYTHONPATH": str(oracle.folder), "PYTHONHASHSEED": "0",
           "PYTHONIOENCODING": "utf-8", "HERMES_HOME": str(home), "HOME": str(home.parent / "user-home"),
           "TZ": "UTC", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    (home.parent / "user-home").mkdir(exist_ok=True)
    proc = subprocess.run([sys.executable, "-P", str(RECORDER)], input=json.dumps({"home": str(home),
                          "steps": script.steps}), capture_output=True, text=True, env=env, cwd=home.parent,
                          timeout=120)
    if proc.returncode != 0 or not proc.stdout.strip():
        raise RuntimeError(f"recorder failed ({proc.returncode}): {proc.stderr[-3000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    return Recording(home, out["steps"], script)
