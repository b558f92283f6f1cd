"""The modes of the app (and pending mode's skills tab) and the screen class of each.

A mode's module is imported when it is first shown (faster start). The app adds the modes; the
palette lists their actions. Imports only tui/screens/ (and that lazily).
"""

from __future__ import annotations

import importlib

from textual.screen import Screen

MODE_SCREENS = {"memory": "MemoryScreen", "pending": "PendingScreen", "search": "SearchScreen", "review": "ReviewScreen",
                "skills": "SkillsPendingScreen"}  # skills: pending mode's second queue (its Skills tab)
MODULES = {"skills": "pending_skills"}


def mode_screen(mode: str) -> type[Screen]:
    """A mode's screen class, imported on first use (faster start)."""
    return getattr(importlib.import_module(f"tui.screens.{MODULES.get(mode, mode)}"), MODE_SCREENS[mode])
