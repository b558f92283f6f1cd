"""A session transcript: a sliding window of messages, grown as the person scrolls.

Only the loaded window lives here (never the whole session); OptionList renders just the lines
on screen. When the view nears either end of what is loaded and the session has more, it posts
`Transcript.NeedMore(direction)`; the screen fetches that window and calls `prepend`/`append`.
Tool calls and tool output are collapsed to one line until expanded. Text is never markup.
"""

from __future__ import annotations

import json
from typing import Iterable, Sequence

from rich.text import Text
from textual.message import Message as TextualMessage
from tui.widgets.lists import HmcList
from textual.widgets.option_list import Option

from core import timefmt
from core.sessions.query import Term
from core.sessions.search import Message, Window, parse_tool_calls
from core.sessions.snippets import highlight
from core.timeline.refusals import refusal_said
from tui.literal import masked, visible_controls
from tui.widgets.results import MATCH_STYLE, ROLE_STYLE

MAX_LOADED = 600  # messages kept; the far end is dropped beyond this
EDGE_LINES = 3  # how close to an end of the loaded lines triggers loading more
ARGS_LINES = 40


def _styled(text: str, terms: Sequence[Term], base: str = "") -> Text:
    out = Text(style=base)
    text = masked(text)  # before the matches are marked: no piece of a token shows around a match
    for part, hit in highlight(text, terms) if terms else [(text, False)]:
        out.append(visible_controls(part), style=MATCH_STYLE if hit else "")
    return out


def _args_text(args) -> str:
    if isinstance(args, str):
        return args
    try:
        text = json.dumps(args, ensure_ascii=False, indent=2)
    except (TypeError, ValueError):
        text = str(args)
    lines = text.splitlines()
    if len(lines) > ARGS_LINES:
        lines = lines[:ARGS_LINES] + [f"… ({len(lines) - ARGS_LINES} more lines)"]
    return "\n".join(lines)


def message_prompt(m: Message, terms: Sequence[Term], *, is_hit: bool, expanded: bool, current: bool) -> Text:
    head = Text()
    head.append("▍", style=ROLE_STYLE.get(m.role, "bold"))
    head.append(visible_controls(m.role.upper()), style=ROLE_STYLE.get(m.role, "bold"))
    if m.tool_name:
        head.append(visible_controls(f" [{m.tool_name}]"), style="magenta")
    if m.timestamp is not None:
        head.append(f"  {timefmt.local_time(m.timestamp)}", style="dim")
    head.append(f"  #{m.id}", style="dim")
    if is_hit:
        head.append("  ● match", style="bold yellow" if current else "yellow")
    if m.compacted:
        head.append("  archived by compaction", style="dim italic")
    parts = [head]
    body = m.text.rstrip()
    calls = parse_tool_calls(m.tool_calls)
    collapsible = m.role == "tool" or bool(calls)
    if body:
        lines = body.splitlines() or [""]
        if m.role == "tool" and not expanded and (len(lines) > 1 or len(body) > 200):
            from core.scan.mask import clip  # (not at start-up)
            first = clip(masked(lines[0]), 200, mark="")
            line = _styled(first, terms)
            more = len(lines) - 1
            line.append(f"  … {more:,} more line{'s' if more != 1 else ''}" if more else "  …", style="dim")
            line.append("  (e: expand)", style="dim italic")
            parts.append(line)
        else:
            parts.append(_styled(body, terms))
    for name, args in calls:
        call = Text("→ ", style="magenta")
        call.append(visible_controls(name), style="bold magenta")
        if expanded:
            parts.append(call)
            parts.append(_styled(_args_text(args), terms, "dim"))
        else:
            call.append("  (e: show arguments)", style="dim italic")
            parts.append(call)
    refused = refusal_said(m)
    if refused:
        line = Text("✗ the memory tool refused it: ", style="bold red")
        line.append(visible_controls(masked(refused).replace("\n", "\u240a")), style="red")
        parts.append(line)
    if expanded and collapsible:
        parts.append(Text("(e: collapse)", style="dim italic"))
    if m.truncated:
        parts.append(Text(f"… cut at {len(m.content):,} characters", style="dim italic"))
    return Text("\n").join(parts)


class Transcript(HmcList):
    """Messages of one session around a hit; the highlighted row is the current message."""

    DEFAULT_CSS = """
    Transcript, Transcript:focus { height: 1fr; border: none; padding: 0; background: $surface; }
    Transcript > .option-list--option { padding: 0 1; }
    """

    class NeedMore(TextualMessage):
        """The view is near an end of the loaded messages and the session has more there."""

        def __init__(self, transcript: "Transcript", direction: str) -> None:
            super().__init__()
            self.transcript = transcript
            self.direction = direction  # "before" | "after"

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.session_id: str | None = None
        self.messages: list[Message] = []
        self.terms: tuple[Term, ...] = ()
        self.hit_ids: list[int] = []
        self.expanded: set[int] = set()
        self.has_before = False
        self.has_after = False
        self.pending: set[str] = set()  # directions being loaded
        self.current_id: int | None = None  # the message the highlight is on

    # -- content ---------------------------------------------------------------------------------
    def _prompt(self, m: Message) -> Text:
        return message_prompt(m, self.terms, is_hit=m.id in self._hit_set, expanded=m.id in self.expanded,
                              current=m.id == self.current_id)

    @property
    def _hit_set(self) -> set[int]:
        return set(self.hit_ids)

    def _message_options(self, messages: Sequence[Message]) -> list:
        out: list = []
        for m in messages:
            out += [Option(self._prompt(m)), None]  # None: a divider line between messages
        return out

    def _rebuild(self, focus_id: int | None) -> None:
        self.set_options(self._message_options(self.messages))
        if focus_id is not None:
            self.go_to(focus_id)

    def load(self, window: Window, terms: Iterable[Term] = (), hit_ids: Iterable[int] = (),
             expanded: Iterable[int] = ()) -> None:
        """Show a fresh window; the anchor (or the first message) becomes current and centred."""
        self.session_id = window.session_id
        self.messages = list(window.messages)
        self.terms = tuple(terms)
        self.hit_ids = sorted(set(hit_ids))
        self.expanded = set(expanded)
        self.has_before, self.has_after = window.has_before, window.has_after
        self.pending.clear()
        focus = window.anchor_id if window.anchor_id is not None else (self.messages[0].id if self.messages else None)
        self.current_id = focus
        self._rebuild(focus)

    def clear_messages(self) -> None:
        """Show nothing (a not-found state, or a search starting over)."""
        self.session_id = None
        self.messages = []
        self.hit_ids = []
        self.expanded = set()
        self.has_before = self.has_after = False
        self.pending.clear()
        self.current_id = None
        self.clear_options()

    def index_of(self, message_id: int) -> int | None:
        for i, m in enumerate(self.messages):
            if m.id == message_id:
                return i
        return None

    def go_to(self, message_id: int, center: bool = True) -> bool:
        index = self.index_of(message_id)
        if index is None:
            return False
        self.highlighted = index
        if center:
            self.call_after_refresh(self.center_highlight)
        return True

    def on_show(self, event) -> None:
        """Shown again (the results were in front): the current message goes back to the middle
        (OptionList would only scroll it into view, racing the centring)."""
        event.prevent_default()
        self.call_after_refresh(self.center_highlight)

    def on_resize(self, event) -> None:
        """The view changed size (the title above took another line, the terminal resized): the
        current message stays in the middle."""
        self.call_after_refresh(self.center_highlight)

    def center_highlight(self) -> None:
        """Scroll so the current message sits in the middle of the view."""
        if self.highlighted is None or not self.is_mounted:
            return
        try:
            y = self._index_to_line[self.highlighted]
            height = self._heights[self.highlighted]
        except (KeyError, IndexError):
            return
        view = self.scrollable_content_region.height
        target = y + min(height, view) // 2 - view // 2
        self.scroll_to(y=max(0, target), animate=False, immediate=True)

    def current(self) -> Message | None:
        if self.highlighted is None or not (0 <= self.highlighted < len(self.messages)):
            return None
        return self.messages[self.highlighted]

    def prepend(self, messages: Sequence[Message], has_more: bool) -> None:
        self.pending.discard("before")
        known = {m.id for m in self.messages}
        new = [m for m in messages if m.id not in known]
        self.has_before = has_more
        if not new:
            return
        current = self.current()
        old_y = self.scroll_y
        self.messages = new + self.messages
        if len(self.messages) > MAX_LOADED:
            self.messages = self.messages[:MAX_LOADED]
            self.has_after = True
        self.set_options(self._message_options(self.messages))
        added_lines = self._index_to_line.get(len(new), 0)
        if current is not None:
            self.highlighted = self.index_of(current.id)
        self.scroll_to(y=old_y + added_lines, animate=False, immediate=True)

    def append(self, messages: Sequence[Message], has_more: bool) -> None:
        self.pending.discard("after")
        known = {m.id for m in self.messages}
        new = [m for m in messages if m.id not in known]
        self.has_after = has_more
        if not new:
            return
        dropped = 0
        self.messages = self.messages + new
        if len(self.messages) > MAX_LOADED:
            dropped = len(self.messages) - MAX_LOADED
            self.has_before = True
        if dropped:
            current = self.current()
            old_y = self.scroll_y
            cut_lines = self._index_to_line.get(dropped, 0)
            self.messages = self.messages[dropped:]
            self.set_options(self._message_options(self.messages))
            if current is not None and self.index_of(current.id) is not None:
                self.highlighted = self.index_of(current.id)
            self.scroll_to(y=max(0, old_y - cut_lines), animate=False, immediate=True)
        else:
            self.add_options(self._message_options(new))

    def toggle_expanded(self) -> bool:
        m = self.current()
        if m is None or not (m.role == "tool" or m.tool_calls):
            return False
        self.expanded.symmetric_difference_update({m.id})
        self.replace_option_prompt_at_index(self.highlighted, self._prompt(m))
        return True

    def refresh_marks(self, message_ids: set[int | None]) -> None:
        """Re-render the rows of these messages (their 'current match' mark changed)."""
        hits = self._hit_set
        for mid in message_ids:
            index = self.index_of(mid) if mid is not None else None
            if index is not None and mid in hits and index < self.option_count:
                self.replace_option_prompt_at_index(index, self._prompt(self.messages[index]))

    # -- hits ------------------------------------------------------------------------------------
    def hit_position(self) -> tuple[int, int] | None:
        """(1-based number of the current or last-passed hit, total hits) for the status line."""
        if not self.hit_ids:
            return None
        m = self.current()
        if m is None:
            return 0, len(self.hit_ids)
        passed = sum(1 for h in self.hit_ids if h <= m.id)
        return passed, len(self.hit_ids)

    def next_hit(self, forward: bool = True) -> int | None:
        """The id of the next (or previous) hit from the current message, or None."""
        m = self.current()
        if m is None or not self.hit_ids:
            return None
        if forward:
            return next((h for h in self.hit_ids if h > m.id), None)
        return next((h for h in reversed(self.hit_ids) if h < m.id), None)

    # -- loading more ----------------------------------------------------------------------------
    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self.check_edges()

    def watch_highlighted(self, highlighted: int | None) -> None:
        previous = self.current_id
        super().watch_highlighted(highlighted)
        if highlighted is not None and 0 <= highlighted < len(self.messages):
            self.current_id = self.messages[highlighted].id
        if previous != self.current_id and self.hit_ids:
            self.refresh_marks({previous, self.current_id})
        self.check_edges()

    def check_edges(self) -> None:
        if not self.messages or not self.is_mounted:
            return
        near_top = self.scroll_y <= EDGE_LINES or (self.highlighted is not None and self.highlighted <= 1)
        near_end = (self.scroll_y >= self.max_scroll_y - EDGE_LINES
                    or (self.highlighted is not None and self.highlighted >= len(self.messages) - 2))
        if near_top and self.has_before and "before" not in self.pending:
            self.pending.add("before")
            self.post_message(self.NeedMore(self, "before"))
        if near_end and self.has_after and "after" not in self.pending:
            self.pending.add("after")
            self.post_message(self.NeedMore(self, "after"))
