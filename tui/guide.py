"""Which page of the guide (docs/) explains each screen and dialog: the one place that says it.

Help (`?`, F1) names the page of the screen it was opened on ("Guide: docs/search.md"). A screen
or dialog is looked up by its class (and its base classes), or by the topic it was given with
`about()` when one class serves several things (the read-only text dialog shows a prompt block, a
session's loaded memory and the settings). A generic dialog (confirm, pick, edit, text) with
neither belongs to the screen it was opened from: the screen below it gives the page.
"""

from __future__ import annotations

from typing import TypeVar

PAGES = {
    # modes and their views
    "MemoryScreen": "docs/memory.md",
    "QueueScreen": "docs/pending.md",  # both queues: memory writes and skill writes
    "SearchScreen": "docs/search.md",
    "ReviewScreen": "docs/review.md",
    "MergeDialog": "docs/review.md",
    "ProfilesScreen": "docs/profiles.md",
    "CompareScreen": "docs/profiles.md",
    "EntryHistoryScreen": "docs/history.md",
    "TimelineScreen": "docs/history.md",
    "MomentDialog": "docs/history.md",  # time travel
    "TravelDiffDialog": "docs/history.md",
    # dialogs of their own
    "ApproveEditDialog": "docs/pending.md",
    "SkillEditDialog": "docs/pending.md",
    "FactDialog": "docs/why.md",
    "PaletteDialog": "docs/settings-and-keys.md",
    # topics given with about(): dialogs of a generic class that explain something of their own
    "why": "docs/why.md",  # why did Hermes forget: the verdicts
    "loaded memory": "docs/why.md",  # what a session knew
    "settings": "docs/settings-and-keys.md",
    "doctor": "docs/doctor.md",  # your Hermes differs from hmc's rules
}

ScreenT = TypeVar("ScreenT")


def about(topic: str, screen: ScreenT) -> ScreenT:
    """`screen`, whose help names the page of `topic` (a key of PAGES)."""
    assert topic in PAGES, topic
    screen.guide_topic = topic  # type: ignore[attr-defined]
    return screen


def own_page(screen) -> str | None:
    """The page for `screen` itself: its topic's, else its class's (or a base class's), else None."""
    topic = getattr(screen, "guide_topic", None)
    return PAGES[topic] if topic in PAGES else class_page(type(screen))


def class_page(kind: type) -> str | None:
    """The page for a screen or dialog class (or the nearest of its base classes that has one)."""
    return next((PAGES[cls.__name__] for cls in kind.__mro__ if cls.__name__ in PAGES), None)


def guide_page(screen, stack=()) -> str | None:
    """The page that explains `screen`; for a generic dialog, that of the nearest screen below it in
    `stack` (the app's screen stack, bottom first) that has one."""
    page = own_page(screen)
    if page is not None:
        return page
    below = list(stack)
    if screen in below:
        below = below[:below.index(screen)]
    for other in reversed(below):
        page = own_page(other)
        if page is not None:
            return page
    return None
