"""The first-run screen: `hmc` on a folder that isn't a Hermes home (or doesn't exist) asks first.

It says what it found, then offers to create the home (exactly what `--init` creates:
core.home.init_home, through core.home.create_home), to try the demo instead, or to quit.
When to ask is the command line's decision (tui/cli/open_tui.py).
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Label, Static

from core.errors import CliError
from core.home import create_home, tilde
from tui.literal import literal

CREATED, DEMO, QUIT = "created", "demo", "quit"
MISSING, NOT_HOME = "missing", "not-home"


def found_text(path: Path, state: str) -> str:
    """What hmc found at `path`, plainly."""
    if state == MISSING:
        return "This folder doesn't exist."
    try:
        count = sum(1 for _ in path.iterdir())
    except OSError:
        count = -1
    holds = ("It is empty." if count == 0 else "It holds 1 other file or folder." if count == 1
             else f"It holds {count:,} other files and folders." if count > 1 else "")
    return f"It has no config.yaml, no memories/ folder and no state.db, so it is not a Hermes home. {holds}".rstrip()


class FirstRunApp(App[str]):
    """Asks what to do about a folder that isn't a Hermes home; exits with CREATED, DEMO or QUIT."""

    TITLE = "hmc"
    CSS = """
    Screen { align: center middle; background: $background; }
    #first-run { width: 86; max-width: 100%; height: auto; max-height: 100%; border: thick $accent;
                 background: $surface; padding: 1 2; }
    #first-run-title { width: 1fr; margin-bottom: 1; }
    #first-run-scroll, #first-run-body { height: auto; }
    #first-run-error { height: auto; margin-top: 1; color: $text-error; text-style: bold; display: none; }
    #first-run-error.-shown { display: block; }
    #first-run-buttons { height: auto; margin-top: 1; align-horizontal: right; }
    #first-run-buttons Button { margin-left: 1; min-width: 12; }
    Screen.-short #first-run { padding: 0 1; }
    Screen.-short #first-run-title { margin-bottom: 0; }
    Screen.-short #first-run-buttons { margin-top: 0; }
    Screen.-short #first-run-buttons Button { height: 1; border: none; min-width: 10; }
    """
    BINDINGS = [
        Binding("y", "choose('create')", "Create", id="first_run.create", tooltip="Create the home, then open hmc on it"),
        Binding("d", "choose('demo')", "Demo", id="first_run.demo", tooltip="Open hmc on the built-in demo home instead"),
        Binding("n,escape,q,ctrl+q,ctrl+c", "choose('quit')", "Quit", id="first_run.quit", tooltip="Quit; nothing is created",
                priority=True),
    ]

    def __init__(self, path: Path, state: str, where: str = "--home") -> None:
        super().__init__()
        self.path, self.state, self.where = Path(path), state, where
        from core.settings import load

        self._theme = load().theme  # hmc's saved theme, as the app that follows uses it

    def compose(self) -> ComposeResult:
        shown = tilde(self.path)
        title = "No Hermes home yet" if self.state == MISSING else "Not a Hermes home"
        body = Text()
        body.append("hmc looked for a Hermes home at\n\n  ")
        body.append_text(literal(shown, "bold"))
        body.append(f"   ({self.where})\n\n")
        body.append(found_text(self.path, self.state) + "\n\n")
        body.append("y", "bold")
        if self.state == MISSING:
            body.append("  create it and an empty memories/ in it (as --init does), then open it\n")
        else:
            body.append("  make it one: add an empty memories/ folder (as --init does) and open it\n")
        body.append("d", "bold")
        body.append("  try the demo instead (`hmc demo`: a realistic home with problems to find)\n")
        body.append("n", "bold")
        body.append("  quit; nothing is created (Escape too)")
        with Vertical(id="first-run"):
            yield Label(Text(f"hmc · {title}", "bold"), id="first-run-title")
            with VerticalScroll(id="first-run-scroll"):
                yield Static(body, id="first-run-body", markup=False)
            yield Static("", id="first-run-error", markup=False)
            with Horizontal(id="first-run-buttons"):
                yield Button("Create (y)", id="create", variant="primary")
                yield Button("Try the demo (d)", id="demo")
                yield Button("Quit (n)", id="quit")

    def on_mount(self) -> None:
        if self._theme and self._theme in self.available_themes:
            self.theme = self._theme
        self.query_one("#create", Button).focus()
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        self.screen.set_class(self.size.height < 30, "-short")
        self.call_after_refresh(self._fit_body)

    def _fit_body(self) -> None:
        """On a terminal too short for everything, the text scrolls and the buttons stay in view."""
        box, scroll = self.query_one("#first-run"), self.query_one("#first-run-scroll")
        rest = box.gutter.height + sum(
            child.outer_size.height + child.styles.margin.top + child.styles.margin.bottom
            for child in box.children if child is not scroll and child.display)
        scroll.styles.max_height = max(3, self.size.height - rest)

    def on_key(self, event) -> None:
        """1…3 choose a button; ←/→ move between them (Enter presses the focused one)."""
        if event.character in ("1", "2", "3"):
            event.stop()
            self.action_choose(("create", "demo", "quit")[int(event.character) - 1])
        elif event.key in ("left", "right"):
            event.stop()
            self.screen.focus_previous(Button) if event.key == "left" else self.screen.focus_next(Button)

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.action_choose(event.button.id or "quit")

    def action_choose(self, choice: str) -> None:
        if choice == "demo":
            self.exit(DEMO)
        elif choice == "create":
            self.create()
        else:
            self.exit(QUIT)

    def create(self) -> None:
        error = self.query_one("#first-run-error", Static)
        try:
            create_home(self.path)
        except CliError as exc:
            error.update(literal(f"{exc} — nothing was created. Choose another folder with --home, "
                                 "try the demo (d), or quit (n)."))
            error.add_class("-shown")
            self.call_after_refresh(self._fit_body)
            return
        self.exit(CREATED)
