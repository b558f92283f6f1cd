"""Edit a staged skill write's text, then approve it: the proposed SKILL.md (create, edit), the
file content (write_file) or the replacement (patch). The status line says, as you type, whether
the edited write could apply (the queue's own inspection of the edited payload), its size against
Hermes's limit, and the scanner's findings on it. Saving returns the text exactly as typed."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.widgets import TextArea

from core.pending.skills import MAX_SKILL_CONTENT_CHARS, SCANNER
from tui.literal import literal
from tui.screens.dialogs import EntryEditor, EntryStatus

# which payload field an edit replaces, by action (the same keys SkillQueue.approve(content=…) uses)
EDITABLE = {"create": "content", "edit": "content", "write_file": "file_content", "patch": "new_string"}


class SkillEditDialog(EntryEditor[str | None]):
    """The entry editor's look and keys (ctrl+s, Esc asks before dropping typed text)."""

    DEFAULT_CSS = """
    SkillEditDialog .edit-dialog { height: 90%; }
    SkillEditDialog .edit-dialog TextArea { height: 1fr !important; min-height: 3; }
    SkillEditDialog #edit-findings { max-height: 6; }
    """
    SAVE_LABEL = "Approve (ctrl+s)"
    VERB = "approve"
    BINDINGS = [
        Binding("ctrl+s", "save", "Approve", id="skilledit.save", tooltip="Approve the write with this text"),
        Binding("escape", "cancel", "Cancel", id="skilledit.cancel", tooltip="Close without approving"),
        EntryEditor.EDITOR_BINDING,
    ]

    def __init__(self, queue, record, *, title: str) -> None:
        key = EDITABLE[record.action]
        initial = record.payload.get(key) or ""
        super().__init__(None, "skills", initial)
        self.queue, self.record, self.key, self.title_text = queue, record, key, title
        self._findings: list = []

    def heading(self) -> str:
        return self.title_text

    def status(self, text: str) -> EntryStatus:
        ins = self.queue.inspect(self.record, {**self.record.payload, self.key: text})
        self._findings = list(ins.findings)
        what = {"content": "SKILL.md", "file_content": self.record.payload.get("file_path") or "the file",
                "new_string": "the replacement"}[self.key]
        line = Text(f"{len(text):,} characters in {what} (Hermes's limit: {MAX_SKILL_CONTENT_CHARS:,})")
        if ins.can_apply:
            line.append("\n✓ can apply as edited", style="green")
        problems: tuple[str, ...] = ()
        if not ins.can_apply and ins.kind != SCANNER:
            problems = (ins.reason or "can't apply",)
        size = sum(c.size_after or 0 for c in ins.changes) if self.key == "new_string" else len(text)
        return EntryStatus(line, min(size, MAX_SKILL_CONTENT_CHARS * 2), MAX_SKILL_CONTENT_CHARS, problems)

    def findings(self, text: str) -> Text | str:
        """The queue's own scan of what the edited write adds (a hit is confirmed after saving)."""
        if not self._findings:
            return ""
        out = Text("Security scan:\n", style="bold yellow")
        for f in self._findings[: self.MOST_FINDINGS]:
            out.append(f"  {f.severity.upper():<9}", style="bold")
            out.append_text(literal(str(f.detail) + "\n"))
        return out

    def editor_file_name(self) -> str:
        """SKILL.md, the written file's own name, or the patched file's suffix (the editor's syntax)."""
        base = str(self.record.payload.get("file_path") or "").replace("\\", "/").rsplit("/", 1)[-1]
        if self.key == "content":
            return "SKILL.md"
        if self.key == "file_content":
            return base
        return "replacement" + (("." + base.rsplit(".", 1)[1]) if "." in base.strip(".") else ".md")

    def result(self, text: str) -> str:
        return text

    def action_save(self) -> None:
        """As the entry editor's, but the text is kept exactly (a SKILL.md ends with a newline)."""
        if not self._can_save:
            super().action_save()
            return
        self.dismiss(self.query_one(TextArea).text)
