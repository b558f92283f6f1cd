"""What every CLI subcommand shares: the curator from the global options, output, masking, errors.

Output goes through this module only: `CliContext.text` / `CliContext.print` (a `SafeConsole`,
which makes controls visible in every segment) and `CliContext.json` (`tui.literal.dumps`, which
escapes controls and bidi code points); errors through `CliError`, whose message `tui.cli.main`
masks and renders literally on stderr. Secrets are masked by one helper, `Masker`, unless the
command was given `--reveal`.
"""

from __future__ import annotations

import re
import sys
import time
import unicodedata
from dataclasses import dataclass, field
from datetime import date, datetime
from datetime import time as dt_time
from functools import lru_cache
from typing import Any, Iterable

from rich.console import Console
from rich.text import Text

from tui.literal import SafeConsole, dumps, literal, visible, visible_controls  # noqa: F401  (re-exported)


class CliError(Exception):
    """A refusal or bad input: one line on stderr, then exit with `code` (1 refused, 2 bad input)."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


def os_error_text(exc: OSError, doing: str | None = None) -> str:
    """One line for an OS error: `can't read ~/x/MEMORY.md: permission denied`."""
    from core.home import tilde

    what = (exc.strerror or str(exc) or type(exc).__name__).rstrip(".")
    what = what[:1].lower() + what[1:]
    name = getattr(exc, "filename", None)
    where = tilde(name) if isinstance(name, str) else (name.decode(errors="replace") if isinstance(name, bytes) else "")
    head = f"can't {doing}" if doing else ""
    if where:
        head = f"{head} {where}" if head else where
    return f"{head}: {what}" if head else what


# -- secrets ---------------------------------------------------------------------------------------

SCAN_WINDOW = 65_536        # the scanner's own cap per call
SCAN_OVERLAP = 1_024        # a secret across a window edge is still seen whole
MASK_SCAN_LIMIT = 1_000_000  # past this, text is not printed at all unless revealed
MIN_PREFIX = 8              # a known secret cut short (`AKIAQWER…`) is masked from this length
MAX_DEPTH = 64              # JSON output shows nested values this deep


def secrets_in(text: str) -> tuple[str, ...]:
    """Every secret value the scanner finds in `text` (scanned in windows, up to MASK_SCAN_LIMIT)."""
    return _secrets_cached(text) if len(text) <= 4_096 else _secrets(text)  # a short text recurs often


@lru_cache(maxsize=4096)
def _secrets_cached(text: str) -> tuple[str, ...]:
    return _secrets(text)


# A secret the scanner can find has a long token, a secret-ish word, a URL with credentials, a PEM
# block or hidden tag characters; text with none of them (most entries, most messages) skips the full
# scan, so masking a 100,000-entry listing stays cheap. tests/cli/test_hostile_cli_literal.py checks
# every secret shape of the scanner's corpus passes this filter.
_MAYBE_SECRET = re.compile(
    r"[A-Za-z0-9_+/=.~-]{16}|PRIVATE KEY|://|pass|pwd|secret|token|key|cred|auth|bearer|mot\s+de|contrase"
    r"|пароль|密码|口令|[\U000e0000-\U000e007f]", re.IGNORECASE)


def maybe_secret(text: str) -> bool:
    if _MAYBE_SECRET.search(text):
        return True
    return not text.isascii() and _MAYBE_SECRET.search(unicodedata.normalize("NFKC", text)) is not None


def _secrets(text: str) -> tuple[str, ...]:
    from core.scan import scanner

    found: set[str] = set()
    end = min(len(text), MASK_SCAN_LIMIT)
    start = 0
    while start < end:
        chunk = text[start:min(end, start + SCAN_WINDOW)]
        for f in (scanner.scan(chunk) if maybe_secret(chunk) else ()):
            if f.secret and f.end > f.start:
                found.add(chunk[f.start:f.end])
        if start + SCAN_WINDOW >= end:
            break
        start += SCAN_WINDOW - SCAN_OVERLAP
    return tuple(sorted(found, key=len, reverse=True))


def _mask_one(secret: str) -> str:
    from core.scan import scanner

    return scanner.mask(secret)


class Masker:
    """Masks secrets (`sk-…9f2a`) in untrusted strings; `reveal=True` leaves them as they are.

    Each string is scanned itself; secrets found in `sources` (the texts a message was built from:
    the entry a replace overwrote, a record's payload) are masked too, also when a message quotes
    them cut short (`was 'AWS key AKIAQWER…'`).
    """

    def __init__(self, reveal: bool = False, sources: Iterable[object] = ()) -> None:
        self.reveal = reveal
        self.known: set[str] = set()
        if not reveal:
            self.learn(*sources)

    def learn(self, *sources: object) -> None:
        if self.reveal:
            return
        for source in sources:
            for text in _strings(source):
                self.known.update(secrets_in(text))

    def __call__(self, text: object) -> str:
        if not isinstance(text, str):
            text = "" if text is None else str(text)
        if self.reveal or not text:
            return text
        tail = ""
        if len(text) > MASK_SCAN_LIMIT:
            tail = f"… ({len(text) - MASK_SCAN_LIMIT:,} more characters not shown: --reveal prints them)"
            text = text[:MASK_SCAN_LIMIT]
        for secret in sorted(self.known.union(secrets_in(text)), key=len, reverse=True):
            if secret in text:
                text = text.replace(secret, _mask_one(secret))
        for secret in self.known:
            text = _mask_prefixes(text, secret)
        return text + tail

    def obj(self, obj: Any, depth: int = 0) -> Any:
        """`obj` (JSON-like) with every string masked; past MAX_DEPTH levels, a note instead."""
        if isinstance(obj, str):
            return self(obj)
        if isinstance(obj, list | tuple | dict) and depth >= MAX_DEPTH:
            return f"… (nested more than {MAX_DEPTH} levels deep: not shown)"
        if isinstance(obj, list | tuple):
            return [self.obj(x, depth + 1) for x in obj]
        if isinstance(obj, dict):
            return {self(str(k)): self.obj(v, depth + 1) for k, v in obj.items()}
        return obj


def _mask_prefixes(text: str, secret: str) -> str:
    """Mask `secret` where `text` quotes only its beginning (a preview cut at a length)."""
    head = secret[:MIN_PREFIX]
    if len(secret) <= MIN_PREFIX or head not in text:
        return text
    out, i = [], 0
    for m in re.finditer(re.escape(head), text):
        if m.start() < i:
            continue
        n = MIN_PREFIX
        while n < len(secret) and m.start() + n < len(text) and text[m.start() + n] == secret[n]:
            n += 1
        out.append(text[i:m.start()])
        out.append(_mask_one(secret))
        i = m.start() + n
    out.append(text[i:])
    return "".join(out)


def _strings(obj: object) -> Iterable[str]:
    """Every string in `obj` (nested lists and dicts), without recursion: any depth is fine."""
    stack = [obj]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            yield node
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list | tuple | set | frozenset):
            stack.extend(node)


def mask_untrusted(text: object, reveal: bool = False) -> str:
    """`text` with every secret the scanner finds in it masked (unless `reveal`)."""
    return Masker(reveal)(text)


def say(message: str, reveal: bool = False) -> None:
    """One line on stderr (`hmc: …`): secrets masked (unless --reveal), controls made visible."""
    try:
        message = mask_untrusted(message, reveal)
    except Exception:  # the scan is advisory; the message still gets out, literally
        pass
    sys.stderr.write("hmc: " + visible(" ".join(str(message).splitlines())) + "\n")


def add_reveal(parser) -> None:
    parser.add_argument("--reveal", action="store_true",
                        help="print secrets the security scan finds instead of masking them (sk-…9f2a)")


def new_console() -> Console:
    """The CLI's console. Its size is looked up once: rich would ask the OS on every print, which
    made listing 17,000 entries take seconds."""
    console = SafeConsole(highlight=False, soft_wrap=True)
    width, height = console.size
    console.width, console.height = width, height
    return console


def create_home(path) -> list:
    """`--init` and the TUI's first-run screen: make `path` a Hermes home (core.home.init_home), or
    raise CliError with the one-line reason (nothing is left half-made)."""
    from core.home import init_home

    try:
        return init_home(path)
    except OSError as exc:
        raise CliError(os_error_text(exc, "create")) from None


# -- the context -----------------------------------------------------------------------------------


@dataclass
class CliContext:
    home: str | None = None
    profile: str | None = None
    today: date | None = None
    init: bool = False  # --init: use (or create) a folder that isn't a Hermes home yet
    hermes_version: str | None = None  # --hermes-version: whose rules to follow (else detected)
    console: Console = field(default_factory=lambda: new_console())
    _curator: Any = None

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
    def json(self, obj: Any) -> None:
        sys.stdout.write(dumps(obj, indent=2) + "\n")

    def print(self, *renderables: Any) -> None:
        """Print rich renderables; every text segment is made literal by the SafeConsole."""
        self.console.print(*renderables)

    def text(self, *parts: str | Text, style: str = "") -> None:
        """Print untrusted text literally (never as markup)."""
        line = Text()
        for part in parts:
            line.append(part if isinstance(part, Text) else literal(part))
        if style:
            line.stylize(style)
        self.console.print(line)
