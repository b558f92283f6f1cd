"""`hmc demo`: build (or reuse) the demo home and open the TUI on it."""

from __future__ import annotations

import argparse
from pathlib import Path

import platformdirs

from tui.cli.common import CliContext, CliError, os_error_text


def default_demo_dir() -> Path:
    return Path(platformdirs.user_data_path("hmc")) / "demo-home"


def register(sub) -> None:
    p = sub.add_parser(
        "demo", help="build (or reuse) a demo Hermes home and open hmc on it",
        description="Builds a realistic demo Hermes home (memory near capacity with problems to find, "
        "pending writes of every kind, a state.db of ~5,000 messages) and opens the TUI on it.",
    )
    p.add_argument("--dir", metavar="PATH", type=Path, help=f"where the demo home lives (default: {default_demo_dir()})")
    p.add_argument("--no-tui", action="store_true", help="only build it and print its path")
    p.add_argument("--fresh", action="store_true", help="rebuild the demo home from scratch (deletes the old one)")
    p.add_argument("--json", action="store_true", help="build it and print {\"path\", \"built\"} (no TUI)")
    p.set_defaults(run=run)


def ensure_demo(path: Path, fresh: bool = False, today=None) -> tuple[Path, bool]:
    """Build the demo home at `path` unless one is already there. Returns (path, built)."""
    marker = path / ".hmc-demo"
    for folder in (path, *path.parents):  # the path, or the first part of it that exists, must be a folder
        if folder.exists():
            if not folder.is_dir():
                raise CliError(f"{folder} is not a folder; choose another --dir for the demo home")
            break
    try:
        return _ensure(path, marker, fresh, today)
    except OSError as exc:  # a folder the OS refuses to list, create or write
        raise CliError(f"can't build the demo home: {os_error_text(exc)}") from None


def _ensure(path: Path, marker: Path, fresh: bool, today) -> tuple[Path, bool]:
    import shutil

    from core.demo.build import build_demo_home

    if path.exists() and fresh:
        if not marker.exists():
            raise CliError(f"{path} is not an hmc demo home; refusing to delete it")
        shutil.rmtree(path)
    if path.exists() and any(path.iterdir()):
        if not marker.exists():
            raise CliError(f"{path} exists and is not an hmc demo home; choose another --dir")
        return path, False
    from datetime import date

    build_demo_home(path, today=today or date.today())
    marker.write_text("built by `hmc demo`; safe to delete\n", encoding="utf-8")
    return path, True


def run(args, ctx: CliContext) -> int:
    path = (args.dir or default_demo_dir()).expanduser()
    path, built = ensure_demo(path, args.fresh, ctx.today)
    if getattr(args, "json", False):
        ctx.json({"path": str(path), "built": built})
        return 0
    if args.no_tui:
        ctx.text(str(path))
        return 0
    ctx.home, ctx.profile = str(path), None
    from tui.cli.open_tui import run_tui

    return run_tui(ctx, try_demo)


def try_demo(ctx: CliContext) -> int:
    """The first-run screen's "try the demo": exactly `hmc demo`."""
    return run(argparse.Namespace(dir=None, no_tui=False, fresh=False), ctx)
