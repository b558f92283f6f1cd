"""Time travel's dialogs (memory mode's T): pick a moment, checked as it is typed; and the diff between
the stores then and now. Memory mode itself shows the stores as they were (read-only, under a banner)."""

from __future__ import annotations

from datetime import date, datetime

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, Static

from core.store.memory import FILE_NAMES
from tui.literal import literal, visible_controls
from tui.screens.base import Dialog
from tui.widgets.sidebyside import inline_diff


class MomentDialog(Dialog[datetime | None]):
    """A date (and optional time) to travel to; a bad one is flagged as typed and can't be chosen.
    `preview(moment)` (optional) says what the stores held then."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="travel.cancel", tooltip="Close; stay in the present")]

    def __init__(self, today: date, preview=None, initial: str = "") -> None:
        super().__init__()
        self.today, self.preview, self.initial = today, preview, initial
        self.moment: datetime | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(Text("Time travel: the stores as they were", style="bold"), classes="dialog-title")
            yield Static(Text("A date (its end), a date and time, or how long ago: 2026-10-12, "
                              "2026-10-12 09:30, 7d, 2w, 3m, 1y.", style="dim"), markup=False)
            yield Input(self.initial, placeholder="YYYY-MM-DD [HH:MM] or 7d", id="travel-when")
            yield Static("", id="travel-status", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Go (Enter)", id="go", variant="primary")
                yield Button("Cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self.check(self.initial)

    @on(Input.Changed, "#travel-when")
    def typed(self, event: Input.Changed) -> None:
        self.check(event.value)

    def check(self, value: str) -> None:
        from core.timeline.view import moment_label, parse_moment

        status = self.query_one("#travel-status", Static)
        field = self.query_one(Input)
        try:
            self.moment = parse_moment(value, self.today)
        except ValueError as exc:
            self.moment = None
            field.set_class(bool(value.strip()), "-invalid")
            status.update(literal(str(exc), "bold red" if value.strip() else "dim"))
            self.query_one("#go", Button).disabled = True
            return
        field.set_class(False, "-invalid")
        line = Text(moment_label(self.moment), style="bold")
        if self.preview is not None:
            line.append(": ")
            line.append_text(literal(self.preview(self.moment)))
        status.update(line)
        self.query_one("#go", Button).disabled = False

    @on(Input.Submitted, "#travel-when")
    def submitted(self) -> None:
        if self.moment is not None:
            self.dismiss(self.moment)

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss(self.moment if event.button.id == "go" else None)

    def action_cancel(self) -> None:
        self.dismiss(None)


def diff_body(changes: dict, label: str) -> Text:
    """What changed between then and now, per file (core.timeline.view.travel_diff): `-` gone since,
    `~` changed (the entry now, with what was there then struck through), `+` added since (literal)."""
    out = Text()
    for target, d in changes.items():
        if out:
            out.append("\n\n")
        out.append(FILE_NAMES[target], style="bold")
        if d.same:
            out.append(": no change since then", style="dim")
            continue
        out.append(f": {len(d.added)} added since, {len(d.changed)} changed, {len(d.removed)} gone", style="dim")
        for text in d.removed:
            out.append("\n- ", style="bold red")
            out.append(visible_controls(text), style="red")
        for old, new in d.changed:
            out.append("\n~ ", style="bold yellow")
            out.append_text(inline_diff(old, new))
        for text in d.added:
            out.append("\n+ ", style="bold green")
            out.append(visible_controls(text), style="green")
    out.append(f"\n\n- was there on {label}, gone now · ~ changed since (struck: then) · + there now, not then",
               style="dim")
    return out


class TravelDiffDialog(Dialog[None]):
    """The diff between the stores then and now."""

    BINDINGS = [Binding("escape,q,n", "close", "Close", id="travel_diff.close", tooltip="Close")]

    def __init__(self, title: str, body: Text) -> None:
        super().__init__()
        self.title_text, self.body = title, body

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog text-dialog"):
            yield Label(literal(self.title_text, "bold"), classes="dialog-title")
            with VerticalScroll(id="travel-diff"):
                yield Static(self.body, markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Close (esc)", id="close", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#travel-diff").focus()

    @on(Button.Pressed)
    def pressed(self) -> None:
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
