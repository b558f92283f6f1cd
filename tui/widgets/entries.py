"""The numbered entry list of one store. Entries are untrusted text: always rendered literally."""

from __future__ import annotations

from typing import Sequence

from rich.text import Text
from textual.visual import RichVisual
from textual.widgets.option_list import Option

from core.no_gc import no_gc
from tui.literal import fitting, masked, visible_controls
from tui.widgets.lists import HmcList


class Hanging:
    """`number` right-aligned in a narrow column, then `body` wrapped under itself (a hanging indent).

    What a one-row Table.grid drew, for a fraction of the cost: a Table measures every cell twice
    per render, and an OptionList renders every option to learn its height (start-up time)."""

    NUMBER_WIDTH = 3

    def __init__(self, number: int, body: Text, wraps: dict | None = None) -> None:
        self.number = number
        self.body = body
        # the body's lines by width, shared by every row showing the same body (EntryList keeps them
        # from one show to the next: a store shown again wraps only its new or changed entries)
        self._wraps: dict[int, list] = wraps if wraps is not None else {}
        self._by_width: dict[int, tuple[Text, int]] = {}  # the list measures and paints each row several times

    def _lines(self, console, width: int) -> list:
        lines = self._wraps.get(width)
        if lines is None:
            lines = self._wraps[width] = list(self.body.wrap(console, width, overflow="fold"))
        return lines

    def _wrapped(self, console, max_width: int) -> tuple[Text, int]:
        """The row at `max_width` cells, and its number of lines."""
        indent = self.NUMBER_WIDTH + 1
        width = max(1, max_width - indent)
        cached = self._by_width.get(width)
        if cached is None:
            lines = self._lines(console, width)
            out = Text(no_wrap=True)
            for i, line in enumerate(lines):
                if i:
                    out.append("\n" + " " * indent)
                else:
                    out.append(f"{self.number:>{self.NUMBER_WIDTH}} ", style="bold")
                out.append_text(line)
            cached = self._by_width[width] = (out, max(1, len(lines)))
        return cached

    def height(self, console, max_width: int) -> int:
        if self._by_width:
            return self._wrapped(console, max_width)[1]
        return max(1, len(self._lines(console, max(1, max_width - self.NUMBER_WIDTH - 1))))

    def __rich_console__(self, console, options):
        yield self._wrapped(console, options.max_width)[0].copy()  # rendering may change a Text in place

    def __rich_measure__(self, console, options):
        from rich.measure import Measurement

        return Measurement(self.NUMBER_WIDTH + 2, options.max_width)


class HangingVisual(RichVisual):
    """A Hanging row as the option list sees it: its height is its number of wrapped lines, known
    from the wrap its paint reuses. (Textual's RichVisual renders a row to count its lines, then
    again to paint it: the first frame measures every row it lists.)"""

    def get_height(self, rules, width: int) -> int:
        return self._renderable.height(self._widget.app.console, width)


def entry_prompt(number: int, entry: str, limit: int, marks: Sequence[str] = (), origin: str | None = None) -> Hanging:
    """`  3 text…  (123)`: wrapped and multi-line entries keep a hanging indent; `origin` (where the
    entry came from, "added 12 Oct · telegram") goes on a muted line under it."""
    return Hanging(number, entry_body(entry, limit, marks, origin))


def entry_body(entry: str, limit: int, marks: Sequence[str] = (), origin: str | None = None,
               words: Sequence[str] = ()) -> Text:
    """An entry's row without its number: the text literally, its size, its marks, its origin line.
    `words`: a filter's words, highlighted where the entry's text has them (tui.widgets.filter_match)."""
    body = Text(fitting(entry))  # the pane's border stays in line (a ZWJ emoji is counted one way only)
    if words:
        from tui.widgets.filter_match import highlight

        body = highlight(body, words)
    size = len(entry)
    body.append(f"  ({size:,})", style="bold red" if size > limit else "dim")
    for mark in marks:
        body.append(f"  {mark}", style="bold yellow")
    if origin:
        body.append("\n")
        body.append(visible_controls(masked(origin)), style="dim italic")
    return body


class EntryList(HmcList):
    """An OptionList of entries; posts OptionList.OptionHighlighted/Selected as usual."""

    DEFAULT_CSS = """
    EntryList, EntryList:focus { height: 1fr; border: none; padding: 0; scrollbar-gutter: stable; }
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.numbers: list[int] = []  # the entry index each row shows (a filter hides some)

    def first_paint(self, entries: Sequence[str]) -> int:
        """How many entries can show in the first frame, with one to spare: lines are estimated
        from the terminal's size (the list isn't laid out yet) and each entry's length."""
        width, height = self.app.size
        panes_side_by_side = width >= 100  # memory mode's breakpoint (app.tcss)
        cols = max(20, (width // 2 if panes_side_by_side else width) - 10)
        # header, footer, the pane's border, title and gauge, the gap above the list
        lines = height - 7 if panes_side_by_side else (height - 2) // 2 - 5
        used = 0
        for n, entry in enumerate(entries, 1):
            used += sum(1 + (len(line) + 9) // cols for line in entry.split("\n")) + 1  # + the rule
            if used > lines:
                return n + 1
        return len(entries)

    def show(self, entries: Sequence[str], limit: int, marks: dict[int, list[str]] | None = None,
             keep: int | None = None, origins: dict[str, str] | None = None, empty: str = "",
             only: Sequence[int] | None = None, words: Sequence[str] = ()) -> None:
        """Replace the options, keeping the highlight where it was (or on `keep`); with no entries,
        one muted line `empty` says what that means and what to do. `only`: the indexes of the
        entries to list (a filter), each keeping its number; the rows map back with `entry_at`;
        `words`: the filter's words, highlighted in each entry listed.

        The first time, only the entries that can show are laid out before the first frame (an
        OptionList measures every option, on screen or not); the others are added just after it."""
        old = self.highlighted if keep is None else keep
        self._generation = getattr(self, "_generation", 0) + 1
        marks = marks or {}
        self.numbers = list(range(len(entries))) if only is None else [i for i in only if 0 <= i < len(entries)]
        options = self._options_for(entries, limit, marks, self.numbers, origins or {}, tuple(words))
        if entries and self._swap_rows(options):
            if old is not None:
                self.highlighted = min(old, len(self.numbers) - 1)
            return
        self.clear_options()
        if options:
            options[-1]._divider = False  # a row kept from last time that was above others then
        count = (self.first_paint(entries) if only is None and getattr(self, "_shown", False) is False
                 and old in (None, 0) else 0)
        self._shown = True
        if 0 < count < len(entries):
            cut = 2 * count - 1  # entries and the rules between them
            self.add_options(options[:cut])
            generation = self._generation
            # a moment after the first frame, not at once: a frame queued right behind the first
            # one holds back its flush to the terminal (Textual flushes when its queue is empty)
            later = getattr(self.app, "after_first_frame", None)
            if later is not None:
                later(lambda: self._add_rest(generation, options[cut:]))
            else:
                self.call_after_refresh(self._add_rest, generation, options[cut:])
        else:
            self.add_options(options)
        if not entries and empty:
            self.add_option(Option(Text(empty, style="dim italic"), id="empty", disabled=True))
        elif entries and not self.numbers:
            self.add_option(Option(Text("No entry matches the filter (Esc in the filter clears it).",
                                        style="dim italic"), id="empty", disabled=True))
        if self.numbers:
            self.highlighted = min(old if old is not None else 0, len(self.numbers) - 1)

    SWAP_AT_MOST = 64  # changed rows a show swaps in place (more: the list is built again)

    def _swap_rows(self, options: list) -> bool:
        """Show `options` by swapping in the rows that changed, when the list shows as many rows
        as before and few of them changed (an entry replaced or edited, a scan badge or an origin
        line arriving): the other rows, their lines and the scroll position stay as they are, and
        only the rows on screen are painted again. False when the list has to be built again."""
        rows = options[::2]  # a rule (None) between every two rows
        shown = self._options
        if not shown or len(rows) != len(shown) or any(r is None for r in rows):
            return False
        changed = [k for k, (was, now) in enumerate(zip(shown, rows)) if was is not now]
        if len(changed) > self.SWAP_AT_MOST or any(shown[k].disabled or shown[k].id != rows[k].id for k in changed):
            return False
        if not changed:
            return True
        heights = self._line_cache.heights
        width = self.scrollable_content_region.width - self._get_left_gutter_width()
        padding = self.get_component_styles("option-list--option").padding
        same_heights = bool(heights) and width > 0
        for k in changed:
            was, now = shown[k], rows[k]
            now._divider = was._divider
            shown[k] = now
            self._option_to_index.pop(was, None)
            self._option_to_index[now] = k
            if now.id is not None:
                self._id_to_option[now.id] = now
            if same_heights and (self._get_visual(now).get_height(self.styles, width - padding.width) + now._divider
                                 != heights.get(k)):
                same_heights = False
        if same_heights:
            self._option_render_cache.clear()  # the rows on screen paint again; the lines stay
            self.refresh()
        else:
            self._clear_caches()  # the lines are counted again (from the rows' kept wraps)
        return True

    def _get_visual(self, option: Option):
        """Textual (8.2.8, pinned) wraps a rich renderable in a RichVisual when an option is first
        measured (OptionList._get_visual, caching it on the option): a Hanging row gets its own,
        which counts its lines without rendering them."""
        if option._visual is None and isinstance(option.prompt, Hanging):
            option._visual = HangingVisual(self, option.prompt)
        return super()._get_visual(option)

    def _add_rest(self, generation: int, options: list) -> None:
        if generation == self._generation:  # not replaced meanwhile
            self.add_options(options)

    def _options_for(self, entries: Sequence[str], limit: int, marks: dict[int, list[str]], numbers: Sequence[int],
                     origins: dict[str, str], words: tuple[str, ...] = ()) -> list:
        """The rows of a show: a row showing the same body under the same number as last time is
        the same Option as then (with its visual and its lines at each width), so showing a store
        again after one entry changed builds that entry's row only; a row under a new number (an
        entry above it added or removed) takes the body and wrapped lines of the row that showed
        it; what no row shows is dropped (memory stays as large as one store's rows). The
        collector is held off while the rows are gathered: at 15,000 entries its passes
        over the rows already built cost as much as the gathering itself."""
        options: list[Option | None] = []
        rows: dict = {}
        kept_rows = getattr(self, "_rows", None) or {}
        bodies: dict | None = None  # body -> (Text, wraps) of the rows kept, made at the first new row
        with no_gc():
            for n, i in enumerate(numbers):
                entry = entries[i]
                if n:
                    options.append(None)  # a rule between entries keeps multi-line entries apart
                mark, origin = tuple(marks.get(i, ())), origins.get(entry)
                key = (entry, len(entry) > limit, mark, origin, words)  # words: the / filter's, highlighted
                row = kept_rows.get((key, i))
                if row is None:
                    if bodies is None:
                        bodies = {k: (r.prompt.body, r.prompt._wraps) for (k, _), r in kept_rows.items()}
                    made = bodies.get(key)
                    if made is None:
                        made = bodies[key] = (entry_body(entry, limit, mark, origin, words), {})
                    row = Option(Hanging(i + 1, *made), id=f"e{i}")
                rows[(key, i)] = row
                options.append(row)
        self._rows = rows
        return options

    def entry_at(self, row: int | None) -> int | None:
        """The entry index a row shows (rows skip the entries a filter hides)."""
        numbers = self.numbers
        return numbers[row] if row is not None and 0 <= row < len(numbers) else None

    def highlight_entry(self, index: int) -> None:
        """Put the cursor on entry `index` and bring it into view."""
        numbers = self.numbers
        if index not in numbers:
            return
        index = numbers.index(index)
        if 0 <= index < self.option_count:
            self.highlighted = index
            self.call_after_refresh(self.scroll_to_highlight)
