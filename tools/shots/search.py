"""Search mode screenshots: recent sessions, hits, the transcript at a hit, CJK, origin, promote."""

from __future__ import annotations

from tools.shots import Shot, workers_done


async def wait(pilot) -> None:
    """Let the typing debounce fire and every database worker finish, including the loads a
    transcript asks for as it scrolls (each may ask for the next), until nothing moves: the search
    for the text in the box has run and shown its rows (on a loaded box the debounce can fire
    after the first pause), and two looks in a row see the same screen."""
    await pilot.pause(0.3)
    app = pilot.app
    last = object()
    for _ in range(100):
        await workers_done(app)
        await pilot.pause(0.05)
        screen = app.screen
        state = None
        if screen.query("#search-query"):
            typed = screen.query_one("#search-query").value.strip()
            ran = getattr(screen, "_last_ran", None)
            searched = ran is None or ran[0] == typed or not typed
            state = (searched, getattr(screen, "_slow", None) is None, len(screen.results.items))
            if not (searched and state[1]):
                last = object()
                continue
        transcript = screen.query("#search-transcript")
        if transcript:
            t = transcript.first()
            state = (state, len(t.messages), t.scroll_y, t.highlighted, frozenset(t.pending))
        if state == last and not any(w.is_running for w in app.workers):
            break
        last = state
    await pilot.pause()


def search_for(query: str, *, open_hit: int | None = None, then: tuple[str, ...] = (), hold: bool = False):
    """A settle step: type *query*, wait for hits, optionally open hit number *open_hit* (0-based)."""

    async def settle(pilot) -> None:
        await pilot.press(*query)
        await wait(pilot)
        if open_hit is not None:
            await pilot.press("down", *["down"] * open_hit, "enter")
            await wait(pilot)
        if then:
            await pilot.press(*then)
        if hold:  # a dialog is open: its worker waits for it, so don't wait for workers
            await pilot.pause(0.3)
        else:
            await wait(pilot)

    return settle


async def no_hits(pilot) -> None:
    """A filter that leaves nothing (no session is that old), then a word."""
    await pilot.click("#filter-until")
    await pilot.press(*"2001-01-01", "tab")
    await pilot.click("#search-query")
    await pilot.press(*"invoice")
    await wait(pilot)


async def bad_date(pilot) -> None:
    """Hits for a word, then a date that can't be a date typed into since: flagged, results gone."""
    await pilot.press(*"invoice")
    await wait(pilot)
    await pilot.click("#filter-since")
    await pilot.press(*"2026-13")
    await pilot.pause(0.3)


SCENARIOS = [
    Shot("search-sessions", press=("3",), settle=wait,
         title="Search mode with an empty query: recent sessions by last activity"),
    Shot("search-results", press=("3",), settle=search_for("invoice export"),
         title="Hits as you type: title, source, time, the snippet with the words marked"),
    Shot("search-transcript", press=("3",), settle=search_for("invoice export", open_hit=0),
         title="Enter opens the session at the hit; n/N step through the other matches"),
    Shot("search-cjk", press=("3",), settle=search_for("数据库"),
         title="CJK and other unsegmented text are found too"),
    Shot("search-expanded", press=("3",), settle=search_for("invoice export", open_hit=6, then=("e",)),
         title="e expands a tool call (here the memory tool writing an entry) or a tool's output"),
    Shot("search-promote", press=("3",), settle=search_for("zanzibarquux", open_hit=2, then=("m",), hold=True),
         title="m promotes a message to MEMORY.md or USER.md through the edit dialog"),
    Shot("search-origin", press=("down", "down", "o"), settle=wait,
         title="o in memory mode opens the session where an entry was written"),
    Shot("search-loaded", press=("3",), settle=search_for("", then=("down",) * 7 + ("l",)),
         title="l on a session: the memory it loaded when it started, and what changed in the files since"),
    Shot("search-loaded-80x24", press=("3",), settle=search_for("", then=("down",) * 7 + ("l",)), size=(80, 24),
         title="What a session knew, at 80x24"),
    Shot("search-bad-query", press=("3",), settle=search_for('deploy "unclosed'),
         title="A malformed query gets a clear message, never an SQLite error"),
    Shot("search-narrow", press=("3",), settle=search_for('deploy "unclosed'), size=(80, 30),
         title="At 80 columns the filters take three lines and a long message wraps"),
    Shot("search-no-hits", press=("3",), settle=no_hits, title="No hits names the active filters; ctrl+r clears them"),
    Shot("search-bad-date", press=("3",), settle=bad_date, title="A bad date is flagged as it is typed"),
    Shot("search-origin-not-found", press=("down", "o"), settle=wait,
         title="o on an entry no session wrote: a clear not-found state"),
    Shot("search-suggest", press=("3",), settle=search_for("invoce"),
         title="A search that found nothing offers what the index knows (ctrl+y searches it)"),
    Shot("search-suggest-80x24", press=("3",), settle=search_for("invoce"), size=(80, 24),
         title="Suggestions at 80x24"),
    Shot("search-80x24", press=("3",), settle=search_for("invoice export"), size=(80, 24),
         title="Search mode at 80x24"),
    Shot("search-transcript-80x24", press=("3",), settle=search_for("zanzibarquux", open_hit=2), size=(80, 24),
         title="A transcript at 80x24"),
    Shot("search-promote-80x24", press=("3",), settle=search_for("zanzibarquux", open_hit=2, then=("m",), hold=True),
         size=(80, 24), title="Promote to memory at 80x24"),
]
