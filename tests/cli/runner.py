"""Run `hmc` as a real subprocess (python -m tui.cli) with the test's isolated environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def hmc(*args: str, home: Path | None = None, today: str | None = "2026-11-15",
        stdin: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, COLUMNS="200", NO_COLOR="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    head = [sys.executable, "-m", "tui.cli"]
    if home is not None:
        head += ["--home", str(home)]
    if today is not None:
        head += ["--today", today]
    return subprocess.run([*head, *args], capture_output=True, text=True, env=env, timeout=120, input=stdin)
