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
        left = Text()
        left.append(" hmc ", style="bold reverse")
        left.append(" ")
        left.append(visible_controls(state["home"]), style="bold")
        left.append(f"  profile {state['profile']}", style="dim" if state["profile"] == "default" else "bold")
        tabs = Text()
        for key, name, title in MODES:
            style = "bold reverse" if name == mode else ""
            tabs.append(f" {key} {title} ", style=style)
            tabs.append(" ")
        right = Text()
        count = state["pending"]
        right.append(f"{count} pending", style="bold yellow" if count else "dim")
        right.append("  ·  ")
        review = state["review"]
        right.append(review, style="bold yellow" if "due" in review else "dim")
        right.append(" ")
        width = self.size.width
        gap = max(1, width - left.cell_len - tabs.cell_len - right.cell_len)
        pad_left = gap // 2
        line = Text.assemble(left, " " * pad_left, tabs, " " * (gap - pad_left), right)
        line.truncate(width)
        return line
