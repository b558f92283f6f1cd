"""The command palette's commands: every action of every mode, from anywhere, by its verb
("pending: Approve all"), and the theme picker's themes. tui/screens/palette_dialog.py shows them.

Actions that can't apply now are listed too, with the reason (choosing one shows it). Only hmc's
own actions are listed: no widget navigation ("Scroll Left", "Page Right").
"""

from __future__ import annotations

from tui.modes import mode_screen
from tui.screens.palette_dialog import Command, PaletteDialog

# binding id -> the verb the palette shows (the footer keeps its short label)
VERBS = {
    "app.memory": "Go to memory mode",
    "app.pending": "Go to pending mode",
    "app.search": "Go to search mode",
    "app.review": "Go to review mode",
    "app.profiles": "Go to profiles mode",
    "app.slash": "Search past sessions (the search box)",
    "app.help": "Show help and keys for this screen",
    "app.quit": "Quit hmc",
    "app.timeline": "Show timeline",
    "timeline.rollback": "Roll back the write",
    "memory.add": "Add an entry",
    "memory.edit": "Edit the entry",
    "memory.delete": "Delete the entry",
    "memory.undo": "Undo hmc's last write",
    "memory.history": "Restore a removed or replaced entry",
    "memory.preview": "Preview the prompt block Hermes injects",
    "memory.repair": "Repair the file",
    "memory.origin": "Open the session the entry came from",
    "memory.switch": "Switch to the other file",
    "memory.entry_history": "Show the entry's history",
    "memory.time_travel": "Time travel: show the stores as they were on a date",
    "memory.travel_diff": "Diff the past stores with now",
    "memory.travel_back": "Return to now (leave time travel)",
    "pending.approve": "Approve the write",
    "pending.reject": "Reject the write",
    "pending.edit": "Edit, then approve the write",
    "pending.approve_all": "Approve all",
    "pending.reject_all": "Reject all",
    "pending.reject_invalid": "Clear invalid writes (those that can never apply)",
    "pending.open": "Open the target file in memory mode",
    "pending.raw": "Show the raw record",
    "pending.reveal": "Reveal or mask secrets",
    "pending.undo_reject": "Unreject the last rejected write",
    "pending.write_approval": "Turn write approval on or off",
    "pending.skills": "Show the skill writes queue",
    "pending.skills.approve": "Approve the skill write",
    "pending.skills.reject": "Reject the skill write",
    "pending.skills.edit": "Edit, then approve the skill write",
    "pending.skills.approve_all": "Approve all skill writes",
    "pending.skills.reject_all": "Reject all skill writes",
    "pending.skills.reject_invalid": "Clear invalid skill writes (those that can't apply)",
    "pending.skills.file": "Show the next file of the skill write",
    "pending.skills.raw": "Show the raw skill record",
    "pending.skills.reveal": "Reveal or mask secrets in the skill write",
    "pending.skills.undo": "Undo the last skill approval or rejection",
    "pending.skills.write_approval": "Turn skill write approval on or off",
    "pending.skills.memory": "Show the memory writes queue",
    "search.next": "Go to the next match",
    "search.prev": "Go to the previous match",
    "search.expand": "Expand or collapse a tool call",
    "search.copy": "Copy the session link",
    "search.promote": "Promote the message to memory",
    "search.why": "Why isn't this message in memory?",
    "search.clear": "Clear the search filters",
    "review.merge": "Merge the pair",
    "review.remove": "Remove the finding's entry",
    "review.edit": "Edit the finding's entry",
    "review.keep": "Keep the finding",
    "review.mark": "Mark the finding",
    "review.kept": "Show or hide kept findings",
    "review.goto": "Go to the finding's entry in memory mode",
    "review.export": "Export the review as Markdown",
}
NOT_LISTED = {"search.leave", "search.back", "search.results"}  # focus moves, not actions
MODES = ("memory", "pending", "search", "review")
SUBMODES = ("skills",)  # pending mode's skills tab: its own screen, its actions listed as "pending: …"


def mode_classes() -> dict[str, type]:
    return {mode: mode_screen(mode) for mode in MODES}


def mode_instance(app, mode: str):
    """The mode's screen if it has been opened (and so can say what applies now), else None."""
    stacks = getattr(app, "_screen_stacks", {})
    stack = stacks.get(mode) or []
    screen = stack[0] if stack else None
    return screen if screen is not None and screen.is_mounted else None


def action_name(action: str) -> str:
    return action.split("(", 1)[0].removeprefix("screen.")


def binding_ids(app) -> set[str]:
    """Every binding id hmc has (for checking the key overrides in config.toml)."""
    from tui.screens import dialogs, help as help_screen
    from tui.screens.base import Dialog
    from tui.screens.review import MergeDialog

    ids = {b.id for b in app.BINDINGS if getattr(b, "id", None)}
    from tui.screens.skill_edit import SkillEditDialog
    from tui.screens.entry_history import EntryHistoryScreen
    from tui.screens.timeline import TimelineScreen

    classes = list(mode_classes().values()) + [mode_screen(m) for m in SUBMODES] + [SkillEditDialog,
        dialogs.ChoiceDialog, dialogs.ConfirmDialog, dialogs.EditEntryDialog, dialogs.ApproveEditDialog, dialogs.TextDialog,
        dialogs.PickDialog, dialogs.EditorTextArea, help_screen.HelpDialog, Dialog, MergeDialog, TimelineScreen, EntryHistoryScreen, PaletteDialog]
    for cls in classes:
        ids |= {b.id for b in cls.BINDINGS if getattr(b, "id", None)}
    return ids


def commands(app) -> list[Command]:
    out: list[Command] = []
    for key, mode in enumerate((*MODES, "profiles"), start=1):  # profiles: a view of every profile, no commands of its own here
        out.append(Command(f"go: {VERBS[f'app.{mode}']}", f"Switch to {mode} mode (key {key})",
                           lambda m=mode: app.action_mode(m), key=str(key)))
    current = app.current_mode
    screens = list(mode_classes().items()) + [(mode, mode_screen(mode)) for mode in SUBMODES]
    for mode, cls in screens:
        screen = mode_instance(app, mode)
        for binding in cls.BINDINGS:
            bid = getattr(binding, "id", None)
            if not bid or bid in NOT_LISTED or not binding.description:
                continue
            name = action_name(binding.action)
            reason = None
            if screen is not None:
                if screen.hidden(name):
                    continue
                reason = screen.why_not(name)
            keys = ", ".join(app.get_key_display(type(binding)(k, "")) for k in
                             app_keys(app, binding).split(","))
            help_text = f"Not now: {reason}" if reason else (binding.tooltip or binding.description)
            where = "pending mode's skills tab" if mode == "skills" else f"{mode} mode"
            help_text += f"  (key {keys}{'' if mode == current else f' in {where}'})"
            out.append(Command(f"{cls.AREA}: {VERBS.get(bid, binding.description)}", help_text,
                               lambda m=mode, a=binding.action: app.run_in_mode(m, a), reason is None, key=keys))
    out.extend(history_commands(app))
    out.append(Command("app: Why did Hermes forget…", "Trace a fact through memory, the queue, the history, past "
                       "sessions, config.yaml and every profile (as hmc why)", app.action_why))
    out.append(Command("app: Check hmc against your Hermes", "hmc doctor: run the installed Hermes on scratch "
                       "homes and compare (a few seconds)", app.action_doctor))
    out.append(Command("app: Change theme", "Pick a theme; hmc saves it in its config.toml", app.search_themes))
    out.append(Command("app: Show settings", "hmc's config.toml: every value, where it comes from, the problems "
                       "(as hmc config)", app.action_settings))
    out.append(Command("app: Show help and keys for this screen", "? on any screen", app.action_help, key="?"))
    others = [name for name in profiles(app) if name != app.curator.home.profile]
    for name in others:
        out.append(Command(f"app: Switch profile to {name}", f"Curate the {name} profile",
                           lambda n=name: app.switch_profile(n)))
    if not others:  # still found by its verb, and says why it can't apply
        from core.home import tilde

        reason = f"{tilde(app.curator.home.base)} has only the {app.curator.home.profile} profile"
        out.append(Command("app: Switch profile", f"Not now: {reason}",
                           lambda: app.notify(reason, title="Not now", severity="warning", timeout=4,
                                              markup=False), False))
    out.append(Command("app: Quit hmc", "q (asks first if a dialog holds text you typed)",
                       lambda: app.run_worker(app.action_quit(), exit_on_error=False), key="q"))
    return out


def history_commands(app) -> list[Command]:
    """The timeline (a screen over any mode, key t) and what it offers, as "history: …"."""
    from tui.screens.timeline import TimelineScreen

    on_timeline = isinstance(app.screen, TimelineScreen)
    key = app_keys(app, next(b for b in app.BINDINGS if b.id == "app.timeline"))
    out = [Command("history: Show timeline", f"Every write to MEMORY.md and USER.md, newest first  (key {key})",
                   app.action_timeline, key=key)]
    for binding in TimelineScreen.BINDINGS:
        if binding.id not in VERBS:
            continue
        reason = app.screen.why_not(action_name(binding.action)) if on_timeline else None
        where = "" if on_timeline else " on the timeline"
        help_text = f"Not now: {reason}" if reason else (binding.tooltip or binding.description)
        help_text += f"  (key {app_keys(app, binding)}{where})"
        out.append(Command(f"history: {VERBS[binding.id]}", help_text,
                           lambda a=binding.action: _on_timeline(app, a), reason is None, key=app_keys(app, binding)))
    return out


def _on_timeline(app, action: str) -> None:
    """Open the timeline (if needed), then run one of its actions there (greyed: say why)."""
    from tui.screens.timeline import TimelineScreen

    if not isinstance(app.screen, TimelineScreen):
        app.action_timeline()
    app.call_after_refresh(lambda: app.screen.when_loaded(action) if isinstance(app.screen, TimelineScreen)
                           else None)


def app_keys(app, binding) -> str:
    """The keys a binding answers to now (a config.toml override wins)."""
    keymap = getattr(app, "_keymap", {}) or {}
    return keymap.get(getattr(binding, "id", None) or "", binding.key)


def profiles(app) -> list[str]:
    from core.home import list_profiles

    try:
        return list_profiles(app.curator.home.base, app.curator.release)
    except OSError:
        return []


def open_palette(app) -> None:
    """ctrl+p: every command, in a dialog complete in the frame it opens (one palette at a time)."""
    if not isinstance(app.screen, PaletteDialog):
        app.push_screen(PaletteDialog(app.palette_commands()))


def open_themes(app) -> None:
    """The theme picker ("app: Change theme"): every theme by name, the current one first and marked,
    so a person sees where they are before trying others."""
    app.push_screen(PaletteDialog(theme_commands(app), placeholder="Search for themes…"))


def theme_commands(app) -> list[Command]:
    current = app.theme

    def pick(name: str):
        def picked() -> None:
            app.theme = name

        return picked

    names = [current] + [name for name in sorted(app.available_themes) if name != current]
    return [Command(f"{name}  ✓ current theme" if name == current else name,
                    "The theme in use now" if name == current else f"Switch to {name}; hmc saves it in its config.toml",
                    pick(name)) for name in names]
