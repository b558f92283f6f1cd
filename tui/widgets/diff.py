"""The entry-level diff of one store: kept, removed, added, and replaced entries with word changes.

Dumb: it renders the changes it is given (core.pending.queue.EntryChange-like objects with `kind`,
`before`, `after`). A replaced entry shows the WHOLE old entry with the words that go marked, so
a replace that would silently drop half an entry is visible before anyone approves it.
"""

from __future__ import annotations

from typing import Callable, Sequence

from rich.text import Text
from textual.widgets import Static

from core.pending.queue import inline_diff
from tui.literal import visible_controls


class EntryDiff(Static):
    DEFAULT_CSS = """
    EntryDiff { height: auto; width: 1fr; }
    EntryDiff > .diff--kept { color: $text-muted; }
    EntryDiff > .diff--removed { color: $text-error; }
    EntryDiff > .diff--added { color: $text-success; }
    EntryDiff > .diff--gone { color: $text-error; background: $error 25%; text-style: bold strike; }
    EntryDiff > .diff--new { color: $text-success; background: $success 25%; text-style: bold; }
    EntryDiff > .diff--note { color: $text-warning; text-style: italic; }
    """
    COMPONENT_CLASSES = {"diff--kept", "diff--removed", "diff--added", "diff--gone", "diff--new", "diff--note"}

    def __init__(self, **kwargs) -> None:
        super().__init__("", markup=False, **kwargs)
        self._changes: list = []
        self._mask: Callable[[str], str] = lambda text: text
        self._empty = ""

    context: int | None = 1  # unchanged entries shown around each change (None: all)

    def show(self, changes: Sequence, mask: Callable[[str], str] | None = None, empty: str = "",
             context: int | None = 1) -> None:
        """Render `changes`; `mask` hides secrets in every text shown; runs of unchanged entries
        farther than `context` from a change fold into one line (None shows every entry)."""
        self.context = context
        self._changes = list(changes)
        self._mask = mask or (lambda text: text)
        self._empty = empty
        self.update(self.build())

    def on_mount(self) -> None:
        self.update(self.build())

    def _style(self, name: str):
        try:
            return self.get_component_rich_style(f"diff--{name}")
        except Exception:  # not mounted yet
            return ""

    def build(self) -> Text:
        out = Text()
        if not self._changes:
            out.append(self._empty, style=self._style("kept"))
            return out
        n_before = n_after = 0
        shown = self._visible()
        folded = 0
        for pos, change in enumerate(self._changes):
            kind = change.kind
            if not shown[pos]:
                folded += 1
                n_before += 1
                n_after += 1
                continue
            if folded:
                if out:
                    out.append("\n")
                out.append(f"   ⋯ {folded} unchanged entr{'y' if folded == 1 else 'ies'}", style=self._style("kept"))
                folded = 0
            if out:
                out.append("\n")
            if kind == "kept":
                n_before += 1
                n_after += 1
                self._entry(out, "  ", n_before, change.before, self._style("kept"))
            elif kind == "removed":
                n_before += 1
                self._entry(out, "− ", n_before, change.before, self._style("removed"))
            elif kind == "added":
                n_after += 1
                self._entry(out, "+ ", n_after, change.after, self._style("added"))
            else:  # replaced (the whole old entry goes) or patched (one span inside it changes)
                n_before += 1
                n_after += 1
                out.append("    one span changes, the rest of the entry is kept:\n" if kind == "patched"
                           else "    the whole entry is replaced:\n", style=self._style("note"))
                parts = inline_diff(self._mask(change.before or ""), self._mask(change.after or ""))
                self._pieces(out, "− ", n_before, [(t, x) for t, x in parts if t != "+"],
                             self._style("removed"), self._style("gone"), "-")
                out.append("\n")
                self._pieces(out, "+ ", n_after, [(t, x) for t, x in parts if t != "-"],
                             self._style("added"), self._style("new"), "+")
        if folded:
            out.append("\n" if out else "")
            out.append(f"   ⋯ {folded} unchanged entr{'y' if folded == 1 else 'ies'}", style=self._style("kept"))
        return out

    def _visible(self) -> list[bool]:
        kinds = [c.kind for c in self._changes]
        if self.context is None or all(k == "kept" for k in kinds):
            return [True] * len(kinds)
        changed = [i for i, k in enumerate(kinds) if k != "kept"]
        return [k != "kept" or any(abs(i - j) <= self.context for j in changed) for i, k in enumerate(kinds)]

    def _entry(self, out: Text, mark: str, number: int, text: str | None, style) -> None:
        head = f"{mark}{number:>2} "
        out.append(head, style=style)
        lines = visible_controls(self._mask(text or "")).split("\n")
        for i, line in enumerate(lines):
            if i:
                out.append("\n" + " " * len(head))
            out.append(line, style=style)

    def _pieces(self, out: Text, mark: str, number: int, parts, base, strong, tag: str) -> None:
        head = f"{mark}{number:>2} "
        out.append(head, style=base)
        indent = "\n" + " " * len(head)
        for kind, piece in parts:
            text = visible_controls(piece).replace("\n", indent)
            out.append(text, style=strong if kind == tag else base)
