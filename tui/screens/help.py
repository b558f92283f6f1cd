"""`?`: the current screen's help text and every key it answers to, with what each does."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Label, Markdown, Static


def key_table(screen: Screen) -> Table:
    """One row per action the screen (and the app) answers to now; greyed when it can't apply."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(no_wrap=True)
    table.add_column(style="dim")
    seen: set[tuple[int, str]] = set()
    app = screen.app
    # the screen's own actions first, then the app's, then the focused widget's (navigation)
    ranked = sorted(screen.active_bindings.values(),
                    key=lambda a: 0 if a.node is screen else 1 if a.node is app else 2)
    for active in ranked:
        binding = active.binding
        if not binding.description or (id(active.node), binding.action) in seen:
            continue
        seen.add((id(active.node), binding.action))
        keys = ", ".join(screen.app.get_key_display(Binding(k, "")) for k in binding.key.split(","))
        style = "" if active.enabled else "dim strike"
        table.add_row(Text(keys, style=style), Text(binding.description, style=style),
                      active.tooltip or binding.tooltip or "")
    return table


class HelpDialog(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "close", "Close", id="help.close", tooltip="Close help")]

    def __init__(self, screen: Screen) -> None:
        super().__init__()
        self.target = screen

    def compose(self) -> ComposeResult:
        mode = getattr(self.target, "MODE", "") or "hmc"
        with Vertical(classes="dialog help-dialog"):
            yield Label(Text(f"Help — {mode} mode", style="bold"), classes="dialog-title")
            with VerticalScroll(id="help-body"):
                help_text = getattr(self.target, "HELP", "") or ""
                if help_text:
                    yield Markdown(help_text.strip())
                yield Label(Text("Keys (greyed: can't apply right now)", style="bold"), classes="help-keys-title")
                yield Static(key_table(self.target), id="help-keys")
            yield Label(Text("Esc closes · ctrl+p finds any action by name", style="dim"))

    def action_close(self) -> None:
        self.dismiss(None)
