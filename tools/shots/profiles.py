"""Profiles: the view of every profile (5), two profiles side by side (c), a move to another profile
(M), and the review's cross-profile finding, on the demo's default, contenu and ops profiles."""

from __future__ import annotations

from tools.shots import Shot, dialog_or_done, workers_done


def keys(*pressed: str, wait: float = 0.3, dialog: bool = False):
    """Press keys one after another, letting every worker (the rows, a switch) finish in between.
    `dialog`: the last key opens a dialog its worker waits on (not waited for: it ends when the
    dialog closes)."""

    async def settle(pilot) -> None:
        for n, key in enumerate(pressed):
            last = n == len(pressed) - 1
            if dialog and last:
                # the switch's "Now curating…" toast is timed: cleared here, while its screen is the
                # current one (clearing it under a dialog leaves the screen beneath showing it, or not,
                # as the load of the box decides)
                pilot.app.clear_notifications()
                await pilot.pause()
            await pilot.press(key)
            await pilot.pause(0.1)
            if dialog and last:
                await dialog_or_done(pilot, timeout=30)  # its worker computes first (P counts every review)
                await pilot.pause(0.3)
                return
            await workers_done(pilot.app)
            await pilot.pause(wait)
        await workers_done(pilot.app)
        pilot.app.clear_notifications()  # the switch's "Now curating…": timed, so shown or not by load
        await pilot.pause(0.2)

    return settle


# rows: default, contenu, ops (the open profile is highlighted when the view opens)
OPEN_OPS = ("5", "j", "j", "enter")

SCENARIOS = [
    Shot("profiles", settle=keys("5"),
         title="Profiles (5): every profile in one row, the active one marked; the stale profiles/default/ explained",
         expect=("contenu", "ops", "profiles/default/ holds", "active")),
    Shot("profiles-80x24", size=(80, 24), settle=keys("5"),
         title="Profiles at 80x24: the header still says which profile is open", expect=("contenu", "ops")),
    Shot("profiles-compare", settle=keys(*OPEN_OPS, "5", "k", "c"),
         title="c: ops's MEMORY.md beside contenu's; the leaked repository line is marked =",
         expect=("= 1 the same", "only in ops")),
    Shot("profiles-move", settle=keys(*OPEN_OPS, "G", "M", dialog=True),
         title="M in memory mode: the profile that holds the entry already comes first; Enter, Enter moves it: "
         "three keys", expect=("to which profile", "contenu  (holds it already")),
    Shot("review-cross-profile", settle=keys(*OPEN_OPS, "4", wait=0.6),
         title="The review of ops: contenu's repository line leaked here; M moves it back, y keeps both",
         expect=("cross-profile", "Also in profile contenu")),
    Shot("review-by-profile", settle=keys("4", "P", dialog=True),
         title="P in the review: every profile's open findings counted; Enter reviews that profile",
         expect=("Open findings by profile", "default  (here)", "contenu  ·  1 finding", "ops  ·  1 finding")),
]
