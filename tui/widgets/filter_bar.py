"""The filter line of a list: `/` opens it, typing filters the list as you type, Enter keeps the
filter and goes back to the list, Escape clears it. It only says what was typed (FilterBar.Typed)
and when the person is done (FilterBar.Done); the screen decides what matches."""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import Input


class FilterBar(Input):
    DEFAULT_CSS = """
    FilterBar { display: none; height: 1; border: none; padding: 0 1; margin: 0; background: $boost; }
    FilterBar:focus { background: $accent 20%; }
    FilterBar.-open { display: block; }
    """

    class Typed(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Done(Message):
        """The person left the filter: `cleared` when Escape emptied it."""

        def __init__(self, cleared: bool) -> None:
            super().__init__()
            self.cleared = cleared

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("placeholder", "filter: type to narrow this list · Enter keeps it · Esc clears")
        super().__init__(compact=True, select_on_focus=False, **kwargs)

    def start(self) -> None:
        """Open the line and take the keyboard at once: the keys typed right behind `/` (a burst,
        as a terminal delivers fast typing) must reach this line, not the list. Widget.focus()
        would move the focus only after the keys already waiting, which the list would act on
        (`n` rejecting a staged write). The screens bind `/` with priority, so the app runs this
        before it hands the next key to the focused widget."""
        self.add_class("-open")
        self.screen.set_focus(self)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Typed(event.value.strip()))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if not self.value.strip():
            self.remove_class("-open")
        self.post_message(self.Done(cleared=False))

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            event.stop()
            event.prevent_default()
            self.clear()
            self.remove_class("-open")
            self.post_message(self.Typed(""))
            self.post_message(self.Done(cleared=True))
