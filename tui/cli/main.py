"""`hmc`: the TUI by default, or a subcommand that prints (DESIGN.md's CLI contract)."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from datetime import date

# Nothing else at the top: the commands import what they use (tui.cli.common brings rich), so that
# `hmc --version` and `hmc status --short` start like small tools (tests/cli/test_import_graph.py).

# Subcommand modules (tui/cli/<name>.py), each with register(sub) setting `run` on its parsers,
# and the commands each one provides.
COMMAND_MODULES = {
    "demo": ("demo",),
    "status": ("status",),
    "memory": ("memory",),
    "pending": ("pending",),
    "search": ("search", "session"),
    "sessions": ("sessions",),
    "review": ("review",),
    "undo": ("undo",),
    "history": ("log", "blame", "rollback"),
    "doctor": ("doctor",),
    "config": ("config",),
    "why": ("why",),
    "profiles": ("profiles",),
    "completion": ("completion",),
}


class Parser(argparse.ArgumentParser):
    json_wanted = False  # --json was typed: a usage error is a JSON document on stdout too

    def error(self, message: str):  # one line, exit 2 (argparse's default prints usage too)
        from core.scan.mask import mask_untrusted  # the message quotes what was typed: secrets masked,
        from tui.literal import visible  # controls made visible

        line = f"{message} (see `{self.prog} --help`)"
        if Parser.json_wanted:
            json_error(line, 2, False)
        self.exit(2, visible(mask_untrusted(f"hmc: {line}")) + "\n")


class VersionAction(argparse.Action):
    """`hmc --version`: the installed version (looked up only when asked: start-up stays fast)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stdout.write(f"hmc {version()}\n")
        parser.exit(0)


def version() -> str:
    """hmc's version: tui.__version__, which pyproject.toml reads (importlib.metadata would scan
    every installed distribution first: ~80 ms)."""
    from tui import __version__

    return __version__


def iso_date(text: str) -> date:
    from core.timefmt import out_of_range  # (not core.sessions: `status --short --today` stays light)

    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date (YYYY-MM-DD)") from None
    why = out_of_range(day, text)
    if why:
        raise argparse.ArgumentTypeError(why)
    return day


GLOBAL_WITH_VALUE = {"--home", "--profile", "--today", "--hermes-version"}


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
    parser.add_argument("--hermes-version", metavar="X.Y", dest="hermes_version",
                        help="follow this Hermes release's rules (default: $HMC_HERMES_VERSION, else detected "
                             "from the installed hermes-agent or state.db)")
    parser.add_argument("--init", action="store_true",
                        help="use --home even if it isn't a Hermes home yet (no config.yaml, memories/ or "
                        "state.db); creates the folder if needed")
    parser.add_argument("--version", action=VersionAction, help="print hmc's version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name in COMMAND_MODULES if modules is None else modules:
        importlib.import_module(f"tui.cli.{name}").register(sub)
    describe(parser)
    return parser


def describe(parser: argparse.ArgumentParser) -> None:
    """Every subcommand's --help opens with a description: its own, else the line its parent's list
    shows for it (as a sentence), so that `hmc memory add --help` says what the command does."""
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        said = {choice.dest: choice.help for choice in action._choices_actions}
        for name, child in action.choices.items():
            line = said.get(name)
            if not child.description and line:
                child.description = line[:1].upper() + line[1:] + ("" if line.endswith(".") else ".")
            describe(child)


# Command modules that import nothing of hmc's core at the top: `status --short` answers from its
# summary before the kept dataclass code (core.dataclass_code) is even read.
LIGHT_MODULES = {"status"}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    modules = modules_for(argv)
    try:
        if set(modules) - LIGHT_MODULES:  # its module defines hmc's classes as it loads
            keep_dataclass_code()
        return parse_and_run(argv, modules)
    finally:
        if "core.dataclass_code" in sys.modules:
            sys.modules["core.dataclass_code"].deactivate()


def keep_dataclass_code() -> None:
    """From here on, classes are defined from the code the last run compiled (core.dataclass_code)."""
    from core import dataclass_code

    if dataclass_code.active() is None:
        dataclass_code.activate()


def parse_and_run(argv: list[str], modules: list[str]) -> int:
    parser = build_parser(modules)  # importing every command would slow the TUI's start
    safe_streams()
    Parser.json_wanted = "--json" in argv
    args = parser.parse_args(argv)
    early = getattr(args, "early", None)  # a command that may answer before hmc is loaded (status --short)
    if early is not None:
        try:
            done = early(args)
        except (BrokenPipeError, KeyboardInterrupt):
            quiet_stdout()
            return 0
        except Exception:  # noqa: BLE001 - a shortcut: the command's full run below says what's wrong
            done = None
        if done is not None:
            return done
    if args.command is not None:  # (the TUI imports little before its first frame, and is measured there)
        keep_dataclass_code()  # before hmc's classes are defined: their methods as the last run compiled them
    return run_parsed(args)


def run_parsed(args) -> int:
    """The command (or the TUI) for parsed arguments: its exit code, every error said in one line."""
    import gc

    from tui.cli.common import CliContext, CliError, ReaderGone, os_error_text, say

    reveal = bool(getattr(args, "reveal", False))
    ctx = CliContext(home=args.home, profile=args.profile, today=args.today, init=args.init,
                     hermes_version=args.hermes_version, reveal=reveal)
    try:
        if args.command is None:
            # The TUI's start makes a few hundred thousand objects (Textual, the stylesheet, the
            # first screen) and collects nothing worth it: no collector until the first frame is
            # out (CuratorApp.collector_back), as a fifth of the start went to it.
            gc.disable()
            try:
                from tui.cli.demo import try_demo
                from tui.cli.open_tui import run_tui

                return run_tui(ctx, try_demo)
            finally:
                gc.enable()
        from core import clean_texts

        clean_texts.activate()  # what this run's printing finds clean isn't scanned again next run
        try:
            return int(args.run(args, ctx) or 0)
        finally:
            clean_texts.deactivate()
    except CliError as exc:
        say(str(exc), reveal)
        if getattr(args, "json", False) and not ctx.json_written:  # a script reading stdout gets it as JSON too
            json_error(str(exc), exc.code, reveal, exc.refusal)
        return exc.code
    except KeyboardInterrupt:
        say("interrupted")
        return 130
    except (BrokenPipeError, ReaderGone):  # the reader went away (`hmc log | head -1`): end quietly, as other tools do
        quiet_stdout()
        return 0
    except RecursionError:  # a structure too deep to walk (issue 9): unreadable input, not a crash
        say("the input is nested too deeply to read")
        return 2
    except OSError as exc:  # a file or folder the OS refused: one line, as everywhere else
        say(os_error_text(exc), reveal)
        return 2
    except Exception as exc:  # never a traceback for a person; the type helps a bug report
        say(f"unexpected error: {type(exc).__name__}: {exc}", reveal)
        return 2


def json_error(message: str, code: int, reveal: bool, refusal: str | None = None) -> None:
    """`{"error": …, "exit": n}` on stdout, for --json: what went to stderr, masked as there; a
    refused write (`refusal`: its kind) as the refused writes' documents are, `{"changed": false,
    "refused": {kind, reason, reason_plain, exit}}`, with `error` and `exit` beside it."""
    from core.scan.mask import mask_untrusted
    from tui.literal import dumps

    said = mask_untrusted(message, reveal)
    doc: dict = {"error": said, "exit": code}
    if refusal:
        doc = {"changed": False, "refused": {"kind": refusal, "reason": said, "reason_plain": said, "exit": code},
               **doc}
    try:
        sys.stdout.write(dumps(doc, indent=2) + "\n")
        sys.stdout.flush()
    except (BrokenPipeError, OSError):
        pass


def quiet_stdout() -> None:
    """stdout pointed at /dev/null, so that the interpreter's last flush to a closed pipe doesn't
    print "Exception ignored … BrokenPipeError" (the recipe of Python's signal documentation)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, AttributeError, ValueError):  # no real stdout (tests): nothing will flush to it
        pass


def safe_streams() -> None:
    """Text that can't be encoded for the terminal is escaped, never an error mid-output."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError):  # replaced or detached streams (tests, pipes)
            pass


if __name__ == "__main__":
    sys.exit(main())
