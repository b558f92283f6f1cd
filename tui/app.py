"""CuratorApp: four modes over one Curator. Thin: it wires core objects to screens."""

from __future__ import annotations

import asyncio
import difflib
import importlib
from typing import Sequence

from rich.text import Text
from textual.app import App
from textual.binding import Binding
from textual.screen import Screen
from textual.signal import Signal

from core import timefmt
from core.home import list_profiles
from core.store.memory import FILE_NAMES, Conflict, Op, ScanRefused, StoreError, WriteResult, token_of
from core.pending.queue import PendingError
from tui.literal import literal
from tui.screens.dialogs import ChoiceDialog, ConfirmDialog, EditAgain, scan_body

MODE_SCREENS = {"memory": "MemoryScreen", "pending": "PendingScreen", "search": "SearchScreen", "review": "ReviewScreen"}
POLL_SECONDS = 0.5


def mode_screen(mode: str) -> type[Screen]:
    """A mode's screen class, imported on first use (faster start)."""
    return getattr(importlib.import_module(f"tui.screens.{mode}"), MODE_SCREENS[mode])


def curator_commands():
    """The palette provider, imported when the palette first opens."""
    from tui.palette import CuratorCommands

    return CuratorCommands


class CuratorApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "hmc — Hermes Memory Curator"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    COMMANDS = App.COMMANDS | {curator_commands}
    BINDINGS = [
        Binding("1", "mode('memory')", "Memory", id="app.memory", tooltip="MEMORY.md and USER.md", show=False),
        Binding("2", "mode('pending')", "Pending", id="app.pending", tooltip="Staged writes waiting for approval", show=False),
        Binding("3", "mode('search')", "Search", id="app.search", tooltip="Search past sessions", show=False),
        Binding("4", "mode('review')", "Review", id="app.review", tooltip="The monthly review", show=False),
        Binding("slash", "search_box", "Search", id="app.slash", tooltip="Jump to the search box", show=False),
        Binding("question_mark", "help", "Help", id="app.help", tooltip="Keys and help for this screen"),
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Leave hmc (every write is already on disk)"),
    ]

    def __init__(self, curator, *, poll: bool = True, greet: bool = True, **kwargs) -> None:
        super().__init__(**kwargs)
        self.curator = curator
        self.poll_enabled = poll
        self.greet_enabled = greet
        self.memory_changed: Signal[str] = Signal(self, "memory_changed")
        self.pending_changed: Signal[None] = Signal(self, "pending_changed")
        self.header_changed: Signal[None] = Signal(self, "header_changed")
        self._pending_token: object = None
        self._config_token: object = None
        self._pending_count = 0
        for mode in MODE_SCREENS:  # a mode's module is imported when it is first shown (faster start)
            self.add_mode(mode, lambda m=mode: mode_screen(m)())

    # -- start-up --------------------------------------------------------------------------------

    def on_mount(self) -> None:
        for store in self.curator.stores.values():
            store.read()
        self._pending_token = self.pending_token()
        self._pending_count = self.count_pending()
        self._config_token = token_of(self.curator.home.config_path)
        self.switch_mode("memory")
        if self.poll_enabled:
            self.set_interval(POLL_SECONDS, self.poll, name="poll-files")
        if self.greet_enabled:
            self.call_after_refresh(self.greet)

    def greet(self) -> None:
        for problem in self.curator.home.config.problems:
            self.notify(problem, title="config.yaml", severity="warning", timeout=8)
        if self._pending_count:
            oldest = self.oldest_pending_age()
            self.notify(
                f"{self._pending_count} staged write{'s' if self._pending_count != 1 else ''} wait for approval"
                + (f" (oldest {oldest})" if oldest else "") + ". Press 2 to review them.",
                title="Pending writes", timeout=8,
            )
        due = self.review_state()
        if due.get("due"):
            self.notify(f"The monthly review is due ({due['text'].removeprefix('review due').strip(' ()') or 'never done'}). "
                        "Press 4 to start it.", title="Review", timeout=8)

    # -- polling: external writes show up within a second ------------------------------------

    def poll(self) -> None:
        for target, store in self.curator.stores.items():
            if store.changed_on_disk():
                self.memory_changed.publish(target)
                self.notify(f"{store.name} changed on disk (Hermes?) — reloaded.", title="External change")
        token = self.pending_token()
        if token != self._pending_token:
            self._pending_token = token
            self._pending_count = self.count_pending()
            self.pending_changed.publish(None)
            self.header_changed.publish(None)
        config_token = token_of(self.curator.home.config_path)
        if config_token != self._config_token:
            self._config_token = config_token
            if self.curator.reload_config():
                for target in self.curator.stores:
                    self.memory_changed.publish(target)
                self.header_changed.publish(None)
                self.notify("config.yaml changed — limits and switches reloaded.", title="Config")
                for problem in self.curator.home.config.problems:
                    self.notify(problem, title="config.yaml", severity="warning", timeout=8)

    def pending_written(self) -> None:
        """A screen changed the pending folder itself: refresh the count without a second reload."""
        self._pending_token = self.pending_token()
        self._pending_count = self.count_pending()
        self.header_changed.publish(None)

    def pending_token(self) -> object:
        """The queue's own change token; an unreadable folder counts as empty (the screen says why)."""
        try:
            return self.curator.pending.token()
        except PendingError:
            return ()

    def count_pending(self) -> int:
        try:
            return self.curator.pending.count()
        except PendingError:
            return 0

    def oldest_pending_age(self) -> str | None:
        try:
            age = self.curator.pending.oldest_age()
        except PendingError:
            return None
        return None if age is None else timefmt.ago(self.curator.now() - age, self.curator.now())

    # -- header --------------------------------------------------------------------------------

    def review_state(self) -> dict:
        """The header's review status, from the decisions file alone (core.review.findings is heavy to import)."""
        from core.store.journal import state_dir
        from core.review.decisions import ReviewStore, review_due_on

        last = ReviewStore(state_dir(self.curator.home.root)).last_review()
        due = review_due_on(last, self.curator.today)
        if due:
            text = "review due" + (f" (last {last.isoformat()})" if last else "")
        else:
            text = f"reviewed {last.isoformat()}" if last else "never reviewed"
        return {"text": text, "due": due}

    def header_state(self) -> dict:
        review = self.review_state()
        return {
            "home": self.curator.home.display(),
            "profile": self.curator.home.profile,
            "pending": self._pending_count,
            "review": review["text"],
            "review_due": review["due"],
        }

    def ago(self, ts: float) -> str:
        return timefmt.ago(ts, self.curator.now())

    # -- writes (every screen goes through here) ---------------------------------------------

    def stores_written(self, target: str) -> None:
        self.memory_changed.publish(target)
        self.header_changed.publish(None)

    async def write(self, target: str, ops: Sequence[Op], *, action: str | None = None,
                    force: bool = False, editable: bool = False) -> WriteResult | None:
        """Apply ops off the UI thread; confirm scanner hits, resolve conflicts, report the outcome.

        Must run inside a worker (it may push dialogs and wait for them). With `editable`, the
        conflict dialog also offers "Edit again", which raises EditAgain for the caller's editor.
        """
        store = self.curator.stores[target]
        try:
            result = await asyncio.to_thread(store.apply, list(ops), force=force, action=action)
        except ScanRefused as exc:
            body = scan_body(exc.findings)
            if not await self.push_screen_wait(ConfirmDialog("Write despite the security scan?", body,
                                                             yes="Write anyway", danger=True)):
                self.notify("Nothing was written.", title="Cancelled")
                return None
            return await self.write(target, ops, action=action, force=True)
        except Conflict as exc:
            return await self.resolve_conflict(target, ops, exc, action, editable)
        except StoreError as exc:
            self.notify(str(exc), title=f"{store.name}: nothing written", severity="error", timeout=10)
            return None
        self.stores_written(target)
        if result.changed:
            self.notify(" ".join(result.messages) + f"\n{store.name}: {result.label}", title="Saved")
        else:
            self.notify(" ".join(result.messages), title="Nothing to change")
        return result

    async def resolve_conflict(self, target: str, ops: Sequence[Op], exc: Conflict, action: str | None,
                               editable: bool = False):
        """The entry changed on disk while the person edited it: theirs / mine / both, never silent."""
        store = self.curator.stores[target]
        mine = next((op.content for op in ops if op.action == "replace" and op.matched_entry == exc.expected), None)
        if mine is None:
            self.notify(f"{store.name} changed on disk: the entry is no longer as it was, so nothing was changed.",
                        title="Changed meanwhile", severity="warning", timeout=10)
            return None
        close = difflib.get_close_matches(exc.expected, exc.current, n=1, cutoff=0.4)
        theirs = close[0] if close else None
        body = Text("While you edited, the entry changed on disk (Hermes wrote to ")
        body.append(FILE_NAMES[target], style="bold")
        body.append(").\n\nTheirs (on disk now):\n", style="")
        body.append_text(literal(theirs) if theirs else Text("(the entry was removed)", style="italic"))
        body.append("\n\nMine (your edit):\n")
        body.append_text(literal(mine))
        choices = [("theirs", "Keep theirs"), ("mine", "Use mine"), ("both", "Keep both")]
        if editable:
            choices.append(("edit", "Edit again"))
        choice = await self.push_screen_wait(ChoiceDialog("Conflict", body, choices, default="theirs"))
        if choice == "edit":
            raise EditAgain(theirs, mine)
        if choice == "mine":
            new_ops = ([Op("replace", content=mine, old_text=theirs, matched_entry=theirs)] if theirs
                       else [Op("add", content=mine)])
        elif choice == "both":
            new_ops = [Op("add", content=mine)]
        else:
            self.notify("Kept the entry as it is on disk.", title="Conflict")
            self.stores_written(target)
            return None
        return await self.write(target, new_ops, action=action)

    async def undo(self) -> None:
        history = self.curator.history
        rec = history.undoable()
        if rec is None:
            self.notify("Nothing to undo.")
            return
        try:
            await asyncio.to_thread(history.undo, self.curator.stores)
        except StoreError as exc:
            self.notify(str(exc), title="Undo refused", severity="error", timeout=10)
            return
        self.stores_written(rec.target)
        self.notify(f"Undid {rec.action} in {FILE_NAMES[rec.target]}.", title="Undo")

    # -- navigation ------------------------------------------------------------------------------

    def action_mode(self, mode: str) -> None:
        if self.current_mode != mode:
            self.switch_mode(mode)

    def action_search_box(self) -> None:
        self.switch_mode("search")
        focus = getattr(self.screen, "focus_query", None)
        if focus:
            self.call_after_refresh(focus)

    def action_help(self) -> None:
        from tui.screens.help import HelpDialog

        if not isinstance(self.screen, HelpDialog):
            self.push_screen(HelpDialog(self.screen))

    def show_memory(self, target: str) -> None:
        self.switch_mode("memory")

        def focus() -> None:
            try:
                self.screen.query_one(f"#entries-{target}").focus()
            except Exception:
                pass

        self.call_after_refresh(focus)

    def open_provenance(self, entry: str) -> None:
        """Open the session where an entry was written (search mode), or say it can't be found."""
        opener = getattr(mode_screen("search"), "open_provenance", None)
        if opener is None:
            self.notify("Session search is not available in this version.", severity="warning")
            return
        opener(self, entry)

    def switch_profile(self, profile: str) -> None:
        try:
            self.curator = self.curator.switch_profile(profile)
        except Exception as exc:
            self.notify(str(exc), title="Profile", severity="error")
            return
        for store in self.curator.stores.values():
            store.read()
        self._pending_token = self.pending_token()
        self._pending_count = self.count_pending()
        self._config_token = token_of(self.curator.home.config_path)
        for target in self.curator.stores:
            self.memory_changed.publish(target)
        self.pending_changed.publish(None)
        self.header_changed.publish(None)
        self.notify(f"Now curating profile {profile}.", title="Profile")

    def palette_commands(self):
        """(title, help, callback) for the command palette."""
        out = []
        for mode in MODE_SCREENS:
            out.append((f"go: {mode.capitalize()} mode", f"Switch to {mode} mode", lambda m=mode: self.action_mode(m)))
        # the palette is itself a screen: list the actions of the screen beneath it
        from textual.command import CommandPalette

        screen = next(s for s in reversed(self.screen_stack) if not isinstance(s, CommandPalette))
        area = getattr(screen, "AREA", "app")
        seen = set()
        for key, active in screen.active_bindings.items():
            binding = active.binding
            if not binding.description or binding.action in seen or not active.enabled:
                continue
            seen.add(binding.action)
            node = active.node
            owner = "app" if node is self else area
            out.append((f"{owner}: {binding.description}", active.tooltip or binding.tooltip or f"key {key}",
                        lambda n=node, a=binding.action: self.call_later(n.run_action, a)))
        for name in list_profiles(self.curator.home.base):
            if name != self.curator.home.profile:
                out.append((f"profile: Switch to {name}", f"Curate the {name} profile",
                            lambda n=name: self.switch_profile(n)))
        return out

