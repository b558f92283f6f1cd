"""The key footer: one line of the screen's keys that gives way by priority, never by collision.

`?` Help and `q` Quit always stay, at the right end. The screen's own keys come first, in the
order of its BINDINGS (the most important first); when the line is too narrow, the `^p palette`
hint goes first, then the gaps narrow, then greyed keys go, then the least important keys. Greyed keys (`check_action` returned None) are
drawn in a muted colour without bold, so they read as unavailable in 256 colours too; pressing or
clicking one says why. One widget rendering one line (Textual's Footer is a widget per key),
so a change of what can apply costs a repaint, not a recompose.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.widget import Widget

PINNED = ("help", "quit")  # always shown, right end
GAP = 2
PALETTE_HINT = ("ctrl+p", "palette")


@dataclass(frozen=True)
class Item:
    key: str  # the key pressed (simulated on click)
    display: str  # how the key is shown (^p, ?)
    label: str
    enabled: bool
    tooltip: str
    action: str = ""

    @property
    def width(self) -> int:
        return len(self.display) + 1 + len(self.label)


def layout(left: list[Item], right: list[Item], hint: Item | None, width: int) -> tuple[list[Item], bool, int]:
    """Which left items fit beside the pinned right ones, whether the palette hint fits, and the gap.

    The hint goes before any key does; then the gap between keys narrows to one cell; then greyed
    keys go, then keys that work, each from the end of `left` (least important first)."""

    def needed(items: list[Item], with_hint: bool, gap: int) -> int:
        parts = [i.width for i in items] + [i.width for i in right]
        total = sum(parts) + gap * max(len(parts) - 1, 0) + 2  # a cell of margin each side
        if with_hint and hint is not None:
            total += GAP + 1 + hint.width  # "│ ^p palette"
        return total + (GAP if items else 0)  # the left group and the right group never touch

    shown = list(left)
    if needed(shown, True, GAP) <= width:
        return shown, hint is not None, GAP
    if needed(shown, False, GAP) <= width:
        return shown, False, GAP
    for enabled in (False, True):
        for item in reversed(list(shown)):
            if needed(shown, False, 1) <= width:
                return shown, False, 1
            if item.enabled == enabled:
                shown.remove(item)
    return shown, False, 1


class KeyFooter(Widget):
    """Renders the active bindings of its screen that have `show=True`, by priority."""

    DEFAULT_CSS = """
    KeyFooter {
        dock: bottom;
        height: 1;
        background: $footer-background;
        color: $footer-foreground;
    }
    KeyFooter > .keyfooter--key { color: $footer-key-foreground; text-style: bold; }
    KeyFooter > .keyfooter--label { color: $footer-description-foreground; }
    KeyFooter > .keyfooter--off { color: $footer-foreground 38%; text-style: italic; }
    KeyFooter > .keyfooter--hint { color: $footer-foreground 60%; }
    """
    COMPONENT_CLASSES = {"keyfooter--key", "keyfooter--label", "keyfooter--off", "keyfooter--hint"}

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._spans: list[tuple[int, int, Item]] = []

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def _bindings_changed(self, _screen=None) -> None:
        """Repaint only when what the footer shows changed (Textual signals every re-check, and
        each repaint is a frame written to the terminal)."""
        items = self.items()
        signature = ([(i.key, i.label, i.enabled) for i in items[0] + items[1]], items[2] is not None)
        if signature != getattr(self, "_signature", None):
            self._signature = signature
            self.refresh()

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def items(self) -> tuple[list[Item], list[Item], Item | None]:
        app = self.app
        screen = self.screen
        left: list[Item] = []
        right: dict[str, tuple[Item, bool]] = {}
        seen: set[str] = set()
        hint = None
        for key, active in screen.active_bindings.items():
            binding = active.binding
            if binding.action in ("command_palette", "app.command_palette") and app.ENABLE_COMMAND_PALETTE:
                hint = Item(key, app.get_key_display(binding), "palette", True, "Every action by name")
                continue
            name = binding.action.removeprefix("app.")
            item = Item(key, app.get_key_display(binding), binding.description, active.enabled,
                        active.tooltip or binding.tooltip or binding.description, binding.action)
            if name in PINNED and (active.node is app or binding.action.startswith("app.")):
                # q and ? when they work; where a text box takes them, the key that works there (^q, f1)
                if binding.description and (name not in right or (binding.show and not right[name][1])):
                    right[name] = (item, binding.show)
                continue
            if not binding.show or not binding.description or binding.action in seen:
                continue
            seen.add(binding.action)
            left.append(item)
        return left, [right[n][0] for n in PINNED if n in right], hint

    def render(self) -> Text:
        left, right, hint = self.items()
        self._signature = ([(i.key, i.label, i.enabled) for i in left + right], hint is not None)
        width = self.size.width
        shown, with_hint, gap = layout(left, right, hint, width)
        key_style = self.get_component_rich_style("keyfooter--key")
        label_style = self.get_component_rich_style("keyfooter--label")
        off_style = self.get_component_rich_style("keyfooter--off")
        hint_style = self.get_component_rich_style("keyfooter--hint")
        spans: list[tuple[int, int, Item]] = []
        line = Text(no_wrap=True, overflow="crop")

        def put(item: Item, styles=None) -> None:
            start = line.cell_len
            k, lab = styles or ((key_style, label_style) if item.enabled else (off_style, off_style))
            line.append(item.display, style=k)
            line.append(" " + item.label, style=lab)
            spans.append((start, line.cell_len, item))

        line.append(" ")
        for n, item in enumerate(shown):
            if n:
                line.append(" " * gap)
            put(item)
        right_width = sum(i.width for i in right) + gap * max(len(right) - 1, 0)
        if with_hint and hint is not None:
            right_width += GAP + 1 + hint.width
        pad = max(GAP if shown else 0, width - line.cell_len - right_width - 1)
        line.append(" " * pad)
        for n, item in enumerate(right):
            if n:
                line.append(" " * gap)
            put(item)
        if with_hint and hint is not None:
            line.append(" " * (GAP - 1) + "│ ", style=hint_style)
            put(hint, (hint_style, hint_style))
        line.truncate(width)
        self._spans = spans
        return line

    # -- mouse ---------------------------------------------------------------------------------

    def item_at(self, x: int) -> Item | None:
        for start, end, item in self._spans:
            if start <= x < end:
                return item
        return None

    def on_mouse_move(self, event: events.MouseMove) -> None:
        item = self.item_at(event.x)
        self.tooltip = item.tooltip if item is not None else None

    def on_click(self, event: events.Click) -> None:
        item = self.item_at(event.x)
        if item is not None:
            event.stop()
            self.app.simulate_key(item.key)
