"""What every mode screen shares: greyed actions say why, in the footer, the palette and on a key press."""

from __future__ import annotations

from textual.screen import Screen


class ModeScreen(Screen):
    """A mode (memory, pending, search, review).

    Subclasses answer `why_not(action)`: None when the action can apply now, otherwise a short
    reason ("Repair: the file is already clean"). The footer greys what has a reason, pressing a
    greyed key shows the reason (see CuratorApp.run_action), and the palette lists the action
    with it. `hidden(action)` is for actions that make no sense here at all (not even greyed).
    """

    MODE = ""
    AREA = ""

    def why_not(self, action: str) -> str | None:
        return None

    def hidden(self, action: str) -> bool:
        return False

    def _compositor_refresh(self) -> None:
        """Don't render a frame nobody will see: inside the app's start-up batch Textual renders
        the screen (on the first resize) and then drops the result, which for a mode screen costs
        as much as the frame that follows. The screen stays dirty and paints when the batch ends."""
        if self.app._batch_count and not self.app.is_inline:
            if not getattr(self, "_paint_pending", False):
                self._paint_pending = True
                self.set_timer(0.005, self._paint_after_batch)
            return
        super()._compositor_refresh()

    def _paint_after_batch(self) -> None:
        if self.app._batch_count:
            self.set_timer(0.005, self._paint_after_batch)
            return
        self._paint_pending = False
        self.refresh()  # the layout and dirty regions are kept: this paints them

    def check_action(self, action: str, parameters) -> bool | None:
        if not self.is_mounted:
            return True
        if self.hidden(action):
            return False
        return None if self.why_not(action) else True
