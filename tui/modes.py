"""The modes of the app (and pending mode's skills tab) and the screen class of each.

A mode's module is imported when it is first shown (faster start), or when the app builds the
mode's screen ahead of its first visit, once the first screen is out (see `prebuild`). The app
adds the modes; the palette lists their actions. Imports only tui/screens/ (and that lazily).
"""

from __future__ import annotations

import asyncio
import importlib

from textual.screen import Screen

MODE_SCREENS = {"memory": "MemoryScreen", "pending": "PendingScreen", "search": "SearchScreen", "review": "ReviewScreen",
                "profiles": "ProfilesScreen", "skills": "SkillsPendingScreen"}  # skills: pending mode's second queue (its Skills tab)
MODULES = {"skills": "pending_skills"}


def mode_screen(mode: str) -> type[Screen]:
    """A mode's screen class, imported on first use (faster start)."""
    return getattr(importlib.import_module(f"tui.screens.{MODULES.get(mode, mode)}"), MODE_SCREENS[mode])


# Built in the background once the first screen is out, in the order a person most likely visits
# them: a first visit is then a revisit (one frame, its data already there).
PREBUILT = ("pending", "search", "review")
PREBUILD_GAP = 0.1  # seconds between two builds: a key pressed meanwhile waits for one build at most


def prebuild_all(app) -> None:
    """Build the PREBUILT modes' screens one after the other, in a worker (the app's keys go on)."""
    async def build() -> None:
        for mode in PREBUILT:
            if await prebuild(app, mode):
                await asyncio.sleep(PREBUILD_GAP)

    app.run_worker(build(), group="prebuild", exit_on_error=False)


async def prebuild(app, mode: str) -> bool:
    """Build `mode`'s screen before its first visit, off screen: composed, mounted and laid out at
    the terminal's size, its data work started (`ModeScreen.prebuilt`), as Textual's first switch
    to the mode would do it, without showing it. False when the mode already has its screen.

    Textual (8.2.8, pinned) has no public call for this: the screen goes on the mode's stack as
    App._init_mode puts it there, without the ScreenResume that would make it the current one;
    the visit's switch_mode then finds it built (a visit refreshes what the screen shows: see
    each screen's on_screen_resume)."""
    if mode in app._screen_stacks or not app.is_running:
        return False
    screen, mounted = app._get_screen(app._modes[mode]())
    app._screen_stacks[mode] = [screen]
    app._load_screen_css(screen)
    await mounted
    if app.screen is not screen:  # visited meanwhile: switch_mode has done the rest
        screen._refresh_layout(app.size)
        prebuilt = getattr(screen, "prebuilt", None)
        if prebuilt is not None:
            prebuilt()
    return True
