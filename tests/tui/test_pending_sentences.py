"""Pending mode's status line joins the release's refusal (a sentence that ends in a period) with
hmc's own notes: one full stop between them, never two."""

from __future__ import annotations

import re

from tests.core.pending_support import NOW, build_home, stage
from tests.tui.helpers import settle, shown
from tests.tui.test_pending_mode import injection, open_pending


async def test_a_refusal_and_the_scan_note_read_as_two_sentences(hermes_home, make_app):
    home = build_home(hermes_home)
    stage(home, "replace", content=injection(), old_text="no such text", rid="0000000e", created_at=NOW - 86400)
    app = make_app(home)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_pending(app, pilot, 0)
        await settle(app, pilot)
        assert screen.current.id == "0000000e" and screen.current.scanner_hit
        line = " ".join(shown(screen.query_one("#detail-status")).split())
        assert "The security scan also flags the new text" in line
        assert not re.search(r"\.\s*\.(?!\.)", line.replace("…", "")), line  # no ".." nor ". ."
        assert "`memory mode (1)`). The security scan" in line  # the refusal's own period ends it
