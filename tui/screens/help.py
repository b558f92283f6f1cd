"""`?`: the current screen's help text and every key it answers to, with what each does."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Label, Markdown, Static

from tui.screens.base import Dialog


class ComposedMarkdown(Markdown):
    """Markdown whose blocks are in the dialog's first frame. Textual's parses the text in a
    thread once mounted and mounts the blocks after that, so `?` painted the dialog empty and
    then again, two or three times; the help texts are short, so this one parses them as it is
    composed."""

    def compose(self) -> ComposeResult:
        from markdown_it import MarkdownIt

        markdown = self._initial_markdown or ""
        self._initial_markdown = None
        self._markdown = markdown
        self._theme = self.app.theme
        yield from self._parse_markdown(MarkdownIt("gfm-like").parse(markdown))

    async def _on_mount(self, event) -> None:
        event.prevent_default()  # Markdown's own would parse again and replace the blocks
        Widget._on_mount(self, event)


def key_table(screen: Screen) -> Table:
    """One row per action of the screen and the app (what the footer shows, and the keys it has no
    room for); greyed when it can't apply, with the reason, and the binding id that config.toml's
    [keys] takes. No widget navigation."""
    table = Table.grid(padding=(0, 2))
    # at 80 columns the long names and ids wrap, so the explanation keeps room to be read
    table.add_column(style="bold", no_wrap=True)
    table.add_column(max_width=18)
    table.add_column(style="dim", ratio=1, min_width=24)
    table.add_column(style="dim italic", max_width=20)
    app = screen.app
    rows: dict[tuple[int, str], list] = {}
    for key, active in screen.active_bindings.items():
        binding = active.binding
        if active.node not in (screen, app) or not binding.description or not binding.id:
            continue  # hmc's own actions only (they all have ids): no focus moves, no copy
        if binding.action in ("command_palette", "app.command_palette"):
            continue
        row = rows.setdefault((0 if active.node is screen else 1, binding.action), [[], active])
        display = app.get_key_display(Binding(key, ""))
        if display not in row[0]:
            row[0].append(display)
    quit_row = rows.get((1, "quit"))
    if quit_row is not None:
        # ctrl+c also quits when nothing is selected to copy (the screen's copy gives way to it)
        for binding in app.BINDINGS:
            if getattr(binding, "action", "") == "quit" and binding.key not in ("q",):
                display = app.get_key_display(Binding(binding.key, ""))
                if display not in quit_row[0]:
                    quit_row[0].append(display)
        quit_row[0].sort(key=lambda k: (len(k) > 1, k))  # q first
    why_not = getattr(screen, "why_not", None)
    for (_, action), (keys, active) in sorted(rows.items(), key=lambda kv: kv[0][0]):
        binding = active.binding
        style = "" if active.enabled else "dim strike"
        reason = why_not(action.split("(", 1)[0]) if (why_not is not None and not active.enabled) else None
        ids = [b.id for b in (*type(screen).BINDINGS, *type(app).BINDINGS)
               if isinstance(b, Binding) and b.id and b.action == binding.action and b.key.split(",")[0] in
               {k for k, a in screen.active_bindings.items() if a.binding.action == binding.action}]
        table.add_row(Text(", ".join(keys), style=style), Text(binding.description, style=style),
                      Text(reason or active.tooltip or binding.tooltip or ""), Text(", ".join(dict.fromkeys(ids))
                                                                                    or binding.id or ""))
    table.add_row(Text("ctrl+p", style=""), Text("Palette"), Text("Every action of every mode, by name"),
                  Text(""))
    return table


class HelpDialog(Dialog[None]):
    BINDINGS = [
        Binding("escape,question_mark,q", "close", "Close", id="help.close", tooltip="Close help"),
        Binding("j", "scroll(1)", "Down", id="help.down", show=False, tooltip="Scroll down a line"),
        Binding("k", "scroll(-1)", "Up", id="help.up", show=False, tooltip="Scroll up a line"),
        Binding("g", "scroll_to(0)", "Top", id="help.top", show=False, tooltip="Back to the top"),
        Binding("G", "scroll_to(-1)", "Bottom", id="help.bottom", show=False, tooltip="To the end"),
    ]

    def __init__(self, screen: Screen) -> None:
        from tui.guide import guide_page

        super().__init__()
        self.target = screen
        # read while `screen` is still on top: what can apply depends on it (mode keys, t and /
        # don't apply while a dialog is on top, and this dialog will be)
        self.keys = key_table(screen)
        self.page = guide_page(screen, screen.app.screen_stack)

    def compose(self) -> ComposeResult:
        mode = getattr(self.target, "MODE", "")
        heading = f"Help — {mode} mode" if mode else "Help — this dialog" if isinstance(self.target, Dialog) else "Help"
        with Vertical(classes="dialog help-dialog"):
            yield Label(Text(heading, style="bold"), classes="dialog-title")
            if self.page:
                yield Static(Text.assemble("Guide: ", (self.page, "bold")), id="help-guide")
            with VerticalScroll(id="help-body"):
                # the keys first (what help is opened for); the caption wraps rather than being cut
                yield Static(Text("Keys · greyed: can't apply now · last column: the id config.toml's [keys] remaps",
                                  style="bold"), classes="help-keys-title")
                yield Static(self.keys, id="help-keys")
                help_text = getattr(self.target, "HELP", "") or ""
                if help_text:
                    yield ComposedMarkdown(help_text.strip(), id="help-text")
            yield Static(Text("Esc closes · j/k, g/G scroll · ctrl+p: any action of any mode by name",
                              style="dim"), id="help-caption")

    def action_close(self) -> None:
        self.dismiss(None)

    def action_scroll(self, lines: int) -> None:
        self.query_one("#help-body", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_scroll_to(self, where: int) -> None:
        body = self.query_one("#help-body", VerticalScroll)
        body.scroll_end(animate=False) if where < 0 else body.scroll_home(animate=False)
