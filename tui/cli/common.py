"""What every CLI subcommand shares: the curator from the global options, output, masking, errors.

Output goes through this module only: `CliContext.text` / `CliContext.print` (a `SafeConsole`,
which makes controls visible in every segment) and `CliContext.json` (`tui.literal.dumps`, which
escapes controls and bidi code points); errors through `CliError`, whose message `tui.cli.main`
masks and renders literally on stderr. Secrets are masked by one helper, `Masker`, unless the
command was given `--reveal`.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from datetime import date, datetime
from datetime import time as dt_time
from typing import TYPE_CHECKING, Any

from core.errors import CliError  # noqa: F401  (re-exported)
from core.home import create_home, os_error_text  # noqa: F401  (re-exported)
from tui.literal import ReaderGone, dumps, literal, visible, visible_controls  # noqa: F401  (re-exported)

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console
    from rich.text import Text

    from core.scan.mask import Masker
# rich is imported when the first line of text is printed (CliContext.console): a command that
# prints only JSON never loads it.
# core.scan.mask (its filter's pattern compiles on import, ~2 ms) is imported where a message is
# masked, not here: the TUI imports this module before its first frame and masks nothing there.
# The commands import Masker and mask_untrusted from core.scan.mask themselves.


def say(message: str, reveal: bool = False) -> None:
    """One line on stderr (`hmc: …`): secrets masked (unless --reveal), controls made visible."""
    try:
        from core.scan.mask import mask_untrusted

        message = mask_untrusted(message, reveal)
    except Exception:  # the scan is advisory; the message still gets out, literally
        pass
    sys.stderr.write("hmc: " + visible(" ".join(str(message).splitlines())) + "\n")


def add_reveal(parser) -> None:
    parser.add_argument("--reveal", action="store_true",
                        help="print secrets the security scan finds instead of masking them (sk-…9f2a)")


def new_console() -> "Console":
    """The CLI's console. Its size is looked up once: rich would ask the OS on every print, which
    made listing 17,000 entries take seconds."""
    from tui.literal import SafeConsole

    console = SafeConsole(highlight=False, soft_wrap=True)
    width, height = console.size
    console.width, console.height = width, height
    return console


# -- the context -----------------------------------------------------------------------------------


@dataclass
class CliContext:
    home: str | None = None
    profile: str | None = None
    today: date | None = None
    init: bool = False  # --init: use (or create) a folder that isn't a Hermes home yet
    hermes_version: str | None = None  # --hermes-version: whose rules to follow (else detected)
    reveal: bool = False  # --reveal: secrets printed as they are
    _console: "Console | None" = None
    _curator: Any = None
    _mask: Masker | None = None
    json_written: bool = False  # a JSON document went to stdout

    def curator(self, require_home: bool = True):
        """The curator for the global options; a missing home (or a folder that isn't one) exits 2."""
        if self._curator is None:
            from core.curator import open_curator
            from core.hermes.release import VersionError
            from core.home import HomeError

            clock = time.time
            if self.today is not None:  # ages are counted from noon of --today, local time
                noon = datetime.combine(self.today, dt_time(12)).timestamp()
                clock = lambda: noon  # noqa: E731
            if self.init and self.home:
                self._create_home()
            try:
                curator = open_curator(self.home, self.profile, self.today, clock, self.hermes_version)
            except VersionError as exc:
                raise CliError(f"{exc} (from --hermes-version or $HMC_HERMES_VERSION)") from None
            except HomeError as exc:
                hint = ("; pass --init to create it, or `hmc demo` to try hmc on a demo home"
                        if "no Hermes home" in str(exc) else "")
                raise CliError(f"{exc}{hint}") from None
            if require_home and not self.init:
                self._check_home(curator.home)
            self._curator = curator
        return self._curator

    @property
    def console(self) -> "Console":
        if self._console is None:
            self._console = new_console()
        return self._console

    def forget_curator(self) -> None:
        """The next curator() opens the home afresh (it was just created, or the home changed)."""
        self._curator = None

    def _create_home(self) -> None:
        """--init: a folder that isn't a Hermes home yet becomes one (core.home.init_home: the folder
        and memories/); a home is left as it is."""
        from pathlib import Path

        from core.home import is_hermes_home

        if not is_hermes_home(Path(self.home).expanduser()):
            create_home(self.home)

    @staticmethod
    def _check_home(home) -> None:
        from core.home import is_hermes_home

        if not is_hermes_home(home.root):
            raise CliError(f"{home.display()} is not a Hermes home (no config.yaml, memories/ or state.db); "
                           "pass --init to use it anyway, or `hmc demo` to try hmc on a demo home")

    # -- output: the only ways a command prints ---------------------------------------------------
    # Every string printed goes through the one Masker (unless --reveal): a command masks the fields
    # it knows (with the texts a message quotes), and whatever else reaches the terminal — an id, a
    # session's source, a path, a name — is masked here, so no path can print a secret.
    @property
    def mask(self) -> Masker:
        if self._mask is None:
            from core.scan.mask import Masker

            self._mask = Masker(self.reveal)
        return self._mask

    def json(self, obj: Any) -> None:
        self.json_written = True  # (a refusal after it isn't printed as a second document: tui.cli.main)
        try:
            sys.stdout.write(dumps(self.mask.obj(obj), indent=2) + "\n")
            sys.stdout.flush()
        except BrokenPipeError:
            raise ReaderGone from None

    def print(self, *renderables: Any) -> None:
        """Print rich renderables; every text segment is made literal by the SafeConsole, and
        secrets in text are masked."""
        self.console.print(*(masked_text(r, self.mask) for r in renderables))

    def text(self, *parts: "str | Text", style: str = "") -> None:
        """Print one line of untrusted text literally (never as markup), each part masked. A line
        break inside a text part shows as ␊: a title, a chat's name or a path can't start a line
        of its own (what is meant as several lines, an entry's, is printed a line at a time)."""
        from rich.text import Text

        line = Text()
        for part in parts:
            if not isinstance(part, Text):
                part = literal(part.replace("\n", "\u240a") if isinstance(part, str) else part)
            elif "\n" in part.plain:  # one character for one: the styles stay where they were
                part = Text(part.plain.replace("\n", "\u240a"), style=part.style, spans=list(part.spans))
            line.append_text(masked_text(part, self.mask))
        if style:
            line.stylize(style)
        self.console.print(line)


def masked_text(renderable: Any, mask: Masker) -> Any:
    """`renderable` with the secrets in its text masked: a string, or a Text run by run (each run
    of one style: a field a command printed, or its label), so a field the command already masked
    is looked up, not scanned again."""
    from rich.text import Text

    if isinstance(renderable, str):
        return mask(renderable)
    if not isinstance(renderable, Text) or mask.reveal:
        return renderable
    plain = renderable.plain
    cuts = sorted({n for span in renderable.spans for n in (span.start, span.end) if 0 < n < len(plain)})
    parts = renderable.divide(cuts) if cuts else [renderable]
    shown = [mask(part.plain) for part in parts]
    if all(text == part.plain for text, part in zip(shown, parts)):
        return renderable
    out = Text(style=renderable.style, justify=renderable.justify, no_wrap=renderable.no_wrap,
               end=renderable.end)
    for text, part in zip(shown, parts):
        piece = Text(text)
        for span in part.spans:
            piece.stylize(span.style)
        out.append_text(piece)
    return out


# -- shared by some subcommands ---------------------------------------------------------------------


def plainly(message: str, store=None, see: str | None = "hmc memory list") -> str:
    """A release's refusal (or result) said for a person (core.hermes.wording), about `store`'s file
    and its entries now; a message that isn't a release's comes back unchanged."""
    from core.hermes.wording import for_person

    return for_person(str(message)) if store is None else store.for_person(message, see)


def unreadable(problems: list[str]) -> int:
    """Exit 2 with the reason on stderr when a file couldn't be read (the other is still listed)."""
    if problems:
        say("; ".join(problems))
        return 2
    return 0


def list_document(subsystem: str, queues: list[dict], records: list[dict]) -> dict:
    """`pending list --json`, the same shape for every --subsystem: `subsystem`, `count`, `counts`
    (per queue), `queues` ([{subsystem, folder, write_approval, count}]) and `records` (each with
    its `subsystem`); one queue's form also keeps its `folder` and `write_approval` at the top."""
    out = {"subsystem": subsystem, "count": len(records), "counts": {q["subsystem"]: q["count"] for q in queues},
           "queues": queues, "records": records}
    if len(queues) == 1:
        out = {"folder": queues[0]["folder"], "write_approval": queues[0]["write_approval"], **out}
    return out


def queue_json(subsystem: str, folder, write_approval, count: int) -> dict:
    return {"subsystem": subsystem, "folder": str(folder), "write_approval": write_approval, "count": count}


def count_arg(low: int = 0, high: int = 10**9):
    """An argparse type: a whole number from `low` to `high` (a 23-digit offset overflowed SQLite's
    integers and ended in "unexpected error")."""
    import argparse

    def parse(text: str) -> int:
        try:
            value = int(text.strip(), 10) if len(text.strip()) <= 20 else None
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text[:30]!r} is not a whole number from {low:,} to {high:,}")
        return value

    return parse


def batch_exit(kinds: list[str], done: bool) -> int:
    """A batch's exit code from its failures' kinds: 0 when nothing failed; 2 when the OS refused a
    write (the home can't be written: a read-only file system, no permission, a full disk; no retry
    or other text helps), or when nothing was done and every failure was an id that isn't there;
    else 1 (refused: what stays pending says why)."""
    if not kinds:
        return 0
    if "unwritable" in kinds or (not done and all(k == "unknown" for k in kinds)):
        return 2
    return 1


def refuse_if_rules_differ(curator, write: str, force: bool, how: str = "pass --force to write anyway") -> None:
    """A write that depends on an area `hmc doctor` found your Hermes to differ in is refused (exit 1),
    naming the difference, unless --force (core.doctor.verdict.differences_for)."""
    if force:
        return
    from core.doctor.verdict import differences_for, for_home

    _installed, (verdict, _damaged) = for_home(curator.home.root)  # a damaged verdict: none (status names it)
    if verdict is None or verdict.rules != curator.release.name:  # checked under other rules: not these
        return
    lines = differences_for(verdict, write)
    if lines:
        raise CliError("refused: " + "; ".join(lines) + f" (see `hmc doctor`; {how})", 1, refusal="rules-differ")


def set_approval(ctx: CliContext, path, state: str, section: str) -> int:
    """`hmc pending approval on|off` for one subsystem: only its write_approval line changes."""
    from core.pending.config_edit import ConfigEditError, set_write_approval

    try:
        edit = set_write_approval(path, state == "on", section)
    except ConfigEditError as exc:
        raise CliError(str(exc), 2) from None
    label = "write approval" if section == "memory" else "skill write approval"
    if not edit.changed:
        ctx.text(f"{label} was already {state}")
    else:
        what = "created config.yaml with" if edit.created else ("added" if edit.added else "set")
        ctx.text(f"{what} {section}.write_approval: {'true' if edit.after else 'false'} (line {edit.line}); "
                 "Hermes picks it up the next time it loads config.yaml")
    return 0
