"""What every mode screen shares (greyed actions say why, in the footer, the palette and on a key press),
and what every dialog shares (its own footer, F1 help)."""

from __future__ import annotations

from typing import TypeVar

from textual.binding import Binding
from textual.screen import ModalScreen, Screen

ResultT = TypeVar("ResultT")


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

    # -- filtering the list you are in (`/`; screens that have one yield a FilterBar) -------------

    filter_text = ""

    def action_filter(self) -> None:
        from tui.widgets.filter_bar import FilterBar

        bars = self.query(FilterBar)
        if bars:
            bars.first().start()

    def on_filter_bar_typed(self, message) -> None:
        self.filter_text = message.text
        self.apply_filter()

    def on_filter_bar_done(self, message) -> None:
        self.filter_done()

    def matches_filter(self, *texts: str) -> bool:
        """Every word typed in the filter appears (case-folded) in one of `texts`."""
        words = self.filter_text.casefold().split()
        if not words:
            return True
        haystack = "\n".join(texts).casefold()
        return all(word in haystack for word in words)

    def apply_filter(self) -> None:
        """Show only what matches `filter_text` (subclasses with a filter line)."""

    def filter_done(self) -> None:
        """The person left the filter line: the list takes the keyboard again."""

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


class Dialog(ModalScreen[ResultT]):
    """Every dialog: what is behind stays visible, dimmed, and the footer line at the bottom is the
    dialog's own (its keys, F1 help and quit), not the keys of the mode behind it. F1 opens help for
    the dialog (its keys, what each does), as it does everywhere else."""

    HELP = ""
    BINDINGS = [Binding("f1", "app.help", "Help", id="dialog.help", tooltip="Keys and help for this dialog")]

    def on_mount(self) -> None:
        from tui.widgets.footer import KeyFooter

        self.mount(KeyFooter())
