"""`hmc` with no subcommand: ask first when the folder isn't a Hermes home, then open the TUI.

Without a terminal there is no one to ask: the CLI's one-line refusal, exit 2. The first-run
screen itself (what it shows, its keys) is tui/screens/first_run.py, imported only when it shows (a
home opens the TUI without it: faster start); "try the demo" is the demo subcommand's
(tui/cli/demo.py), handed in by the caller, so this module imports no subcommand.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Callable

from core.home import default_home, is_hermes_home
from tui.cli.common import CliContext


def has_terminal() -> bool:
    """Someone to ask: the TUI reads keys from stdin and paints on stdout."""
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):  # closed or replaced streams
        return False


def first_run(ctx: CliContext) -> str | None:
    """Before the TUI opens: None when it can open on the home; otherwise the first-run screen's
    answer, DEMO or QUIT (CREATED opens the app too, so it gives None). Without a terminal a folder
    that isn't a home is refused as on the command line (CliError, exit 2)."""
    if ctx.init:
        return None  # --init: the curator creates it, as for every command
    base = Path(ctx.home).expanduser() if ctx.home else default_home()
    path = base
    exists = os.path.lexists(base)
    if exists:
        path = ctx.curator(require_home=False).home.root  # a file, a bad profile: CliError as before
        if is_hermes_home(path):
            return None
    from tui.screens.first_run import CREATED, MISSING, NOT_HOME, QUIT, FirstRunApp

    state = NOT_HOME if exists else MISSING
    if not has_terminal():
        ctx.forget_curator()
        ctx.curator()  # raises the CLI's refusal: "… is not a Hermes home …" / "no Hermes home at …"
        return None
    choice = FirstRunApp(path, state, where_from(ctx)).run() or QUIT
    ctx.forget_curator()  # created: opened again on the home as it is now; demo: on the demo home
    return None if choice == CREATED else choice


def where_from(ctx: CliContext) -> str:
    """Which setting chose the folder, in the words a person would type."""
    if ctx.home:
        return "--home"
    if os.environ.get("HERMES_HOME", "").strip():
        return "$HERMES_HOME"
    return "the default"


def run_tui(ctx: CliContext, try_demo: Callable[[CliContext], int]) -> int:
    choice = first_run(ctx)  # a folder that isn't a Hermes home: ask first (no terminal: exit 2)
    if choice is not None:
        from tui.screens.first_run import DEMO

        return try_demo(ctx) if choice == DEMO else 0  # quit: nothing was created
    curator = ctx.curator(require_home=False)
    from tui.app import CuratorApp

    CuratorApp(curator, prebuild=True).run()  # the other modes built once the first screen is out
    return 0
