"""CuratorApp: four modes over one Curator. Thin: it wires core objects to screens."""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path
from typing import Sequence

from rich.text import Text
from textual.app import App
from textual.binding import Binding
from textual.screen import ModalScreen, Screen
from textual.signal import Signal

from core import timefmt
from core.home import list_profiles
from core.progress import Jobs
from core.settings import Settings, SettingsError, load as load_settings, save_theme
from core.store.memory import FILE_NAMES, Conflict, Op, ScanRefused, StoreError, WriteResult, token_of
from tui.literal import literal, masked, visible
from tui.modes import MODE_SCREENS, mode_screen

# Dialogs, the pending queue and the review are imported when first used: the first screen only
# needs the stores (faster start, see tests/bench/bench_startup.py).

POLL_SECONDS = 0.5  # the default; config.toml's poll_interval changes it
INFO_SECONDS = 3.0  # how long a toast that only informs stays, unless it says (Textual's default: 5)
AFTER_FIRST_FRAME = 0.05  # seconds between the first frame and the work that repaints after it
OTHER_CSS = Path(__file__).with_name("screens.tcss")  # the styles of every screen but the first (memory mode)
PREBUILD_AFTER = 0.5  # seconds after the first frame before the other modes' screens are built (its
# own follow-up work, the counts, the toasts, the scan badges, the origin lines, goes first)


class CuratorApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "hmc — Hermes Memory Curator"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]  # dialogs tighten to fit 24 rows
    DEFAULT_MODE = "memory"  # the first screen is a mode's own: no second screen and CSS pass at start
    BINDINGS = [
        Binding("1", "mode('memory')", "Memory", id="app.memory", tooltip="MEMORY.md and USER.md", show=False),
        Binding("2", "mode('pending')", "Pending", id="app.pending", tooltip="Staged writes waiting for approval", show=False),
        Binding("3", "mode('search')", "Search", id="app.search", tooltip="Search past sessions", show=False),
        Binding("4", "mode('review')", "Review", id="app.review", tooltip="The monthly review", show=False),
        Binding("5", "mode('profiles')", "Profiles", id="app.profiles", show=False,
                tooltip="Every profile of the home side by side; Enter opens one"),
        Binding("slash", "search_box", "Search", id="app.slash", show=False,
                tooltip="Jump to the search box (in a list that has a filter, / filters that list; 3 always searches)"),
        Binding("t", "timeline", "Timeline", id="app.timeline", show=False,
                tooltip="Every write to MEMORY.md and USER.md, newest first; R rolls one back"),
        Binding("question_mark", "help", "Help", id="app.help", tooltip="Keys and help for this screen"),
        Binding("f1", "help", "Help", id="app.help_f1", show=False, tooltip="Keys and help for this screen (works in text boxes too)"),
        Binding("q", "quit", "Quit", id="app.quit", tooltip="Leave hmc (every write is already on disk)"),
        Binding("ctrl+q", "quit", "Quit", id="app.quit_now", show=False, priority=True,
                tooltip="Leave hmc from anywhere (asks first if a dialog holds text you typed)"),
        Binding("ctrl+c", "quit", "Quit", id="app.ctrl_c", show=False,
                tooltip="Leave hmc (asks first if a dialog holds text you typed)"),
    ]

    def __init__(self, curator, *, poll: bool = True, greet: bool = True, settings: Settings | None = None,
                 prebuild: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.curator = curator
        self.poll_enabled = poll
        self.prebuild_enabled = prebuild  # the other modes' screens built before their first visit (hmc
        # asks for it; off by default, so a test sees only the screens it opens)
        self.greet_enabled = greet
        self.settings = load_settings() if settings is None else settings
        self.setting_problems: list[str] = list(self.settings.problems)
        self.poll_seconds = self.settings.poll_interval
        if self.settings.keys:
            self.set_keymap(self.settings.keys)
        self._saved_theme = self.settings.theme
        self.memory_changed: Signal[str] = Signal(self, "memory_changed")
        self.pending_changed: Signal[None] = Signal(self, "pending_changed")
        self.header_changed: Signal[None] = Signal(self, "header_changed")
        self.long_work = Jobs()  # long jobs (a history rebuild): each screen's WorkProgress shows them
        self._pending_token: object = None
        self._config_token: object = None
        self._pending_count = 0
        self._skills_count: int | None = 0
        for mode in MODE_SCREENS:  # a mode's module is imported when it is first shown (faster start)
            self.add_mode(mode, lambda m=mode: self._new_screen(m))
        for store in curator.stores.values():  # memory mode is composed before on_mount runs
            store.read()

    def _new_screen(self, mode: str) -> Screen:
        """A mode's screen, styled as it mounts. Textual would otherwise re-parse every stylesheet
        (refresh_css) for each new mode screen, which only matters after a theme change, and a
        new screen is styled with the current theme anyway."""
        screen = mode_screen(mode)()
        screen._css_update_count = self._css_update_count
        # the breakpoint classes (-wide/-narrow, -tall/-short) from the start: set at the first
        # resize instead, they would restyle every widget of the screen once more
        width, height = self.size
        for dimension, breakpoints in ((width, self.HORIZONTAL_BREAKPOINTS), (height, self.VERTICAL_BREAKPOINTS)):
            for minimum, name in sorted(breakpoints, reverse=True):
                if dimension >= minimum:
                    screen.add_class(name, update=False)
                    break
        return screen

    # -- start-up --------------------------------------------------------------------------------

    def on_mount(self) -> None:
        self._pending_count = None  # counted right after the first paint (the header says "…" until then)
        self._skills_count = None
        self._config_token = token_of(self.curator.home.config_path)
        theme = self.settings.theme
        if theme:
            if theme in self.available_themes:
                self.theme = theme
            else:
                self.setting_problems.append(f"config.toml: there is no theme named {visible(theme)!r}; "
                                             "ctrl+p → Change theme lists them")
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        self.after_first_frame(self.collector_back)
        self.after_first_frame(self.load_other_css)
        self.after_first_frame(self.count_queue)
        if self.poll_enabled:
            self.poll_timer = self.set_interval(self.poll_seconds, self.poll, name="poll-files")
        if self.greet_enabled:
            self.after_first_frame(self.greet)
            self.after_first_frame(self.doctor_notice)
        elif self.setting_problems:
            self.after_first_frame(self.settings_notice)
        if self.prebuild_enabled:  # the other modes' screens, so that a first visit is one frame
            from tui.modes import prebuild_all

            self.after_first_frame(lambda: self.set_timer(PREBUILD_AFTER, lambda: prebuild_all(self)))

    @staticmethod
    def collector_back() -> None:
        """After the first frame: the garbage collector, if `hmc` held it off for the start (tui/cli/main.py).
        What the start made stays (the app, its screen, the stylesheet, the modules): frozen, later
        collections don't walk it again and again (fewer pauses between a key and its frame)."""
        if not gc.isenabled():
            gc.freeze()
            gc.enable()

    def load_other_css(self) -> bool:
        """The styles of the other screens (screens.tcss), once: app.tcss holds only what the first
        screen needs, so that less CSS is parsed before the first frame. True when loaded just now.

        Textual (8.2.8, pinned) has no public call to add a file to a running app's stylesheet:
        the file is added as CSS_PATH's files are (a user source), and parsed at once (Textual
        keeps every other source's rules parsed). Its rules select only other screens' widgets,
        so nothing already styled changes."""
        sheet = self.stylesheet
        if sheet.has_source(str(OTHER_CSS)):
            return False
        sheet.read(OTHER_CSS)
        sheet.parse()
        return True

    def _load_screen_css(self, screen: Screen) -> None:
        """Every screen but the first loads the other screens' styles before it is styled further
        (Textual calls this for each screen it shows or pushes, right after registering it, which
        styled the screen itself: restyled when they arrive just now)."""
        if getattr(screen, "MODE", "") != "memory" and self.load_other_css():
            self.stylesheet.update(screen)
        super()._load_screen_css(screen)

    def after_first_frame(self, callback) -> None:
        """Run `callback` a moment after the first frame is out. Textual flushes the terminal when
        its write queue is empty, so a second frame queued right behind the first one holds the
        first one back; work that repaints waits until it has reached the terminal."""
        self.call_after_refresh(lambda: self.set_timer(AFTER_FIRST_FRAME, callback))

    def count_queue(self) -> None:
        """The pending count and the review status for the header, once the first screen is up."""
        self._pending_token = self.pending_token()
        self._pending_count = self.count_pending()
        self._skills_count = self.count_skills()
        self.header_changed.publish(None)

    def greet(self) -> None:
        """One small toast: what waits for the person (and a notice for each config problem)."""
        for problem in self.curator.home.config.problems:
            self.notify(problem, title="config.yaml", severity="warning", timeout=8, markup=False)
        self.settings_notice()
        lines = []
        n, k = self._pending_count or 0, self._skills_count or 0
        if n or k:
            oldest = self.oldest_pending_age()
            age = f" ({oldest.removesuffix(' ago')})" if n and oldest and oldest.endswith(" ago") else ""
            if n and k:  # short: the toast stays under 50 columns
                lines.append(f"{n} memory + {k} skill writes wait{age}: press 2")
            elif n:
                lines.append(f"{n} staged write{'s wait' if n != 1 else ' waits'}{age}: press 2")
            else:
                lines.append(f"{k} staged skill write{'s wait' if k != 1 else ' waits'}: press 2")
        due = self.review_state()
        if due.get("due"):
            lines.append("Monthly review due: press 4")
        # on a home with profiles: which one hmc opened and that others exist (a line of this toast);
        # an active_profile Hermes would refuse, or an empty profile while others hold memory: a warning
        from core.profiles import opening

        said = opening(self.curator)
        if said is not None and said[1] == "information":
            lines.insert(0, said[0])
        elif said is not None:
            self.notify(said[0], title="Profiles", severity="warning", timeout=12, markup=False)
        if lines:
            self.notify("\n".join(lines), title="Waiting for you", timeout=4, markup=False)

    def settings_notice(self) -> None:
        problems = self.setting_problems + self.unknown_key_ids()
        self.setting_problems = []
        if problems:
            shown = problems[:4] + ([f"… and {len(problems) - 4} more"] if len(problems) > 4 else [])
            self.notify("\n".join(shown), title="hmc settings (config.toml)", severity="warning", timeout=10, markup=False)

    def unknown_key_ids(self) -> list[str]:
        """Key overrides naming a binding id no screen has (a typo would otherwise do nothing)."""
        if not self.settings.keys:
            return []
        from tui.palette import binding_ids

        known = binding_ids(self)
        return [f"config.toml: [keys] {visible(k)!r} is not a binding id (? lists them; e.g. pending.approve_all)"
                for k in self.settings.keys if k not in known]

    # -- hmc doctor: checked against the installed Hermes -----------------------------------------

    def doctor_verdict(self):
        """(installed Hermes, its remembered verdict) for this home; (None, None) when there is none
        (a damaged verdict is none: doctor_notice names it)."""
        from core.doctor.verdict import for_home

        installed, (verdict, _damaged) = for_home(self.curator.home.root)
        return installed, verdict

    def doctor_notice(self) -> None:
        """A release hmc doesn't know gets a notice offering the check; a remembered verdict that
        differs is said once at start."""
        from core.doctor.verdict import for_home

        installed, (verdict, damaged) = for_home(self.curator.home.root)
        if installed is None:
            return
        if damaged:
            self.notify(f"{damaged}: ignored. ctrl+p → app: Check hmc against your Hermes checks again.",
                        title="hmc doctor", severity="warning", timeout=12, markup=False)
        if verdict is not None and verdict.status == "differ":
            self.notify(verdict.summary() + ". Writes that depend on it ask first.", title="hmc doctor",
                        severity="warning", timeout=12, markup=False)
        elif verdict is None and self.curator.hermes.notice and self.curator.hermes.source == "installed":
            self.notify(f"{self.curator.hermes.notice}. hmc can check itself against your Hermes {installed.version} "
                        "in a few seconds: ctrl+p → app: Check hmc against your Hermes.",
                        title="A Hermes release hmc doesn't know", severity="warning", timeout=30, markup=False)

    def action_settings(self) -> None:
        """hmc's own settings as `hmc config` shows them: the file, every value and its source, the
        problems (the palette's "app: Show settings")."""
        from core.settings import describe, view_lines
        from tui.guide import about
        from tui.screens.dialogs import TextDialog

        view = describe(self.settings.path)
        problems = list(view.problems) + [p for p in self.unknown_key_ids() if p not in view.problems]
        if self.settings.theme and self.settings.theme not in self.available_themes:
            problems.append(f"there is no theme named {self.settings.theme!r}")
        from core.home import tilde

        from rich.console import Group
        from rich.padding import Padding

        styles = {"path": "bold", "setting": "", "problem": "bold red", "hint": "dim italic"}
        parts = []
        for text, kind in view_lines(view, problems, tilde(view.path)):
            if kind == "about":  # under its value, wrapped lines too (a hanging indent)
                words = text.lstrip(" ")
                parts.append(Padding(literal(words, "dim"), (0, 0, 0, len(text) - len(words))))
            else:
                parts.append(literal(text, styles.get(kind, "")))
        body = Group(*parts)
        self.push_screen(about("settings", TextDialog(
            "hmc settings (config.toml)", body,
            note="ctrl+p → Change theme saves the theme here; the rest: edit the file, or `hmc config set KEY VALUE`.")))

    def action_doctor(self) -> None:
        """Run `hmc doctor` in a worker; its result replaces the notice."""
        self.notify("Asking your Hermes… (a few seconds)", title="hmc doctor", timeout=60, markup=False)
        self.run_worker(self._doctor, thread=True, group="doctor", exclusive=True, exit_on_error=False)

    def _doctor(self) -> None:
        from textual.worker import get_current_worker

        from core.doctor import verdict as remembered
        from core.doctor.check import doctor
        from core.hermes.probe import ProbeStopped

        worker = get_current_worker()  # quitting cancels it: the check stops at once, nothing left running
        hermes = self.curator.hermes  # an explicit --hermes-version: check those rules
        try:
            verdict = doctor(self.curator.home.root, rules=hermes.release.name if hermes.source == "override" else None,
                             should_stop=lambda: worker.is_cancelled)
        except ProbeStopped:
            return
        remembered.save(verdict)
        self.call_from_thread(self._doctor_done, verdict)

    def _doctor_done(self, verdict) -> None:
        from core.scan.mask import mask_untrusted

        self.clear_notifications()
        lines = [mask_untrusted(verdict.summary())]
        lines += [mask_untrusted(d.line()) for d in verdict.differences[:3]]
        if len(verdict.differences) > 3:
            lines.append(f"… and {len(verdict.differences) - 3} more (hmc doctor lists them)")
        severity = {"agree": "information", "differ": "warning"}.get(verdict.status, "error")
        self.notify("\n".join(lines), title="hmc doctor", severity=severity, timeout=20, markup=False)

    async def confirm_rules(self, write: str) -> bool:
        """A write that depends on an area `hmc doctor` found your Hermes to differ in asks first,
        naming the difference ("memory": an entry edit; "approve": a staged record). Must run in a
        worker (it may wait for a dialog)."""
        from core.doctor.verdict import differences_for
        from tui.guide import about
        from tui.screens.dialogs import ConfirmDialog

        _installed, verdict = self.doctor_verdict()
        if verdict is None or verdict.rules != self.curator.release.name:
            return True
        lines = differences_for(verdict, write)
        if not lines:
            return True
        body = Text("\n".join(f"• {line}" for line in lines))
        body.append("\n\nhmc would write by its rules for Hermes " + self.curator.release.name
                    + ", which your Hermes was shown not to follow here (hmc doctor lists each case).")
        ok = bool(await self.push_screen_wait(about("doctor", ConfirmDialog("Your Hermes differs here", body,
                                                                            yes="Write anyway", danger=True))))
        if not ok:
            self.notify("Nothing was written.", title="Cancelled", markup=False)
        return ok

    # -- settings that persist -----------------------------------------------------------------

    def search_themes(self) -> None:
        """The theme picker ("app: Change theme"): the current theme first and marked."""
        from tui.palette import open_themes

        open_themes(self)

    def _theme_changed(self, theme) -> None:
        """The palette's theme switcher (or anything else) changed the theme: save it for next time."""
        name = getattr(theme, "name", str(theme))
        if name == self._saved_theme or not self.is_running:
            return
        self._saved_theme = name
        self.run_worker(lambda: self._save_theme(name), thread=True, group="settings", exit_on_error=False)

    def _save_theme(self, name: str) -> None:
        try:
            path = save_theme(name, self.settings.path)
        except SettingsError as exc:
            self.call_from_thread(self.notify, str(exc), title="Theme not saved", severity="warning")
            return
        from core.home import tilde

        self.call_from_thread(self.notify, f"Theme {name} saved in {tilde(path)}.", title="Theme", timeout=4)

    # -- toasts: never markup, never a raw control character --------------------------------------

    def notify(self, message: str, *, title: str = "", severity="information", timeout: float | None = None,
               markup: bool = False) -> None:
        """Every toast is literal: data in it (entries, file names, summaries) can't be markup or escapes.

        Screens and widgets call this too (Widget.notify forwards here), so `markup` is ignored. A toast
        covers what is under it (the bottom of USER.md's pane, a dialog's last lines): one that only
        informs goes after INFO_SECONDS unless it says how long; warnings and errors stay Textual's 5 s.
        Over a dialog, information toasts are not drawn at all (screens.tcss)."""
        if timeout is None and severity == "information":
            timeout = INFO_SECONDS
        super().notify(visible(message), title=visible(title), severity=severity, timeout=timeout, markup=False)

    # -- leaving -----------------------------------------------------------------------------------

    def drafts(self) -> list:
        """Open editors holding text the person typed and has not saved (any mode's stack)."""
        from tui.screens.dialogs import EntryEditor

        stacks = getattr(self, "_screen_stacks", {}) or {"": self.screen_stack}
        return [s for stack in stacks.values() for s in stack if isinstance(s, EntryEditor) and s.dirty]

    async def action_quit(self) -> None:
        """q, ctrl+q and ctrl+c: leave at once, unless a dialog holds unsaved text (then ask)."""
        if not self.drafts():
            self.exit()
            return
        from tui.screens.dialogs import ConfirmDialog

        if isinstance(self.screen, ConfirmDialog) and getattr(self.screen, "quitting", False):
            return

        def answered(leave: bool | None) -> None:
            if leave:
                self.exit()

        dialog = ConfirmDialog("Quit and lose your text?",
                               "A dialog holds text you typed and have not saved. Quitting drops it.",
                               yes="Quit", no="Keep editing", danger=True)
        dialog.quitting = True
        await self.push_screen(dialog, answered)

    async def action_help_quit(self) -> None:
        await self.action_quit()

    # -- greyed actions say why -----------------------------------------------------------------

    async def run_action(self, action, default_namespace=None, namespaces=None) -> bool:
        """As Textual's, but a greyed action (check_action None) shows why instead of doing nothing."""
        target, name, params = self._parse_action(action, self if default_namespace is None else default_namespace,
                                                  namespaces)
        if target.check_action(name, params) is None:
            why = getattr(target, "why_not", None)
            reason = why(name) if why is not None else None
            if reason:
                self.notify(reason, title="Not now", severity="warning", timeout=4, markup=False)
                return True
        return await super().run_action(action, default_namespace, namespaces)

    def check_action(self, action: str, parameters) -> bool | None:
        """Mode keys and / belong to the mode screens: a dialog on top answers its own keys. Help (F1,
        and ? where no text box takes it) works everywhere, a dialog included, except in help itself."""
        if not self.is_mounted or not isinstance(self.screen, ModalScreen):
            return True
        if action == "help":
            from tui.screens.help import HelpDialog

            return not isinstance(self.screen, HelpDialog)
        return action not in ("mode", "search_box", "timeline")

    # -- polling: external writes show up within a second ------------------------------------

    def poll(self) -> None:
        for target, store in self.curator.stores.items():
            if store.changed_on_disk():
                self.memory_changed.publish(target)
                self.notify(f"{store.name} changed on disk (Hermes?) — reloaded.", title="External change", markup=False)
        token = self.pending_token()
        if token != self._pending_token:
            self._pending_token = token
            self._pending_count = self.count_pending()
            self._skills_count = self.count_skills()
            self.pending_changed.publish(None)
            self.header_changed.publish(None)
        config_token = token_of(self.curator.home.config_path)
        if config_token != self._config_token:
            self._config_token = config_token
            if self.curator.reload_config():
                for target in self.curator.stores:
                    self.memory_changed.publish(target)
                self.header_changed.publish(None)
                self.notify("config.yaml changed — limits and switches reloaded.", title="Config", markup=False)
                for problem in self.curator.home.config.problems:
                    self.notify(problem, title="config.yaml", severity="warning", timeout=8, markup=False)

    def pending_written(self) -> None:
        """A screen changed the pending folder itself: refresh the count without a second reload."""
        self._pending_token = self.pending_token()
        self._pending_count = self.count_pending()
        self._skills_count = self.count_skills()
        self.header_changed.publish(None)

    @staticmethod
    def _pending_error() -> type[Exception]:
        from core.pending.queue import PendingError

        return PendingError

    def pending_token(self) -> object:
        """Both queues' change tokens; an unreadable folder counts as empty (the screen says why)."""
        try:
            memory = self.curator.pending.token()
        except self._pending_error():
            memory = ()
        return memory, self.curator.pending_skills.token()

    def count_skills(self) -> int:
        return self.curator.pending_skills.count()

    def count_pending(self) -> int:
        try:
            return self.curator.pending.count()
        except self._pending_error():
            return 0

    def oldest_pending_age(self) -> str | None:
        try:
            age = self.curator.pending.oldest_age()
        except self._pending_error():
            return None
        return None if age is None else timefmt.ago(self.curator.now() - age, self.curator.now())

    # -- header --------------------------------------------------------------------------------

    def review_state(self) -> dict:
        """The header's review status, from the decisions file alone (core.review.findings is heavy to import)."""
        from core.store.journal import state_dir
        from core.review.decisions import ReviewStore, review_due_on

        last = ReviewStore(state_dir(self.curator.home.root)).last_review()
        # a home with no entries has nothing to review: no nagging (memory mode reads the stores first)
        empty = all(not store.last.entries for store in self.curator.stores.values())
        due = review_due_on(last, self.curator.today) and not empty
        if due:
            text = "review due" + (f" (last {last.isoformat()})" if last else "")
        else:
            text = f"reviewed {last.isoformat()}" if last else "never reviewed"
        return {"text": text, "due": due}

    def header_state(self, quick: bool = False) -> dict:
        """What the header shows. `quick` (the header's first paint): the pending count (it reads
        every staged record) waits until just after the first screen is up."""
        review = self.review_state()
        return {
            "home": self.curator.home.display(),
            "profile": self.curator.home.profile,
            "pending": self._pending_count if (quick or self._pending_count is not None) else self.count_pending(),
            "skills": self._skills_count if (quick or self._skills_count is not None) else self.count_skills(),
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
                    force: bool = False, editable: bool = False, said: str | None = None,
                    rules_confirmed: bool = False) -> WriteResult | None:
        """Apply ops off the UI thread; confirm scanner hits, resolve conflicts, report the outcome.

        Must run inside a worker (it may push dialogs and wait for them). With `editable`, the
        conflict dialog also offers "Edit again", which raises EditAgain for the caller's editor.
        Under rules `hmc doctor` showed to differ, it asks first (confirm_rules).
        """
        from tui.screens.dialogs import ConfirmDialog, scan_body

        if not rules_confirmed and not await self.confirm_rules("memory"):
            return None
        store = self.curator.stores[target]
        try:
            result = await asyncio.to_thread(store.apply, list(ops), force=force, action=action)
        except ScanRefused as exc:
            body = scan_body(exc.findings)
            if not await self.push_screen_wait(ConfirmDialog("Write despite the security scan?", body,
                                                             yes="Write anyway", danger=True)):
                self.notify("Nothing was written.", title="Cancelled", markup=False)
                return None
            return await self.write(target, ops, action=action, force=True, said=said, rules_confirmed=True)
        except Conflict as exc:
            return await self.resolve_conflict(target, ops, exc, action, editable)
        except StoreError as exc:
            self.notify(store.for_person(exc, see="the pane"), title=f"{store.name}: nothing written",
                        severity="error", timeout=10, markup=False)
            return None
        self.stores_written(target)
        if result.changed:
            self.notify((said or " ".join(result.messages)) + f"\n{store.name}: {result.label}",
                        title="Restored" if action == "restore" else "Saved", markup=False)
        else:
            self.notify(" ".join(result.messages), title="Nothing to change", markup=False)
        return result

    def other_profiles(self) -> list[str]:
        """The home's profiles other than the open one (by the release's rules)."""
        try:
            return [n for n in list_profiles(self.curator.home.base, self.curator.release)
                    if n != self.curator.home.profile]
        except OSError:
            return []

    async def move_entry(self, target: str, entry: str, profile: str | None = None) -> bool:
        """Move or copy `entry` to another profile's same file (core.profiles.transfer), asking which
        profile (unless given) and which of the two; a scan hit asks again, any refusal is said and
        nothing is written. Must run inside a worker. True when something was written."""
        from core.profiles.transfer import transfer
        from tui.screens.dialogs import ChoiceDialog, ConfirmDialog, PickDialog, scan_body

        if profile is None:
            from core.profiles import holding

            others = self.other_profiles()
            if not others:
                return False
            held = await asyncio.to_thread(holding, self.curator, others, target, entry)
            others.sort(key=lambda name: name not in held)  # where it came from, most likely: first
            rows = [f"{name}  (holds it already: a move only takes it out of here)" if name in held else name
                    for name in others]
            choice = await self.push_screen_wait(PickDialog(
                f"Move this {FILE_NAMES[target]} entry to which profile?", rows, note=" ".join(entry.split())[:160]))
            if choice is None:
                return False
            profile = others[choice]
        body = Text("Move takes it out of ")
        body.append_text(literal(self.curator.home.profile, "bold"))
        body.append("; copy leaves it here too. Either way u undoes both profiles' sides.\n\n")
        body.append_text(literal(masked(entry)))
        how = await self.push_screen_wait(ChoiceDialog(f"To profile {visible(profile)}", body,
                                                       [("move", "Move"), ("copy", "Copy")]))
        if how is None:
            return False
        curator, force = self.curator, False
        while True:
            try:
                destination = await asyncio.to_thread(curator.switch_profile, profile)
                done = await asyncio.to_thread(transfer, curator, destination, target, entry, move=how == "move",
                                               force=force)
            except ScanRefused as exc:
                if force or not await self.push_screen_wait(ConfirmDialog(
                        "Write despite the security scan?", scan_body(exc.findings), yes="Write anyway", danger=True)):
                    self.notify("Nothing was written.", title="Cancelled", markup=False)
                    return False
                force = True
                continue
            except Exception as exc:  # noqa: BLE001 - a refusal (full, changed meanwhile…): said, nothing written
                self.notify(str(exc), title=f"{FILE_NAMES[target]}: nothing written", severity="error", timeout=10,
                            markup=False)
                return False
            break
        self.stores_written(target)
        verb = "Moved" if done.kind == "move" else "Copied"
        there = "" if done.added else " (it held it already)"
        self.notify(f"{verb} to profile {done.destination}{there}. {done.destination}'s {FILE_NAMES[target]}: "
                    f"{done.usage_after}. u undoes both sides.", title=verb, markup=False)
        return True

    async def resolve_conflict(self, target: str, ops: Sequence[Op], exc: Conflict, action: str | None,
                               editable: bool = False):
        """The entry changed on disk while the person edited it: theirs / mine / both, never silent."""
        from tui.screens.dialogs import ChoiceDialog, EditAgain

        store = self.curator.stores[target]
        mine = next((op.content for op in ops if op.action == "replace" and op.matched_entry == exc.expected), None)
        if mine is None:
            self.notify(f"{store.name} changed on disk: the entry is no longer as it was, so nothing was changed.",
                        title="Changed meanwhile", severity="warning", timeout=10, markup=False)
            return None
        import difflib

        close = difflib.get_close_matches(exc.expected, exc.current, n=1, cutoff=0.4)
        theirs = close[0] if close else None
        body = Text("While you edited, the entry changed on disk (Hermes wrote to ")
        body.append(FILE_NAMES[target], style="bold")
        body.append("). The differences are underlined.\n\nTheirs (on disk now):\n", style="")
        if theirs:
            from tui.widgets.sidebyside import diff_pair

            shown_theirs, shown_mine = diff_pair(theirs, mine)
        else:
            shown_theirs, shown_mine = Text("(the entry was removed)", style="italic"), literal(mine)
        body.append_text(shown_theirs)
        body.append("\n\nMine (your edit):\n")
        body.append_text(shown_mine)
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
            self.notify("Kept the entry as it is on disk.", title="Conflict", markup=False)
            self.stores_written(target)
            return None
        return await self.write(target, new_ops, action=action, rules_confirmed=True)

    async def undo(self) -> None:
        history = self.curator.history
        rec = history.undoable()
        if rec is None:
            self.notify("Nothing to undo.", markup=False)
            return
        from tui.screens.dialogs import ConfirmDialog, undo_question

        if not await self.push_screen_wait(ConfirmDialog("Undo hmc's last write", undo_question(rec, self.ago(rec.ts)),
                                                         yes="Undo")):
            return
        from core.profiles.transfer import undo_last

        try:
            undone = await asyncio.to_thread(undo_last, self.curator)  # a move between profiles: both sides
        except StoreError as exc:
            self.notify(str(exc), title="Undo refused", severity="error", timeout=10, markup=False)
            return
        self.stores_written(rec.target)
        other = " (both profiles' sides)" if len(undone) > 1 else ""
        self.notify(f"Undid {rec.action} in {FILE_NAMES[rec.target]}{other}.", title="Undo", markup=False)

    # -- navigation ------------------------------------------------------------------------------

    def action_mode(self, mode: str) -> None:
        if mode == "search":  # 3 is /: the focus goes to the query box, so typing never fires result keys
            self.action_search_box()
            return
        if self.current_mode != mode:
            self.switch_mode(mode)

    def action_search_box(self) -> None:
        if self.current_mode != "search":
            self.switch_mode("search")
        focus = getattr(self.screen, "focus_query", None)
        if focus:
            self.call_after_refresh(focus)

    def action_why(self, text: str | None = None) -> None:
        """Why did Hermes forget a fact (the palette's "Why did Hermes forget…"; search mode's w on a
        message): ask for it when none is given, trace it off the UI thread, show the verdicts."""
        self.run_worker(self._why(text), group="why", exclusive=True, exit_on_error=False)

    async def _why(self, text: str | None) -> None:
        import asyncio

        from core.why import FactError, why
        from tui.screens.why import FactDialog, why_dialog

        if text is None:
            text = await self.push_screen_wait(FactDialog())
            if text is None:
                return
        self.notify("Tracing the fact through memory, the history and the sessions…", title="Why",
                    timeout=3, markup=False)
        try:
            answer = await asyncio.to_thread(why, self.curator, text)
        except FactError as exc:
            self.notify(str(exc), title="Why", severity="warning", markup=False)
            return
        self.clear_notifications()  # the "Tracing…" notice would cover the answer
        self.push_screen(why_dialog(answer))

    def action_timeline(self) -> None:
        """The timeline screen (every write, newest first), over the current mode; Escape comes back."""
        from tui.screens.timeline import TimelineScreen

        if not isinstance(self.screen, TimelineScreen):
            memory = self._screen_stacks.get("memory") or [None]  # its origin lines' history, if rebuilt
            self.push_screen(TimelineScreen(getattr(memory[0], "timeline", None)))

    def action_help(self) -> None:
        from tui.screens.help import HelpDialog

        if not isinstance(self.screen, HelpDialog):
            self.push_screen(HelpDialog(self.screen))

    def show_memory(self, target: str, entry: str | None = None, index: int | None = None) -> None:
        """Memory mode with `target`'s list focused, and `entry` (its text; at `index` if it is still
        there) highlighted when given."""
        self.switch_mode("memory")

        def focus() -> None:
            show = getattr(self.screen, "show_entry", None)
            if show is not None:
                show(target, entry, index)

        self.call_after_refresh(focus)

    def open_provenance(self, entry: str, target: str | None = None, timeline=None) -> None:
        """Open the session where an entry was written (search mode), as the timeline's blame says,
        or say why there is none. `timeline`: the history memory mode has already rebuilt."""
        opener = getattr(mode_screen("search"), "open_provenance", None)
        if opener is None:
            self.notify("Session search is not available in this version.", severity="warning", markup=False)
            return
        opener(self, entry, target, timeline)

    def open_session_at(self, session_id: str, message_id: int | None,
                        history: tuple[str, str] | None = None) -> None:
        """Search mode with a session's transcript open at a message (an entry's history: the call that
        wrote a text); Esc there comes back to memory mode, and to the entry's history when `history`
        (target, entry) names the one it was opened from."""
        self.switch_mode("search")

        def go() -> None:
            screen = self.screen
            if hasattr(screen, "open_at"):
                screen.open_at(session_id, message_id, terms=())
                screen.from_memory = True  # Esc goes back to memory mode, where the history was opened
                screen.back_to_history = history
                screen.transcript.focus()

        self.call_after_refresh(go)

    def show_entry_history(self, target: str, entry: str) -> None:
        """Memory mode with the history of `entry` (in `target`) on top."""
        from tui.screens.entry_history import EntryHistoryScreen

        self.switch_mode("memory")
        self.call_after_refresh(lambda: self.push_screen(EntryHistoryScreen(target, entry)))

    def switch_profile(self, profile: str) -> None:
        try:
            self.curator = self.curator.switch_profile(profile)
        except Exception as exc:
            self.notify(str(exc), title="Profile", severity="error", markup=False)
            return
        for store in self.curator.stores.values():
            store.read()
        self._pending_token = self.pending_token()
        self._pending_count = self.count_pending()
        self._skills_count = self.count_skills()
        self._config_token = token_of(self.curator.home.config_path)
        for target in self.curator.stores:
            self.memory_changed.publish(target)
        self.pending_changed.publish(None)
        self.header_changed.publish(None)
        self.notify(f"Now curating profile {profile}.", title="Profile", markup=False)

    def run_in_mode(self, mode: str, action: str) -> None:
        """Switch to `mode` (if needed), then run one of its screen's actions there (greyed: say why)."""
        self.action_mode(mode)
        self.call_after_refresh(lambda: self.call_later(self.run_action, action, self.screen))

    def palette_commands(self):
        """Every action of every mode, as (title, help, callback, available); see tui/palette.py."""
        from tui.palette import commands

        return commands(self)

    def action_command_palette(self) -> None:
        """ctrl+p (Textual's binding, so the footer keeps "^p palette"): hmc's own palette, complete in
        the frame it opens, in place of Textual's CommandPalette (tui/palette.py)."""
        from tui.palette import open_palette

        open_palette(self)
