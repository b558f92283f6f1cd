"""What hmc's lists share: the cursor stops at the ends (no wrap), a click selects, a double click opens."""

from __future__ import annotations

from textual import _widget_navigation, events
from textual.binding import Binding
from textual.widgets import OptionList

# the keys people bring from vim, less, lazygit and k9s: j/k step, g/G jump to the ends
VIM_KEYS = [
    Binding("j", "cursor_down", "Down", id="list.down", show=False, tooltip="Next row"),
    Binding("k", "cursor_up", "Up", id="list.up", show=False, tooltip="Previous row"),
    Binding("g", "first", "First", id="list.first", show=False, tooltip="First row"),
    Binding("G", "last", "Last", id="list.last", show=False, tooltip="Last row"),
]


class HmcList(OptionList):
    """An OptionList for readers: Down on the last row stays there (End then Down never jumps to the
    top), one click highlights a row and a double click opens it (OptionSelected, as Enter does);
    j/k and g/G move as the arrows and Home/End do."""

    BINDINGS = VIM_KEYS

    def action_cursor_down(self) -> None:
        found = _widget_navigation.find_next_enabled_no_wrap(self.options, anchor=self.highlighted, direction=1)
        if found is not None:
            self.highlighted = found

    def action_cursor_up(self) -> None:
        found = _widget_navigation.find_next_enabled_no_wrap(self.options, anchor=self.highlighted, direction=-1)
        if found is not None:
            self.highlighted = found

    async def _on_click(self, event: events.Click) -> None:
        event.prevent_default()  # OptionList's own click would open the row at once
        clicked = event.style.meta.get("option")
        if clicked is None or self._options[clicked].disabled:
            return
        self.highlighted = clicked
        if event.chain >= 2:
            self.action_select()
