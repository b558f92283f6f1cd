"""Edit a text in the person's own editor ($VISUAL, else $EDITOR), as git, lazygit and k9s do.

The text goes into a private temporary file (mode 0600 in a 0700 directory of its own, removed
afterwards), the editor command runs on it (`run`: the caller hands the terminal over and returns
the exit status), and the file is read back. What comes back is only a proposal: the caller puts
it where typed text goes, and it is checked and saved (or not) exactly as typed text is.

Nothing here raises for a bad editor, a failed run or a bad file: each ends in an `Edited` whose
`text` is None (nothing changes) and whose `message` says why, in words for the person.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

from core.store.atomic import read_regular

VARIABLES = ("VISUAL", "EDITOR")  # in this order, as git and most tools read them
NOT_SET = "Set $VISUAL or $EDITOR to your editor to edit here (e.g. export EDITOR=nano); nothing changed."


class EditorProblem(Exception):
    """The editor can't be started: no variable set, a command that can't be read or found."""


def editor_command(environ: Mapping[str, str]) -> tuple[str, list[str]]:
    """The variable used and its command split as a shell would (`code --wait` -> two words)."""
    for name in VARIABLES:
        value = (environ.get(name) or "").strip()
        if not value:
            continue
        try:
            argv = shlex.split(value)
        except ValueError as exc:
            raise EditorProblem(f"${name} can't be read as a command ({exc}): {value!r}; nothing changed.") from None
        if not argv:
            continue
        if shutil.which(argv[0], path=environ.get("PATH")) is None:
            raise EditorProblem(f"${name} names {argv[0]!r}, which isn't a command found on PATH; nothing changed.")
        return name, argv
    raise EditorProblem(NOT_SET)


@dataclass(frozen=True)
class Edited:
    text: str | None  # the edited text, or None: keep the text as it was
    message: str  # what to tell the person
    ok: bool = True  # False: a problem (shown as a warning), True: news


def edit_text(text: str, run: Callable[[list[str]], int], *, environ: Mapping[str, str] | None = None,
              name: str = "entry.md") -> Edited:
    """`text` as the person's editor leaves it. `run(argv)` runs the editor (with the terminal
    handed over) and returns its exit status; `name` is the temporary file's name (its suffix lets
    the editor pick a syntax). A final newline the editor added is dropped when `text` had none,
    and CRLF line ends it wrote become LF when `text` had none."""
    environ = os.environ if environ is None else environ
    try:
        variable, argv = editor_command(environ)
    except EditorProblem as exc:
        return Edited(None, str(exc), ok=False)
    folder = Path(tempfile.mkdtemp(prefix="hmc-edit-"))  # 0700, ours alone
    try:
        path = folder / safe_name(name)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode("utf-8", "surrogatepass"))
        try:
            status = run(argv + [str(path)])
        except OSError as exc:
            return Edited(None, f"${variable} ({argv[0]}) couldn't be started: {exc.strerror or exc}; "
                                "nothing changed.", ok=False)
        if status != 0:
            return Edited(None, f"The editor exited with status {status}; the text is unchanged.", ok=False)
        try:
            data = read_regular(path)  # the one reader: a FIFO or device left in its place can't hang hmc
        except OSError as exc:
            return Edited(None, f"The editor's file couldn't be read back ({exc.strerror or exc}); "
                                "the text is unchanged.", ok=False)
        try:
            new = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return Edited(None, f"The editor saved bytes that aren't UTF-8 (at byte {exc.start:,}); "
                                "the text is unchanged.", ok=False)
        return _compare(text, new)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def safe_name(name: str) -> str:
    """`name` as a plain file name (it may come from a staged record): letters, digits, `._-`,
    at most 64 characters, never hidden; else entry.md."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", name.replace("\\", "/").rsplit("/", 1)[-1])[-64:].lstrip(".")
    return name or "entry.md"


def _compare(text: str, new: str) -> Edited:
    if new.startswith("\ufeff") and not text.startswith("\ufeff"):
        new = new[1:]  # a byte-order mark some editors write
    if "\r\n" in new and "\r\n" not in text:
        new = new.replace("\r\n", "\n")
    if new.endswith("\n") and not text.endswith("\n"):
        new = new[:-1]  # the final newline editors add to every file
    if new == text:
        return Edited(None, "No change from the editor.")
    if not new.strip():
        return Edited(None, "The editor left the file empty; the text is unchanged "
                            "(clear the box itself if you meant to).", ok=False)
    return Edited(new, "The editor's text is in the box: nothing is saved until you confirm.")
