"""The error both interfaces report the same way: a refusal or bad input, as one line.

The command line prints it on stderr and exits with its code; the TUI's screens show it in place
(the first-run screen: "can't create ~/x: permission denied"). Imports nothing from hmc.
"""


class CliError(Exception):
    """A refusal or bad input: one line on stderr, then exit with `code` (1 refused, 2 bad input)."""

    def __init__(self, message: str, code: int = 2, refusal: str | None = None):
        super().__init__(message)
        self.code = code
        self.refusal = refusal  # a refused write's kind: its --json document is {"refused": {…}}
