"""What every CLI subcommand shares: the curator from the global options, output, errors."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from datetime import date, datetime
from datetime import time as dt_time
from typing import Any

from rich.console import Console
from rich.text import Text

from tui.literal import literal, visible_controls  # noqa: F401  (re-exported for commands)


class CliError(Exception):
    """A refusal or bad input: one line on stderr, then exit with `code` (1 refused, 2 bad input)."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


@dataclass
class CliContext:
    home: str | None = None
    profile: str | None = None
    today: date | None = None
    console: Console = field(default_factory=lambda: Console(highlight=False, soft_wrap=True))
    _curator: Any = None

    def curator(self):
        """The curator for the global options; a missing home is a CliError (exit 2)."""
        if self._curator is None:
            from core.curator import open_curator
            from core.home import HomeError

            clock = time.time
            if self.today is not None:  # ages are counted from noon of --today, local time
                noon = datetime.combine(self.today, dt_time(12)).timestamp()
                clock = lambda: noon  # noqa: E731
            try:
                self._curator = open_curator(self.home, self.profile, self.today, clock)
            except HomeError as exc:
                raise CliError(f"{exc} (try `hmc demo` to explore hmc on a demo home)") from None
        return self._curator

    def json(self, obj: Any) -> None:
        sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2, default=str) + "\n")

    def text(self, *parts: str | Text, style: str = "") -> None:
        """Print untrusted text literally (never as markup)."""
        line = Text()
        for part in parts:
            line.append(part if isinstance(part, Text) else literal(part))
        if style:
            line.stylize(style)
        self.console.print(line)
