"""History screenshots: memory mode's origin lines are in the memory shots; here the timeline (its
diff, a rollback's confirm, a filter), an entry's history, and time travel (the stores then, the diff
with now)."""

from __future__ import annotations

from tools.shots import Shot, dialog_or_done, workers_done


async def loaded(pilot) -> None:
    """Wait until the screen on top has rebuilt the history (a worker in a thread)."""
    for _ in range(100):
        screen = pilot.app.screen
        if getattr(screen, "timeline", None) is not None or getattr(screen, "loaded", False):
            break
        await pilot.pause(0.05)
    await workers_done(pilot.app)
    await pilot.pause()


async def timeline(pilot) -> None:
    """The timeline with its newest write that R can roll back selected (the screen's own rule: not a
    refusal, not a change seen only in the files)."""
    await pilot.press("t")
    await loaded(pilot)
    screen = pilot.app.screen
    writes = screen.query_one("#tl-writes")
    for row in range(len(screen.shown)):
        writes.highlighted = row
        await pilot.pause()
        if screen.why_not("rollback") is None:
            break
    await pilot.pause()


async def refused(pilot) -> None:
    """The timeline with its newest refused call selected (the reason in red, what it asked)."""
    from tui.screens.timeline import is_refusal

    await pilot.press("t")
    await loaded(pilot)
    screen = pilot.app.screen
    rows = [i for i, item in enumerate(screen.shown) if is_refusal(item)]
    if rows:
        screen.query_one("#tl-writes").highlighted = rows[0]
    await pilot.pause()


async def text_filter(pilot) -> None:
    await timeline(pilot)
    await pilot.press("slash", *"pnpm")
    await pilot.pause(0.2)


async def rollback_confirm(pilot) -> None:
    await timeline(pilot)
    await pilot.press("R")
    await dialog_or_done(pilot)  # the plan is computed in a thread first


async def filtered(pilot) -> None:
    await pilot.press("t")
    await loaded(pilot)
    pilot.app.screen.query_one("#tl-source").value = "telegram"
    await pilot.pause(0.2)


async def entry_history(pilot) -> None:
    await pilot.press("down", "down", "i")  # "This machine: …": added, then replaced (Node 20 -> 22)
    await dialog_or_done(pilot)  # the history is read in a thread first
    await loaded(pilot)


async def time_travel(pilot) -> None:
    await pilot.press("T")
    await pilot.pause(0.3)
    await pilot.press(*"2026-09-15", "enter")
    await pilot.pause(0.3)


async def time_travel_dialog(pilot) -> None:
    await pilot.press("T")
    await pilot.pause(0.3)
    await pilot.press(*"2026-09-15")
    await pilot.pause(0.2)


async def rebuilding(pilot) -> None:
    """The timeline while a long rebuild runs (a job past its threshold, at 12,345 of 50,000 events:
    what a first start on years of history shows)."""
    await timeline(pilot)
    job = pilot.app.long_work("rebuilding the memory history")
    progress = job.__enter__()  # left running: the shot is taken mid-build
    pilot.app.held_job = job  # (a context manager that is collected would end the job)
    progress.after = 0
    progress(12_345, 50_000)
    from tui.widgets.work_progress import WorkProgress

    pilot.app.screen.query_one(WorkProgress).poll()  # now, not at the next tick of its timer
    await pilot.pause()
    await pilot.pause()


async def time_travel_diff(pilot) -> None:
    await time_travel(pilot)
    await pilot.press("n")
    await pilot.pause(0.3)


SCENARIOS = [
    Shot("history-timeline", settle=timeline, title="The timeline: every write, newest first, with its diff (t)"),
    Shot("history-refused", settle=refused, title="A memory call the tool refused, in the timeline: what it asked, "
         "and why nothing was written", expect=("refused", "Nothing was written")),
    Shot("history-rollback", settle=rollback_confirm, title="R rolls a write back: it shows the change first"),
    Shot("history-timeline-filter", settle=filtered, title="The timeline filtered to one writer (telegram)"),
    Shot("history-entry", settle=entry_history, title="An entry's history (i): its texts, diffs and sessions"),
    Shot("history-time-travel-pick", settle=time_travel_dialog, title="Time travel (T): a date, checked as typed"),
    Shot("history-time-travel", settle=time_travel, title="The stores as they were, read-only, under a banner"),
    Shot("history-time-travel-diff", settle=time_travel_diff, title="n: the diff between then and now"),
    Shot("history-timeline-80x24", settle=timeline, size=(80, 24), title="The timeline at 80x24"),
    Shot("history-timeline-text-filter", settle=text_filter, title="/ filters the writes by their text"),
    Shot("history-timeline-text-filter-80x24", settle=text_filter, size=(80, 24),
         title="The timeline's text filter at 80x24"),
    Shot("history-rollback-80x24", settle=rollback_confirm, size=(80, 24), title="The rollback confirm at 80x24"),
    Shot("history-entry-80x24", settle=entry_history, size=(80, 24), title="An entry's history at 80x24"),
    Shot("history-time-travel-80x24", settle=time_travel, size=(80, 24), title="Time travel at 80x24"),
    Shot("history-rebuilding", settle=rebuilding, title="A long rebuild of the history shows its progress"),
    Shot("history-time-travel-diff-80x24", settle=time_travel_diff, size=(80, 24), title="Then and now at 80x24"),
]
