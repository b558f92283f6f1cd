"""A checkbox that shows its state by its mark, not only by colour: `X` when on, blank when off
(Textual's compact checkbox draws the same `X` either way, which reads as "on" in 256 colours)."""

from __future__ import annotations

from textual.widgets import Checkbox


class Toggle(Checkbox):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._mark()

    def _mark(self) -> None:
        self.BUTTON_INNER = "X" if self.value else " "

    def watch_value(self) -> None:
        self._mark()
        super().watch_value()
