"""The command palette's dialog (ctrl+p): a filter line over a list of commands.

It is given every command up front and fills its list as it is composed, so it opens complete in
one frame, and narrows the list on the UI thread as you type (the list is a few dozen titles:
matching them all takes a few milliseconds). Textual's own CommandPalette asks its providers
asynchronously and repaints as their hits arrive: six frames over a quarter of a second.

Titles and help texts may hold text from outside hmc (a profile is a folder name): they are shown
literally, never as markup, with the characters that matched the filter marked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.fuzzy import FuzzySearch
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from tui.literal import literal, visible
from tui.screens.base import Dialog

NO_MATCH = "No matching commands"
MATCH_STYLE = "bold underline"  # the characters the filter matched
NOT_NOW = "  (not now)"
NOT_NOW_WEIGHT = 0.6  # a command that can't apply now ranks below one that matches as well and can
PLACEMENTS_AT_MOST = 1000  # Textual's fuzzy search scores every placement of the query's letters in a
# title, which for repeated letters (a profile named "eeee…", typing "e e e e") runs for minutes;
# past this many placements a title is matched by the first placement found (see `matched`)


@dataclass(frozen=True)
class Command:
    """One line of the palette: what it says, its help line, what choosing it does, and whether
    it applies now (one that doesn't is listed all the same; choosing it says why)."""

    title: str
    help: str
    callback: Callable[[], object]
    available: bool = True
    key: str = ""  # its key, shown at the end of its row ("M", "ctrl+p"), where it has one


def ranked(commands: Iterable[Command], query: str,
           search: FuzzySearch | None = None) -> list[tuple[Command, Sequence[int]]]:
    """The commands whose title matches `query` (its letters in order, case-insensitive; a
    substring ranks above scattered letters), best first, each with the offsets of the matched
    characters in its shown title. No query: every command, those that apply now first."""
    query = query.strip()
    commands = list(commands)
    if not query:
        return [(c, ()) for c in sorted(commands, key=lambda c: not c.available)]
    search = search or FuzzySearch()
    scored = []
    for order, command in enumerate(commands):
        score, offsets = matched(search, query, visible(command.title))
        if score > 0:
            weight = 1.0 if command.available else NOT_NOW_WEIGHT
            scored.append((-score * weight, order, command, offsets))
    scored.sort(key=lambda s: (s[0], s[1]))
    return [(command, offsets) for _, _, command, offsets in scored]


def matched(search: FuzzySearch, query: str, title: str) -> tuple[float, Sequence[int]]:
    """(score, offsets) of `query` in `title` as Textual's fuzzy search finds and scores them (a
    substring first, else the best placement of its letters in order, case-insensitive); where
    that would try too many placements, the first one found."""
    folded, query = title.lower(), query.lower()
    if query in folded or placements(query, folded) <= PLACEMENTS_AT_MOST:
        return search.match(query, folded)
    offsets, at = [], 0
    for letter in query:
        at = folded.find(letter, at)
        offsets.append(at)
        at += 1
    return search.score(folded, offsets), offsets


def placements(query: str, title: str) -> int:
    """At most how many ways the letters of `query` can be placed in order in `title`: a bound from
    the letters' counts when that is small, else counted (as far as PLACEMENTS_AT_MOST + 1);
    0: they can't be."""
    bound = 1
    for letter in set(query):  # cheap first: a bound from how often each letter occurs
        bound *= title.count(letter) ** query.count(letter)
        if bound == 0:
            return 0
    if bound <= PLACEMENTS_AT_MOST:
        return bound
    steps: dict[str, list[int]] = {}  # letter -> where it is in the query (1-based), last first
    for i, letter in enumerate(query, 1):
        steps.setdefault(letter, []).insert(0, i)
    ways = [1] + [0] * len(query)  # ways[i]: placements of query[:i] in the title read so far
    for char in title:
        for i in steps.get(char, ()):
            ways[i] = min(ways[i] + ways[i - 1], PLACEMENTS_AT_MOST + 1)
    return ways[-1]


KEY_COLUMN_AT_MOST = 56  # where the keys' column starts, at most (a longer title pushes its own key)


def shown_title(command: Command, offsets: Sequence[int] = (), width: int = 0) -> Content:
    """The title, literally (never markup), its matched characters marked, "(not now)" dimmed, and
    its key at the end, dimmed, the keys of a list lined up after `width` characters."""
    title = visible(command.title)
    content = Content(title)
    for offset in offsets:
        if offset < len(title) and not title[offset].isspace():
            content = content.stylize(MATCH_STYLE, offset, offset + 1)
    if not command.available:
        content = content.append(Content.styled(NOT_NOW, "dim"))
    if command.key:
        gap = max(2, width - content.cell_length + 2)
        content = content.append(Content.styled(" " * gap + visible(command.key), "dim bold"))
    return content


def key_column(hits: Sequence[tuple[Command, Sequence[int]]]) -> int:
    """Where the keys of these rows line up: after the longest title (its "(not now)" too), at most
    KEY_COLUMN_AT_MOST."""
    longest = max((len(visible(c.title)) + (0 if c.available else len(NOT_NOW)) for c, _ in hits), default=0)
    return min(longest, KEY_COLUMN_AT_MOST)


class CommandList(OptionList, can_focus=False):
    """The palette's list: the filter line keeps the keyboard; the arrows move this highlight."""

    def _size_updated(self, size, virtual_size, container_size, layout: bool = True) -> bool:
        """An OptionList keeps its own virtual size (its lines), yet Textual's ScrollView compares
        it with the one a layout passes in, so every layout of the screen repainted the scroll
        bar: the layout that follows the scroll bar's first sizing made a second frame on opening.
        Only a new size or container size updates the scroll bars (the lines update their own)."""
        return super()._size_updated(size, self.virtual_size, container_size, layout)


class PaletteDialog(Dialog[None]):
    """Type to narrow the list; Up/Down (or a click) choose, Enter runs, Escape closes."""

    HELP = """\
## The command palette
Every action of every mode by its verb ("pending: Approve all"), from anywhere. Type to narrow the
list (the letters in order: "apall" finds "Approve all"); **Up**/**Down** move, **Enter** runs the
highlighted command (a click runs one too), **Esc** closes. A command's key is at the end of its
row (its help line says in which mode). One that can't apply now is marked "(not now)" and its help
line says why; running it says so too.
"""
    BINDINGS = [
        Binding("enter", "run", "Run", id="palette.run", priority=True, tooltip="Run the highlighted command"),
        Binding("escape", "close", "Close", id="palette.close", tooltip="Close the palette without running anything"),
        Binding("down", "move(1)", "Down", id="palette.down", show=False, tooltip="Highlight the next command"),
        Binding("up", "move(-1)", "Up", id="palette.up", show=False, tooltip="Highlight the previous command"),
        Binding("pagedown", "page(1)", "Page down", id="palette.page_down", show=False, tooltip="A page down"),
        Binding("pageup", "page(-1)", "Page up", id="palette.page_up", show=False, tooltip="A page up"),
    ]

    def __init__(self, commands: Sequence[Command], placeholder: str = "Search for actions…") -> None:
        super().__init__(classes="palette-screen")
        self.commands = list(commands)
        self.placeholder = placeholder
        self.search = FuzzySearch()  # caches its matches: typing back and forth is cheaper
        self.query_text = ""  # what `hits` were ranked for
        self.hits = ranked(self.commands, "")

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog palette-dialog"):
            yield Input(placeholder=self.placeholder, id="palette-input")
            yield CommandList(*self._options(), id="palette-list", markup=False)
            help_line = self._help_line(0 if self.hits else None)
            self._help_shown = help_line.plain
            yield Static(help_line, id="palette-help", markup=False)

    def _options(self) -> list[Option]:
        if not self.hits:
            return [Option(Content.styled(NO_MATCH, "dim italic"), disabled=True)]
        width = key_column(self.hits)
        return [Option(shown_title(command, offsets, width)) for command, offsets in self.hits]

    def _help_line(self, index: int | None) -> Text:
        if index is None or not 0 <= index < len(self.hits):
            return literal("Nothing matches what you typed: delete a letter or two, or Esc to close.", "dim")
        return literal(self.hits[index][0].help, "dim")

    @property
    def highlighted(self) -> Command | None:
        index = self.query_one(CommandList).highlighted
        return self.hits[index][0] if self.hits and index is not None else None

    @on(Input.Changed, "#palette-input")
    def typed(self, event: Input.Changed) -> None:
        self.narrow(event.value)

    def narrow(self, query: str) -> None:
        if query == self.query_text:
            return
        self.query_text = query
        self.hits = ranked(self.commands, query, self.search)
        options = self.query_one(CommandList)
        options.set_options(self._options())
        options.highlighted = 0 if self.hits else None
        self._show_help(options.highlighted)

    @on(OptionList.OptionHighlighted, "#palette-list")
    def highlighted_changed(self, event: OptionList.OptionHighlighted) -> None:
        self._show_help(event.option_index)

    def _show_help(self, index: int | None) -> None:
        help_line = self._help_line(index)
        if help_line.plain != self._help_shown:  # the same line again: no repaint
            self._help_shown = help_line.plain
            self.query_one("#palette-help", Static).update(help_line)

    def on_key(self, event: events.Key) -> None:
        """Keys typed right behind ctrl+p (a burst, as a terminal hands over fast typing) arrive
        before the filter line has the keyboard: they go into it, and none reaches the app's keys
        (`q` would quit, `2` switch mode)."""
        box = self.query_one("#palette-input", Input)
        if self.focused is None and event.is_printable and event.character:
            event.stop()
            event.prevent_default()
            box.insert_text_at_cursor(event.character)
            self.narrow(box.value)

    def action_run(self) -> None:
        """Enter is bound with priority, so it can overtake the letters typed just before it (a
        burst): the command runs once they are in, first those queued here (typed before the
        filter line had the keyboard), then those queued on the line itself."""
        box = self.query_one("#palette-input", Input)
        self.call_later(box.call_later, self._run_typed)

    def _run_typed(self) -> None:
        self.narrow(self.query_one("#palette-input", Input).value)
        self.run_command(self.highlighted)

    @on(OptionList.OptionSelected, "#palette-list")
    def clicked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.hits:
            self.run_command(self.hits[event.option_index][0])

    def run_command(self, command: Command | None) -> None:
        """Close the palette, then run the command on the screen below it (once: a second Enter
        right behind the first finds the palette closed)."""
        if command is None or not self.is_current:
            return
        self.dismiss(None)
        self.app.call_later(command.callback)

    def action_move(self, step: int) -> None:
        options = self.query_one(CommandList)
        options.action_cursor_down() if step > 0 else options.action_cursor_up()

    def action_page(self, step: int) -> None:
        options = self.query_one(CommandList)
        options.action_page_down() if step > 0 else options.action_page_up()

    def action_close(self) -> None:
        self.dismiss(None)
