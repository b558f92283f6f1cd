"""The search results list: hits (title, source, time, snippet with highlights) or recent sessions.

Dumb: it renders what it is given. Selecting a row posts OptionList.OptionSelected; the screen
decides what opening means. Every piece of message text goes in as plain Text, never markup.
"""

from __future__ import annotations

import re
from typing import Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text
from tui.widgets.lists import HmcList
from textual.widgets.option_list import Option

from core import timefmt
from core.sessions.search import DEMOTED_SOURCES, HIDDEN_SOURCES, Hit, SessionInfo
from core.sessions.snippets import Span, one_line
from tui.literal import literal, masked, masked_spans, visible_controls
from core.plural import counted

ROLE_STYLE = {"user": "bold green", "assistant": "bold blue", "tool": "magenta", "system": "dim"}
MATCH_STYLE = "bold reverse"
INDENT = 2  # the second line of a row sits under the title; a wrapped tail hangs under its start
ROLE_WIDTH = 10  # "assistant" and a space


# Tool output is often JSON, or terminal output with colour codes: a snippet shows its text
_ANSI = re.compile(r"(?:\x1b|\\u001[bB]|\\x1[bB]|\\033|\\e)\[[0-9;?]*[ -/]*[@-~]")
_KEY = re.compile(r'"([^"\\\n]{1,40})"\s*:\s*"?')
_SEP = re.compile(r'"?\s*,\s*(?=[\w.-]{1,40}: )|"\s*,\s*"')
_BRACKETS = re.compile(r'[\[{]\s*"?|"?\s*[\]}]')
_CALL = re.compile(r'\{\s*"id":\s*"[^"]*",\s*"type":\s*"function",\s*"function":\s*\{\s*"name":\s*"([^"]+)",'
                   r'\s*"arguments":\s*"?')
_ESCAPE = re.compile(r'\\(u[0-9a-fA-F]{4}|[nrt"\\/])')
_SIMPLE = {"n": " ", "r": " ", "t": " ", '"': '"', "\\": "\\", "/": "/"}


def _unescape(match: re.Match) -> str:
    code = match.group(1)
    if code.startswith("u"):
        return chr(int(code[1:], 16))
    return _SIMPLE[code]


_JSON_KEY = re.compile(r'"[\w.-]{1,40}"\s*:')


def looks_like_json(spans: Sequence[Span]) -> bool:
    """A snippet cut from a JSON document ("key": values), not text that merely has brackets."""
    text = "".join(part for part, _ in spans).lstrip(" …")
    return text.startswith(('{"', '["', "[{", '{ "')) or bool(_JSON_KEY.search(text))


def tool_spans(spans: Sequence[Span]) -> list[Span]:
    """A tool row's snippet as text: JSON quoting and brackets dropped ("key: value · key: value"),
    string escapes decoded, terminal colour codes removed. Highlights stay on their words."""
    as_json = looks_like_json(spans)
    out: list[Span] = []
    for part, hit in spans:
        text = _ANSI.sub("", part)
        if as_json:
            text = _CALL.sub(r"→ \1 ", text)  # an assistant's tool call: → name, then its arguments
            text = _ESCAPE.sub(_unescape, text)  # arguments are JSON inside a JSON string
            text = _ANSI.sub("", text)
            text = _KEY.sub(r"\1: ", text)
            text = _SEP.sub(" · ", text)
            text = _BRACKETS.sub(" ", text)
        out.append((text, hit))
    # one space between parts where the JSON syntax went
    joined: list[Span] = []
    for part, hit in out:
        if not hit:
            part = re.sub(r"\s+", " ", part)
        if part:
            joined.append((part, hit))
    if joined:
        joined[0] = (joined[0][0].lstrip(), joined[0][1])
        joined[-1] = (joined[-1][0].rstrip(), joined[-1][1])
    return [(part, hit) for part, hit in joined if part]


def spans_text(spans: Sequence[Span], base: str = "", secrets: Sequence[str] = ()) -> Text:
    """A snippet with its matches marked, masked first (`secrets`: what the whole message holds,
    which a snippet may quote cut short)."""
    text = Text(style=base)
    mask = None
    if secrets:
        from core.scan.mask import Masker

        mask = Masker()
        mask.know(*secrets)
    for part, hit in masked_spans(spans, mask):
        text.append(visible_controls(part), style=MATCH_STYLE if hit else "")
    return text


def when(ts: float | None, now: float) -> str:
    if not ts:
        return "?"
    return f"{timefmt.local_time(ts)} ({timefmt.ago(ts, now)})"


def source_style(source: str) -> str:
    if source in DEMOTED_SOURCES or source in HIDDEN_SOURCES:
        return "dim cyan"
    return "cyan"


def hit_prompt(hit: Hit, now: float, repeats: int = 1) -> Text:
    top = Text(no_wrap=True, overflow="ellipsis")
    if repeats > 1:  # the same tool output, found again further down: one row
        top.append(f"×{repeats} ", style="bold yellow")
    top.append(visible_controls(one_line(masked(hit.title))), style="bold")
    top.append("  ")
    top.append(visible_controls(masked(hit.source or "?")), style=source_style(hit.source))
    if hit.profile is not None:
        top.append(f"  [{visible_controls(hit.profile)}]", style="bold magenta")
    top.append(f"  {when(hit.timestamp, now)}", style="dim")
    if repeats > 1:
        top.append(f"  · the same output {repeats} times (this is the first)", style="dim")
    role = Text(f"{visible_controls(hit.role)[:ROLE_WIDTH - 1]:<{ROLE_WIDTH - 1}} ", style=ROLE_STYLE.get(hit.role, "bold"))
    line = Text()
    if hit.tool_name:
        line.append(visible_controls(f"[{hit.tool_name}] "), style="magenta")
    shown = tool_spans(hit.snippet) if hit.role == "tool" or looks_like_json(hit.snippet) else hit.snippet
    line.append_text(spans_text(shown, secrets=hit.secrets))
    return Group(top, hanging(line, role))


def hanging(body: Text, lead: Text | str = "") -> Table:
    """*lead* after the row indent, then *body*; lines that wrap start under the body, not at column 0."""
    grid = Table.grid(padding=0, expand=True)
    grid.add_column(width=INDENT)
    if lead:
        grid.add_column(width=max(len(lead), ROLE_WIDTH), no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    grid.add_row("", lead, body) if lead else grid.add_row("", body)
    return grid


def session_prompt(info: SessionInfo, now: float) -> Text:
    top = Text(no_wrap=True, overflow="ellipsis")
    top.append(visible_controls(one_line(masked(info.title))), style="bold" if info.has_title else "bold italic")
    line = Text()
    line.append(visible_controls(masked(info.source or "?")), style=source_style(info.source))
    line.append(f"  started {when(info.started_at, now)}", style="dim")
    if info.message_count is not None:
        line.append(f"  ·  {counted(info.message_count, 'message')}", style="dim")
    if info.last_active and info.started_at and info.last_active - info.started_at > 3600:
        line.append(f"  ·  active {timefmt.ago(info.last_active, now)}", style="dim")
    return Group(top, hanging(line))


class ResultsList(HmcList):
    """Rows of hits or sessions; `items[i]` is what row i shows."""

    DEFAULT_CSS = """
    ResultsList, ResultsList:focus { height: 1fr; border: none; padding: 0; background: $surface; }
    ResultsList > .option-list--option { padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.items: list[Hit | SessionInfo] = []
        self.kind = "sessions"  # or "hits"
        self.repeats: list[int] = []  # how many hits each row stands for (repeated tool output: more than 1)
        self._rows_by_output: dict[tuple, int] = {}
        self._now = 0.0

    def show(self, items: Sequence[Hit | SessionInfo], now: float, *, kind: str, append: bool = False,
             keep: int | None = None) -> None:
        """Replace (or extend) the rows; `keep` re-highlights that row index. Hits that are the same
        tool output (a tool's identical answer, found again) collapse into their first row, which
        says how many times it came."""
        if not (append and kind == self.kind):
            self.kind = kind
            self.items, self.repeats, self._rows_by_output = [], [], {}
            self.clear_options()
        self._now = now
        new: list[Hit | SessionInfo] = []
        grown: set[int] = set()
        for item in items:
            key = repeat_key(item)
            row = self._rows_by_output.get(key) if key is not None else None
            if row is not None:
                self.repeats[row] += 1
                grown.add(row)
                continue
            if key is not None:
                self._rows_by_output[key] = len(self.items)
            self.items.append(item)
            self.repeats.append(1)
            new.append(item)
        shown = self.option_count
        for row in sorted(r for r in grown if r < shown):
            self.replace_option_prompt_at_index(row, hit_prompt(self.items[row], now, self.repeats[row]))
        self.add_options([Option(hit_prompt(item, now, self.repeats[shown + n]) if isinstance(item, Hit)
                                 else session_prompt(item, now)) for n, item in enumerate(new)])
        if not append and self.items:
            self.highlighted = min(keep or 0, len(self.items) - 1)

    @property
    def hit_count(self) -> int:
        """The hits the rows stand for (a collapsed row counts each repeat)."""
        return sum(self.repeats)

    def selected_item(self) -> Hit | SessionInfo | None:
        if self.highlighted is None or not (0 <= self.highlighted < len(self.items)):
            return None
        return self.items[self.highlighted]


def route_label(route: str) -> str:
    """How a page of hits was found, in words."""
    if route.startswith("profiles:"):
        n = route.split(":", 1)[1]
        return f"{n} profile{'s' if n != '1' else ''}"
    return {"fts": "word index", "trigram": "substring index", "like": "plain scan"}.get(route, route)


def hits_status(result, count: int, rows: int, active_filters: Sequence[str], elapsed: float,
                suggestions: Sequence = (), pruned: str | None = None) -> Text:
    """The line above the hits: how many and how found (or why none, and what to try), the repeated
    tool outputs folded into `rows`, what the index knows near a query that found little, and
    (`pruned`) the sessions Hermes deleted, which no search can find."""
    line = Text()
    if not count:
        line.append("No hits for ")
        line.append_text(literal(one_line(result.query), "bold"))
        if active_filters:
            line.append(" with " + ", ".join(active_filters))
            line.append(" — ctrl+r clears the filters.  ", style="bold")
        else:
            line.append(" — try fewer words, a prefix*, or OR.  ")
    else:
        line.append(f"{count}{'+' if result.has_more else ''} hit{'s' if count != 1 else ''}", style="bold")
        line.append(f" · {route_label(result.route)}")
        folded = count - rows
        if folded:
            line.append(f" · {folded} repeated tool output{'s' if folded != 1 else ''} folded (×N rows)")
        if elapsed >= 0.5:  # only worth saying when it was slow (and keeps snapshots stable)
            line.append(f" · {elapsed:.1f} s")
        line.append("  ·  Enter opens · n/N step through matches · c copies the link · m to memory", style="dim")
    stems = [hint for hint in suggestions if hint.kind == "stem"]  # first (core.sessions.suggest)
    known = [hint for hint in suggestions if hint.kind != "stem"]
    for label, hints in (("Few hits — try ", stems), ("The index knows: ", known)):
        if not hints:
            continue
        line.append("\n" + label, style="bold")
        for n, hint in enumerate(hints):
            line.append(" · " if n else "")
            line.append_text(literal(hint.text, "bold yellow"))
            near = f"{'finds ' if hint.kind == 'stem' else ''}{hint.example}, " if hint.example else ""
            line.append(f" ({near}{hint.in_messages()})", style="dim")
        if hints[0] is suggestions[0]:
            line.append("  — ctrl+y searches the first", style="dim")
    if pruned:
        line.append(f"\n{pruned}", style="dim")
    return line


def repeat_key(item) -> tuple | None:
    """What makes two hits the same tool output (None: never collapsed)."""
    if isinstance(item, Hit) and item.role == "tool" and item.profile is None:
        return (item.tool_name, item.snippet_text)
    return None


def plain(prompt, width: int = 200) -> str:
    """A row's prompt as plain text (for tests and logs)."""
    from rich.console import Console

    console = Console(width=width, color_system=None, legacy_windows=False, record=True, file=None)
    with console.capture() as capture:
        console.print(prompt)
    return capture.get()
