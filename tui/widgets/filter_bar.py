"""The filter line of a list: `/` opens it, typing filters the list as you type, Enter keeps the
filter and goes back to the list, Escape clears it. It says what was typed (FilterBar.Typed) and,
at once, when the person leaves it (the `leave` the screen gave `start`); the screen decides what
matches and where the keyboard goes. The line starts with its prompt, `/` (the key that opened it),
so it reads as a filter whether it is empty, typed in, or kept while the list has the keyboard."""

from __future__ import annotations

from typing import Callable

from rich.segment import Segment
from textual import events
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widgets import Input

PROMPT = " / "  # drawn in the line's left padding, which is as wide


class FilterBar(Input):
    COMPONENT_CLASSES = Input.COMPONENT_CLASSES | {"filter-bar--prompt"}
    DEFAULT_CSS = """
    FilterBar { display: none; height: 1; border: none; margin: 0; background: $boost; }
    FilterBar.-textual-compact { padding: 0 1 0 3; }  /* the prompt's room (PROMPT) */
    FilterBar:focus { background: $accent 20%; }
    FilterBar.-open { display: block; }
    FilterBar > .filter-bar--prompt { color: $accent; text-style: bold; }
    """

    class Typed(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("placeholder", "type to narrow this list · Enter keeps it · Esc clears")
        super().__init__(compact=True, select_on_focus=False, **kwargs)
        self._leave: Callable[[str], None] = lambda text: None

    def start(self, leave: Callable[[str], None]) -> None:
        """Open the line and take the keyboard at once: the keys typed right behind `/` (a burst,
        as a terminal delivers fast typing) must reach this line, not the list. Widget.focus()
        would move the focus only after the keys already waiting, which the list would act on
        (`n` rejecting a staged write). The screens bind `/` with priority, so the app runs this
        before it hands the next key to the focused widget. `leave(text)` is called when Enter
        (the text kept) or Escape ("": cleared) leaves the line: it applies the filter and gives
        the keyboard back, there and then."""
        self._leave = leave
        self.add_class("-open")
        self.screen.set_focus(self)

    def render_lines(self, crop: Region) -> list[Strip]:
        """The line as an Input draws it, with the prompt written over its left padding (which the
        CSS makes exactly as wide): the text, the cursor and a click keep their places."""
        lines = super().render_lines(crop)
        width = len(PROMPT)
        if not lines or crop.y > 0 or crop.x >= width:
            return lines
        style = self.rich_style + self.get_component_rich_style("filter-bar--prompt", partial=True)
        prompt = Strip([Segment(PROMPT, style)], width).crop(crop.x, width)
        first = Strip.join([prompt, lines[0].crop(width - crop.x)]).crop(0, crop.width)
        return [first, *lines[1:]]

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Typed(event.value.strip()))

    def on_key(self, event: events.Key) -> None:
        if self.screen.focused is not self:
            # typed right behind Enter or Escape: the app handed these keys to the line before it
            # was left; they go on to what has the keyboard now (the list, filtered), in order
            event.stop()
            event.prevent_default()
            (self.screen.focused or self.screen).post_message(events.Key(event.key, event.character))
            return
        if event.key not in ("enter", "escape"):
            return
        event.stop()
        event.prevent_default()
        if event.key == "escape":
            self.clear()
        if not self.value.strip():
            self.remove_class("-open")
        self._leave(self.value.strip())
