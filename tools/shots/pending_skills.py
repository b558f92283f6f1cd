"""Pending mode, skills tab: the skill writes queue with a diff, a refused record, each dialog."""

from __future__ import annotations

from tools.shots import Shot, workers_done

# The demo's staged skill writes (core/demo/content.py PENDING_SKILL_IDS)
CREATE = "0a6b7c8d"
PATCH = "1b7c8d9e"
EDIT = "2c8d9eaf"
WRITE_FILE = "3d9eafb0"
DELETE = "4eafb0c1"
PATCH_STALE = "5fb0c1d2"
ESCAPE = "6c1d2e3f"


def skills(record_id: str | None = None, *keys: str):
    """Open the skills tab, highlight a record by id (robust to the list order), then press keys."""

    async def steps(pilot) -> None:
        from textual.widgets import OptionList

        app = pilot.app
        if app.current_mode != "skills":
            await pilot.press("2")
            await pilot.pause()
            await pilot.press("s")
        await pilot.pause()
        await workers_done(app)
        await pilot.pause()
        screen = app.screen
        if record_id is not None:
            ids = [row.ins.id for row in screen.rows]
            screen.query_one("#skills-list", OptionList).highlighted = ids.index(record_id)
            await pilot.pause()
        await workers_done(app)
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
            await pilot.pause(0.05)
        await pilot.pause()

    return steps


SCENARIOS = [
    Shot("pending-skills", settle=skills(PATCH),
         title="Pending mode, skills tab: a staged patch of a skill, its diff highlighted, before you approve"),
    Shot("pending-skills-edit-diff", settle=skills(EDIT),
         title="A full rewrite of SKILL.md: the description before and after, and the whole diff"),
    Shot("pending-skills-refused", settle=skills(ESCAPE),
         title="A refused skill write: its path leaves the skill's folder (../), so nothing is written"),
    Shot("pending-skills-stale-patch", settle=skills(PATCH_STALE),
         title="A patch whose text is no longer in the skill: refused, with what it asked"),
    Shot("pending-skills-approve-all", settle=skills(None, "A"),
         title="Approve all skill writes: the counts come from simulating the queue in order"),
    Shot("pending-skills-80x24", size=(80, 24), settle=skills(WRITE_FILE),
         title="The skills tab at 80×24"),
    Shot("pending-skills-refused-80x24", size=(80, 24), settle=skills(ESCAPE),
         title="A refused skill write at 80×24"),
    Shot("pending-skills-edit-80x24", size=(80, 24), settle=skills(CREATE, "e"),
         title="Edit a proposed SKILL.md, then approve it (80×24)"),
]
