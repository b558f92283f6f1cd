"""Review mode screenshots: each kind of finding, the merge editor, bulk marks, a clean review."""
from __future__ import annotations

from pathlib import Path

from tools.shots import Shot, workers_done
from tools.shots.memory import drifted  # the same drift as memory mode's: a shell append with no §

SEP = "\n§\n"


def _store(home: Path, name: str) -> Path:
    return home / "memories" / name


def _append(home: Path, name: str, entry: str) -> None:
    path = _store(home, name)
    text = path.read_text(encoding="utf-8")
    path.write_text((text + SEP + entry) if text else entry, encoding="utf-8")


def with_duplicate(home: Path) -> None:
    """USER.md repeats a MEMORY.md entry word for word."""
    first = _store(home, "MEMORY.md").read_text(encoding="utf-8").split(SEP)[4]
    _append(home, "USER.md", first)


def with_verbose(home: Path) -> None:
    _append(home, "USER.md",
            "During our conversation the user mentioned that she usually prefers to get the command "
            "first, and I noticed that she also tends to ask for a short explanation afterwards, "
            "which is something to keep in mind for later.")




def clean(home: Path) -> None:
    _store(home, "MEMORY.md").write_text(
        "tideway (~/code/tideway): FastAPI + SQLAlchemy 2 on Python 3.12. Tests: `uv run pytest -q`."
        + SEP + "Invoice PDFs are rendered with WeasyPrint; fonts live in tideway/assets/fonts.",
        encoding="utf-8")
    _store(home, "USER.md").write_text(
        "Timezone Europe/Paris (CET/CEST). Weekdays 09:00–18:30.", encoding="utf-8")


def at(kind: str, *keys: str, nth: int = 0):
    """Wait for the review, highlight the nth finding of `kind`, then press `keys`."""

    async def settle(pilot) -> None:
        app = pilot.app
        await pilot.pause()
        await workers_done(app)
        await pilot.pause()
        from tui.widgets.findings import FindingsList

        lst = app.screen.query_one(FindingsList)
        rows = [i for i in range(lst.option_count)
                if (f := lst.finding_at(i)) is not None and f.kind == kind]
        if rows:
            lst.highlighted = rows[min(nth, len(rows) - 1)]
            lst.scroll_to_highlight()
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
            await pilot.pause()

    return settle


async def loaded(pilot) -> None:
    await pilot.pause()
    await workers_done(pilot.app)
    await pilot.pause()


SCENARIOS = [
    Shot("review", press=("4",), settle=loaded, title="Review mode on the demo home: most severe first"),
    Shot("review-conflicting", press=("4",), settle=at("conflicting"),
         title="Conflicting: the same fact with another number, differences highlighted"),
    Shot("review-similar", press=("4",), settle=at("similar"), title="A reworded near-duplicate"),
    Shot("review-merge", press=("4",), settle=at("similar", "m"),
         title="Merging a pair: characters saved and usage after"),
    Shot("review-duplicate", setup=with_duplicate, press=("4",), settle=at("duplicate"),
         title="The same entry in MEMORY.md and USER.md"),
    Shot("review-stale", press=("4",), settle=at("stale"), title="A stale dated entry (date highlighted)"),
    Shot("review-relative-date", press=("4",), settle=at("relative-date"),
         title="A relative date that meant another day when it was saved"),
    Shot("review-scanner", press=("4",), settle=at("scanner", nth=1),
         title="Scanner: emoji joiner explained, blocked by Hermes"),
    Shot("review-capacity", press=("4",), settle=at("capacity"), title="Capacity, with the largest entries"),
    Shot("review-drift", setup=drifted, press=("4",), settle=at("drift"), title="A drifted file",
         expect=("drift (1)", "longer than the whole")),
    Shot("review-redundant-skill", press=("4",), settle=at("redundant-skill"),
         title="An entry a skill already holds"),
    Shot("review-redundant-context", press=("4",), settle=at("redundant-context"),
         title="An entry AGENTS.md already says"),
    Shot("review-vague", press=("4",), settle=at("vague"), title="Too vague to act on"),
    Shot("review-verbose", setup=with_verbose, press=("4",), settle=at("verbose"),
         title="Narration that could be a third as long"),
    Shot("review-bulk", press=("4",), settle=at("stale", "space", "space", "space"),
         title="Marking several findings for a bulk remove or keep"),
    Shot("review-remove-pair", press=("4",), settle=at("conflicting", "d"),
         title="Removing one entry of a pair asks which"),
    Shot("review-clean", setup=clean, press=("4",), settle=loaded,
         title="Clean files: nothing to fix in MEMORY.md or USER.md (what past sessions and folders say stays listed)"),
    Shot("review-narrow", size=(84, 36), press=("4",), settle=at("conflicting"),
         title="Review on a narrow terminal"),
    Shot("review-80x24", size=(80, 24), press=("4",), settle=at("conflicting"), title="Review mode at 80x24"),
    Shot("review-merge-80x24", size=(80, 24), press=("4",), settle=at("similar", "m"),
         title="The merge dialog at 80x24, buttons included"),
    Shot("review-remove-pair-80x24", size=(80, 24), press=("4",), settle=at("conflicting", "d"),
         title="Removing one of a pair asks which (80x24)"),
    Shot("review-filter", press=("4",), settle=at("stale", "slash", *"date"),
         title="/ filters the findings by kind, reason or entry text"),
    Shot("review-filter-80x24", size=(80, 24), press=("4",), settle=at("stale", "slash", *"date"),
         title="The findings filter at 80x24"),
    Shot("review-unsaved", press=("4",), settle=at("unsaved"),
         title="unsaved: the agent said it would remember, and no memory write followed",
         expect=("unsaved", "made no memory call")),
    Shot("review-unsaved-add", press=("4",), settle=at("unsaved", "e"),
         title="e adds the fact now, prefilled with the user's words, checked like any write",
         expect=("Add the unsaved fact",)),
    Shot("review-goto", press=("4",), settle=at("similar", "o"),
         title="o opens memory mode on the finding's entry (the first of a pair)"),
]
