"""The top line on every screen: home, profile, the four modes, pending count, review status."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from tui.literal import visible_controls

MODES = (("1", "memory", "Memory"), ("2", "pending", "Pending"), ("3", "search", "Search"), ("4", "review", "Review"))


class HmcHeader(Widget):
    """Renders app state (`app.header_state()`); re-renders when the app says it changed."""

    DEFAULT_CSS = """
    HmcHeader { height: 1; dock: top; background: $panel; color: $foreground; }
    """

    def on_mount(self) -> None:
        self.app.header_changed.subscribe(self, lambda _=None: self.refresh())

    def render(self) -> Text:
        state = self.app.header_state()
        mode = getattr(self.screen, "MODE", "")
        width = self.size.width
        right = Text()
        count = state["pending"]
        right.append(f"{count:>3} pending", style="bold yellow" if count else "dim")  # fixed width: tabs don't jump
        right.append(" · ", style="dim")
        right.append(state["review"], style="bold yellow" if state.get("review_due") else "dim")
        right.append(" ")
        tabs = self.tabs(mode, compact=width < 100)
        left = Text()
        left.append(" hmc ", style="bold reverse")
        profile = f" · {state['profile']}"
        room = width - tabs.cell_len - right.cell_len - left.cell_len - len(profile) - 4
        home = visible_controls(state["home"])
        if len(home) > room:
            home = "…" + home[-max(room - 1, 4):]
        left.append(" " + home, style="bold")
        left.append(profile, style="dim" if state["profile"] == "default" else "bold")
        gap = max(1, width - left.cell_len - tabs.cell_len - right.cell_len)
        line = Text.assemble(left, " " * (gap // 2), tabs, " " * (gap - gap // 2), right)
        line.truncate(width)
        return line

    @staticmethod
    def tabs(mode: str, compact: bool) -> Text:
        """The four modes; on a narrow terminal only the current one keeps its title."""
        tabs = Text()
        for key, name, title in MODES:
            label = f" {key} {title} " if name == mode or not compact else f" {key} "
            tabs.append(label, style="bold reverse" if name == mode else "")
        return tabs
