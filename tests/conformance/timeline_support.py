"""Recording real sessions with a release (the driver's `record` op, core/hermes/driver.py), for the
timeline tests: the release's SessionDB stores the calls, its memory_tool really writes the files."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

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
    """Run `script` with the oracle's release on `home` (created if needed): the driver's `record`."""
    home = Path(home)
    (home / "memories").mkdir(parents=True, exist_ok=True)
    if config is not None:
        (home / "config.yaml").write_text(config, encoding="utf-8")
    out = oracle._call("record", home=str(home), steps=script.steps, timeout=max(oracle.timeout, 120))
    return Recording(home, out["steps"], script)
