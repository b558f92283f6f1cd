"""Pending mode's list layout, status words and footer on the demo queue (120 and 80 columns)."""

from __future__ import annotations

import pytest
from textual.widgets import OptionList, Static

from core.curator import open_curator
from core.demo.build import DEMO_TODAY, MALFORMED_ID, PENDING_IDS, build_demo_home
from tests.core.pending_support import stage
from tests.tui.helpers import until
from tui.screens.pending import STATUS_WIDTHS, Columns, PendingScreen, short_ago, status_label
from tui.widgets.footer import KeyFooter


@pytest.fixture
def demo_queue(tmp_path):
    return open_curator(build_demo_home(tmp_path / "hermes", DEMO_TODAY), today=DEMO_TODAY).pending


def test_status_names_the_hidden_reason_and_the_missing_pin(demo_queue):
    ins = {i.id: i for i in demo_queue.inspect_all()}
    # the demo is a 0.22.2 home: the record 0.20 staged without a pin is refused, the pinned patch is ready
    assert status_label(ins[PENDING_IDS["replace_unpinned"]]) == ("✗ unpinned", "red")
    assert status_label(ins[PENDING_IDS["replace_unpinned"]], short=True)[0] == "✗ no pin"
    assert status_label(ins[PENDING_IDS["patch_pinned"]])[0] == "✓ ready"
    assert status_label(ins[PENDING_IDS["scanner"]]) == ("✗ Hermes blocks", "red")  # said once, not twice
    assert status_label(ins[PENDING_IDS["scanner"]], short=True)[0] == "✗ blocked"
    assert status_label(ins[PENDING_IDS["secret"]]) == ("⚠ scanner hit", "yellow")
    demo_queue.approve_all()
    ins = {i.id: i for i in demo_queue.inspect_all()}
    assert status_label(ins[PENDING_IDS["over_limit"]])[0] == "✗ over limit"
    assert status_label(ins[MALFORMED_ID])[0] == "✗ broken file"


def test_columns_give_way_so_the_summary_keeps_30_cells():
    wide = Columns.fit(117, *STATUS_WIDTHS)
    assert not wide.short_age and not wide.short_status and wide.summary >= 30
    narrow = Columns.fit(77, *STATUS_WIDTHS)
    assert narrow.short_age and narrow.short_status and narrow.summary >= 30
    assert [short_ago(x) for x in ("2 weeks ago", "just now", "in 3 days", "1 month ago")] == ["2w", "now", "+3d", "1mo"]


@pytest.mark.parametrize("size", [(120, 36), (80, 30)])
async def test_header_lines_up_with_rows_and_the_footer_is_not_cut(demo_home, make_app, size):
    app = make_app(demo_home)
    async with app.run_test(size=size) as pilot:
        await pilot.press("2")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PendingScreen)
        header = screen.query_one("#pending-columns", Static)
        head = " " * header.styles.padding.left + str(header.render())
        lst = screen.query_one("#pending-list", OptionList)
        row = lst.get_option_at_index(0).prompt.plain
        for word in ("id", "status", "summary"):
            start = head.index(word)
            assert row[start - 1] == " " and row[start] != " ", (word, head, row)
        bar = str(screen.query_one("#pending-bar", Static).render())
        assert "(w)" in bar
        footer = screen.query_one(KeyFooter)
        line = str(footer.render())
        shown = [item for _, _, item in footer._spans]
        keys = {item.key for item in shown}
        assert {"question_mark", "q"} <= keys  # help and quit always stay
        if size[0] == 120:
            assert {"y", "n", "e", "A", "R", "x"} <= keys
        # nothing overlaps: each label is where the footer says it is, in order
        for start, end, item in footer._spans:
            assert line[start:end] == f"{item.display} {item.label}", (line, item)
        assert [s for s, _, _ in footer._spans] == sorted(s for s, _, _ in footer._spans)
        assert len(line) <= size[0]


async def test_a_broken_record_says_its_reason_once_and_dates_from_the_file(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("2")
        await pilot.pause()
        screen = app.screen
        ids = [ins.id for ins, _ in screen.rows]
        screen.query_one("#pending-list", OptionList).highlighted = ids.index(MALFORMED_ID)
        await pilot.pause()
        title = str(screen.query_one("#detail-title", Static).render())
        assert "broken record file" in title and "file modified" in title and "? in ?" not in title
        assert not screen.query_one("#detail-summary").display
        texts = [str(w.render()) for w in screen.query("#pending-detail Static") if w.display]
        assert sum(t.count("JSON cut short") for t in texts) == 1
        # x offers only what can never apply: the stale pin, what Hermes's own scan blocks, the record
        # 0.22.2 refuses for want of a pin, this file
        assert {i.id for i, _ in screen.rows if i.never_applies} == {
            PENDING_IDS["stale_pin"], PENDING_IDS["scanner"], PENDING_IDS["replace_unpinned"], MALFORMED_ID}


def summary_start(screen) -> int:
    header = screen.query_one("#pending-columns", Static)
    return header.styles.padding.left + str(header.render()).index("summary")


async def test_the_status_column_keeps_its_width_when_a_long_status_comes(demo_home, make_app):
    """A record with two reasons (a scanner hit over the limit) widened the status column for every
    row, and the summaries jumped right."""
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("2")
        await pilot.pause()
        screen = app.screen
        lst = screen.query_one("#pending-list", OptionList)
        before, first_row = summary_start(screen), lst.get_option_at_index(0).prompt.plain
        key = "sk-proj-" + "Xq7Lm2Pz9Rt4Vb8Nc1Kd6Hs3Jf5Gw0Ya2Ue"
        stage(demo_home, content=f"Paylane live key {key} " + "and a long note " * 30, rid="0fffffff")
        assert await until(pilot, lambda: any(ins.id == "0fffffff" for ins, _ in screen.rows))
        await pilot.pause()
        ins = next(ins for ins, _ in screen.rows if ins.id == "0fffffff")
        assert status_label(ins)[0] == "✗ scan · limit"
        assert summary_start(screen) == before and lst.get_option_at_index(0).prompt.plain == first_row
        row = next(lst.get_option_at_index(i).prompt.plain for i in range(lst.option_count)
                   if lst.get_option_at_index(i).prompt.plain.startswith(" 0fffffff"))
        assert row[before - 1] == " " and "✗ scan · limit" in row[:before]


def test_no_status_is_wider_than_the_column(demo_queue):
    full, short = STATUS_WIDTHS
    for ins in demo_queue.inspect_all():
        assert len(status_label(ins)[0]) <= full and len(status_label(ins, short=True)[0]) <= short


async def test_the_background_reviews_records_are_marked_auto_beside_their_text(demo_home, make_app):
    """No `by` column (it only ever held [auto]): the mark sits before the summary, as in the skills tab."""
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("2")
        await pilot.pause()
        screen = app.screen
        assert " by " not in str(screen.query_one("#pending-columns", Static).render())
        lst = screen.query_one("#pending-list", OptionList)
        start = summary_start(screen)
        for i, (ins, same) in enumerate(screen.rows):
            summary = lst.get_option_at_index(i).prompt.plain[start:]
            assert summary.startswith("auto ") == ins.record.auto, (ins.id, summary)
            assert "[auto]" not in lst.get_option_at_index(i).prompt.plain


async def open_record(app, pilot, rid: str):
    await pilot.press("2")
    await pilot.pause()
    screen = app.screen
    screen.query_one("#pending-list", OptionList).highlighted = [ins.id for ins, _ in screen.rows].index(rid)
    await pilot.pause()
    return screen


async def test_a_secret_is_named_once_masked_and_once_revealed(demo_home, make_app):
    from core.scan.scanner import mask

    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_record(app, pilot, PENDING_IDS["secret"])
        ins = screen.current
        [key] = {s.text[f.start:f.end] for s in ins.scanned for f in s.findings if f.secret}
        findings = str(screen.query_one("#detail-findings").render())
        assert findings.count(mask(key)) == 1 and key not in findings and "(v reveals)" in findings
        await pilot.press("v")
        await pilot.pause()
        findings = str(screen.query_one("#detail-findings").render())
        assert findings.count(key) == 1 and mask(key) not in findings


async def test_a_record_hermes_blocks_is_said_one_way(demo_home, make_app):
    from core.scan.scanner import HERMES_NOTE

    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_record(app, pilot, PENDING_IDS["scanner"])
        status = str(screen.query_one("#detail-status").render())
        assert ".." not in status and "also flags" not in status
        findings = str(screen.query_one("#detail-findings").render()).replace("\n", " ")
        assert findings.count(HERMES_NOTE) == 2  # one per finding, in the scanner's words
        assert "Hermes blocks this entry" not in findings
