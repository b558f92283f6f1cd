"""Regenerate screenshots/*.svg from every scenario in tools/shots/*.py.

    python tools/screenshots.py            # all
    python tools/screenshots.py memory     # names containing "memory"
"""

from __future__ import annotations

import asyncio
import importlib
import os
import pkgutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import shots  # noqa: E402
from tools.shots import TODAY, Shot, build_app, drive, steady_cursors  # noqa: E402


def scenarios() -> list[Shot]:
    found: list[Shot] = []
    for info in pkgutil.iter_modules(shots.__path__):
        module = importlib.import_module(f"tools.shots.{info.name}")
        found.extend(getattr(module, "SCENARIOS", []))
    return found


async def render(shot: Shot, out: Path) -> None:
    from core.demo.build import build_demo_home

    with tempfile.TemporaryDirectory(prefix="hmc-shot-") as tmp:
        user = Path(tmp) / "user"
        user.mkdir()
        os.environ.update(HOME=str(user), XDG_STATE_HOME=f"{tmp}/state", XDG_DATA_HOME=f"{tmp}/data",
                          XDG_CONFIG_HOME=f"{tmp}/config", TZ="UTC")  # hmc's own settings: the defaults
        os.environ.pop("HERMES_HOME", None)
        time.tzset()
        home = user / ".hermes"
        build_demo_home(home, TODAY)
        app = build_app(home, shot)
        async with app.run_test(size=shot.size, notifications=True) as pilot:  # as the snapshot tests
            await drive(pilot, shot)
            save(app, out)


def save(app, out: Path) -> None:
    """The app's screen as an SVG at `out`, that reads the same in a browser and in librsvg."""
    app.save_screenshot(str(out))
    out.write_text(spaces_kept(out.read_text(encoding="utf-8")), encoding="utf-8")


def spaces_kept(svg: str) -> str:
    """Rich writes each run of same-styled cells as one <text> whose spaces are NBSPs (&#160;).
    librsvg (rsvg-convert, many previewers) drops a run's leading and trailing spaces unless the
    document says its whitespace is preserved: "a add" rendered "aadd", "11 Aug · cli" lost its
    gaps. xml:space="preserve" on the root element says it for every text; browsers render the
    same either way, and the NBSPs stay (a browser would collapse plain spaces in a run)."""
    if 'xml:space="preserve"' in svg[:svg.find(">")]:
        return svg
    start = svg.index("<svg")
    return svg[:start] + '<svg xml:space="preserve"' + svg[start + len("<svg"):]


def main(argv: list[str]) -> int:
    wanted = argv[1:]
    target = ROOT / "screenshots"
    target.mkdir(exist_ok=True)
    restore = steady_cursors()
    try:
        for shot in scenarios():
            if wanted and not any(w in shot.name for w in wanted):
                continue
            out = target / f"{shot.name}.svg"
            asyncio.run(render(shot, out))
            print(f"wrote {out.relative_to(ROOT)}")
    finally:
        restore()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
