"""Why did Hermes forget (the palette's "Why did Hermes forget…", search mode's w): ask for the fact,
trace it off the UI thread (core.why, as `hmc why`), and show every cause's verdict in the
read-only text dialog, most likely first. Untrusted text (entries, messages) is literal and masked."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Label, Static

from tui.literal import literal, masked, visible_controls
from tui.screens.base import Dialog
from tui.screens.dialogs import TextDialog

MARK = {"yes": ("yes", "bold green"), "unknown": ("?", "bold yellow"), "no": ("no", "dim")}
NOTE = ("Every cause hmc can check, most likely first (as `hmc why`): the files, the queue, the history and "
        "its refused writes, past sessions and what they loaded, config.yaml, pruning, every profile.")
FACT_CHARS = 300  # of a message taken as the fact (its first sentences)


class FactDialog(Dialog[str | None]):
    """One line: the fact to trace, in the user's words. Enter asks; a text that can't be a fact is
    said under the box, and the box stays."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="why.cancel", tooltip="Close without asking")]

    def __init__(self, initial: str = "") -> None:
        super().__init__()
        self.initial = initial

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog why-dialog"):
            yield Label(literal("Why did Hermes forget…", "bold"), classes="dialog-title")
            yield Static(literal("The fact, in your words (any of the six languages):", "dim"), markup=False)
            yield Input(self.initial, placeholder="we deploy on Fridays", id="why-fact")
            yield Static("", id="why-problem", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Ask (enter)", id="ask", variant="primary")
                yield Button("Cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#why-fact", Input).focus()

    @on(Input.Submitted)
    @on(Button.Pressed, "#ask")
    def ask(self) -> None:
        from core.why import Fact, FactError

        text = self.query_one("#why-fact", Input).value
        try:
            Fact(text)
        except FactError as exc:
            self.query_one("#why-problem", Static).update(literal(str(exc), "yellow"))
            return
        self.dismiss(text)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


def answer_table(answer) -> Table:
    """The verdicts as a grid of literal text (a long line wraps under its own column): the yes and
    unknown causes with their action and first pieces of evidence, the noes one line each."""
    from core.why import evidence_line

    def lit(text: str, style: str = "") -> Text:
        return literal(visible_controls(masked(text)), style)

    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=3, no_wrap=True)
    grid.add_column(width=13, no_wrap=True)
    grid.add_column(ratio=1)
    if not answer.found:
        grid.add_row("", "", Text("No cause is a clear yes: see the unknowns, or the fact may never have reached "
                                  "Hermes.", style="yellow"))
    for cause in answer.causes:
        mark, style = MARK[cause.verdict]
        quiet = cause.verdict == "no"
        grid.add_row(Text(mark, style=style), Text(cause.cause, style="dim" if quiet else "bold"),
                     lit(cause.detail, "dim" if quiet else ""))
        if quiet:
            continue
        if cause.action:
            grid.add_row("", Text("→ do", style="bold"), lit(cause.action))
        for item in cause.evidence[:3]:
            grid.add_row("", Text("· seen", style="dim"), lit(evidence_line(item), "dim"))
        grid.add_row("", "", "")
    for problem in answer.problems:
        grid.add_row("", Text("unread", style="yellow"), lit(problem, "yellow"))
    return grid


def why_dialog(answer) -> TextDialog:
    from core.scan.mask import clip  # mask first, then cut

    shown = answer.fact if len(answer.fact) <= 60 else clip(masked(answer.fact), 59)
    from tui.guide import about

    return about("why", TextDialog(f"Why doesn't Hermes know “{visible_controls(masked(shown))}”? · profile "
                                   f"{answer.profile}", Group(answer_table(answer)), note=NOTE))


def fact_of(message_text: str) -> str:
    """A message as the fact to trace: its first sentences, up to FACT_CHARS characters."""
    text = " ".join(message_text.split())
    if len(text) <= FACT_CHARS:
        return text
    cut = text[:FACT_CHARS]
    end = max(cut.rfind(". "), cut.rfind("。"), cut.rfind("! "), cut.rfind("? "))
    return cut[:end + 1] if end > 40 else cut.rstrip() + "…"
