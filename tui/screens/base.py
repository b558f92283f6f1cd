"""What every mode screen shares (greyed actions say why, in the footer, the palette and on a key press),
and what every dialog shares (its own footer, F1 help)."""

from __future__ import annotations

from typing import TypeVar

from textual._time import get_time
from textual.actions import SkipAction
from textual.binding import Binding
from textual.screen import ModalScreen, Screen

ResultT = TypeVar("ResultT")

SETTLE_AT_MOST = 0.1  # seconds a new screen may wait for its first frame (see OneFrame)


class OneFrame:
    """A screen whose change reaches the terminal in one frame, not two or three.

    - When Textual's update tick lays the screen out and then repaints it (a refresh() after a
      mode switch, a dialog opening, a resize), it renders the new layout's dirty regions and,
      in the same tick, the whole screen: two frames, the first soon painted over. While the
      tick's repaint is still to come, the partial frame is skipped.
    - A widget that asked for a repaint before a whole frame (its scroll bars, resized in that
      layout) is drawn as it is in that frame; its request would arrive a moment later and paint
      the same cells again. Requests from before a whole frame are dropped.
    """

    _repaint_follows = False
    _whole_frame_at = float("-inf")
    _settled = False  # a new screen paints once it has taken in its resume and its size

    _styled_at: int | None = None  # the app's CSS generation when the screen was styled as it mounted

    def _on_mount(self, event) -> None:
        self._styled_at = self.app._css_update_count
        self.set_timer(SETTLE_AT_MOST, self._settle)

    def _on_screen_resume(self, event) -> None:
        """A new screen painted itself before it had taken in its resume (which repaints it
        whole) and its size (which lays it out again): three frames for one key. It paints once
        the messages already waiting for it are handled, at the latest SETTLE_AT_MOST after it
        was mounted. (Waiting also for Textual's last layout after mounting, one frame less,
        made a dialog's text area wrap at one width or another by the set order of the run.)

        Textual (8.2.8) restyles every widget of a screen when it resumes, the first time too,
        right after each widget was styled as it mounted: a second styling of the whole first
        screen at start-up (a sixth of its time). The first resume skips it when the styles
        can't have changed since (no theme or CSS change: Textual counts them in
        App._css_update_count); a class or focus change restyles its widgets itself. Runs
        before Screen._on_screen_resume (Textual calls each class's handler, subclass first)."""
        if self._styled_at is not None:
            if self._styled_at == self.app._css_update_count and not (
                    self.app.SUSPENDED_SCREEN_CLASS and self.has_class(self.app.SUSPENDED_SCREEN_CLASS)):
                event.refresh_styles = False
            self._styled_at = None
        if not self._settled:
            self.call_later(self._settle)

    def _settle(self) -> None:
        if not self._settled:
            self._settled = True
            self.refresh()

    def _on_timer_update(self) -> None:
        self._repaint_follows = True  # the tick repaints after its layout when a repaint is due
        try:
            super()._on_timer_update()
        finally:
            self._repaint_follows = False

    def _compositor_refresh(self) -> None:
        app = self.app
        if self is app.screen and not app.is_inline and not app._batch_count:
            if not self._settled or (self._repaint_follows and self._repaint_required):
                return
            compositor = self._compositor
            if compositor.size.region in compositor._dirty_regions:  # a whole frame
                self._whole_frame_at = get_time()
                for widget in compositor.visible_widgets:
                    widget._repaint_required = False  # drawn as they are now (a repaint asked for
                    # while this frame renders sets it again)
        super()._compositor_refresh()

    async def _on_update(self, message) -> None:
        if message.time < self._whole_frame_at:
            message.stop()
            message.prevent_default()
            return
        await super()._on_update(message)

    def _screen_resized(self, size) -> None:
        """Textual lays out every screen below a new one as if the terminal had been resized, which
        then repaints the new one a second time: only a real new size is laid out."""
        if size == self._compositor.size and self._compositor.size.area:
            return
        super()._screen_resized(size)

    def remove(self):
        """A popped screen (a dialog closed) is removed from the app, which Textual then lays out
        and repaints once more: the screen below, already painted whole when it resumed. Removed
        without that second frame (the pointer's hover is updated by that first frame)."""
        return self.app._prune(self, parent=None)


class ModeScreen(OneFrame, Screen):
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

    # -- filtering the list you are in (`/`; screens that have one yield a FilterBar and bind `/` --
    # with priority=True, so that the keys typed right behind it reach the filter: FilterBar.start)

    filter_text = ""

    def action_filter(self) -> None:
        self.let_text_boxes_type("/")
        bar = self.filter_bar()
        if bar is not None:
            bar.start(self.leave_filter)

    def leave_filter(self, text: str) -> None:
        """Enter or Escape in the filter line: the filter as it stands applies and its list takes
        the keyboard, there and then (Widget.focus() would wait behind the keys already typed:
        those act on the list as filtered, not in the line)."""
        self.filter_text = text
        self.apply_filter()
        target = self.filter_list()
        if target is not None:
            self.set_focus(target)

    def filter_bar(self):
        """The screen's filter line (a FilterBar), or None when it has none."""
        from tui.widgets.filter_bar import FilterBar

        bars = self.query(FilterBar)
        return bars.first() if bars else None

    def let_text_boxes_type(self, character: str) -> None:
        """Give a key bound with priority back to the focused text box (the filter line, the search
        box), which types it: Textual takes such a binding away from a text box only for keys it
        knows a character of, and it knows none for `slash`."""
        focused = self.focused
        if focused is not None and focused.check_consume_key(character, character):
            raise SkipAction()

    def on_filter_bar_typed(self, message) -> None:
        self.filter_text = message.text
        self.apply_filter()

    def matches_filter(self, *texts: str) -> bool:
        """Every word typed in the filter appears (case-folded) in one of `texts` (tui.widgets.filter_match)."""
        from tui.widgets.filter_match import matches

        return matches(self.filter_words(), *texts)

    def filter_words(self) -> tuple[str, ...]:
        """The filter's words, as the rows it keeps highlight them (tui.widgets.filter_match)."""
        from tui.widgets.filter_match import filter_words

        return filter_words(self.filter_text)

    def apply_filter(self) -> None:
        """Show only what matches `filter_text` (subclasses with a filter line)."""

    def filter_list(self):
        """The list the filter line narrows (it takes the keyboard back when the line is left)."""
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
        if self is self.app.screen:
            self._paint_pending = False  # this frame paints what was held back
        super()._compositor_refresh()

    def _paint_after_batch(self) -> None:
        if not getattr(self, "_paint_pending", False):
            return  # painted meanwhile: a batch's end repaints (switch_mode's delay_update does)
        if self.app._batch_count:
            self.set_timer(0.005, self._paint_after_batch)
            return
        self._paint_pending = False
        self.refresh()  # the layout and dirty regions are kept: this paints them
        if self is self.app.screen:
            # now, as Textual's update timer would at its next tick (up to 1/60 s later, the screen
            # idle meanwhile): the first frame is out that much sooner
            self._on_timer_update()

    # -- off screen: built ahead of its first visit (tui.modes.prebuild), or left for another mode --

    def prebuilt(self) -> None:
        """Built ahead of its first visit, off screen: start the data work a visit would start
        (screens that load on being shown override this)."""

    async def _on_idle(self, event) -> None:
        """Off screen, Textual lays a screen out only when it is shown again: the data it took in
        meanwhile (its first load, a reload after a write) resized its widgets then, whose own
        refreshes came a frame later: two frames for one key. Off screen, the layout follows the
        data, so showing the screen is one frame."""
        app = self.app
        if (not self.is_current and self.is_attached and self._compositor.size.area and not app._batch_count
                and (self._layout_required or self._scroll_required)):
            scroll = self._scroll_required and not self._layout_required
            self._layout_required = self._scroll_required = False
            self._refresh_layout(app.size, scroll=scroll)
            self._dirty_widgets.clear()  # showing it paints it whole
        await super()._on_idle(event)

    def check_action(self, action: str, parameters) -> bool | None:
        if not self.is_mounted:
            return True
        if self.hidden(action):
            return False
        return None if self.why_not(action) else True


class Dialog(OneFrame, ModalScreen[ResultT]):
    """Every dialog: what is behind stays visible, dimmed, and the footer line at the bottom is the
    dialog's own (its keys, F1 help and quit), not the keys of the mode behind it. F1 opens help for
    the dialog (its keys, what each does), as it does everywhere else."""

    HELP = ""
    BINDINGS = [Binding("f1", "app.help", "Help", id="dialog.help", tooltip="Keys and help for this dialog")]

    def _extend_compose(self, widgets: list) -> None:
        """The footer comes with what the dialog composes (mounted after it, the dialog was laid
        out and painted once more)."""
        from tui.widgets.footer import KeyFooter

        super()._extend_compose(widgets)
        widgets.append(KeyFooter())
