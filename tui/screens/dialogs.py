"""Shared modal dialogs: choose, confirm, edit an entry, read a text, pick from a list."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from typing import Iterator, Sequence, TypeVar

from rich.console import Group
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Label, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from core.scan import scanner
from core.store.memory import FILE_NAMES, TARGETS, Op, OpError, plan, usage, usage_label
from core.store.memory import parse as parse_entries
from tui.literal import UNSAFE, literal, masked, visible
from tui.widgets.gauge import CapacityGauge
from tui.screens.base import Dialog
from tui.widgets.lists import HmcList
from core.plural import counted


ResultT = TypeVar("ResultT")


class SafeTextArea(TextArea):
    """A TextArea that never holds a raw control character, bidi override or lone surrogate.

    A TextArea paints its text as it is, so an entry holding ESC]52 would reach the terminal. Text
    is loaded in its visible form (ESC shows as ␛, one character for one) and anything pasted or
    typed is made visible the same way, keeping the cursor where it was."""

    def __init__(self, text: str = "", **kwargs) -> None:
        super().__init__(visible(text), **kwargs)

    def _on_text_area_changed(self, event: TextArea.Changed) -> None:
        text = self.text
        if UNSAFE.search(text):
            cursor = self.cursor_location
            self.load_text(visible(text))
            try:
                self.cursor_location = cursor
            except ValueError:
                self.move_cursor(self.document.end)


def _text_area_keys_but(*keys: str) -> list[Binding]:
    """TextArea's bindings (its scroll container's, then its own, which win) without `keys`."""
    from dataclasses import replace

    by_key: dict[str, Binding] = {}
    for cls in reversed(TextArea.__mro__):
        for binding in cls.__dict__.get("BINDINGS", ()):
            if isinstance(binding, Binding):
                for key in binding.key.split(","):
                    if key.strip() not in keys:
                        by_key[key.strip()] = replace(binding, key=key.strip())
    return list(by_key.values())


class EditorTextArea(SafeTextArea, inherit_bindings=False):
    """The text box of the entry editors: ctrl+a selects all the text (typing then replaces it;
    home still goes to the line's start), as in most editors, and ctrl+e is left to the dialog
    (the text in $VISUAL / $EDITOR; end still goes to the line's end). TextArea binds both to
    line moves; its keys are taken without them, so the dialog's ctrl+e shows in the footer in the
    place its BINDINGS give it."""

    BINDINGS = _text_area_keys_but("ctrl+a", "ctrl+e") + [
        Binding("ctrl+a", "select_all", "Select all", show=False, id="text.select_all",
                tooltip="Select all the text (typing replaces it)")]


class QuestionDialog(Dialog[ResultT]):
    """What the choice and confirm dialogs share: a title, a scrolling body, a row of `buttons()`."""

    def __init__(self, title: str, body: str | Text, *, classes: str = "") -> None:
        super().__init__(classes=classes)
        self.title_text = title
        self.body = body if isinstance(body, Text) else literal(body)

    def buttons(self) -> Iterator[Button]:
        raise NotImplementedError

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(literal(self.title_text, "bold"), classes="dialog-title")
            with VerticalScroll(classes="dialog-body"):
                yield Static(self.body, markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield from self.buttons()


class ChoiceDialog(QuestionDialog[str | None]):
    """A question with a row of buttons; dismisses with the chosen id, or None on Escape."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="dialog.cancel", tooltip="Close without choosing")]

    def __init__(self, title: str, body: str | Text, choices: Sequence[tuple[str, str]], *,
                 default: str | None = None, danger: Sequence[str] = (), classes: str = "") -> None:
        super().__init__(title, body, classes=classes)
        self.choices = list(choices)
        self.default = default or self.choices[0][0]
        self.danger = set(danger)

    def buttons(self) -> Iterator[Button]:
        for number, (choice, label) in enumerate(self.choices, 1):
            variant = "error" if choice in self.danger else ("primary" if choice == self.default else "default")
            yield Button(f"{label} ({number})", id=f"choice-{choice}", variant=variant)

    def on_mount(self) -> None:
        self.query_one(f"#choice-{self.default}", Button).focus()

    def on_key(self, event) -> None:
        """1…n choose a button; ←/→ move between them (Enter presses the focused one)."""
        if event.character and event.character.isdigit() and 1 <= int(event.character) <= len(self.choices):
            event.stop()
            self.dismiss(self.choices[int(event.character) - 1][0])
        elif event.key in ("left", "right"):
            event.stop()
            self.focus_previous(Button) if event.key == "left" else self.focus_next(Button)

    @on(Button.Pressed)
    def chosen(self, event: Button.Pressed) -> None:
        self.dismiss((event.button.id or "").removeprefix("choice-"))

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmDialog(QuestionDialog[bool]):
    """Yes/no; Enter on the focused button, `y` confirms, `n`/Escape cancels."""

    BINDINGS = [
        Binding("escape,n", "answer(False)", "Cancel", id="confirm.no", tooltip="Back out; nothing changes"),
        Binding("y", "answer(True)", "Yes", id="confirm.yes", tooltip="Go ahead"),
    ]

    def __init__(self, title: str, body: str | Text, *, yes: str = "Yes", no: str = "Cancel", danger: bool = False):
        super().__init__(title, body)
        self.yes, self.no, self.danger = yes, no, danger

    def buttons(self) -> Iterator[Button]:
        yield Button(f"{self.yes} (y)", id="yes", variant="error" if self.danger else "primary")
        yield Button(f"{self.no} (n)", id="no")

    def on_mount(self) -> None:
        self.query_one("#yes" if not self.danger else "#no", Button).focus()

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


def scan_body(findings) -> Text:
    """The question's body when a write needs confirming past the security scan."""
    body = Text("The security scan flagged the text you are about to write:\n\n")
    for f in findings[:8]:
        body.append(f"{f.severity.upper():<9}", style="bold")
        body.append_text(literal(f.detail + "\n"))
    if any(getattr(f, "hermes_blocks", False) for f in findings):
        body.append("\nHermes will replace this entry in the prompt with a [BLOCKED: …] notice, so the agent "
                    "won't see it.", style="yellow")
    return body


@dataclass(frozen=True)
class EntryStatus:
    """What a candidate entry would do: the status line, the gauge after saving, why it can't be saved."""

    line: Text  # the count and each store's usage after saving
    used: int  # the gauge: the chosen store's usage after saving, and its limit
    limit: int
    problems: tuple[str, ...] = ()  # shown as ✗ lines; saving is refused while there is one


def planned(store, ops: Sequence[Op]) -> tuple[list[str] | None, str | None]:
    """The store's entries after `ops`, or None and the first line of why they can't apply."""
    try:
        return list(plan(list(store.last.entries), list(ops), store.limit, store.label, store.release,
                         person=True).after), None
    except OpError as exc:
        return None, str(exc).split("\n")[0]


class EntryEditor(Dialog[ResultT]):
    """What the edit and merge dialogs share: the text, a live status (count, usage after saving, why
    it can't be saved), a gauge, the scanner's findings, and Save / Cancel / ctrl+t (other file) /
    ctrl+e (the text in $VISUAL or $EDITOR: what comes back is put in the box, checked as typed).

    Subclasses say what the text would do (`status`), what saving returns (`result`), which file
    ctrl+t moves to (`other_target`), and name their widgets `<PREFIX>-title`, `-text`, `-count`,
    `-gauge`, `-findings`.
    """

    PREFIX = "edit"
    VERB = "save"
    SAVE_LABEL = "Save (ctrl+s)"
    SAVE_ID = "save"
    CANCEL_ID = "cancel"
    MOST_FINDINGS = 5
    EDITOR_BINDING = Binding("ctrl+e", "external_editor", "Editor", id="edit.external_editor",
                             tooltip="Edit the text in $VISUAL / $EDITOR; it comes back here to check and save")

    def __init__(self, curator, target: str, initial: str) -> None:
        super().__init__()
        self.curator = curator
        self.target = target
        self.raw_initial = initial
        self.initial = visible(initial)  # what the editor shows (controls visible: see SafeTextArea)
        self._can_save = False
        self._typed = False  # an empty text is only called a problem once the person has typed

    @property
    def dirty(self) -> bool:
        """The text differs from what the dialog opened with (quitting or Escape must ask)."""
        try:
            return self.query_one(TextArea).text.strip() != self.initial.strip()
        except Exception:
            return False

    # -- what subclasses say ------------------------------------------------------------------------

    def heading(self) -> str:
        raise NotImplementedError

    @property
    def can_switch(self) -> bool:
        return False

    def other_target(self) -> str:
        raise NotImplementedError

    def status(self, text: str) -> EntryStatus:
        raise NotImplementedError

    def result(self, text: str) -> ResultT:
        raise NotImplementedError

    def compose_note(self) -> ComposeResult:
        yield from ()

    # -- the shared body ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        prefix = self.PREFIX
        # every entry editor (edit, merge) is as wide as the edit dialog (.edit-dialog in app.tcss)
        with Vertical(classes=f"dialog {prefix}-dialog edit-dialog"):
            yield Label(self._title(), id=f"{prefix}-title", classes="dialog-title")
            yield from self.compose_note()
            yield EditorTextArea(self.initial, id=f"{prefix}-text", soft_wrap=True, show_line_numbers=False,
                           tab_behavior="focus")
            yield Static("", id=f"{prefix}-count", markup=False)
            yield CapacityGauge(id=f"{prefix}-gauge")
            yield Static("", id=f"{prefix}-findings", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button(self.SAVE_LABEL, id=self.SAVE_ID, variant="primary")
                yield Button("Cancel (esc)", id=self.CANCEL_ID)

    def _title(self) -> Text:
        title = Text(self.heading(), style="bold")
        if self.can_switch:
            title.append("   ctrl+t: other file", style="dim")
        return title

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.focus()
        area.move_cursor(area.document.end)
        self.update_status()

    @on(TextArea.Changed)
    def update_status(self) -> None:
        text = self.query_one(TextArea).text.strip()
        self._typed = self._typed or self.dirty
        status = self.status(text)
        line = status.line.copy()
        for problem in status.problems:
            if text or self._typed:  # an add dialog opens without an error showing
                line.append(f"\n✗ {problem}", style="bold red")
        if self.initial != self.raw_initial:
            line.append("\n⚠ The text held control characters; they show as ␛ and are saved as shown.",
                        style="yellow")
        self.query_one(f"#{self.PREFIX}-count", Static).update(line)
        self.query_one(f"#{self.PREFIX}-gauge", CapacityGauge).update(status.used, status.limit)
        self.query_one(f"#{self.PREFIX}-findings", Static).update(self.findings(text))
        self._can_save = not status.problems
        self.query_one(f"#{self.SAVE_ID}", Button).disabled = not self._can_save

    def findings(self, text: str) -> Text | str:
        """The scanner's findings on the text, before anything is written."""
        found = scanner.scan(text, self.app.curator.release) if text else []
        if not found:
            return ""
        out = Text("Security scan:\n", style="bold yellow")
        for f in found[: self.MOST_FINDINGS]:
            out.append(f"  {f.severity.upper():<9}", style="bold")
            out.append_text(literal(f.detail + "\n"))
        return out

    def action_switch_target(self) -> None:
        if not self.can_switch:
            self.app.bell()
            return
        self.target = self.other_target()
        self.query_one(f"#{self.PREFIX}-title", Label).update(self._title())
        self.update_status()

    # -- ctrl+e: the person's own editor ---------------------------------------------------------

    def editor_file_name(self) -> str:
        """The temporary file's name (its suffix picks the editor's syntax)."""
        return "entry.md"

    def run_editor(self, argv: list[str]) -> int:
        """Run the editor command with the terminal handed to it, and return its exit status. The
        seam the tests replace: a headless app can't suspend."""
        with self.app.suspend():
            return subprocess.call(argv)

    def action_external_editor(self) -> None:
        """The text in the person's editor; what it saves replaces the box's text as one edit
        (ctrl+z brings the old text back) and is checked as typed text is. Nothing is saved here."""
        from textual.app import SuspendNotSupported

        from core.external_editor import edit_text

        area = self.query_one(TextArea)
        try:
            edited = edit_text(area.text, self.run_editor, name=self.editor_file_name())
        except SuspendNotSupported:
            self.notify("This terminal can't be handed over to an editor; nothing changed.",
                        severity="warning", markup=False)
            return
        self.notify(edited.message, severity="information" if edited.ok else "warning", markup=False)
        if edited.text is not None:
            area.replace(edited.text, area.document.start, area.document.end)
            area.move_cursor(area.document.end)
        area.focus()

    def action_save(self) -> None:
        if not self._can_save:
            self._typed = True  # now the reason is worth showing, even for an untouched add
            self.update_status()
            self.app.bell()
            self.notify(f"Can't {self.VERB}: see the reason under the text", severity="warning", markup=False)
            return
        self.dismiss(self.result(self.query_one(TextArea).text.strip()))

    def action_cancel(self) -> None:
        """Close; if the text was changed, ask first (nothing is lost by a stray Escape)."""
        if not self.dirty:
            self.dismiss(None)
            return

        def answered(discard: bool | None) -> None:
            if discard:
                self.dismiss(None)

        self.app.push_screen(ConfirmDialog("Discard your changes?", "The text you typed will not be saved.",
                                           yes="Discard", no="Keep editing", danger=True), answered)

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        if event.button.id == self.SAVE_ID:
            self.action_save()
        else:
            self.action_cancel()


class EditAgain(Exception):
    """From a conflict: the person will edit their text again against what is on disk (`theirs`)."""

    def __init__(self, theirs: str | None, mine: str):
        super().__init__("edit again")
        self.theirs, self.mine = theirs, mine


@dataclass(frozen=True)
class EditResult:
    target: str
    text: str
    force: bool = False  # the person confirmed writing despite the security scan


class EditEntryDialog(EntryEditor[EditResult | None]):
    """Edit or write one entry: live count, the store's usage after saving, scanner findings.

    `original` is the entry being edited (None to add). Saving is refused while the store would
    end over its limit (unless the change shrinks it). Findings are shown while typing; a finding
    that blocks the write is confirmed here at save (declining returns to the text), and the
    result carries `force`.
    """

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", id="edit.save", tooltip="Save the entry (refused past the limit)"),
        Binding("escape", "cancel", "Cancel", id="edit.cancel", tooltip="Close without saving"),
        Binding("ctrl+t", "switch_target", "Other file", id="edit.target",
                tooltip="Save into the other store (MEMORY.md / USER.md)"),
        EntryEditor.EDITOR_BINDING,
    ]

    def __init__(self, curator, target: str, original: str | None = None, *, initial: str | None = None,
                 title: str | None = None, choose_target: bool = False) -> None:
        super().__init__(curator, target, initial if initial is not None else (original or ""))
        self.original = original
        self.title_text = title or ("Edit entry" if original is not None else "Add entry")
        self.choose_target = choose_target

    def heading(self) -> str:
        return f"{self.title_text} — {FILE_NAMES[self.target]}"

    @property
    def can_switch(self) -> bool:
        return self.choose_target

    def other_target(self) -> str:
        return TARGETS[1 - TARGETS.index(self.target)]

    def status(self, text: str) -> EntryStatus:
        store = self.curator.stores[self.target]
        entries = list(store.last.entries)
        problems: list[str] = []
        after = entries
        if not text:
            problems.append("an entry can't be empty (delete it instead)")
        else:
            op = (Op("replace", content=text, old_text=self.original, matched_entry=self.original)
                  if self.original is not None and self.original in entries else Op("add", content=text))
            planned_after, why = planned(store, [op])
            if why is None:
                after = planned_after
            else:
                # the gauge shows where the refused text would take the store
                after = (entries + [text] if op.action == "add"
                         else [text if e == self.original else e for e in entries])
                problems.append(why)
        if not store.enabled:
            problems.append(f"{store.label} is disabled in config.yaml")
        used = usage(after)
        line = Text(f"{counted(len(text), 'char')} · {FILE_NAMES[self.target]} after saving: {usage_label(used, store.limit)}")
        return EntryStatus(line, used, store.limit, tuple(problems))

    def result(self, text: str) -> EditResult:
        return EditResult(self.target, text)

    def action_save(self) -> None:
        """A scanner hit is confirmed here, where the text is: declining goes back to editing."""
        text = self.query_one(TextArea).text.strip()
        blocking = scanner.blocking(scanner.scan(text, self.app.curator.release)) if self._can_save else []
        if not blocking:
            super().action_save()
            return
        def answered(write: bool | None) -> None:
            if write:
                self.dismiss(EditResult(self.target, text, force=True))

        self.app.push_screen(ConfirmDialog("Write despite the security scan?", scan_body(blocking),
                                           yes="Write anyway", no="Keep editing", danger=True), answered)


class ApproveEditDialog(EditEntryDialog):
    """Edit a staged write, then approve it: the same editor, with ctrl+s named for what it does
    here (Approve), as in the skills tab's editor."""

    SAVE_LABEL = "Approve (ctrl+s)"
    BINDINGS = [
        Binding("ctrl+s", "save", "Approve", id="pendingedit.save", tooltip="Approve the write with this text"),
        Binding("escape", "cancel", "Cancel", id="pendingedit.cancel", tooltip="Close without approving"),
    ]


def undo_question(rec, when: str) -> Text:
    """What undoing hmc's last memory write would do: the write, and the entries it brings back and
    takes away (every undo asks first, in memory mode as in the skills tab)."""
    before, after = parse_entries(rec.before), parse_entries(rec.after)
    back = [e for e in before if e not in set(after)]
    gone = [e for e in after if e not in set(before)]
    from core.scan.mask import clip  # (not at start-up)

    body = literal(f"Undo {rec.action} in {FILE_NAMES.get(rec.target, rec.target)}, {when}?\n")
    for sign, style, entries in (("+", "green", back), ("-", "red", gone)):
        for entry in entries[:4]:
            body.append_text(literal(f"\n  {sign} {clip(masked(' '.join(entry.split())), 160)}", style))
        if len(entries) > 4:
            body.append(f"\n  … and {len(entries) - 4} more", style="dim")
    body.append("\n\nOnly if the file still holds what that write left.", style="dim")
    return body


class TextDialog(Dialog[None]):
    """Read-only text (a prompt preview, a raw payload), shown exactly as it is: a string in a
    read-only text area (select and copy), or styled rich Text (built with tui.literal; a Group of
    them, padded) in a scrolling view, whose indentation and styles stay as given."""

    BINDINGS = [Binding("escape,q", "close", "Close", id="text.close", tooltip="Close")]

    def __init__(self, title: str, text: str | Text | Group, note: str = "") -> None:
        super().__init__()
        self.title_text, self.text, self.note = title, text, note

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog text-dialog"):
            yield Label(literal(self.title_text, "bold"), classes="dialog-title")
            if self.note:
                yield Static(literal(self.note, "dim"), markup=False)
            if not isinstance(self.text, str):
                with VerticalScroll(id="text-scroll"):
                    yield Static(self.text, id="text-body", markup=False)
            else:
                yield SafeTextArea(self.text, read_only=True, soft_wrap=True, id="text-body")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Close (esc)", id="close", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#text-body" if isinstance(self.text, str) else "#text-scroll").focus()

    @on(Button.Pressed)
    def pressed(self) -> None:
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)


class PickDialog(Dialog[int | None]):
    """Pick one row of a list (Enter), or Escape. Rows are literal Text."""

    BINDINGS = [Binding("escape", "cancel", "Close", id="pick.cancel", tooltip="Close without choosing")]

    def __init__(self, title: str, rows: Sequence[Text | str], note: str = "", empty: str = "Nothing here.") -> None:
        super().__init__()
        self.title_text, self.note, self.empty = title, note, empty
        self.rows = [r if isinstance(r, Text) else literal(r) for r in rows]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog pick-dialog"):
            yield Label(literal(self.title_text, "bold"), classes="dialog-title")
            if self.note:
                yield Static(literal(self.note, "dim"), markup=False)
            if self.rows:
                yield HmcList(*[Option(row, id=f"r{i}") for i, row in enumerate(self.rows)], id="pick-list")
            else:
                yield Static(literal(self.empty, "dim"), markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Close (esc)", id="close")

    def on_mount(self) -> None:
        if self.rows:
            self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option_index)

    @on(Button.Pressed)
    def pressed(self) -> None:
        self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
