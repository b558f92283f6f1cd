"""`hmc`: the TUI by default, or a subcommand that prints (DESIGN.md's CLI contract)."""

from __future__ import annotations

import argparse
import importlib
import sys
from datetime import date

from tui.commands.common import CliContext, CliError

# Subcommand modules (tui/commands/<name>.py), each with register(sub) setting `run` on its parsers,
# and the commands each one provides.
COMMAND_MODULES = {
    "demo": ("demo",),
    "status": ("status",),
    "memory": ("memory",),
    "pending": ("pending",),
    "search": ("search", "session"),
    "review": ("review",),
}


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2 (argparse's default prints usage too)
        self.exit(2, f"hmc: {message} (see `{self.prog} --help`)\n")


def iso_date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date (YYYY-MM-DD)") from None


GLOBAL_WITH_VALUE = {"--home", "--profile", "--today"}


def requested_command(argv: list[str]) -> str | None:
    """The subcommand named in argv (the first word that is not an option or an option's value)."""
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word in GLOBAL_WITH_VALUE:
            skip = True
        elif not word.startswith("-"):
            return word
    return None


def modules_for(argv: list[str]) -> list[str]:
    """Only the command modules this run needs: none for the TUI, one for a subcommand, all for help."""
    command = requested_command(argv)
    if command is None:
        return list(COMMAND_MODULES) if {"-h", "--help"} & set(argv) else []
    owners = [name for name, commands in COMMAND_MODULES.items() if command in commands]
    return owners or list(COMMAND_MODULES)  # unknown: argparse lists every choice


def build_parser(modules: list[str] | None = None) -> argparse.ArgumentParser:
    parser = Parser(
        prog="hmc",
        description="Hermes Memory Curator: see, fix and govern what your Hermes Agent remembers. "
        "With no subcommand, opens the TUI.",
    )
    parser.add_argument("--home", metavar="PATH", help="Hermes home (default: $HERMES_HOME or ~/.hermes)")
    parser.add_argument("--profile", metavar="NAME", help="profile inside the home (default: the active one)")
    parser.add_argument("--today", metavar="YYYY-MM-DD", type=iso_date, help="the date used for ages and staleness")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name in COMMAND_MODULES if modules is None else modules:
        importlib.import_module(f"tui.commands.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(modules_for(argv))  # importing every command would slow the TUI's start
    args = parser.parse_args(argv)
    ctx = CliContext(home=args.home, profile=args.profile, today=args.today)
    try:
        if args.command is None:
            return run_tui(ctx)
        return int(args.run(args, ctx) or 0)
    except CliError as exc:
        sys.stderr.write(f"hmc: {exc}\n")
        return exc.code
    except KeyboardInterrupt:
        sys.stderr.write("hmc: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # never a traceback for a person; the type helps a bug report
        sys.stderr.write(f"hmc: unexpected error: {type(exc).__name__}: {exc}\n")
        return 2


def run_tui(ctx: CliContext) -> int:
    curator = ctx.curator()
    from tui.app import CuratorApp

    CuratorApp(curator).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
