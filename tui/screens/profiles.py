"""Profiles mode (5): every profile of the home, one row each, and two profiles' store side by side.

The rows come from core.profiles (the screen only renders): the profiles' own files first (the
first frame), their state.db part after, in a worker. Enter opens a profile (every mode follows);
`c` compares the highlighted profile with the one open (MEMORY.md, `t` switches to USER.md).
Names and entries are rendered literally, controls visible.
"""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Static
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from core.store.memory import FILE_NAMES, percent
from tui.literal import literal, masked, visible_controls
from tui.screens.base import ModeScreen, OneFrame
from tui.widgets.footer import KeyFooter
from tui.widgets.header import HmcHeader
from tui.widgets.lists import HmcList
from core.plural import noun


def gauge_text(gauge) -> Text:
    if gauge is None:
        return Text("?", style="dim")
    if not gauge.loaded:
        return Text("off", style="dim")
    if gauge.chars is None:
        return Text("unreadable", style="red")
    p = percent(gauge.chars, gauge.limit)
    style = "bold red" if p >= 95 else "yellow" if p >= 80 else "green"
    bar = "█" * (p // 10) + "░" * (10 - p // 10)
    out = Text(bar, style=style)
    out.append(f" {p:>3}%", style=style)
    return out


def row_prompt(row, current: str, now: float) -> Text:
    """The name and its gauges; the queues, the review and the sessions; then (when any) the
    switches, the provider, the doctor and what couldn't be read."""
    from core import timefmt

    head = Text()
    head.append("▸ " if row.name == current else "  ", style="bold")
    head.append_text(literal(f"{row.name:<16}", "bold" if row.active else ""))
    head.append(" active " if row.active else "        ", style="bold reverse green" if row.active else "")
    if not row.known:
        head.append("  reading…", style="dim italic")
        return head
    head.append("  MEMORY ", style="dim")
    head.append_text(gauge_text(row.gauges.get("memory")))
    head.append("  USER ", style="dim")
    head.append_text(gauge_text(row.gauges.get("user")))
    pending = "?" if row.pending is None else str(row.pending)
    skills = "?" if row.skills is None else str(row.skills)
    second = Text("    ")
    second.append(f"{pending} pending · {skills} {noun(row.skills or 0, 'skill')}", style="bold yellow" if row.pending or row.skills else "dim")
    second.append("  ·  ", style="dim")
    second.append(row.review, style="yellow" if row.review_due else "dim")
    if not row.sessions_known:
        second.append("  ·  sessions: reading…", style="dim italic")
    elif row.last_session:
        started, source = row.last_session
        second.append(f"  ·  last session {timefmt.ago(started, now)} ({source})", style="dim")
        second.append(f"  ·  {row.recent} in 30 days" if row.recent is not None else "", style="dim")
    else:
        second.append("  ·  no sessions", style="dim")
    notes = []
    if row.memory_off:
        notes.append("memory off: " + ", ".join(row.memory_off))
    if row.provider:
        notes.append(f"provider {row.provider}")
    if row.doctor in ("differ", "unchecked"):
        notes.append(f"doctor: {row.doctor}")
    notes += list(row.problems)
    lines = [head, second]
    if notes:
        third = Text("    ")
        for n, note in enumerate(notes):
            if n:
                third.append("  ·  ", style="dim")
            third.append_text(literal(masked(note), "yellow"))
        lines.append(third)
    return Text("\n").join(lines)


class ProfilesList(HmcList):
    DEFAULT_CSS = """
    ProfilesList { height: 1fr; border: none; }
    ProfilesList > .option-list--option { padding: 0 1; }
    """


class ProfilesScreen(ModeScreen):
    MODE = "profiles"
    AREA = "profiles"
    HELP = """\
## Profiles
Every profile of the Hermes home, one row each: both stores' usage, both queues, the review, the
last session and the sessions of the last 30 days, memory switched off or a provider set, and the
doctor's verdict. **active** marks the profile a bare `hermes` uses (`active_profile`); ▸ the one
hmc curates now. **Enter** opens a profile (every mode follows it) · **c** compares the highlighted
profile with the one open, entry by entry · **r** reads every profile again.
Folders under profiles/ that Hermes doesn't count as profiles are named above the list, with why,
and so is a stale profiles/default/ (Hermes never reads it: the default's memory is memories/).
"""
    BINDINGS = [
        Binding("enter", "open", "Open", id="profiles.open", tooltip="Curate this profile: every mode follows it"),
        Binding("c", "compare", "Compare", id="profiles.compare",
                tooltip="This profile's MEMORY.md and USER.md beside the open profile's, shared entries marked"),
        Binding("r", "reload", "Reload", id="profiles.reload", tooltip="Read every profile again"),
    ]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.rows: list = []
        self.discovery = None

    def compose(self) -> ComposeResult:
        yield HmcHeader()
        with Vertical(id="profiles-body"):
            yield Static("Reading the profiles…", id="profiles-notice", markup=False)
            yield ProfilesList(id="profiles-list")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one(ProfilesList).focus()

    def on_screen_resume(self) -> None:
        if not self.rows:  # the first frame: every profile's name at once (the folders alone), figures after
            from core.profiles import overview
            from core.profiles.discovery import discover

            curator = self.app.curator
            found = discover(curator.home.base, curator.release)
            self.show_rows(found, [overview.placeholder(p.name, str(p.root), p.name == found.active)
                                   for p in found.profiles])
            self.action_reload()
        else:  # a visit again: the rows shown stay until the full read says otherwise (one frame)
            self.read_rows(quick=False)

    def prebuilt(self) -> None:
        self.action_reload()

    def why_not(self, action: str) -> str | None:
        row = self.highlighted_row()
        if action in ("open", "compare") and row is None:
            return "No profile is highlighted"
        if action == "compare" and row is not None and row.name == self.app.curator.home.profile:
            return f"{row.name} is the profile open: highlight another one to compare"
        if action in ("open", "compare") and row is not None and not row.known:
            return f"{row.name}: still reading it"
        if action == "open" and row is not None and not row.gauges and row.problems:
            return f"{row.name} can't be opened: {row.problems[0]}"
        return None

    def highlighted_row(self):
        index = self.query_one(ProfilesList).highlighted
        return self.rows[index] if index is not None and 0 <= index < len(self.rows) else None

    # -- reading (off the UI thread) -----------------------------------------------------------------

    def action_reload(self) -> None:
        self.read_rows()

    @work(thread=True, exclusive=True, group="profiles-read", exit_on_error=False)
    def read_rows(self, quick: bool = True) -> None:
        """Every profile's row, read off the UI thread; `quick`: the rows from each profile's own
        files are painted first, before their state.db is read (not on a visit again: the full
        rows shown already would go back to their partial figures for a frame)."""
        from textual.worker import get_current_worker

        from core.profiles import rows

        worker = get_current_worker()

        def first(found, partial: list) -> None:  # every profile's own files: painted before their state.db
            if not worker.is_cancelled:
                self.app.call_from_thread(self.show_rows, found, partial)

        found, full = rows(self.app.curator, should_stop=lambda: worker.is_cancelled, on_quick=first if quick else None)
        if not worker.is_cancelled:
            self.app.call_from_thread(self.show_rows, found, full)

    def show_rows(self, found, rows: list) -> None:
        from core.profiles import trap

        listing = self.query_one(ProfilesList)
        current = self.app.curator.home.profile
        now = self.app.curator.now()
        prompts = [row_prompt(row, current, now) for row in rows]
        if (rows == self.rows and found == self.discovery and len(prompts) == listing.option_count
                and all(p == o.prompt for p, o in zip(prompts, listing.options))):
            return  # what is shown: nothing repaints
        self.discovery, previous = found, self.highlighted_row()
        self.rows = rows
        keep = listing.highlighted
        listing.clear_options()
        listing.add_options([Option(prompt, id=f"p{i}") for i, prompt in enumerate(prompts)])
        names = [r.name for r in rows]
        if previous is not None and previous.name in names:
            listing.highlighted = names.index(previous.name)
        elif keep is None and current in names:
            listing.highlighted = names.index(current)
        elif rows:
            listing.highlighted = min(keep or 0, len(rows) - 1)
        notice = Text()
        notice.append(f"{len(rows)} profile{'s' if len(rows) != 1 else ''} · active: ", style="bold")
        notice.append_text(literal(found.active, "bold green"))
        notice.append("  (the one a bare `hermes` uses) · open: ", style="dim")
        notice.append_text(literal(current, "bold"))
        if found.sticky_problem:
            notice.append("\n")
            notice.append_text(literal(masked(found.sticky_problem), "bold red"))
        stale = trap(found)
        if stale:
            notice.append("\n")
            notice.append_text(literal(stale.sentence(), "yellow"))
        for skipped in found.skipped:
            notice.append("\n")
            notice.append_text(literal(f"profiles/{skipped.shown}: skipped, {skipped.why}", "yellow"))
        self.query_one("#profiles-notice", Static).update(notice)
        self.app.refresh_bindings()

    # -- actions ----------------------------------------------------------------------------------

    @on(OptionList.OptionSelected, "#profiles-list")
    def selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_open()

    def action_open(self) -> None:
        row = self.highlighted_row()
        if row is None:
            return
        if row.name != self.app.curator.home.profile:
            self.app.switch_profile(row.name)
        self.app.switch_mode("memory")

    def action_compare(self) -> None:
        row = self.highlighted_row()
        if row is None or row.name == self.app.curator.home.profile:
            return
        try:
            other = self.app.curator.switch_profile(row.name)
        except Exception as exc:  # noqa: BLE001 - said, nothing else happens
            self.app.notify(str(exc), title="Compare", severity="error", markup=False)
            return
        self.app.push_screen(CompareScreen(self.app.curator, other))


class CompareScreen(OneFrame, Screen):
    """Two profiles' MEMORY.md (or USER.md) side by side: shared entries first (= word for word,
    ≈ nearly), then what only one side holds. `t` switches the file; Esc goes back."""

    BINDINGS = [
        Binding("escape", "back", "Back", id="compare.back", priority=True, tooltip="Back to the profiles"),
        Binding("t", "switch_file", "MEMORY.md/USER.md", id="compare.file", tooltip="Compare the other file"),
    ]
    DEFAULT_CSS = """
    CompareScreen #compare-title { height: auto; padding: 0 1; background: $panel; }
    CompareScreen #compare-sides { height: 1fr; }
    CompareScreen .compare-side { width: 1fr; height: 1fr; border: round $panel-lighten-2; }
    CompareScreen .compare-side:focus { border: round $accent; }
    """

    def __init__(self, left, right) -> None:
        super().__init__()
        self.left, self.right = left, right
        self.target = "memory"

    def compose(self) -> ComposeResult:
        yield HmcHeader()
        yield Static("", id="compare-title", markup=False)
        with Horizontal(id="compare-sides"):
            yield HmcList(id="compare-left", classes="compare-side")
            yield HmcList(id="compare-right", classes="compare-side")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.show()
        self.query_one("#compare-left", HmcList).focus()

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_switch_file(self) -> None:
        self.target = "user" if self.target == "memory" else "memory"
        self.show()

    def show(self) -> None:
        from core.profiles.compare import NEAR, SAME, compare, counts

        a = self.left.stores[self.target].read().entries
        b = self.right.stores[self.target].read().entries
        lines = compare(a, b)
        n = counts(lines)
        name = FILE_NAMES[self.target]
        title = Text()
        title.append(f"{name}: ", style="bold")
        title.append_text(literal(self.left.home.profile, "bold"))
        title.append(" ↔ ")
        title.append_text(literal(self.right.home.profile, "bold"))
        title.append(f"   = {n['same']} the same · ≈ {n['near']} nearly · only in "
                     f"{visible_controls(self.left.home.profile)}: {n['only_left']} · only in "
                     f"{visible_controls(self.right.home.profile)}: {n['only_right']}", style="dim")
        title.append("   t: the other file", style="dim italic")
        self.query_one("#compare-title", Static).update(title)
        marks = {SAME: ("= ", "bold green"), NEAR: ("≈ ", "bold yellow")}
        for side, pick, who in (("#compare-left", lambda x: x.left, self.left), ("#compare-right", lambda x: x.right,
                                                                                   self.right)):
            listing = self.query_one(side, HmcList)
            listing.border_title = f"{visible_controls(who.home.profile)} · {name}"
            listing.clear_options()
            options = []
            for i, line in enumerate(lines):  # shared first, in the same order on both sides; then its own
                entry = pick(line)
                if entry is None:
                    continue
                mark, style = marks.get(line.kind, ("  ", ""))
                text = Text(mark, style=style)
                text.append(f"#{entry[0] + 1} ", style="dim")
                text.append_text(literal(masked(entry[1])))
                if line.kind == NEAR and line.reason:
                    text.append(f"  ({line.reason})", style="dim italic")
                options.append(Option(text, id=f"l{i}"))
            listing.add_options(options or [Option(Text("(no entries)", style="dim"), disabled=True)])
