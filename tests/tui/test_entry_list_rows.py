"""Memory mode's entry list shown again (issue 35): only the rows that changed are built; the others,
their lines and the scroll position stay (tests/bench/bench_entry_list.py measures it)."""

from __future__ import annotations

from textual.app import App

from tests.tui.helpers import shown
from tui.widgets.entries import EntryList


class One(App):
    def compose(self):
        yield EntryList(id="list")


def facts(n: int) -> list[str]:
    return [f"Fact {i}: service-{i % 97} builds with flag --opt-{i % 13} on runner {i % 7}" for i in range(n)]


async def test_one_entry_changed_rebuilds_its_row_only_and_keeps_the_scroll():
    app = One()
    async with app.run_test(size=(56, 20)) as pilot:
        listed = app.query_one(EntryList)
        entries = facts(300)
        listed.show(entries, 100_000)
        await pilot.pause()
        listed.highlight_entry(150)
        await pilot.pause()
        before, scroll = list(listed.options), listed.scroll_y
        assert scroll > 0
        entries = list(entries)
        entries[150] = "Live change: [bold]the deploy window[/] moved to 09:00 UTC, which now wraps onto two lines"
        listed.show(entries, 100_000)
        await pilot.pause()
        after = list(listed.options)
        assert [k for k, (a, b) in enumerate(zip(before, after)) if a is not b] == [150]
        assert listed.scroll_y == scroll and listed.highlighted == 150
        assert "[bold]the deploy window[/]" in shown(listed)  # literally, on screen
        assert [o._divider for o in after] == [True] * 299 + [False]


async def test_an_entry_removed_moves_the_rows_below_with_their_bodies_and_rules():
    app = One()
    async with app.run_test(size=(56, 20)) as pilot:
        listed = app.query_one(EntryList)
        entries = facts(40)
        listed.show(entries, 100_000)
        await pilot.pause()
        bodies = [o.prompt.body for o in listed.options]
        listed.show(entries[:10] + entries[11:], 100_000)
        await pilot.pause()
        after = list(listed.options)
        assert len(after) == 39 and [o.prompt.number for o in after] == list(range(1, 40))
        assert all(o.prompt.body is bodies[k + (k >= 10)] for k, o in enumerate(after))  # not built again
        assert [o._divider for o in after] == [True] * 38 + [False]
        listed.show(entries[:10] + entries[11:], 100_000, only=[0, 39 - 1])  # a filter: two rows
        await pilot.pause()
        assert [o._divider for o in listed.options] == [True, False]
        assert "Fact 39" in "\n".join(o.prompt.body.plain for o in listed.options)
