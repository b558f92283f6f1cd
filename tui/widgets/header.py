"""The top line on every screen: home, profile, the five modes, both pending counts (memory and
skill writes), review status. The profile is said at every width (the path gives way first)."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.widget import Widget

from tui.literal import visible_controls
from core.plural import noun

MODES = (("1", "memory", "Memory", "Mem"), ("2", "pending", "Pending", "Pend"), ("3", "search", "Search", "Srch"),
         ("4", "review", "Review", "Rev"), ("5", "profiles", "Profiles", "Prof"))


class HmcHeader(Widget):
    """Renders app state (`app.header_state()`); re-renders when the app says it changed.

    The mode tabs are clickable (a click is the tab's key). Where the line is short, parts give way
    in the order of FORMS; the tabs keep short names only once the path has gone."""

    DEFAULT_CSS = """
    HmcHeader { height: 1; dock: top; background: $panel; color: $foreground; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._tab_spans: list[tuple[int, int, str]] = []

    def on_mount(self) -> None:
        self.app.header_changed.subscribe(self, lambda _=None: self.refresh())

    # The forms tried in turn, widest first; each gives way in the order a person misses least:
    # the review's date, then the home's path, then the tabs' long names, then the counts' words.
    # The profile is always said (issue 33), and the tabs and counts stay whole.
    FORMS = (  # (short tabs, short counts, short review, the path shown)
        (False, False, False, True),
        (False, False, True, True),
        (False, False, True, False),
        (True, False, True, True),
        (True, False, True, False),
        (True, True, True, False),
    )

    def render(self) -> Text:
        state = self.app.header_state(quick=True)
        mode = getattr(self.screen, "MODE", "")
        width = self.size.width
        for n, (short_tabs, short_counts, short_review, with_path) in enumerate(self.FORMS):
            right, tabs, spans, left, profile, room = self._parts(state, mode, width, short_tabs, short_counts,
                                                                  short_review)
            if (room >= 10 if with_path else room >= 0) or n == len(self.FORMS) - 1:
                break
        if with_path:  # cut from the left ("…/hmc/demo-home"): its last folder's end tells homes apart
            left.append(" " + cut_path(visible_controls(state["home"]), room), style="bold")
            left.append(profile, style="dim" if state["profile"] == "default" else "bold")
        else:
            left.append(profile.replace(" · ", " ", 1), style="bold")
        gap = max(1, width - left.cell_len - tabs.cell_len - right.cell_len)
        start = left.cell_len + gap // 2
        self._tab_spans = [(start + a, start + b, key) for a, b, key in spans]
        line = Text.assemble(left, " " * (gap // 2), tabs, " " * (gap - gap // 2), right)
        line.truncate(width)
        return line

    def _parts(self, state: dict, mode: str, width: int, short_tabs: bool, short_counts: bool, short_review: bool):
        """The right side (counts, review), the tabs and their spans, the left's start, the profile
        label and the room left for the home's path (negative: even without it, this form is too wide)."""
        right = Text()
        count, skills = state["pending"], state.get("skills")
        shown = "  …" if count is None else f"{count:>3}"  # counted just after the first paint
        shown_skills = "…" if skills is None else str(skills)
        if short_counts:  # " 13+7 pending": memory writes + skill writes
            right.append(shown, style="bold yellow" if count else "dim")
            right.append("+", style="dim")
            right.append(f"{shown_skills:<2}pending", style="bold yellow" if skills else "dim")
        else:  # fixed width: the tabs don't jump
            right.append(f"{shown} pending", style="bold yellow" if count else "dim")
            right.append(" · ", style="dim")
            right.append(f"{shown_skills:>2} {noun(skills or 0, 'skill'):<6}", style="bold yellow" if skills else "dim")
        right.append(" · ", style="dim")
        review = state["review"]
        if short_review and review.startswith("review due"):
            review = "review due"
        right.append(review, style="bold yellow" if state.get("review_due") else "dim")
        right.append(" ")
        tabs, spans = self.tabs(mode, compact=short_tabs)
        left = Text()
        left.append(" hmc ", style="bold reverse")
        profile = f" · {visible_controls(state['profile'])}"
        if len(profile) > 23:  # a 64-character name: its start, which tells profiles apart
            profile = profile[:22] + "…"
        room = width - tabs.cell_len - right.cell_len - left.cell_len - len(profile) - 3
        return right, tabs, spans, left, profile, room

    @staticmethod
    def tabs(mode: str, compact: bool) -> tuple[Text, list[tuple[int, int, str]]]:
        """The four modes (short names on a narrow terminal), and where each tab is (for clicks)."""
        tabs = Text()
        spans = []
        for key, name, title, short in MODES:
            label = f" {key} {short if compact else title} "
            start = tabs.cell_len
            tabs.append(label, style="bold reverse" if name == mode else "")
            spans.append((start, tabs.cell_len, key))
        return tabs, spans

    def on_click(self, event: events.Click) -> None:
        for start, end, key in self._tab_spans:
            if start <= event.x < end:
                event.stop()
                self.app.simulate_key(key)
                return

    def on_mouse_move(self, event: events.MouseMove) -> None:
        over = next((key for start, end, key in self._tab_spans if start <= event.x < end), None)
        names = {k: title for k, _, title, _ in MODES}
        self.tooltip = f"{names[over]} mode (key {over})" if over else None


def cut_path(path: str, room: int) -> str:
    """`path` in at most `room` cells, cut on its folders from the left ("…/hmc/demo-home"), never in
    the middle of a name unless the last name alone is longer than the room."""
    if len(path) <= room:
        return path
    parts = path.split("/")
    for start in range(1, len(parts)):
        tail = "…/" + "/".join(parts[start:])
        if len(tail) <= room:
            return tail
    return "…" + path[-max(room - 1, 4):]
