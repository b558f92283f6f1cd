"""One past write (core.timeline's Write) as text: what it changed, who made it, and when.

Dumb: builds rich Text from what it is given. Entries, sources and session ids are untrusted: every
one goes through `literal` (never markup, control characters shown as pictures)."""

from __future__ import annotations

from rich.text import Text

from core import timefmt
from core.store.memory import FILE_NAMES
from tui.literal import literal, masked, visible_controls
from tui.widgets.sidebyside import diff_pair


def who_text(w) -> str:
    from core.timeline.view import who

    if w.by == "agent":
        return f"the agent ({masked(who(w))})" if who(w) != "agent" else "the agent"
    return "hmc" if w.by == "hmc" else "no recorded call (not in state.db, hmc's journal or Hermes's logs)"


class OneLine:
    """A Text cut to the width it is given, with an ellipsis (an OptionList would wrap it)."""

    def __init__(self, text: Text) -> None:
        self.text = text

    def marked(self, words) -> "OneLine":
        """This line with a filter's words highlighted where it has them (tui.widgets.filter_match)."""
        from tui.widgets.filter_match import highlight

        return OneLine(highlight(self.text, words)) if words else self

    def __rich_console__(self, console, options):
        out = self.text.copy()
        out.truncate(max(1, options.max_width), overflow="ellipsis")
        yield out

    def __rich_measure__(self, console, options):
        from rich.measure import Measurement

        return Measurement(1, options.max_width)


def write_row(w) -> OneLine:
    """One line of the timeline's list: when, file, action, writer, and the first change's start."""
    from core.timeline.view import who

    verb = w.action.split(" ", 1)[0]  # "approve 8e2fa074": the record id is in the detail, not the column
    row = Text(f"{timefmt.local_time(w.timestamp)}  {FILE_NAMES[w.target]:<9} {verb:<8.8} ", style="")
    row.append_text(literal(f"{masked(who(w)):<17.17}", "bold" if w.by == "agent" else "dim"))
    if w.changes:
        old, new = w.changes[0]
        sign, text, style = ("+", new, "green") if new is not None else ("-", old, "red")
        preview = " ".join((text or "").split())
        row.append(f" {sign} ", style=style)
        from core.scan.mask import clip  # (not at start-up)
        row.append_text(literal(clip(preview, 200, mark="")))
        if len(w.changes) > 1:
            row.append(f"  (+{len(w.changes) - 1} more)", style="dim")
    else:
        row.append("  no change", style="dim")
    return OneLine(row)


def change_lines(changes, *, undo: bool = False) -> Text:
    """`- old` / `+ new` per entry; a replace shows its word differences underlined. `undo`: the
    changes as a rollback would make them (each turned around)."""
    out = Text()
    for old, new in changes:
        if undo:
            old, new = new, old
        if out:
            out.append("\n")
        if old is not None and new is not None:
            shown_old, shown_new = diff_pair(old, new)
            out.append("- ", style="bold red")
            out.append_text(shown_old)
            out.append("\n+ ", style="bold green")
            out.append_text(shown_new)
        elif old is not None:
            out.append("- ", style="bold red")
            out.append(visible_controls(old), style="red")
        elif new is not None:
            out.append("+ ", style="bold green")
            out.append(visible_controls(new), style="green")
    return out


def write_detail(w) -> Text:
    """The diff pane: the write's heading, its changes, its note, and what R can do with it."""
    out = Text()
    out.append(f"{FILE_NAMES[w.target]} · {w.action} · {timefmt.local_time(w.timestamp)}\n", style="bold")
    out.append("by ")
    out.append_text(literal(who_text(w)))
    if w.session_id:
        out.append(" · session ", style="dim")
        out.append_text(literal(masked(w.session_id), "dim"))
    out.append("\n")
    if w.by == "unknown" and w.note:  # when, at the latest, and that nothing recorded it
        out.append_text(literal(w.note, "dim"))
        out.append("\n")
    if w.detail:  # hmc's tag; the evidence that credits a write; where an outside change was seen
        out.append_text(literal(w.detail, "dim"))
        out.append("\n")
    out.append("\n")
    if w.changes:
        out.append_text(change_lines(w.changes))
    else:
        out.append("No change: " + ("the entry already existed." if w.action in ("add", "batch") and not w.note
                                    else "see the note."), style="dim")
    if w.note and w.by != "unknown":  # an outside change's note says what its heading said
        out.append("\n\nNote: ", style="bold yellow")
        out.append_text(literal(w.note, "yellow"))
    out.append("\n\n")
    if w.by == "unknown":
        out.append("A change seen in the files, made by no recorded call, can't be rolled back: edit the entry in "
                   "memory mode.", style="dim")
    elif w.id.startswith("x"):
        out.append("Hermes made this change with no tool call of its own (hmc saw it in the files), so it can't "
                   "be rolled back: edit the entry in memory mode.", style="dim")
    elif w.changes:
        out.append("R rolls this write back (a new write; u undoes it).", style="dim")
    return out


def refusal_row(r, source: str | None) -> OneLine:
    """A refused call in the timeline's list: when, file, "refused", the writer, and why (red)."""
    call = r.call
    row = Text(f"{timefmt.local_time(call.timestamp) or '?'}  {FILE_NAMES[call.target]:<9} ", style="")
    row.append(f"{'refused':<8} ", style="bold red")
    row.append_text(literal(f"{masked(source or 'agent'):<17.17}", "bold"))
    row.append(" ✗ ", style="red")
    from core.scan.mask import clip

    row.append_text(literal(clip(" ".join(masked(r.said).split()), 200, mark=""), "red"))
    return OneLine(row)


def refusal_detail(r, source: str | None) -> Text:
    """The diff pane for a refused call: what it asked, the reason for a person, the release's words."""
    call = r.call
    out = Text()
    out.append(f"{FILE_NAMES[call.target]} · {call.action} · refused · {timefmt.local_time(call.timestamp) or '?'}\n",
               style="bold")
    out.append("by the agent")
    if source and source != "agent":
        out.append_text(literal(f" ({masked(source)})"))
    out.append(" · session ", style="dim")
    out.append_text(literal(masked(call.session_id), "dim"))
    out.append("\n\nNothing was written: ", style="bold red")
    out.append_text(literal(masked(r.said), "red"))
    out.append("\n\nIt asked:\n", style="bold")
    asked = [(call.old_text, call.content)] if call.operations is None else \
        [(op.get("old_text"), op.get("content")) for op in call.operations]
    for old, new in asked:
        if old:
            out.append("- ", style="bold red")
            out.append_text(literal(visible_controls(masked(old)), "red"))
            out.append("\n")
        if new:
            out.append("+ ", style="bold green")
            out.append_text(literal(visible_controls(masked(new)), "green"))
            out.append("\n")
    if r.reason and r.reason != r.said:
        out.append("\nThe release's words: ", style="dim")
        out.append_text(literal(masked(r.reason), "dim"))
    out.append("\n\n`hmc why` on its text says whether it made it some other way.", style="dim")
    return out
