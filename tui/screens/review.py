"""Review mode: the monthly review's findings, and a few keystrokes to fix each one in place.

Left, the findings grouped by kind (urgent kinds first, a stable order; most severe first within); right, the reason and the entries side by
side with their differences highlighted. m merges a pair in an editor, d removes, e edits, y keeps
(remembered by entry text: it returns only if an entry changes), space marks several for a bulk
remove or keep, x exports the review as Markdown. Findings recompute after every change; the review counts as done
(today's date recorded) once no finding at warning or above is left open, or when it is exported.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import OptionList, Static
from textual.worker import get_current_worker

from core.review import findings as R
from core.review.dates import find_dates
from core.home import tilde
from core.store.memory import FILE_NAMES, TARGETS, Op, usage, usage_label
from tui.literal import literal, visible, visible_controls
from tui.screens.base import ModeScreen
from tui.screens.dialogs import ChoiceDialog, ConfirmDialog, EditEntryDialog, EntryEditor, EntryStatus, planned
from tui.widgets.filter_bar import FilterBar
from tui.widgets.footer import KeyFooter
from tui.widgets.findings import SEVERITY_STYLE, FindingsList
from tui.widgets.gauge import CapacityGauge
from tui.widgets.header import HmcHeader
from tui.widgets.sidebyside import SideBySide, diff_pair, mark_spans
from tui.widgets.work_progress import WorkProgress
from core.plural import counted

REPORTS = "reports"

HINTS = {
    "duplicate": "m merge into one · d remove one · y keep both",
    "similar": "m merge into one · d remove one · e edit one · y keep both",
    "conflicting": "m merge into the true one · d remove the wrong one · e edit · y keep",
    "stale": "e update the date · d remove · y keep (still true)",
    "old": "e update it · d remove (no longer true) · y keep (still true) · o memory mode",
    "relative-date": "e write the date instead · d remove · y keep",
    "scanner": "e edit out the problem · d remove · y keep (it is fine)",
    "capacity": "merge or remove entries to make room · o memory mode · y keep",
    "drift": "o memory mode, then r repairs the file (a backup is saved first)",
    "redundant-skill": "d remove (the skill has it) · e shorten · y keep",
    "redundant-context": "d remove (the context file has it) · e shorten · y keep",
    "vague": "e say which one and what to do · d remove · y keep",
    "verbose": "e shorten to the facts · y keep",
    "unsaved": "e add the fact now (prefilled, checked like any write) · y keep (it didn't need saving)",
}


def masked(text: str) -> str:
    return R.mask_secrets(text)


def reports_dir(curator) -> Path:
    """Where `x` writes Markdown reports: hmc's state folder for this home (made the home's own:
    core.store.home_id), `reports/`."""
    from core.store.journal import claim_state_dir

    return claim_state_dir(curator.home.root) / REPORTS


# ------------------------------------------------------------------------------ merge editor

@dataclass(frozen=True)
class MergeResult:
    target: str  # the store that receives the merged entry
    text: str


class MergeDialog(EntryEditor[MergeResult | None]):
    """Both entries prefilled; live count, characters saved and each store's usage after merging."""


    BINDINGS = [
        Binding("ctrl+s", "save", "Merge", id="merge.save", tooltip="Write the merged entry, remove the other"),
        Binding("escape", "cancel", "Cancel", id="merge.cancel", tooltip="Close without merging"),
        Binding("ctrl+t", "switch_target", "Other file", id="merge.target",
                tooltip="Put the merged entry in the other file (entries from both files only)"),
        EntryEditor.EDITOR_BINDING,
    ]
    PREFIX = "merge"
    VERB = "merge"
    SAVE_LABEL = "Merge (ctrl+s)"
    SAVE_ID = "merge-save"
    CANCEL_ID = "merge-cancel"
    MOST_FINDINGS = 4

    def __init__(self, curator, refs: list[tuple[str, int, str]]) -> None:
        super().__init__(curator, refs[0][0], refs[0][2] + "\n" + refs[1][2])
        self.refs = refs  # [(target, index, text)] × 2; the first keeps its place

    @property
    def cross(self) -> bool:
        return self.refs[0][0] != self.refs[1][0]

    @property
    def can_switch(self) -> bool:
        return self.cross

    def heading(self) -> str:
        return f"Merge two entries → {FILE_NAMES[self.target]}"

    def other_target(self) -> str:
        return self.refs[1][0] if self.target == self.refs[0][0] else self.refs[0][0]

    def compose_note(self) -> ComposeResult:
        first, second = self.refs
        note = Text("Edit into one entry. ", style="dim")
        note.append(f"{first[0]} #{first[1] + 1}", style="bold")
        note.append(" is replaced by the result and ", style="dim")
        note.append(f"{second[0]} #{second[1] + 1}", style="bold")
        note.append(" removed (both stay in hmc's history).", style="dim")
        yield Static(note, markup=False)

    def plans(self, text: str) -> dict[str, tuple[list[str], str | None]]:
        """Each affected store's entries after merging, and why it can't be saved (or None)."""
        (ta, _, xa), (tb, _, xb) = self.refs
        if not self.cross:
            groups = {ta: [Op("remove", old_text=xb, matched_entry=xb),
                           Op("replace", old_text=xa, content=text, matched_entry=xa)]}
        else:
            keep_t, keep_x = (ta, xa) if self.target == ta else (tb, xb)
            drop_t, drop_x = (tb, xb) if self.target == ta else (ta, xa)
            groups = {keep_t: [Op("replace", old_text=keep_x, content=text, matched_entry=keep_x)],
                      drop_t: [Op("remove", old_text=drop_x, matched_entry=drop_x)]}
        out: dict[str, tuple[list[str], str | None]] = {}
        for target, ops in groups.items():
            store = self.curator.stores[target]
            after, why = planned(store, ops)
            if after is None:  # refused (over the limit, say): the gauge still shows the merge's size
                after = merged_entries(store.last.entries, ops)
                size = usage(after)
                why = (f"the merge would leave {FILE_NAMES[target]} at {size:,}/{store.limit:,} chars, "
                       f"{size - store.limit:,} over its limit: shorten the merged entry") if size > store.limit \
                    else store.for_person(why, see="memory mode (1)")
            out[target] = (after, why)
        return out

    def status(self, text: str) -> EntryStatus:
        (_, _, xa), (_, _, xb) = self.refs
        line = Text(counted(len(text), "char"))
        saved = len(xa) + len(xb) + 3 - len(text)  # the two entries and their § delimiter
        n = abs(saved)
        line.append(f" · {'saves' if saved >= 0 else 'adds'} {n:,} char{'' if n == 1 else 's'}",
                    style="bold green" if saved > 0 else "bold yellow")
        problem = None if text else "the merged entry can't be empty"
        chosen = self.curator.stores[self.target]
        used = chosen.last.usage  # the gauge while there is nothing to plan
        for target, (after, why) in (self.plans(text).items() if text else []):
            store = self.curator.stores[target]
            line.append(f"\n{FILE_NAMES[target]} after merging: {usage_label(usage(after), store.limit)}")
            if not store.enabled:
                why = why or f"{store.label} is disabled in config.yaml"
            if not store.last.writable:
                why = why or f"{FILE_NAMES[target]} can't be written now (drift or unreadable)"
            problem = problem or why
            if target == self.target:
                used = usage(after)
        return EntryStatus(line, used, chosen.limit, (problem,) if problem else ())

    def result(self, text: str) -> MergeResult:
        return MergeResult(self.target, text)


def merged_entries(entries: Sequence[str], ops: Sequence[Op]) -> list[str]:
    """A store's entries with a merge's replace and remove made as written (the entries they pin),
    whatever the release would say of the result: what the "after merging" gauge measures."""
    out = list(entries)
    for op in ops:
        if op.matched_entry in out:
            at = out.index(op.matched_entry)
            if op.action == "remove":
                del out[at]
            else:
                out[at] = op.content
    return out


# ------------------------------------------------------------------------------ the screen

OFF_SCREEN_QUIET = 3.0  # seconds without a memory change before a review off screen follows the changes


class ReviewScreen(ModeScreen):
    MODE = "review"
    AREA = "review"
    HELP = """\
## Review
The monthly review: duplicates and rewordings, conflicting facts, stale and relative dates,
security-scanner hits, capacity, drift, entries a skill or context file already holds, entries
too vague or too wordy to be worth their characters, and old entries. Most severe first.
**stale** reads the entry: the newest date written in it is older than `stale_days` (90 by
default). **old** (info) reads the history in state.db: the entry's text has not changed for more
than `old_days` (180 by default), dated or not; a text no recorded write explains (a hand edit?)
is aged from when the history first shows it. Both are set in hmc's config.toml, `[review]`.
**m** merge a pair · **d** remove · **e** edit · **y** keep as it is (hidden until an entry changes) ·
**space** mark several, then **d**/**y** act on all marked · **K** show kept findings ·
**o** open the entry in memory mode · **M** (cross-profile) move the entry to the profile that holds it
too · **P** every profile's open findings, counted (Enter reviews that profile) ·
**x** export a Markdown report (hmc's state folder) ·
**j**/**k** and **g**/**G** move in the list, as in every list.
Secrets stay masked here.
"""
    BINDINGS = [
        Binding("m", "merge", "Merge", id="review.merge", tooltip="Merge the two entries of this finding in an editor"),
        Binding("d,delete", "remove", "Remove", id="review.remove",
                tooltip="Remove the entry (asks which for a pair; all marked entries when some are marked)"),
        Binding("e", "edit", "Edit", id="review.edit", tooltip="Edit the entry (asks which for a pair)"),
        Binding("y", "keep", "Keep", id="review.keep",
                tooltip="Keep as it is: hide this finding until one of its entries changes (all marked ones when some are marked)"),
        Binding("space", "toggle_mark", "Mark", id="review.mark", tooltip="Mark or unmark this finding for a bulk remove or keep"),
        Binding("K", "toggle_kept", "Show kept", id="review.kept", tooltip="Show or hide the findings you kept (y on a kept one brings it back)"),
        Binding("o", "goto", "Go to", id="review.goto", tooltip="Open this entry's file in memory mode"),
        Binding("M", "move_profile", "Move to the other profile", id="review.move",
                tooltip="Cross-profile: move (or copy) this profile's entry to the other profile holding it"),
        Binding("slash", "filter", "Filter findings", id="review.filter", show=False, priority=True,
                tooltip="Filter the findings as you type: kind, reason or entry text (Esc clears)"),
        Binding("x", "export", "Export", id="review.export", tooltip="Write the review as a Markdown report in hmc's state folder"),
        Binding("P", "profiles", "By profile", id="review.profiles",
                tooltip="Every profile's open findings, counted by severity; Enter reviews that profile"),
    ]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.findings: list[R.Finding] = []
        self.kept: set[str] = set()
        self.marked: set[str] = set()
        self.show_kept = False
        self.loaded = False
        self.everything: list[R.Finding] = []  # every finding of the last review (before kept and the filter)
        self._follow: str | None = None
        self._basis: tuple = ()  # the entries the review shown was computed over
        self.profiles = 1  # how many profiles the home has (read with each review)

    def compose(self) -> ComposeResult:
        yield HmcHeader()
        with Horizontal(id="review-body"):
            with Vertical(id="review-left"):
                yield Static("Reviewing…", id="review-summary", markup=False)
                yield FilterBar(id="review-filter")
                yield FindingsList(id="findings")
            with Vertical(id="review-right"):
                yield Static("", id="finding-title", markup=False)
                yield Static("", id="finding-detail", markup=False)
                yield Static("", id="finding-hint", markup=False)
                yield CapacityGauge(id="finding-gauge")
                yield SideBySide(id="finding-sides")
        yield WorkProgress(self.app.long_work)
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#finding-gauge", CapacityGauge).display = False
        self.app.memory_changed.subscribe(self, self.on_memory_changed)
        self.query_one(FindingsList).focus()

    def on_screen_resume(self) -> None:
        # looking is not reviewing: the date is recorded only once nothing at warning or above is
        # left open (see recompute) or when the review is exported
        self._drop_later()
        self.recompute(unless_same=True)

    def prebuilt(self) -> None:
        """Built ahead of the first visit: the review is computed now, shown as the visit's first
        frame; the visit computes it again and repaints only if the files say otherwise."""
        self.recompute()

    _later = None  # off screen: the recompute waiting for the writes to pause

    def on_memory_changed(self, _target: str | None = None) -> None:
        """On screen, the review follows each change. Off screen, it follows once the changes pause
        for OFF_SCREEN_QUIET: a live agent writes every few seconds, and reviewing a big store takes
        seconds of CPU in a thread (one more for every write, the older ones still running) that
        the screen on show needs to keep up. A visit recomputes anyway (on_screen_resume)."""
        if self.is_current:
            self.recompute()
            return
        self._drop_later()
        self._later = self.set_timer(OFF_SCREEN_QUIET, self._recompute_later)

    def _recompute_later(self) -> None:
        self._later = None
        self.recompute()

    def _drop_later(self) -> None:
        if self._later is not None:
            self._later.stop()
            self._later = None

    # -- computing (off the UI thread) -------------------------------------------------------------

    @work(thread=True, exclusive=True, group="review-compute", exit_on_error=False)
    def recompute(self, unless_same: bool = False) -> None:
        """Review the stores again and show it (`unless_same`: not when it is the review shown)."""
        curator = self.app.curator
        settings = self.app.settings
        with self.app.long_work("rebuilding the memory history for entry ages") as progress:
            findings = R.run_review(curator, include_kept=True, fresh=False, stale_days=settings.stale_days,
                                    old_days=settings.old_days, progress=progress)
        if get_current_worker().is_cancelled:  # a newer recompute started (a write, a change on disk):
            return  # these findings may predate it, and must not be shown after its own
        kept = R.decisions(curator).kept_keys()
        try:
            done: bool | str = R.mark_if_complete(curator, findings, kept)
        except Exception as exc:  # a read-only state folder must not break the review
            done = str(exc)
        if get_current_worker().is_cancelled:
            return
        basis = tuple(store.last.entries for store in curator.stores.values())
        from core.profiles.discovery import discover

        self.profiles = len(discover(curator.home.base, curator.release).profiles)
        self.app.call_from_thread(self._computed, findings, kept, done, basis, unless_same)

    def _computed(self, findings: list[R.Finding], kept: set[str], done: bool | str, basis: tuple,
                  unless_same: bool = False) -> None:
        """Show a new review. A visit recomputes it: when it is the review shown, over the same
        entries, nothing repaints."""
        if (unless_same and done is False and self.loaded and basis == self._basis and findings == self.everything
                and kept == self.kept):
            return
        self._basis = basis
        self.show_findings(findings, kept, done)

    def show_findings(self, findings: list[R.Finding], kept: set[str], done: bool | str = False) -> None:
        if done is True:
            self.app.header_changed.publish(None)
            self.notify("Nothing at warning or above is left open: recorded as today's review.",
                        title="Review done", markup=False)
        elif isinstance(done, str):
            self.notify(done, title="Review date not saved", severity="warning", markup=False)
        self.loaded = True
        self.kept = kept
        self.everything = findings
        visible = [f for f in findings if (self.show_kept or f.key not in kept)
                   and self.matches_filter(f.kind, f.detail, *(masked(t) for t in f.texts))]
        self.findings = visible
        keys = {f.key for f in visible}
        self.marked &= keys
        lst = self.query_one(FindingsList)
        current = self._follow or (lst.current.key if lst.current is not None else None)
        self._follow = None
        lst.show(visible, self.marked, kept, keep_key=current,  # or the next one in its place
                 words=self.filter_words())
        self.update_summary(findings, kept)
        self.show_detail(lst.current)
        self.refresh_bindings()

    def on_resize(self, event) -> None:
        """The counts line breaks between counts at the new width (once the layout has it)."""
        if self.loaded:
            self.call_after_refresh(lambda: self.update_summary(self.everything, self.kept))

    def apply_filter(self) -> None:
        if self.loaded:
            self.show_findings(self.everything, self.kept)

    def filter_list(self) -> FindingsList:
        return self.query_one(FindingsList)

    def update_summary(self, everything: list[R.Finding], kept: set[str]) -> None:
        shown = self.findings
        n_kept = sum(1 for f in everything if f.key in kept)
        text = Text()
        if self.filter_text.strip():  # say it is a filtered view: "Nothing to fix" would be wrong
            unfiltered = sum(1 for f in everything if self.show_kept or f.key not in kept)
            text.append(f"{len(shown)} of {unfiltered} finding{'s' if unfiltered != 1 else ''} match the filter",
                        style="bold")
        elif not shown:
            text.append("Nothing to fix.", style="bold green")
        else:
            text.append(counted(len(shown), "finding"), style="bold")
            # a count and its word stay on one line: the line breaks between counts, never inside one
            width, used = self.query_one("#review-summary", Static).content_region.width, len(text.plain)
            for sev, words in R.severity_counts(shown):
                if width and used + 2 + len(words) > width:
                    text.append("\n")
                    used = 0
                else:
                    text.append("  ")
                    used += 2
                text.append(words, style=SEVERITY_STYLE.get(sev, ""))
                used += len(words)
        extras = Text()
        if n_kept:
            extras.append(f"{n_kept} kept, " + ("shown (K hides)" if self.show_kept else "hidden (K shows)"),
                          style="dim")
        if self.marked:
            if extras:
                extras.append("  ·  ", style="dim")
            extras.append(f"{len(self.marked)} marked", style="bold")
            extras.append(" · d removes · y keeps · space unmarks", style="dim")
        if extras:  # a line of its own: never wrapped into the counts
            text.append("\n")
            text.append_text(extras)
        self.query_one("#review-summary", Static).update(text)

    # -- the detail pane ---------------------------------------------------------------------------

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.show_detail(self.query_one(FindingsList).current)
        self.refresh_bindings()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        finding = self.query_one(FindingsList).current
        if finding is not None and len(finding.entries) == 2:
            self.action_merge()
        elif finding is not None and finding.entries:
            self.action_edit()

    def show_detail(self, finding: R.Finding | None) -> None:
        title = self.query_one("#finding-title", Static)
        detail = self.query_one("#finding-detail", Static)
        hint = self.query_one("#finding-hint", Static)
        gauge = self.query_one("#finding-gauge", CapacityGauge)
        sides = self.query_one(SideBySide)
        gauge.display = False
        if finding is None:
            title.update(Text("Nothing to fix." if self.loaded else "Reviewing…", style="bold"))
            detail.update(Text("Capacity, duplicates, dates, redundancy and the security scan are all clear."
                               if self.loaded else ""))
            hint.update("")
            sides.show([])
            return
        head = Text()
        head.append(f" {finding.severity.upper()} ", style=SEVERITY_STYLE.get(finding.severity, "") + " reverse"
                    if finding.severity != "critical" else SEVERITY_STYLE["critical"])
        head.append(f"  {finding.kind}", style="bold")
        head.append(f"  ·  {finding.where}")
        if finding.rule and finding.rule not in (finding.kind, "") and finding.kind != "unsaved":  # unsaved: an id
            head.append(f"  ·  {finding.rule}", style="dim")
        if finding.key in self.kept:
            head.append("  ·  kept", style="italic dim")
        title.update(head)
        detail.update(literal(finding.detail))
        hint.update(self.hint(finding))
        sides.show(self.panels(finding))
        if not finding.entries and finding.target in TARGETS:
            store = self.app.curator.stores[finding.target]
            gauge.update(store.last.usage, store.limit)
            gauge.display = True

    def hint(self, finding: R.Finding) -> Text:
        """What to do; for `old`, first what it means (it is not `stale`, which reads dates)."""
        text = Text(style="dim")
        if finding.kind == "old":
            days = getattr(self.app.settings, "old_days", R.OLD_DAYS)
            text.append(f"Old: its text hasn't changed in more than {counted(days, 'day')} (hmc's [review] old_days), "
                        "by the history in state.db, dated or not. Stale is about dates written in it.\n")
        if finding.kind == "relative-date" and finding.fix is not None:
            dates = ", ".join(d for _, d in finding.resolved[:3])
            text.append(f"e write the date instead (the editor opens with {dates} in place, to check) · d remove · y keep")
            return text
        text.append(HINTS.get(finding.kind, ""))
        return text

    def panels(self, finding: R.Finding) -> list[tuple[str, Text]]:
        refs = finding.refs
        if finding.kind == "cross-profile" and len(refs) == 1 and finding.other_text is not None:
            (target, index, text), theirs = refs[0], finding.other_text
            left, right = diff_pair(masked(text), masked(theirs))
            where = (finding.rule or "").split(":")
            there = f"{FILE_NAMES.get(where[1], '?')} #{int(where[2]) + 1}" if len(where) == 3 and where[2].isdigit() else "?"
            return [(f"here: {target} #{index + 1} · {len(text):,} chars", left),
                    (f"profile {visible_controls(finding.profile or '?')}: {there}", right)]
        if len(refs) == 2:
            (ta, ia, xa), (tb, ib, xb) = refs
            left, right = diff_pair(masked(xa), masked(xb))
            return [(f"{ta} #{ia + 1} · {len(xa):,} chars", left),
                    (f"{tb} #{ib + 1} · {len(xb):,} chars", right)]
        if len(refs) == 1 and finding.passage is not None:  # the entry, and the lines it restates
            target, index, text = refs[0]
            first, last = finding.passage_lines or (0, 0)
            lines = f"line {first}" if first == last else f"lines {first}–{last}"
            return [(f"{target} #{index + 1} · {len(text):,} chars", literal(masked(text))),
                    (literal(f"{finding.source or '?'} · {lines}"), literal(masked(finding.passage)))]
        if len(refs) == 1:
            target, index, text = refs[0]
            shown = masked(text)
            spans: list[tuple[int, int]] = []
            if finding.kind in ("stale", "relative-date"):
                spans = [(d.start, d.end) for d in find_dates(shown, self.app.curator.today)]
            return [(f"{target} #{index + 1} · {len(text):,} chars", mark_spans(shown, spans))]
        if finding.kind == "unsaved":
            return [("The fact to add (what the user asked to keep)", literal(masked(finding.fact or "")))]
        if finding.kind == "capacity" and finding.target in TARGETS:
            entries = list(self.app.curator.stores[finding.target].last.entries)
            biggest = sorted(range(len(entries)), key=lambda i: -len(entries[i]))[:6]
            body = Text()
            body.append("Largest entries:\n", style="bold")
            for i in biggest:
                body.append(f"#{i + 1:<3} {len(entries[i]):>5,} chars  ", style="dim")
                one = " ".join(masked(entries[i]).split())
                body.append_text(literal(one if len(one) <= 60 else one[:59] + "…"))
                body.append("\n")
            return [(FILE_NAMES[finding.target], body)]
        return []

    # -- state for bindings ------------------------------------------------------------------------

    @property
    def current(self) -> R.Finding | None:
        try:
            return self.query_one(FindingsList).current
        except Exception:
            return None

    def marked_findings(self) -> list[R.Finding]:
        return [f for f in self.findings if f.key in self.marked]

    def _writable(self, targets) -> bool:
        stores = self.app.curator.stores
        return all(stores[t].last.writable and stores[t].enabled for t in set(targets))

    def why_not(self, action: str) -> str | None:
        if not self.is_mounted:
            return None
        finding = self.current
        none = "nothing to fix" if self.loaded and not self.findings else "no finding is selected"
        if action == "merge":
            if finding is None:
                return f"Merge: {none}"
            if len(finding.entries) != 2:
                return "Merge: this finding is about one entry, not a pair"
            return None if self._writable(finding.targets) else f"Merge: {self._unwritable(finding.targets)}"
        if action in ("edit", "remove"):
            verb = "Edit" if action == "edit" else "Remove"
            if action == "remove" and self.marked:
                return None if any(len(f.entries) == 1 for f in self.marked_findings()) else \
                    "Remove: only pairs are marked (merge them, or remove one at a time)"
            if finding is None:
                return f"{verb}: {none}"
            if finding.kind == "unsaved" and action == "edit":
                return None if self._writable([finding.target]) else f"Add: {self._unwritable([finding.target])}"
            if not finding.entries:
                return f"{verb}: this finding is about the whole file, not an entry"
            return None if self._writable(finding.targets) else f"{verb}: {self._unwritable(finding.targets)}"
        if action in ("keep", "toggle_mark"):
            return None if (finding is not None or self.marked) else \
                f"{'Keep' if action == 'keep' else 'Mark'}: {none}"
        if action == "move_profile":
            if finding is None:
                return f"Move: {none}"
            if finding.kind != "cross-profile":
                return "Move: only a cross-profile finding (memory mode's M moves any entry)"
            return None if self._writable(finding.targets) else f"Move: {self._unwritable(finding.targets)}"
        if action == "profiles" and self.profiles < 2:
            return "By profile: this home has one profile"
        if action == "goto":
            if finding is None:
                return f"Go to: {none}"
            return None if finding.target in (*TARGETS, "memory+user") else "Go to: this finding has no entry to show"
        return None

    def _unwritable(self, targets) -> str:
        stores = self.app.curator.stores
        for t in sorted(set(targets)):
            if not stores[t].enabled:
                return f"{FILE_NAMES[t]} is disabled in config.yaml"
            if not stores[t].last.writable:
                return f"hmc won't write {FILE_NAMES[t]} as it is (memory mode's r repairs it)"
        return "the file can't be written now"

    # -- actions -----------------------------------------------------------------------------------

    def action_toggle_mark(self) -> None:
        finding = self.current
        if finding is None:
            return
        self.marked ^= {finding.key}
        lst = self.query_one(FindingsList)
        lst.show(self.findings, self.marked, self.kept, keep_key=finding.key, words=self.filter_words())
        # move on, so space, space, space marks a run of findings (the summary line says how many are
        # marked and what d and y do with them: a toast per key would pile up)
        lst.action_cursor_down()
        self.update_summary(self.findings, self.kept)
        self.refresh_bindings()

    def action_toggle_kept(self) -> None:
        self.show_kept = not self.show_kept
        self.notify("Showing kept findings (k brings one back)." if self.show_kept else "Kept findings hidden.", markup=False)
        self.recompute()

    def action_keep(self) -> None:
        chosen = self.marked_findings() or ([self.current] if self.current else [])
        if not chosen:
            return
        curator = self.app.curator
        store = R.decisions(curator)
        back = [f for f in chosen if f.key in self.kept]
        new = [f for f in chosen if f.key not in self.kept]
        try:
            if new:
                store.keep(new, curator.today)
            if back:
                store.unkeep(f.key for f in back)
        except Exception as exc:
            self.notify(str(exc), title="Not saved", severity="error", markup=False)
            return
        self.marked.clear()
        if new:
            self.notify(f"Kept {len(new)} finding{'s' if len(new) != 1 else ''}: hidden until one of "
                        "its entries changes (K shows kept ones).", title="Kept", markup=False)
        if back:
            self.notify(f"{len(back)} finding{'s' if len(back) != 1 else ''} back in the review.", title="Un-kept", markup=False)
        self.recompute()

    def action_goto(self) -> None:
        finding = self.current
        if finding is None:
            return
        refs = finding.refs
        if refs:  # the entry itself, and for a pair the first one
            target, index, text = refs[0]
            self.app.show_memory(target, text, index)
            return
        target = finding.targets[0] if finding.targets else finding.target
        if target in TARGETS:
            self.app.show_memory(target)

    def action_export(self) -> None:
        curator = self.app.curator
        folder = reports_dir(curator)
        path = folder / f"review-{curator.today.isoformat()}.md"
        try:
            from core.store.atomic import write_private
            from core.store.journal import private_state_folder

            private_state_folder(folder)  # hmc's state is private: the report may quote secrets
            write_private(path, R.markdown_report(curator, self.findings).encode("utf-8"))
        except OSError as exc:
            self.notify(f"Can't write the report: {exc.strerror or exc}", title="Export", severity="error", markup=False)
            return
        still = R.open_problems(self.findings, self.kept)
        due = "" if not still else (f"\nThe review stays due: {len(still)} finding{'s' if len(still) != 1 else ''} "
                                    "at warning or above still open (fix, remove or keep them with y).")
        self.notify(f"Review exported to {tilde(path)}{due}", title="Export", timeout=10, markup=False)
        try:  # a report is not the review: done only once nothing at warning or above is open
            if R.mark_if_complete(curator, self.findings, self.kept):
                self.app.header_changed.publish(None)
        except Exception as exc:
            self.notify(str(exc), title="Review date not saved", severity="warning", markup=False)

    async def pick_entry(self, finding: R.Finding, verb: str) -> tuple[str, int, str] | None:
        refs = finding.refs
        if len(refs) == 1:
            return refs[0]
        body = Text(f"Which entry do you want to {verb}?\n\n")
        choices = []
        for n, (target, index, text) in enumerate(refs):
            body.append(f"{target} #{index + 1}: ", style="bold")
            body.append_text(literal(masked(text)))
            body.append("\n\n")
            choices.append((str(n), f"{verb.capitalize()} {target} #{index + 1}"))
        choices.append(("cancel", "Cancel"))
        choice = await self.app.push_screen_wait(ChoiceDialog(f"{verb.capitalize()} which entry?", body, choices))
        if choice in (None, "cancel"):
            return None
        return refs[int(choice)]

    @work(exclusive=True, group="review-profiles")
    async def action_profiles(self) -> None:
        """P: each profile's open findings counted (reviewed as this screen would, nothing recorded),
        this profile first; Enter on another reviews it (every mode follows, as mode 5's Enter)."""
        import asyncio

        from core.review.by_profile import by_profile
        from tui.screens.dialogs import PickDialog

        settings, here = self.app.settings, self.app.curator
        self.notify("Reviewing every profile…", title="Profiles", timeout=3, markup=False)
        with self.app.long_work("reviewing every profile"):
            found = await asyncio.to_thread(by_profile, here, stale_days=settings.stale_days, old_days=settings.old_days)
        found.sort(key=lambda p: p.profile != here.home.profile)
        rows = []
        for p in found:
            row = literal(p.profile, "bold")
            row.append("  (here)" if p.profile == here.home.profile else "", style="dim")
            row.append("  ·  ")
            row.append_text(literal(p.said(), "red" if p.counts is None else
                                    "yellow" if p.counts.get("warning") or p.counts.get("critical") else "dim"))
            rows.append(row)
        total = sum(p.total for p in found)
        self.app.clear_notifications()  # "Reviewing every profile…" is answered by the dialog
        choice = await self.app.push_screen_wait(PickDialog(
            f"Open findings by profile: {total} in {counted(len(found), 'profile')}", rows,
            note="Kept findings are left out, as in this list. Enter reviews that profile (every mode follows it)."))
        if choice is None or found[choice].profile == self.app.curator.home.profile:
            return
        self.app.switch_profile(found[choice].profile)

    @work(exclusive=True, group="review-write")
    async def action_move_profile(self) -> None:
        """M on a cross-profile finding: this profile's entry to the profile that holds it too (a move
        there only takes it out of here when that profile has it word for word)."""
        finding = self.current
        if finding is None or finding.kind != "cross-profile" or not finding.refs:
            return
        target, _, text = finding.refs[0]
        await self.app.move_entry(target, text, finding.profile)

    @work(exclusive=True, group="review-write")
    async def action_remove(self) -> None:
        if self.marked:
            await self.bulk_remove()
            return
        finding = self.current
        if finding is None or not finding.entries:
            return
        ref = await self.pick_entry(finding, "remove")
        if ref is None:
            return
        target, index, text = ref
        if len(finding.refs) == 1:
            body = Text("Remove this entry from ")
            body.append(FILE_NAMES[target], style="bold")
            body.append("? It stays in hmc's history (memory mode: h restores, u undoes).\n\n")
            body.append_text(literal(masked(text)))
            if not await self.app.push_screen_wait(ConfirmDialog("Remove entry", body, yes="Remove", danger=True)):
                return
        await self.app.write(target, [Op("remove", old_text=text, matched_entry=text)])

    async def bulk_remove(self) -> None:
        chosen = self.marked_findings()
        singles = [f for f in chosen if len(f.entries) == 1]
        skipped = len(chosen) - len(singles)
        per_target: dict[str, list[str]] = {}
        for f in singles:
            target, _, text = f.refs[0]
            if text not in per_target.setdefault(target, []):
                per_target[target].append(text)
        if not per_target:
            self.notify("Only pairs are marked: merge them (m) or remove one at a time (d).", severity="warning", markup=False)
            return
        n = sum(len(v) for v in per_target.values())
        body = Text(f"Remove {n} entr{'y' if n == 1 else 'ies'}? They stay in hmc's history.\n\n")
        for target, texts in per_target.items():
            for text in texts:
                body.append(f"{FILE_NAMES[target]}: ", style="bold")
                one = " ".join(masked(text).split())
                body.append_text(literal(one if len(one) <= 90 else one[:89] + "…"))
                body.append("\n")
        if skipped:
            body.append(f"\n{skipped} marked pair{'s' if skipped != 1 else ''} left alone (merge or remove "
                        "them one at a time).", style="dim")
        if not await self.app.push_screen_wait(ConfirmDialog("Remove marked entries", body, yes="Remove", danger=True)):
            return
        self.marked.clear()
        for target, texts in per_target.items():
            await self.app.write(target, [Op("remove", old_text=t, matched_entry=t) for t in texts])

    @work(exclusive=True, group="review-write")
    async def action_edit(self) -> None:
        finding = self.current
        if finding is not None and finding.kind == "unsaved":
            await self.add_unsaved(finding)
            return
        if finding is None or not finding.entries:
            return
        ref = await self.pick_entry(finding, "edit")
        if ref is None:
            return
        target, _, text = ref
        # a relative date whose saved day is known: the editor opens with the dates it meant in place
        initial = finding.fix if finding.kind == "relative-date" and finding.fix is not None else None
        result = await self.app.push_screen_wait(EditEntryDialog(self.app.curator, target, text, initial=initial))
        if result is None:
            return
        if result.text in (text, visible(text)):
            self.notify("No change.", markup=False)
            return
        self._follow = None
        await self.app.write(target, [Op("replace", content=result.text, old_text=text, matched_entry=text)])

    async def add_unsaved(self, finding: R.Finding) -> None:
        """The fact the agent said it saved, added now: the edit dialog prefilled with the user's
        words (to trim into an entry), with the usual limit and scan checks."""
        result = await self.app.push_screen_wait(EditEntryDialog(
            self.app.curator, finding.target, None, initial=finding.fact or "", title="Add the unsaved fact",
            choose_target=True))
        if result is None:
            return
        self._follow = None
        await self.app.write(result.target, [Op("add", content=result.text)], force=result.force)

    @work(exclusive=True, group="review-write")
    async def action_merge(self) -> None:
        finding = self.current
        if finding is None or len(finding.refs) != 2:
            return
        refs = finding.refs
        result = await self.app.push_screen_wait(MergeDialog(self.app.curator, refs))
        if result is None:
            return
        (ta, _, xa), (tb, _, xb) = refs
        if ta == tb:
            written = await self.app.write(ta, [Op("remove", old_text=xb, matched_entry=xb),
                                                Op("replace", old_text=xa, content=result.text,
                                                       matched_entry=xa)], action="merge")
            if written is not None and written.changed:
                self.merged(result, xa, xb, [ta])
            return
        keep_t, keep_x, drop_t, drop_x = ((ta, xa, tb, xb) if result.target == ta else (tb, xb, ta, xa))
        written = await self.app.write(keep_t, [Op("replace", old_text=keep_x, content=result.text,
                                                   matched_entry=keep_x)], action="merge")
        if written is None:
            return
        dropped = await self.app.write(drop_t, [Op("remove", old_text=drop_x, matched_entry=drop_x)],
                                       action="merge")
        if dropped is not None and dropped.changed:
            self.merged(result, xa, xb, [keep_t, drop_t])

    def merged(self, result: MergeResult, xa: str, xb: str, targets: list[str]) -> None:
        """One plain toast instead of the store's "Entry removed… Entry replaced…" messages."""
        saved = len(xa) + len(xb) + 3 - len(result.text)
        n = abs(saved)
        change = f"{'saved' if saved >= 0 else 'added'} {n:,} char{'' if n == 1 else 's'}"
        body = f"Merged 2 entries into 1 in {FILE_NAMES[result.target]} ({change})."
        for target in targets:
            store = self.app.curator.stores[target]
            body += f"\n{FILE_NAMES[target]}: {usage_label(store.last.usage, store.limit)}"

        def toast() -> None:  # queued after the per-write "Saved" toasts, which this one sums up
            self.app.clear_notifications()
            self.app.notify(body, title="Merged", markup=False)

        self.app.call_later(toast)
