"""Pending mode screenshots: the queue with the unpinned record selected, a refused record, each dialog."""

from __future__ import annotations

import os
from pathlib import Path

from tools.shots import NOW, Shot, dialog_or_done

# The demo's record ids (core/demo/content.py PENDING_IDS / MALFORMED_ID)
REPLACE_UNPINNED = "6c0d8e52"  # staged by 0.20.1, without a pin
PATCH_PINNED = "5b2e7d41"
STALE_PIN = "c26e34b8"
OVER_LIMIT = "d37f45c9"
ADD = "3f9a1c20"
SCANNER = "e4805ada"
SECRET = "f5916beb"
HALF_WRITTEN = "deadbeef"
GROUPED = "b15d23a7"  # stages the same change as a04c1296


def steady_files(home: Path) -> None:
    """The half-written record has no created_at, so its age is the file's: pin it for repeatable shots."""
    path = home / "pending" / "memory" / f"{HALF_WRITTEN}.json"
    if path.exists():
        os.utime(path, (NOW - 2 * 86400 - 3600, NOW - 2 * 86400 - 3600))


def empty_queue(home: Path) -> None:
    for path in (home / "pending" / "memory").glob("*.json"):
        path.unlink()


def select(record_id: str, *keys: str):
    """Highlight a record by id (robust to the list order), then press keys."""

    async def steps(pilot) -> None:
        from textual.widgets import OptionList

        app = pilot.app
        if app.current_mode != "pending":
            await pilot.press("2")
            await pilot.pause()
        screen = app.screen
        ids = [ins.id for ins, _ in screen.rows]
        screen.query_one("#pending-list", OptionList).highlighted = ids.index(record_id)
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        if keys:
            await dialog_or_done(pilot)  # y scans first, in a thread, then asks

    return steps


SCENARIOS = [
    Shot("pending", press=("2",), setup=steady_files, settle=select(REPLACE_UNPINNED),
         title="Pending mode: a replace an older Hermes staged without a pin, refused on 0.22 until re-staged or edited"),
    Shot("pending-pinned-patch", press=("2",), setup=steady_files, settle=select(PATCH_PINNED),
         title="A pinned patch: the entry, the one span it changes, and the rest kept"),
    Shot("pending-refused", press=("2",), setup=steady_files, settle=select(STALE_PIN),
         title="A refused record: the pinned entry changed since it was staged"),
    Shot("pending-over-limit", press=("2",), setup=steady_files, settle=select(OVER_LIMIT),
         title="A record that would push MEMORY.md over its limit"),
    Shot("pending-half-written", press=("2",), setup=steady_files, settle=select(HALF_WRITTEN),
         title="A half-written record file: listed with its reason, never a crash"),
    Shot("pending-secret", press=("2",), setup=steady_files, settle=select(SECRET),
         title="A staged API key: masked until you reveal it"),
    Shot("pending-scan-confirm", press=("2",), setup=steady_files, settle=select(SECRET, "y"),
         title="Approving a scanner hit asks first"),
    Shot("pending-edit", press=("2",), setup=steady_files, settle=select(ADD, "e"),
         title="Edit the proposed text, then approve it"),
    Shot("pending-approve-all", press=("2",), setup=steady_files, settle=select(ADD, "A"),
         title="Approve all states what will happen to each record"),
    Shot("pending-reject-all", press=("2",), setup=steady_files, settle=select(ADD, "R"),
         title="Reject all asks first"),
    Shot("pending-clear-invalid", press=("2",), setup=steady_files, settle=select(ADD, "x"),
         title="Clear the records that can never apply"),
    Shot("pending-raw", press=("2",), setup=steady_files, settle=select(REPLACE_UNPINNED, "p"),
         title="The raw record, exactly as Hermes wrote it"),
    Shot("pending-write-approval", press=("2",), setup=steady_files, settle=select(ADD, "w"),
         title="Write approval on/off changes one line of config.yaml"),
    Shot("pending-empty", press=("2",), setup=empty_queue, title="Nothing waiting: how writes get staged here"),
    Shot("pending-empty-80x24", press=("2",), setup=empty_queue, size=(80, 24), title="An empty queue at 80x24"),
    Shot("pending-filter", press=("2",), setup=steady_files, settle=select(ADD, "slash", *"pnpm"),
         title="/ filters the queue by id, summary and text"),
    Shot("pending-filter-80x24", press=("2",), setup=steady_files, settle=select(ADD, "slash", *"pnpm"),
         size=(80, 24), title="The queue filter at 80x24"),
    Shot("pending-narrow", press=("2",), setup=steady_files, settle=select(REPLACE_UNPINNED), size=(80, 30),
         title="At 80 columns the by column folds into the summary and ages shorten; the summary keeps ~30 cells"),
    Shot("pending-80x24", press=("2",), setup=steady_files, settle=select(GROUPED), size=(80, 24),
         title="Pending mode at 80x24: a grouped record shows its whole id"),
    Shot("pending-approve-all-80x24", press=("2",), setup=steady_files, settle=select(ADD, "A"), size=(80, 24),
         title="Approve all at 80x24: counts from simulating the queue in order"),
    Shot("pending-reject-all-80x24", press=("2",), setup=steady_files, settle=select(ADD, "R"), size=(80, 24),
         title="Reject all at 80x24"),
    Shot("pending-clear-invalid-80x24", press=("2",), setup=steady_files, settle=select(ADD, "x"), size=(80, 24),
         title="Clear invalid at 80x24"),
    Shot("pending-edit-80x24", press=("2",), setup=steady_files, settle=select(ADD, "e"), size=(80, 24),
         title="Edit then approve at 80x24"),
    Shot("pending-scan-confirm-80x24", press=("2",), setup=steady_files, settle=select(SECRET, "y"), size=(80, 24),
         title="A scanner hit asks first (80x24)"),
    Shot("pending-raw-80x24", press=("2",), setup=steady_files, settle=select(REPLACE_UNPINNED, "p"), size=(80, 24),
         title="The raw record at 80x24"),
    Shot("pending-write-approval-80x24", press=("2",), setup=steady_files, settle=select(ADD, "w"), size=(80, 24),
         title="Write approval on/off at 80x24"),
]
