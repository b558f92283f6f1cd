"""The palette's dialog (ctrl+p) driven by its real keys: it opens with every command, narrows as
you type, Enter or a click runs the highlighted command, Escape closes; titles are never markup."""

from __future__ import annotations

from tests.tui.helpers import settle, shown, until, until_dialog
from tui.screens.palette_dialog import NO_MATCH, Command, CommandList, PaletteDialog, ranked, shown_title


def listed(app) -> list[str]:
    """The palette's rows as a person sees them."""
    return [line.strip() for line in shown(app.screen.query_one(CommandList)).splitlines() if line.strip()]


def help_line(app) -> str:
    return " ".join(shown(app.screen.query_one("#palette-help")).split())


async def open_palette(pilot, *typed: str) -> PaletteDialog:
    await pilot.press("ctrl+p")
    dialog = await until_dialog(pilot, PaletteDialog)
    if typed:
        await pilot.press(*typed)
    await pilot.pause()
    return dialog


async def test_it_opens_with_every_command_the_ones_that_apply_first(demo_home, make_app):
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        dialog = await open_palette(pilot)
        commands = app.palette_commands()
        options = dialog.query_one(CommandList)
        assert options.option_count == len(commands) == len(dialog.hits)
        titles = [command.title for command, _ in dialog.hits]
        assert sorted(titles) == sorted(c.title for c in commands)
        available = [command.available for command, _ in dialog.hits]
        assert available == sorted(available, reverse=True)  # what applies now first
        assert options.highlighted == 0
        assert titles[0] == "go: Go to memory mode"
        assert listed(app)[0].split() == ["go:", "Go", "to", "memory", "mode", "1"]  # its key on its row
        assert help_line(app) == "Switch to memory mode (key 1)"
        assert dialog.focused is dialog.query_one("#palette-input")


async def test_typing_narrows_and_enter_switches_mode(demo_home, make_app):
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await open_palette(pilot, *"go to pending")
        assert listed(app)[0].split() == ["go:", "Go", "to", "pending", "mode", "2"]
        assert help_line(app) == "Switch to pending mode (key 2)"
        await pilot.press("enter")
        assert await until(pilot, lambda: app.current_mode == "pending")
        assert not isinstance(app.screen, PaletteDialog)
        await open_palette(pilot, *"go to profiles")  # every mode key has its command, 5 too
        assert listed(app)[0].split() == ["go:", "Go", "to", "profiles", "mode", "5"]
        await pilot.press("enter")
        assert await until(pilot, lambda: app.current_mode == "profiles")


async def test_down_up_move_the_highlight_and_its_help(demo_home, make_app):
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        dialog = await open_palette(pilot, *"go to")
        assert [title.split(": ", 1)[0] for title in listed(app)[:4]] == ["go"] * 4
        await pilot.press("down", "down")
        assert dialog.query_one(CommandList).highlighted == 2
        assert help_line(app) == f"{dialog.hits[2][0].help}"
        await pilot.press("up")
        assert dialog.highlighted is dialog.hits[1][0]
        assert help_line(app) == dialog.hits[1][0].help
        await pilot.press("enter")
        assert await until(pilot, lambda: app.current_mode == dialog.hits[1][0].title.split()[-2])


async def test_escape_closes_and_runs_nothing(demo_home, make_app):
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await open_palette(pilot, *"go to pending")
        await pilot.press("escape")
        await settle(app, pilot)
        assert not isinstance(app.screen, PaletteDialog)
        assert app.current_mode == "memory"


async def test_no_match_says_so_and_enter_does_nothing(demo_home, make_app):
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        dialog = await open_palette(pilot, *"zqxjzqxj")
        assert listed(app) == [NO_MATCH]
        assert dialog.hits == [] and dialog.highlighted is None
        assert "Nothing matches" in help_line(app)
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.screen is dialog and app.current_mode == "memory"
        await pilot.press(*["backspace"] * 8, *"quit")  # back to a match
        await pilot.pause()
        assert listed(app)[0] == "app: Quit hmc  q"


async def test_a_click_runs_the_command(demo_home, make_app):
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        dialog = await open_palette(pilot, *"go to")
        row = next(i for i, (command, _) in enumerate(dialog.hits) if command.title == "go: Go to review mode")
        assert await pilot.click(CommandList, offset=(4, row))
        assert await until(pilot, lambda: app.current_mode == "review")
        assert not isinstance(app.screen, PaletteDialog)


async def test_the_review_export_runs_from_the_palette_and_writes_its_file(demo_home, make_app):
    from tui.screens.review import reports_dir

    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await open_palette(pilot, *"export the review")
        assert listed(app)[0].rsplit("  ", 1)[0] == "review: Export the review as Markdown"
        await pilot.press("enter")
        assert await until(pilot, lambda: list(reports_dir(app.curator).glob("review-*.md")))
        assert app.current_mode == "review"


async def test_ctrl_p_in_the_palette_opens_no_second_one(demo_home, make_app):
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        dialog = await open_palette(pilot, *"go")
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert app.screen is dialog and len(app.screen_stack) == 2


async def test_a_folder_named_like_markup_is_no_profile_and_names_stay_literal(demo_home, make_app):
    """A profile's name is 1-64 of a-z, 0-9, _ and - (the release's rule): a folder named like markup
    is not offered at all, and the profiles view names it as skipped, literally, brackets and all."""
    (demo_home / "profiles" / "[bold red]boss[/]x" / "memories").mkdir(parents=True)  # "/]x" is a folder
    (demo_home / "profiles" / "[link=https:" / "memories").mkdir(parents=True)
    (demo_home / "profiles" / "[link=https:" / "SOUL.md").write_text("x")
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await open_palette(pilot, *"switch profile")
        rows = listed(app)
        assert not any("[bold red]" in row or "[link=" in row for row in rows)
        await pilot.press("escape", "5")
        await settle(app, pilot)
        notice = str(app.screen.query_one("#profiles-notice").render())
        assert "profiles/[link=https:: skipped, not a profile name Hermes accepts" in notice


def test_a_hostile_title_is_literal_with_its_matches_marked():
    command = Command("[b]x[/b] \x1b[2J", "[i]help[/i]", lambda: None, available=False)
    ((found, offsets),) = ranked([command], "b]x")
    content = shown_title(found, offsets)
    assert content.plain == "[b]x[/b] ␛[2J  (not now)"
    marked = {span.start for span in content.spans if "underline" in str(span.style)}
    assert marked == {1, 2, 3}


def test_each_row_ends_with_its_key_lined_up_and_literal():
    from tui.screens.palette_dialog import key_column

    rows = [(Command("memory: Move to profile", "", lambda: None, key="M"), ()),
            (Command("app: Quit hmc", "", lambda: None, key="q"), ()),
            (Command("app: Change theme", "", lambda: None), ()),
            (Command("pending: Approve all", "", lambda: None, available=False, key="[b]A\x1b"), ())]
    width = key_column(rows)
    shown_rows = [shown_title(c, o, width).plain for c, o in rows]
    assert shown_rows[2] == "app: Change theme"  # no key, nothing added
    assert shown_rows[0].endswith("  M") and shown_rows[1].endswith("  q")
    assert shown_rows[3].endswith("(not now)  [b]A␛")  # a key is shown literally too
    assert len({len(r) - len(r.rstrip().split()[-1]) for r in (shown_rows[0], shown_rows[1], shown_rows[3])}) == 1


async def test_the_keys_on_the_rows_are_the_keys_that_work(demo_home, make_app):
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await open_palette(pilot, *"move to profile")
        assert listed(app)[0].split()[-1] == "M"
        await pilot.press("escape")
        await pilot.pause()
        await open_palette(pilot, *"show timeline")
        assert listed(app)[0].split()[-1] == "t"
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("t")  # the key the row named opens what the command opens
        from tui.screens.timeline import TimelineScreen

        assert await until(pilot, lambda: isinstance(app.screen, TimelineScreen))


def test_ranking_prefers_what_applies_now_and_a_whole_word_run():
    run = Command("memory: Approve all", "", lambda: None)
    scattered = Command("pending: Apply a proven rule to all", "", lambda: None)
    greyed = Command("pending: Approve all", "", lambda: None, available=False)
    titles = [c.title for c, _ in ranked([greyed, scattered, run], "approve all")]
    assert titles == ["memory: Approve all", "pending: Approve all", "pending: Apply a proven rule to all"]
    assert [c.title for c, _ in ranked([greyed, run], "  ")] == ["memory: Approve all", "pending: Approve all"]
    assert ranked([run], "zzz") == []


async def test_a_burst_right_behind_ctrl_p_goes_into_the_filter_and_enter_runs_it(demo_home, make_app):
    """ctrl+p, a word and Enter handed over at once (fast typing): the letters land in the filter
    line (none reaches the app: `q` would quit, `t` open the timeline) and Enter runs the match."""
    from textual import events

    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        app.post_message(events.Key("ctrl+p", None))
        for ch in "go to review":
            app.post_message(events.Key("space" if ch == " " else ch, ch))
        app.post_message(events.Key("enter", "\r"))
        assert await until(pilot, lambda: app.current_mode == "review")
        assert not isinstance(app.screen, PaletteDialog) and app.is_running


async def test_a_burst_into_the_open_palette_runs_what_it_typed(demo_home, make_app):
    from textual import events

    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await open_palette(pilot)
        for ch in "go to pending":
            app.post_message(events.Key("space" if ch == " " else ch, ch))
        app.post_message(events.Key("enter", "\r"))
        assert await until(pilot, lambda: app.current_mode == "pending")


def test_a_title_of_repeated_letters_is_matched_by_its_first_placement():
    """Textual's fuzzy search scores every placement of the letters: for a profile named with 80
    e's and a filter of ten, that is C(80, 10) placements (minutes). Past PLACEMENTS_AT_MOST the
    first placement found stands; below it, the search is Textual's."""
    from textual.fuzzy import FuzzySearch

    from tui.screens.palette_dialog import PLACEMENTS_AT_MOST, matched, placements

    title = "app: Switch profile to " + "e" * 80
    assert placements("e" * 10, title.lower()) > PLACEMENTS_AT_MOST
    ((command, offsets),) = ranked([Command(title, "", lambda: None)], "swi" + "e" * 10)
    assert list(offsets) == [5, 6, 7, 18, *range(23, 32)]  # s, w, i; profile's e; nine of the name's
    assert 0 < placements("apall", "pending: approve all") <= PLACEMENTS_AT_MOST
    assert placements("xyz", "pending: approve all") == 0
    search = FuzzySearch()
    for query in ("apall", "export review", "approve all", "zzz"):
        assert matched(search, query, "review: Export the review as Markdown") == search.match(
            query, "review: Export the review as Markdown".lower())


async def test_f1_in_the_palette_explains_it_and_lists_its_keys(demo_home, make_app):
    from tui.screens.help import HelpDialog

    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await open_palette(pilot, *"go")
        await pilot.press("f1")
        dialog = await until_dialog(pilot, HelpDialog)
        keys = shown(dialog.query_one("#help-keys"))
        assert "palette.close" in keys and "palette.run" in keys
        await pilot.press("escape")
        await settle(app, pilot)
        assert isinstance(app.screen, PaletteDialog)
        assert app.screen.query_one("#palette-input").value == "go"


async def test_enter_twice_runs_the_command_once(demo_home, make_app):
    from textual import events

    from tui.screens.dialogs import ConfirmDialog

    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await open_palette(pilot, *"approve all")
        assert listed(app)[0].split() == ["pending:", "Approve", "all", "A"]
        app.post_message(events.Key("enter", "\r"))
        app.post_message(events.Key("enter", "\r"))
        dialog = await until_dialog(pilot, ConfirmDialog)
        await pilot.pause(0.3)
        assert app.screen is dialog and app.current_mode == "pending"
        assert sum(isinstance(s, ConfirmDialog) for s in app.screen_stack) == 1
        await pilot.press("n")
        await settle(app, pilot)
        assert app.is_running and not isinstance(app.screen, (ConfirmDialog, PaletteDialog))
