"""Review mode driven through its real keys; assertions check the files on disk."""
from __future__ import annotations

from pathlib import Path

from core.review import findings as R
from core.curator import open_curator
from tests.tui.helpers import memory_text, settle, toasts, until
from tools.shots import TODAY
from tui.screens.dialogs import ChoiceDialog, ConfirmDialog, EditEntryDialog
from tui.screens.review import MergeDialog, ReviewScreen, reports_dir
from tui.widgets.findings import FindingsList


def entries(home: Path, name: str = "MEMORY.md") -> list[str]:
    return memory_text(home, name).split("\n§\n")


async def open_review(app, pilot) -> FindingsList:
    await pilot.press("4")
    await settle(app, pilot)
    assert isinstance(app.screen, ReviewScreen)
    return app.screen.query_one(FindingsList)


async def highlight(pilot, lst: FindingsList, kind: str, nth: int = 0) -> R.Finding:
    rows = [i for i in range(lst.option_count) if (f := lst.finding_at(i)) is not None and f.kind == kind]
    lst.highlighted = rows[nth]
    await pilot.pause()
    return lst.current


def kinds(lst: FindingsList) -> list[str]:
    return [f.kind for f in lst.findings]


async def test_groups_in_kind_order_and_looking_is_not_reviewing(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        assert "review due" in app.header_state()["review"]
        lst = await open_review(app, pilot)
        found = lst.findings
        order = [(R.KIND_ORDER[f.kind], -R.RANK[f.severity]) for f in found]
        assert order == sorted(order)
        assert {"conflicting", "similar", "stale", "relative-date", "scanner", "redundant-skill",
                "redundant-context", "capacity", "vague"} <= set(kinds(lst))
        headings = [lst.get_option_at_index(i) for i in range(lst.option_count) if lst.finding_at(i) is None]
        assert all(h.disabled for h in headings)
        assert str(headings[0].prompt).startswith(found[0].kind)
        # just looking leaves the reminder alone
        assert "review due" in app.header_state()["review"]
        assert R.last_review_date(open_curator(demo_home, today=TODAY)) is None


async def test_review_is_done_once_no_warning_is_left_open(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        lst = await open_review(app, pilot)
        for f in lst.findings:
            if R.RANK[f.severity] >= R.RANK["warning"]:
                app.screen.marked.add(f.key)
        last = next(f for f in lst.findings if f.key in app.screen.marked)
        app.screen.marked.discard(last.key)  # all but one kept: still due
        await pilot.press("y")
        await settle(app, pilot)
        assert "review due" in app.header_state()["review"]
        lst = app.screen.query_one(FindingsList)
        lst.highlighted = next(i for i in range(lst.option_count)
                               if (f := lst.finding_at(i)) is not None and f.key == last.key)
        await pilot.press("y")  # the last open warning: the review is done
        await settle(app, pilot)
        assert app.header_state()["review"] == "reviewed 2026-11-15"
        assert R.last_review_date(open_curator(demo_home, today=TODAY)) == TODAY
        assert any(f.severity == "info" for f in app.screen.query_one(FindingsList).findings)


async def test_keep_leaves_groups_in_place_and_the_cursor_on_the_next_finding(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        lst = await open_review(app, pilot)
        groups = [k for k in dict.fromkeys(kinds(lst))]
        scanner = [f for f in lst.findings if f.kind == "scanner"]
        assert len(scanner) >= 2
        first = await highlight(pilot, lst, "scanner")  # the most severe scanner finding
        before = lst.highlighted
        await pilot.press("y")
        await settle(app, pilot)
        lst = app.screen.query_one(FindingsList)
        assert [k for k in dict.fromkeys(kinds(lst))] == groups  # no group jumps
        assert lst.current.key == scanner[1].key and lst.highlighted == before
        assert first.key not in {f.key for f in lst.findings}
        summary = str(app.screen.query_one("#review-summary").render())
        assert "1 kept, hidden (K shows)" in summary.splitlines()[-1]


async def test_row_details_hang_under_the_finding(demo_home, make_app):
    from tests.tui.helpers import shown

    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        lst = await open_review(app, pilot)
        lines = [ln for ln in shown(lst).splitlines() if ln.strip()]
        rows = [ln for ln in lines if not ln.startswith(("☐", "☑", "─")) and not ln[:1].isalpha()]
        assert rows and all(ln.startswith("     ") for ln in rows)


async def test_the_merge_dialog_is_as_wide_as_the_edit_dialog(demo_home, make_app):
    """Both entry editors have one width (the merge dialog was 10 columns narrower), at 80 columns too."""
    for size in ((120, 36), (80, 24)):
        app = make_app(demo_home)
        async with app.run_test(size=size) as pilot:
            lst = await open_review(app, pilot)
            await highlight(pilot, lst, "similar")
            await pilot.press("m")
            assert isinstance(app.screen, MergeDialog)
            merge = app.screen.query_one(".merge-dialog").outer_size.width
            await pilot.press("escape")
            await highlight(pilot, lst, "similar")
            await pilot.press("e", "1")  # which of the pair: the first
            assert isinstance(app.screen, EditEntryDialog)
            edit = app.screen.query_one(".dialog").outer_size.width
            assert merge == edit == (96 if size[0] == 120 else 76)
            buttons = app.screen.query_one("#save").region
            assert buttons.bottom <= size[1]


async def test_merge_writes_one_entry_and_removes_the_other(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        lst = await open_review(app, pilot)
        pair = await highlight(pilot, lst, "similar")
        (_, _, first), (_, _, second) = pair.refs
        before = entries(demo_home)
        await pilot.press("m")
        assert isinstance(app.screen, MergeDialog)
        area = app.screen.query_one("#merge-text")
        assert area.text == first + "\n" + second
        status = str(app.screen.query_one("#merge-count").render())
        assert "saves 2 chars" in status and "MEMORY.md after merging" in status
        area.text = first + "\n" + second + "!"
        await pilot.pause()
        assert "saves 1 char\n" in str(app.screen.query_one("#merge-count").render()) + "\n"
        area.text = "Use pnpm, never npm, in every JS repo (harbor-web, docs site)."
        await pilot.pause()
        assert "saves" in str(app.screen.query_one("#merge-count").render())
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        after = entries(demo_home)
        assert first not in after and second not in after
        assert after[before.index(first)] == "Use pnpm, never npm, in every JS repo (harbor-web, docs site)."
        assert len(after) == len(before) - 1
        raised = [n.message for n in toasts(app)]
        assert len(raised) == 1 and raised[0].startswith("Merged 2 entries into 1 in MEMORY.md (saved ")
        assert "similar" not in kinds(app.screen.query_one(FindingsList))


async def test_remove_a_single_entry_after_confirming(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        lst = await open_review(app, pilot)
        finding = await highlight(pilot, lst, "relative-date")
        text = finding.texts[0]
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await settle(app, pilot)
        assert text not in entries(demo_home)
        assert "relative-date" not in kinds(app.screen.query_one(FindingsList))


async def test_remove_one_of_a_pair_asks_which(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        lst = await open_review(app, pilot)
        pair = await highlight(pilot, lst, "conflicting")
        wrong = pair.texts[0]
        await pilot.press("d")
        assert isinstance(app.screen, ChoiceDialog)
        await pilot.click("#choice-0")
        await settle(app, pilot)
        assert wrong not in entries(demo_home) and pair.texts[1] in entries(demo_home)
        assert await until(pilot, lambda: "conflicting" not in kinds(app.screen.query_one(FindingsList)))


async def test_edit_from_the_review(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        lst = await open_review(app, pilot)
        finding = await highlight(pilot, lst, "relative-date")
        old = finding.texts[0]
        await pilot.press("e")
        assert isinstance(app.screen, EditEntryDialog)
        new = old.replace("Yesterday", "On 2026-11-02", 1)
        app.screen.query_one("#edit-text").text = new
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert new in entries(demo_home) and old not in entries(demo_home)
        assert "relative-date" not in kinds(app.screen.query_one(FindingsList))


async def test_keep_persists_across_restarts_until_the_entry_changes(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        lst = await open_review(app, pilot)
        stale = await highlight(pilot, lst, "stale")
        await pilot.press("y")
        await settle(app, pilot)
        assert "stale" not in kinds(app.screen.query_one(FindingsList))
        assert "1 kept" in str(app.screen.query_one("#review-summary").render())
    # a new app on the same home: still dismissed
    again = make_app(demo_home)
    async with again.run_test(size=(120, 36)) as pilot:
        lst = await open_review(again, pilot)
        assert "stale" not in kinds(lst)
        await pilot.press("K")  # show kept ones: it is there, marked kept
        await settle(again, pilot)
        assert stale.key in {f.key for f in again.screen.query_one(FindingsList).findings}
    # the entry changes (Hermes rewrites it): the finding comes back
    text = memory_text(demo_home).replace(stale.texts[0], stale.texts[0] + " Still true.", 1)
    (demo_home / "memories" / "MEMORY.md").write_text(text, encoding="utf-8")
    third = make_app(demo_home)
    async with third.run_test(size=(120, 36)) as pilot:
        lst = await open_review(third, pilot)
        assert "stale" in kinds(lst)


async def test_bulk_mark_then_keep_and_remove(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        lst = await open_review(app, pilot)
        await highlight(pilot, lst, "redundant-skill")
        first = lst.current
        await pilot.press("space")  # marks and moves down to the next finding
        second = lst.current
        await pilot.press("space")
        assert app.screen.marked == {first.key, second.key}
        assert "2 marked" in str(app.screen.query_one("#review-summary").render())
        await pilot.press("y")
        await settle(app, pilot)
        keys = {f.key for f in app.screen.query_one(FindingsList).findings}
        assert first.key not in keys and second.key not in keys
        assert {first.key, second.key} <= R.decisions(open_curator(demo_home, today=TODAY)).kept_keys()
        # bulk remove: mark the vague and the stale entries, d, confirm
        lst = app.screen.query_one(FindingsList)
        vague = await highlight(pilot, lst, "vague")
        await pilot.press("space")
        stale = await highlight(pilot, lst, "stale")
        await pilot.press("space")
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await settle(app, pilot)
        assert vague.texts[0] not in entries(demo_home, "USER.md")
        assert stale.texts[0] not in entries(demo_home)


async def test_export_writes_a_markdown_report(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_review(app, pilot)
        await pilot.press("x")
        await pilot.pause()
        report = reports_dir(app.curator) / "review-2026-11-15.md"
        text = report.read_text(encoding="utf-8")
        assert text.startswith("# Memory review — 2026-11-15") and "## conflicting (1)" in text
        assert demo_home.resolve() not in report.resolve().parents  # never inside the Hermes home
        # a report is not the review: the demo's warnings are still open, so it stays due, and says so
        assert R.last_review_date(open_curator(demo_home, today=TODAY)) is None
        assert app.header_state()["review"] != "reviewed 2026-11-15"
        assert any("The review stays due" in n.message for n in toasts(app))


async def test_space_marks_and_says_so(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_review(app, pilot)
        first = app.screen.current
        await pilot.press("space")
        await pilot.pause()
        assert app.screen.marked == {first.key} and app.screen.current is not first  # marked, moved on
        summary = str(app.screen.query_one("#review-summary").render())
        assert "1 marked · d removes · y keeps · space unmarks" in summary


async def test_recomputes_after_an_external_change(demo_home, make_app):
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        lst = await open_review(app, pilot)
        assert "duplicate" not in kinds(lst)
        user = demo_home / "memories" / "USER.md"
        first_memory = entries(demo_home)[2]
        user.write_text(memory_text(demo_home, "USER.md") + "\n§\n" + first_memory, encoding="utf-8")
        app.poll()
        await settle(app, pilot)
        dup = [f for f in app.screen.query_one(FindingsList).findings if f.kind == "duplicate"]
        assert dup and dup[0].target == "memory+user"


async def test_untrusted_text_is_literal_and_secrets_masked(hermes_home, make_app):
    import random
    import string

    key = "ghp_" + "".join(random.Random(3).choices(string.ascii_letters + string.digits, k=36))
    memories = hermes_home / "memories"
    memories.mkdir(parents=True)
    (memories / "MEMORY.md").write_text(
        f"Yesterday logs showed [bold]x[/] and [link=https://e.x]y[/link]\n§\nGitHub token {key}",
        encoding="utf-8")
    (memories / "USER.md").write_text("", encoding="utf-8")
    app = make_app(hermes_home)
    async with app.run_test(size=(120, 36)) as pilot:
        lst = await open_review(app, pilot)
        await highlight(pilot, lst, "relative-date")
        body = str(app.screen.query_one("#side-body-0").render())
        assert "[bold]x[/]" in body and "[link=https://e.x]y[/link]" in body
        await highlight(pilot, lst, "scanner")
        shown = str(app.screen.query_one("#side-body-0").render()) + str(
            app.screen.query_one("#finding-detail").render())
        assert key not in shown and "ghp_" in shown


async def test_an_old_entry_is_explained_and_g_goes_to_it(demo_home, make_app):
    """`old` from the demo's history (hmc's settings: 60 days): the detail says who and when, the
    hint says what old means next to stale, g opens memory mode on the entry, k keeps it."""
    import os

    config = Path(os.environ["XDG_CONFIG_HOME"]) / "hmc" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[review]\nstale_days = 90\nold_days = 60\n", encoding="utf-8")
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        lst = await open_review(app, pilot)
        finding = await highlight(pilot, lst, "old", nth=2)
        assert finding.severity == "info" and "days) — added by the agent in a" in finding.detail
        hint = str(app.screen.query_one("#finding-hint").render())
        assert "more than 60 days" in hint and "Stale is about dates" in hint
        texts = {kind: {f.refs[0][2] for f in lst.findings if f.kind == kind} for kind in ("old", "stale")}
        assert texts["stale"] and not texts["old"] & texts["stale"]  # a stale entry is not also old
        target, index, text = finding.refs[0]
        await pilot.press("o")
        await settle(app, pilot)
        from tui.widgets.entries import EntryList

        assert app.current_mode == "memory"
        assert app.screen.query_one(f"#entries-{target}", EntryList).highlighted == index
        assert app.curator.stores[target].last.entries[index] == text
        await pilot.press("4")
        await settle(app, pilot)
        n_old = kinds(lst := app.screen.query_one(FindingsList)).count("old")
        await highlight(pilot, lst, "old")
        await pilot.press("y")
        await settle(app, pilot)
        assert await until(pilot, lambda: kinds(app.screen.query_one(FindingsList)).count("old") == n_old - 1)


async def test_a_merge_past_the_limit_shows_the_merged_size_and_says_why_for_a_person(demo_home, make_app):
    """The "after merging" line measured the file as it is when the release refused the merge, and
    the reason was the release's model-facing refusal: now the merged size, and a sentence."""
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        lst = await open_review(app, pilot)
        pair = await highlight(pilot, lst, "similar")
        await pilot.press("m")
        assert isinstance(app.screen, MergeDialog)
        store = app.curator.stores["memory"]
        (_, _, first), (_, _, second) = pair.refs
        big = "Release notes: " + "each step of the deploy, written out in full. " * 20
        app.screen.query_one("#merge-text").text = big
        await pilot.pause()
        status = str(app.screen.query_one("#merge-count").render())
        merged = store.last.usage - len(first) - len(second) - 3 + len(big.strip())
        assert f"after merging: 100% — {merged:,}/2,200 chars" in status, status
        assert status.split("✗ ", 1)[1] == (f"the merge would leave MEMORY.md at {merged:,}/2,200 chars, "
                                            f"{merged - 2200:,} over its limit: shorten the merged entry")
        assert app.screen.query_one("#merge-save").disabled


async def test_the_counts_line_breaks_between_counts_never_inside_one(demo_home, make_app):
    """'2 info' never ends one line with '2' and starts the next with 'info', at any width, and a
    resize lays the counts out again."""
    import re

    from textual.widgets import Static

    from tools.shots.memory import drifted

    drifted(demo_home)  # a critical finding too: five counts, a long line
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_review(app, pilot)
        summary = app.screen.query_one("#review-summary", Static)
        wrapped = 0
        for width in (*range(92, 112, 2), 120, 160):  # past 100 columns the list is a narrow pane
            await pilot.resize_terminal(width, 36)
            await settle(app, pilot)
            lines = str(summary.render()).split("\n")
            counts = [line for line in lines if "finding" in line or re.match(r"\d", line)]
            assert counts, lines
            box = summary.content_region.width
            assert all(len(line) <= box for line in counts), (width, lines)
            for line in counts:  # every number is followed by its word on the same line
                assert not re.search(r"\d\s*$", line), (width, lines)
            wrapped += len(counts) > 1
        assert wrapped, "no width made the counts wrap: the test checks nothing"
        assert len([line for line in str(summary.render()).split("\n") if "finding" in line]) == 1
