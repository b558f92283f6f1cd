"""Why did Hermes forget: the palette's question, the verdicts, and search mode's w on a message."""

from __future__ import annotations

from tools.shots import Shot, workers_done
from tools.shots.search import search_for


def asked(fact: str | None):
    """Open the palette's "Why did Hermes forget…", type `fact` (None: leave the box empty and
    press Enter, to show the refusal), and wait for the verdicts when a fact was asked."""

    async def settle(pilot) -> None:
        from tui.screens.dialogs import TextDialog

        await pilot.press("ctrl+p")
        await pilot.pause(0.2)
        await pilot.press(*"why did hermes")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause(0.3)
        if fact is None:
            await pilot.press("enter")
            await pilot.pause(0.2)
            return
        await pilot.press(*fact)
        if fact.endswith("\n"):
            return
        await pilot.press("enter")
        for _ in range(200):
            await workers_done(pilot.app)
            if isinstance(pilot.app.screen, TextDialog):
                break
            await pilot.pause(0.05)
        await pilot.pause(0.2)

    return settle


SCENARIOS = [
    Shot("why-ask", settle=asked(None), title="The palette's “Why did Hermes forget…” asks for the fact; "
         "an empty one is refused under the box", expect=("Why did Hermes forget…", "give the fact")),
    Shot("why-never-saved", settle=asked("harbor-web TLS certificate expires"),
         title="The agent said “me lo ricorderò” and never called the memory tool: never-saved, with what to do",
         expect=("never-saved", "me lo ricorderò", "Add it yourself")),
    Shot("why-not-loaded", settle=asked("Node 22"),
         title="In memory, but a resumed session still runs on the snapshot it loaded before the change",
         expect=("not-loaded", "still open")),
    Shot("why-other-profile", settle=asked("VPN profile office"),
         title="The classic trap: the fact sits in a stale profiles/default/ folder Hermes never reads",
         expect=("other-profile", "profiles/default")),
    Shot("why-80x24", size=(80, 24), settle=asked("ssh deploy key tideway-prod"),
         title="Why, at 80x24: in memory now first, the other causes below it (j/k scrolls)",
         expect=("in-memory",)),
    Shot("why-from-search", press=("3",), settle=search_for("certificato TLS", then=("down", "w")),
         title="w on a search hit: why isn't this message's fact in memory?", expect=("never-saved",)),
]
