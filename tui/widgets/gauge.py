"""A capacity gauge: a bar plus Hermes's usage label, coloured by how full the store is."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from core.store.memory import percent, usage_label

WARN_AT = 80
ERROR_AT = 95


def level(used: int, limit: int) -> str:
    """calm below 80%, warning from 80%, error from 95%, over above the limit."""
    if limit > 0 and used > limit:
        return "over"
    pct = percent(used, limit)
    if pct >= ERROR_AT:
        return "error"
    if pct >= WARN_AT:
        return "warning"
    return "calm"


class CapacityGauge(Widget):
    """Renders `used`/`limit`; knows nothing about files."""

    DEFAULT_CSS = """
    CapacityGauge { height: 1; width: 1fr; }
    CapacityGauge.-titled { height: 2; }
    CapacityGauge > .gauge--bar { color: $success; }
    CapacityGauge.-warning > .gauge--bar { color: $warning; }
    CapacityGauge.-error > .gauge--bar, CapacityGauge.-over > .gauge--bar { color: $error; }
    CapacityGauge > .gauge--empty { color: $panel-lighten-2; }
    CapacityGauge.-over > .gauge--label { color: $error; text-style: bold; }
    """
    COMPONENT_CLASSES = {"gauge--bar", "gauge--empty", "gauge--label"}

    used: reactive[int] = reactive(0)
    limit: reactive[int] = reactive(1)

    def __init__(self, used: int = 0, limit: int = 1, *, label_width: int = 30, title: Text | None = None,
                 **kwargs) -> None:
        self._level: str | None = level(used, limit)
        self._title = title  # a line above the bar (a store pane's title): one widget instead of two
        extra = f" -{self._level}" + (" -titled" if title is not None else "")
        classes = f"{kwargs.pop('classes', None) or ''}{extra}".strip()  # styled once, as it mounts
        super().__init__(classes=classes, **kwargs)
        self.label_width = label_width
        self.set_reactive(CapacityGauge.used, used)
        self.set_reactive(CapacityGauge.limit, limit)

    def update(self, used: int, limit: int) -> None:
        """Both numbers at once: one restyle and one repaint, not two of each."""
        if (used, limit) == (self.used, self.limit) and self._level is not None:
            return
        self.set_reactive(CapacityGauge.used, used)
        self.set_reactive(CapacityGauge.limit, limit)
        self._restyle()
        self.refresh()

    def watch_used(self) -> None:
        self._restyle()

    def watch_limit(self) -> None:
        self._restyle()

    def on_mount(self) -> None:
        self._restyle()

    def _restyle(self) -> None:
        """The level class (-calm, -warning, -error, -over) changes only when the level does (each
        class change restyles the widget)."""
        current = level(self.used, self.limit)
        if current != self._level:
            if self._level is not None:
                self.set_class(False, f"-{self._level}", update=False)
            self._level = current
            self.set_class(True, f"-{current}")
        self.tooltip = self.label

    def set_title(self, title: Text) -> None:
        if self._title is None or title.plain != self._title.plain or title.style != self._title.style:
            self._title = title
            self.refresh()

    @property
    def label(self) -> str:
        text = usage_label(self.used, self.limit)
        if self.limit > 0 and self.used > self.limit:
            text += f" — {self.used - self.limit:,} over"
        return text

    def render(self) -> Text:
        label = self.label
        width = max(self.size.width - len(label) - 1, 4)
        fill = width if self.limit <= 0 or self.used >= self.limit else int(width * self.used / self.limit)
        bar_style = self.get_component_rich_style("gauge--bar")
        empty_style = self.get_component_rich_style("gauge--empty")
        label_style = self.get_component_rich_style("gauge--label")
        bar = Text.assemble(("█" * fill, bar_style), ("░" * (width - fill), empty_style), " ", (label, label_style))
        if self._title is None:
            return bar
        return Text.assemble(self._title, "\n", bar)
