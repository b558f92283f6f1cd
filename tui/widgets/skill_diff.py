"""A skill write's unified diff, highlighted: `+` / `-` lines tinted, their text coloured by the
file's language (markdown for SKILL.md, shell, Python…; pygments through rich's Syntax).

Dumb: `build(change, mask)` turns one core.pending.skills.FileChange into a rich Text (pure, so a
worker thread can build a long one), and SkillDiff shows it. Every character comes from a skill
file or a record: it is masked, made visible (controls, bidi overrides) and never read as markup.
"""

from __future__ import annotations

from typing import Callable

from rich.syntax import Syntax
from rich.text import Text
from textual.widgets import Static

from tui.literal import visible

MAX_LINES = 6000  # a 100 KB SKILL.md is ~2,500 lines; past this the rest is summarised
LEXERS = {".md": "markdown", ".markdown": "markdown", ".py": "python", ".sh": "bash", ".bash": "bash",
          ".js": "javascript", ".ts": "typescript", ".json": "json", ".yaml": "yaml", ".yml": "yaml",
          ".toml": "toml", ".sql": "sql", ".rb": "ruby", ".go": "go", ".rs": "rust", ".html": "html",
          ".css": "css", ".txt": "text"}
ADDED_BG, REMOVED_BG = "on #0f2e1a", "on #3a1216"


def lexer_for(path: str) -> str:
    dot = path.rfind(".")
    slash = path.rfind("/")
    return LEXERS.get(path[dot:].lower(), "text") if dot > slash else "text"


def build(change, mask: Callable[[str], str] = lambda t: t, context: int = 3) -> Text:
    """The highlighted unified diff of one file change."""
    # one element per diff line (a last line without a newline comes with its "\ No newline" note)
    lines = [part + "\n" for chunk in change.unified_diff(context) for part in chunk[:-1].split("\n")]
    out = Text(no_wrap=False)
    if not lines:
        out.append("(no change to the text)", style="dim italic")
        return out
    cut = len(lines) - MAX_LINES if len(lines) > MAX_LINES else 0
    lines = lines[:MAX_LINES]
    body_at = [i for i, line in enumerate(lines) if line[:1] in "+- " and not line.startswith(("+++", "---"))]
    # one highlighting pass over the text of every body line (a fragment at a time would lose context)
    code = "".join(visible(mask(lines[i][1:].rstrip("\n")).replace("\n", " ")) + "\n" for i in body_at)
    coloured = Syntax(code, lexer_for(change.path), theme="ansi_dark", background_color="default").highlight(code)
    body = dict(zip(body_at, coloured.split("\n", allow_blank=True)))
    for i, line in enumerate(lines):
        if i in body:
            mark = line[:1]
            piece = Text(mark, style="bold green" if mark == "+" else "bold red" if mark == "-" else "dim")
            piece.append_text(body[i])
            if mark == "+":
                piece.stylize(ADDED_BG)
            elif mark == "-":
                piece.stylize(REMOVED_BG)
            out.append_text(piece)
        elif line.startswith("@@"):
            out.append(visible(line.rstrip("\n")), style="cyan")
        elif line.startswith(("+++", "---")):
            out.append(visible(mask(line.rstrip("\n"))), style="bold")
        else:  # "\ No newline at end of file"
            out.append(visible(line.rstrip("\n")), style="dim italic")
        out.append("\n")
    if cut:
        out.append(f"… {cut:,} more diff lines not shown (p shows the whole record)\n", style="yellow")
    out.rstrip()
    return out


class SkillDiff(Static):
    """Shows a diff built by `build` (or a note); grows with its text (the detail pane scrolls)."""

    DEFAULT_CSS = """
    SkillDiff { height: auto; width: 1fr; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__("", markup=False, **kwargs)

    def show(self, text: Text | str) -> None:
        self.update(text if isinstance(text, Text) else Text(text, style="dim italic"))
