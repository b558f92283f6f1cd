"""Search mode driven through its real keys: type, open a hit, step, scroll, copy, promote, provenance."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Static

from core.demo.build import demo_entries
from core.store.memory import serialize
from tests.core.sessions_fixtures import MARKUP, Msg, build_db, fingerprint
from tui.screens.dialogs import EditEntryDialog
from tui.screens.search import SearchScreen
from tui.widgets.results import ResultsList, plain
from tui.widgets.transcript import Transcript
from tools.shots import workers_done
from tests.tui.helpers import toasts, until_dialog

LONG_SID = "20261019_000000_a0a0a0"


@pytest.fixture
def home(hermes_home) -> Path:
    """A small home: empty-ish memory files and the fixture state.db plus one 400-message session."""
    memories = hermes_home / "memories"
    memories.mkdir(parents=True)
    (memories / "MEMORY.md").write_text(serialize(["Project uses pnpm"]))
    (memories / "USER.md").write_text("Name: Ana")
    long = [Msg("user" if i % 2 else "assistant", f"step {i} of the long migration"
                + (" with a needle here" if i in (10, 200, 390) else "")) for i in range(400)]
    build_db(hermes_home / "state.db", extra=[(LONG_SID, "cli", long)])
    return hermes_home


@pytest.fixture
def db_untouched(home):
    before = fingerprint(home / "state.db")
    yield
    assert fingerprint(home / "state.db") == before


@pytest.fixture
def demo_db_untouched(demo_home):
    before = fingerprint(demo_home / "state.db")
    yield
    assert fingerprint(demo_home / "state.db") == before


async def settle(pilot, delay: float = 0.0) -> None:
    await pilot.pause(delay)
    await workers_done(pilot.app)
    await pilot.pause()
    await workers_done(pilot.app)
    await pilot.pause()


async def open_search(pilot) -> SearchScreen:
    await pilot.press("3")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, SearchScreen)
    return screen


async def type_query(pilot, text: str, *, keys: bool = False) -> None:
    """Put *text* in the search box (as keystrokes when *keys*, which is slower) and wait for the hits."""
    screen = pilot.app.screen
    box = screen.query_one("#search-query", Input)
    if keys:
        await pilot.press(*text)
        await settle(pilot, 0.25)  # past the typing debounce
        return
    box.value = text
    box.cursor_position = len(text)
    screen.start_search()  # what the debounce timer does 150 ms later (it then finds nothing new to run)
    await settle(pilot)


def status(screen) -> str:
    return str(screen.query_one("#search-status", Static).render())


def visible(transcript: Transcript, index: int) -> bool:
    top = transcript._index_to_line[index]
    bottom = top + transcript._heights[index]
    return transcript.scroll_y <= top and bottom <= transcript.scroll_y + transcript.scrollable_content_region.height


async def test_empty_query_lists_recent_sessions(home, make_app, db_untouched):
    async with make_app(home).run_test(size=(120, 36)) as pilot:
        screen = await open_search(pilot)
        results = screen.query_one(ResultsList)
        assert results.kind == "sessions"
        assert results.items[0].id == LONG_SID  # most recent activity first
        assert "Recent sessions" in status(screen)
        assert screen.query_one("#search-query", Input).has_focus


async def test_typing_searches_and_enter_lands_on_the_hit(home, make_app, db_untouched):
    async with make_app(home).run_test(size=(120, 36)) as pilot:
        screen = await open_search(pilot)
        await type_query(pilot, "needle", keys=True)  # search as you type
        results = screen.query_one(ResultsList)
        assert results.kind == "hits" and len(results.items) == 3
        assert "3 hits" in status(screen)
        await pilot.press("down")  # from the box to the results
        assert results.has_focus
        await pilot.press("down", "enter")
        await settle(pilot)
        hit = results.items[1]
        transcript = screen.query_one(Transcript)
        assert screen.view == "transcript" and transcript.has_focus
        current = transcript.current()
        assert current.id == hit.message_id and "needle" in current.content
        assert visible(transcript, transcript.highlighted)
        assert transcript.hit_ids == sorted(h.message_id for h in results.items)
        assert "match 2 of 3" in str(screen.query_one("#transcript-title", Static).render())
        # the window is small: the session isn't loaded whole
        assert len(transcript.messages) < 120


@pytest.mark.long
async def test_n_and_N_step_through_matches_across_windows(home, make_app, db_untouched):
    async with make_app(home).run_test(size=(120, 36)) as pilot:
        screen = await open_search(pilot)
        await type_query(pilot, "needle")
        await pilot.press("enter")  # Enter in the box: search now, focus the results
        await pilot.press("enter")
        await settle(pilot)
        transcript = screen.query_one(Transcript)
        ids = transcript.hit_ids
        assert transcript.current().id == screen.query_one(ResultsList).items[0].message_id
        order = sorted(ids)
        start = order.index(transcript.current().id)
        for step in range(1, len(order) - start):
            await pilot.press("n")
            await settle(pilot)
            assert transcript.current().id == order[start + step]
            assert visible(transcript, transcript.highlighted)
        await pilot.press("N")
        await settle(pilot)
        assert transcript.current().id == order[-2]


async def test_scrolling_loads_more_messages(home, make_app, db_untouched):
    async with make_app(home).run_test(size=(120, 36)) as pilot:
        screen = await open_search(pilot)
        await type_query(pilot, '"step 200 of"')
        await pilot.press("enter", "enter")
        await settle(pilot)
        transcript = screen.query_one(Transcript)
        first, last = transcript.messages[0].id, transcript.messages[-1].id
        assert transcript.has_before and transcript.has_after
        await pilot.press("home")
        await settle(pilot)
        assert transcript.messages[0].id < first  # older messages arrived
        await pilot.press("end")
        await settle(pilot)
        assert transcript.messages[-1].id > last  # and newer ones
        ids = [m.id for m in transcript.messages]
        assert ids == sorted(set(ids))


async def test_escape_returns_with_the_selection_kept(home, make_app, db_untouched):
    async with make_app(home).run_test(size=(120, 36)) as pilot:
        screen = await open_search(pilot)
        await type_query(pilot, "deploy")
        await pilot.press("down", "down", "down", "enter")
        await settle(pilot)
        assert screen.view == "transcript"
        await pilot.press("escape")
        results = screen.query_one(ResultsList)
        assert screen.view == "results" and results.has_focus and results.highlighted == 2
        keys = [b.binding.action for b in screen.active_bindings.values() if b.enabled and b.binding.show]
        assert "back" not in keys and "leave_query" not in keys  # the footer offers no Escape on the list
        since = screen.query_one("#filter-since", Input)
        since.focus()
        await pilot.pause()
        await pilot.press("escape")  # a filter's text box is left the same way as the query's
        assert results.has_focus and since.value == ""
        await pilot.press("escape", "escape", "1")  # Esc never moves into a text box: 1 switches mode
        await pilot.pause()
        assert screen.query_one("#search-query", Input).value == "deploy"
        assert pilot.app.current_mode == "memory"


async def test_escape_leaves_the_search_box_so_mode_keys_work(home, make_app, db_untouched):
    async with make_app(home).run_test(size=(120, 36)) as pilot:
        app = pilot.app
        screen = await open_search(pilot)
        box = screen.query_one("#search-query", Input)
        assert box.has_focus
        keys = [b.binding.action for b in screen.active_bindings.values() if b.enabled and b.binding.show]
        assert "leave_query" in keys and "back" not in keys  # the footer says what Escape does here
        await type_query(pilot, "deploy")
        await pilot.press("escape")
        assert screen.results.has_focus and box.value == "deploy"  # the query is kept
        await pilot.press("1")
        await pilot.pause()
        assert app.current_mode == "memory"


async def test_escape_in_an_empty_box_with_no_results_still_frees_the_keyboard(home, make_app, db_untouched):
    async with make_app(home).run_test(size=(120, 36)) as pilot:
        app = pilot.app
        screen = await open_search(pilot)
        await type_query(pilot, "zzqqxxnothinglikethis")
        # the box emptied, its search run now (the debounce then finds nothing new to run: on a
        # loaded box it used to fill the list after the line below, and Escape had results to go to)
        await type_query(pilot, "")
        screen.results.show([], 0, kind="hits")
        await pilot.press("escape")
        assert screen.results.has_focus
        assert any("Left the search box" in str(n.message) for n in toasts(app))
        await pilot.press("escape")  # stays on the list (/ goes back to the box)
        assert screen.results.has_focus
        await pilot.press("slash")
        assert screen.query_one("#search-query", Input).has_focus
        await pilot.press("escape", "q")
        await pilot.pause()
        assert not app.is_running


async def test_filter_labels_are_unambiguous(home, make_app, db_untouched):
    async with make_app(home).run_test(size=(120, 36)) as pilot:
        screen = await open_search(pilot)
        assert str(screen.query_one("#filter-hidden").label) == "include hidden sources"
        since = screen.query_one("#filter-since", Input).placeholder
        until = screen.query_one("#filter-until", Input).placeholder
        assert since.startswith("since ") and until.startswith("until ")
        assert since.split(" ", 1)[1].split()[:2] == until.split(" ", 1)[1].split()[:2]  # "date or"


async def test_80_columns_wrap_the_filters_and_the_error(home, make_app, db_untouched):
    async with make_app(home).run_test(size=(80, 30)) as pilot:
        screen = await open_search(pilot)
        for name in ("#filter-source", "#filter-role", "#filter-since", "#filter-until", "#filter-sort",
                     "#filter-hidden"):
            region = screen.query_one(name).region
            assert region.right <= 80 and region.height == 1, name
        await type_query(pilot, 'deploy "unclosed')
        error = screen.query_one("#search-status")
        assert error.has_class("-error") and error.region.height >= 2
        assert "remove the quote" in status(screen)
        await pilot.resize_terminal(140, 36)  # wide enough for one line again
        await pilot.pause()
        assert screen.query_one("#search-filters").region.height == 1
        assert screen.query_one("#filter-hidden").region.right <= 140


def test_wrapped_rows_hang_under_their_text():
    from core.sessions.search import Hit

    hit = Hit(session_id="s", message_id=1, role="user", timestamp=0.0, source="cli", title="T",
              snippet=(("word " * 30, False),), tool_name=None)
    from tui.widgets.results import hit_prompt

    lines = plain(hit_prompt(hit, 0.0), width=60).splitlines()
    assert lines[1].startswith("  user      word")  # role, a space, then the snippet
    assert len(lines) > 2 and all(line.startswith(" " * 12) for line in lines[2:])


async def test_copy_link(home, make_app, db_untouched):
    async with make_app(home).run_test(size=(120, 36)) as pilot:
        app = pilot.app
        await open_search(pilot)
        await type_query(pilot, "needle")
        await pilot.press("down", "c")
        assert app.clipboard == f"@session:default/{LONG_SID}"
        await pilot.press("enter")
        await settle(pilot)
        app.copy_to_clipboard("")
        await pilot.press("c")
        assert app.clipboard == f"@session:default/{LONG_SID}"


async def test_promote_a_message_to_memory(home, make_app, db_untouched):
    async with make_app(home).run_test(size=(120, 36)) as pilot:
        screen = await open_search(pilot)
        await type_query(pilot, "café")
        await pilot.press("down", "enter")
        await settle(pilot)
        assert screen.query_one(Transcript).current().content == "Thanks! Le café est prêt."
        await pilot.press("m")
        await pilot.pause(0.1)  # (not settle: the promote worker waits on the dialog)
        dialog = pilot.app.screen
        assert isinstance(dialog, EditEntryDialog)
        await pilot.press("ctrl+s")
        await settle(pilot)
        text = (home / "memories" / "MEMORY.md").read_text(encoding="utf-8")
        assert text == serialize(["Project uses pnpm", "Thanks! Le café est prêt."])


async def test_promote_to_user_md_with_an_edit(home, make_app, db_untouched):
    async with make_app(home).run_test(size=(120, 36)) as pilot:
        await open_search(pilot)
        await type_query(pilot, '"How do I deploy"')
        await pilot.press("down", "m")  # from the results list: the hit's message
        await pilot.pause(0.2)
        await until_dialog(pilot, EditEntryDialog)  # its worker may compute first: later on a loaded box
        assert isinstance(pilot.app.screen, EditEntryDialog)
        await pilot.press("ctrl+t", "end", *" (asked often)", "ctrl+s")
        await settle(pilot)
        user = (home / "memories" / "USER.md").read_text(encoding="utf-8")
        assert user == serialize(["Name: Ana", "How do I deploy the staging server? (asked often)"])


async def test_bad_queries_and_markup_are_harmless(home, make_app, db_untouched):
    async with make_app(home).run_test(size=(120, 36)) as pilot:
        screen = await open_search(pilot)
        await type_query(pilot, '"unclosed')
        assert "Unbalanced quote" in status(screen)
        for bad in ("NOT x", "NEAR(a", "*", "()", "x" * 2100):
            await type_query(pilot, bad)
            assert screen.query_one("#search-status").has_class("-error"), bad
        await type_query(pilot, '"not bold"')
        results = screen.query_one(ResultsList)
        assert len(results.items) == 1
        shown = plain(results.get_option_at_index(0).prompt)
        assert "[bold red]not bold[/]" in shown and "\x1b" not in shown and "␛[31m" in shown
        await pilot.press("enter", "enter")
        await settle(pilot)
        transcript = screen.query_one(Transcript)
        assert transcript.current().content == MARKUP
        assert "␛[31mred?␛[0m" in str(transcript.get_option_at_index(transcript.highlighted).prompt)


async def test_filters_narrow_the_results(home, make_app, db_untouched):
    async with make_app(home).run_test(size=(120, 36)) as pilot:
        screen = await open_search(pilot)
        await type_query(pilot, "deploy")
        everything = len(screen.query_one(ResultsList).items)
        screen.query_one("#filter-role").value = "user"
        await settle(pilot)
        users = screen.query_one(ResultsList).items
        assert 0 < len(users) < everything and {h.role for h in users} == {"user"}
        screen.query_one("#filter-hidden").value = True
        await settle(pilot)
        assert "subagent" in {h.source for h in screen.query_one(ResultsList).items}
        since = screen.query_one("#filter-since", Input)
        since.focus()
        await pilot.press(*"yesterday", "enter")
        await settle(pilot)
        assert "is not a date" in status(screen)


async def test_cjk_search(home, make_app, db_untouched):
    async with make_app(home).run_test(size=(120, 36)) as pilot:
        screen = await open_search(pilot)
        await type_query(pilot, "桂林山水")
        items = screen.query_one(ResultsList).items
        assert len(items) == 1 and "substring index" in status(screen)
        assert ("桂林山水", True) in items[0].snippet


async def test_missing_state_db_is_said_plainly(hermes_home, make_app):
    (hermes_home / "memories").mkdir(parents=True)
    async with make_app(hermes_home).run_test(size=(120, 36)) as pilot:
        screen = await open_search(pilot)
        assert "No session database" in status(screen)
        await type_query(pilot, "deploy")
        assert "No session database" in status(screen)
        assert not (hermes_home / "state.db").exists()


async def test_provenance_opens_where_an_entry_was_written(demo_home, make_app, demo_db_untouched):
    entry = next(e for e in demo_entries() if e.provenance and e.target == "memory")
    async with make_app(demo_home).run_test(size=(120, 36)) as pilot:
        app = pilot.app
        await pilot.pause()
        app.open_provenance(entry.text)
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SearchScreen) and screen.view == "transcript"
        current = screen.query_one(Transcript).current()
        assert "memory" in current.tool_call_names()
        assert entry.text.split()[0] in current.tool_calls
        assert "Esc back to memory" in str(screen.query_one("#transcript-title", Static).render())
        await pilot.press("escape")  # back where the person came from, not to an unrelated list
        await pilot.pause()
        assert app.current_mode == "memory"
        await pilot.press("3")
        await pilot.pause()
        assert app.screen.view == "results" and not app.screen.from_memory


async def test_escape_from_a_search_hit_still_returns_to_the_results(demo_home, make_app, demo_db_untouched):
    entry = next(e for e in demo_entries() if e.provenance and e.target == "memory")
    async with make_app(demo_home).run_test(size=(120, 36)) as pilot:
        app = pilot.app
        await pilot.pause()
        app.open_provenance(entry.text)
        await settle(pilot)
        screen = app.screen
        screen.focus_query()  # `/` from the origin transcript: a plain search from here on
        await type_query(pilot, "deploy")
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        assert screen.view == "transcript"
        await pilot.press("escape")
        assert app.current_mode == "search" and screen.view == "results" and screen.results.highlighted == 1


async def test_provenance_not_found_shows_a_clear_state_and_nothing_else(demo_home, make_app, demo_db_untouched):
    """Issue 12 bug 1: no 'Looking for…' line over the previously opened, unrelated transcript."""
    async with make_app(demo_home).run_test(size=(120, 36)) as pilot:
        app = pilot.app
        screen = await open_search(pilot)
        await type_query(pilot, "zanzibarquux")
        await pilot.press("down", "enter")  # an unrelated transcript is open first
        await settle(pilot)
        assert screen.transcript.messages
        await pilot.press("1")
        await pilot.pause()
        app.open_provenance("An entry nobody ever wrote through the memory tool")
        await settle(pilot)
        assert app.screen is screen and screen.view == "transcript"
        assert screen.transcript.messages == [] and screen.transcript.option_count == 0
        title = str(screen.query_one("#transcript-title", Static).render())
        assert title.startswith("Origin not found") and "Looking for" not in title
        assert "An entry nobody ever wrote through the memory tool" in title
        await pilot.press("escape")  # back where the person came from
        await pilot.pause()
        assert app.current_mode == "memory"


async def test_o_in_memory_mode_opens_the_origin(demo_home, make_app, demo_db_untouched):
    async with make_app(demo_home).run_test(size=(120, 36)) as pilot:
        app = pilot.app
        await pilot.pause()
        entries = app.curator.stores["memory"].last.entries
        index = next(i for i, e in enumerate(entries) if e in {d.text for d in demo_entries() if d.provenance})
        for _ in range(index):
            await pilot.press("down")
        await pilot.press("o")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SearchScreen) and screen.view == "transcript"
        assert "memory" in screen.query_one(Transcript).current().tool_call_names()


@pytest.fixture
def work_profile(home) -> Path:
    work = home / "profiles" / "work"
    (work / "memories").mkdir(parents=True)
    (work / "SOUL.md").write_text("x")  # a profile as `hermes profile create` leaves it
    build_db(work / "state.db", "none", extra=[("20261020_000000_w0w0w0", "cli", [Msg("user", "only at work: kraken")])])
    return work


async def test_switching_profile_searches_the_other_state_db(home, work_profile, make_app, db_untouched):
    async with make_app(home).run_test(size=(120, 36)) as pilot:
        screen = await open_search(pilot)
        await type_query(pilot, "kraken")
        assert screen.query_one(ResultsList).items == []
        pilot.app.switch_profile("work")
        await settle(pilot)
        items = screen.query_one(ResultsList).items
        assert [h.session_id for h in items] == ["20261020_000000_w0w0w0"]
        await pilot.press("down", "c")
        assert pilot.app.clipboard == "@session:work/20261020_000000_w0w0w0"


async def test_all_profiles_switch_searches_every_state_db_and_marks_the_profile(home, work_profile, make_app,
                                                                                  db_untouched):
    from textual.widgets import Checkbox

    async with make_app(home).run_test(size=(120, 36)) as pilot:
        screen = await open_search(pilot)
        switch = screen.query_one("#filter-profiles", Checkbox)
        assert switch.display  # two profiles: the switch is offered
        await type_query(pilot, "kraken")
        assert screen.query_one(ResultsList).items == []
        switch.value = True
        await settle(pilot)
        (hit,) = screen.query_one(ResultsList).items
        assert hit.profile == "work" and hit.session_id == "20261020_000000_w0w0w0"
        row = plain(screen.query_one(ResultsList).get_option_at_index(0).prompt)
        assert "[work]" in row and "2 profiles" in status(screen)
        await pilot.press("down", "c")
        assert pilot.app.clipboard == "@session:work/20261020_000000_w0w0w0"
        await pilot.press("enter")  # opens from the work profile's state.db
        await settle(pilot)
        assert screen.view == "transcript" and "kraken" in screen.query_one(Transcript).current().content
        assert pilot.app.curator.home.profile == "default"


async def test_all_profiles_switch_is_hidden_with_one_profile(home, make_app, db_untouched):
    from textual.widgets import Checkbox

    async with make_app(home).run_test(size=(120, 36)) as pilot:
        screen = await open_search(pilot)
        assert not screen.query_one("#filter-profiles", Checkbox).display


async def test_ctrl_o_switches_all_profiles_from_the_search_box(home, work_profile, make_app, db_untouched):
    """The all-profiles switch has a key (and so a palette entry, 'search: Search all profiles')."""
    from textual.widgets import Checkbox

    async with make_app(home).run_test(size=(120, 36)) as pilot:
        screen = await open_search(pilot)
        await type_query(pilot, "kraken")
        assert screen.query_one(ResultsList).items == []
        assert isinstance(screen.focused, Input)  # typed in the box: the key works there too
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert screen.query_one("#filter-profiles", Checkbox).value
        assert [h.profile for h in screen.query_one(ResultsList).items] == ["work"]
        assert screen.query_one("#search-query", Input).value == "kraken"  # nothing typed into the box
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert not screen.query_one("#filter-profiles", Checkbox).value
        assert screen.query_one(ResultsList).items == []


async def test_ctrl_o_with_one_profile_says_why(home, make_app, db_untouched):
    from textual.widgets import Checkbox

    async with make_app(home).run_test(size=(120, 36)) as pilot:
        screen = await open_search(pilot)
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert not screen.query_one("#filter-profiles", Checkbox).value
        assert toasts(pilot.app)[-1].message == (
            "Search all profiles: ~/.hermes has only the default profile")


def test_a_refused_memory_result_is_marked_in_the_transcript():
    """A memory tool result that says no gets the release's reason said for a person, in red, under
    it, literally (markup in the reason stays text); a result that wrote, or another tool's failure,
    gets nothing."""
    import json

    from core.sessions.model import Message
    from tui.widgets.transcript import message_prompt

    def shown(content: str, tool: str = "memory") -> str:
        m = Message(id=7, session_id="s", role="tool", content=content, timestamp=None, tool_name=tool)
        return plain(message_prompt(m, (), is_hit=False, expanded=False, current=False), width=200)

    full = json.dumps({"success": False, "error": "Memory at 2,150/2,200 chars. Adding this entry (120 chars) "
                                                  "would exceed the limit. Replace or remove existing entries first."})
    text = shown(full)
    assert "✗ the memory tool refused it:" in text and "2,150/2,200" in text
    assert "✗" not in shown(json.dumps({"success": True, "message": "Entry added."}))
    assert "✗" not in shown(json.dumps({"success": False, "error": "no such file"}), tool="terminal")
    assert "[bold]no[/bold]" in shown(json.dumps({"success": False, "error": "[bold]no[/bold]"}))
    assert "it gave no reason" in shown(json.dumps({"success": False}))


def _grafana_token() -> str:
    """A Grafana service-account token's shape, built at run time (never a literal in the repo)."""
    import random
    import string

    rng = random.Random(34)
    return "glsa_" + "".join(rng.choices(string.ascii_letters + string.digits, k=32)) + "_" + "".join(
        rng.choices("0123456789abcdef", k=8))


def test_secrets_in_messages_are_masked_in_the_transcript_and_the_hits():
    """The search transcript and the hit list mask a token as `hmc session` does (a match inside
    the token shows no piece of it), in a message body, a collapsed tool line and expanded
    arguments."""
    import json

    from core.sessions.model import Message
    from core.sessions.query import parse_query
    from core.sessions.search import Hit
    from tui.widgets.results import hit_prompt
    from tui.widgets.transcript import message_prompt

    token = _grafana_token()
    terms = parse_query(token[5:15]).terms  # a search for part of the token itself

    def shown(m, expanded=False):
        return plain(message_prompt(m, terms, is_hit=True, expanded=expanded, current=True), width=300)

    body = Message(id=1, session_id="s", role="user", content=f"the grafana service token is {token}",
                   timestamp=None)
    tool = Message(id=2, session_id="s", role="tool", content=f"line one {token}\nline two", timestamp=None,
                   tool_name="terminal")
    call = Message(id=3, session_id="s", role="assistant", content="",
                   tool_calls=json.dumps([{"id": "c", "function": {"name": "memory", "arguments": json.dumps(
                       {"action": "add", "content": f"Grafana token {token}"})}}]), timestamp=None)
    for text in (shown(body), shown(tool), shown(tool, expanded=True), shown(call, expanded=True)):
        assert token[5:15] not in text and token[-6:-1] not in text[:-1] or "…" in text
        assert token not in text
    assert "glsa_" in shown(body)  # masked as the CLI masks: the shape's start stays
    hit = Hit(session_id="s", message_id=1, role="user", timestamp=0.0, source="cli", title="T",
              snippet=(("token is ", False), (token[:15], True), (token[15:], False)), tool_name=None)
    row = plain(hit_prompt(hit, 0.0), width=300)
    assert token not in row and token[5:15] not in row


async def test_the_search_screen_never_shows_a_token_a_session_holds(hermes_home, make_app):
    """Driven with the real keys: a query for the message's words lands on the hit, and neither
    the list nor the transcript shows the token."""
    token = _grafana_token()
    (hermes_home / "memories").mkdir(parents=True)
    build_db(hermes_home / "state.db", extra=[("20261020_000000_aaaaaa", "cli",
                                               [Msg("user", f"remember the grafana service token is {token}")])])
    async with make_app(hermes_home).run_test(size=(120, 36)) as pilot:
        screen = await open_search(pilot)
        await type_query(pilot, "grafana service", keys=True)
        results = screen.query_one(ResultsList)
        assert results.kind == "hits" and results.items
        await pilot.press("down", "enter")
        await settle(pilot)
        rows = [plain(o.prompt) for o in results._options]
        shown = [plain(o.prompt) for o in screen.query_one(Transcript)._options]
        assert any("grafana service token is glsa_" in t for t in shown)
        title = str(screen.query_one("#transcript-title", Static).render())
        assert "glsa_" in title and token not in title
        assert not any(token in t or token[5:20] in t for t in rows + shown), rows + shown


@pytest.mark.parametrize("reading", [False, True], ids=["from-the-box", "from-a-transcript"])
async def test_a_palette_profile_switch_leaves_the_keyboard_in_the_query_box(demo_home, make_app, reading):
    """ctrl+p, "Switch profile to ops": the keys typed next go to the query box, where the cursor
    shows. From a transcript, the switch closes it (it was the other profile's) and the focus went
    nowhere: `t` opened the timeline while the box looked focused."""
    from tui.screens.timeline import TimelineScreen

    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_search(pilot)
        await type_query(pilot, "migration")
        if reading:
            await pilot.press("escape", "enter")  # the results, then the first hit's session
            await settle(pilot)
            assert screen.view == "transcript" and screen.focused is screen.transcript
        await pilot.press("ctrl+p", *"switch profile to ops")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        box = screen.query_one("#search-query", Input)
        assert app.curator.home.profile == "ops" and app.screen is screen and screen.view == "results"
        assert screen.focused is box and box.has_focus
        await pilot.press("t")
        await settle(pilot)
        assert app.screen is screen and not isinstance(app.screen, TimelineScreen)
        assert box.value == "migrationt"


@pytest.fixture
def forms_home(hermes_home) -> Path:
    """A home whose state.db holds several forms of the same words (tests/core/test_sessions_stems.py)."""
    from tests.core.test_sessions_stems import FORMS

    (hermes_home / "memories").mkdir(parents=True)
    build_db(hermes_home / "state.db", extra=[("s-forms", "cli", FORMS)])
    return hermes_home


async def test_few_hits_offer_the_stem_and_ctrl_y_searches_it(forms_home, make_app):
    """`миграция` finds one message and misses `миграцию`: the status offers `миграц*` (never
    searched by itself), and ctrl+y puts it in the box and searches it."""
    before = fingerprint(forms_home / "state.db")
    async with make_app(forms_home).run_test(size=(120, 36)) as pilot:
        screen = await open_search(pilot)
        await type_query(pilot, "миграция", keys=True)
        results = screen.query_one(ResultsList)
        assert len(results.items) == 1
        assert "Few hits — try миграц* (finds миграцию, 2 messages)  — ctrl+y searches the first" in status(screen)
        await pilot.press("ctrl+y")
        await settle(pilot, 0.25)  # past the typing debounce
        assert screen.query_one("#search-query", Input).value == "миграц*"
        assert len(results.items) == 2 and "Few hits" not in status(screen)
    assert fingerprint(forms_home / "state.db") == before


async def test_the_stem_offered_is_counted_with_the_filters_and_ctrl_y_keeps_them(forms_home, make_app):
    """Under the role filter `user`, `миграция` finds nothing and `миграц*` finds the user's one
    `миграцию`: offered as 1 message (not the index's 2), and ctrl+y searches it with the filter
    kept. Under `assistant`, the word already finds what the stem would: nothing is offered."""
    async with make_app(forms_home).run_test(size=(120, 36)) as pilot:
        screen = await open_search(pilot)
        screen.query_one("#filter-role").value = "user"
        await settle(pilot)
        await type_query(pilot, "миграция", keys=True)
        results = screen.query_one(ResultsList)
        assert len(results.items) == 0
        assert "Few hits — try миграц* (finds миграцию, 1 message)" in status(screen)
        await pilot.press("ctrl+y")
        await settle(pilot, 0.25)
        assert [h.role for h in results.items] == ["user"]
        screen.query_one("#filter-role").value = "assistant"
        await settle(pilot)
        box = screen.query_one("#search-query", Input)
        box.value = "миграция"
        await settle(pilot, 0.25)
        assert len(results.items) == 1 and "Few hits" not in status(screen)


@pytest.mark.parametrize("query", ['"миграция"', "миграция OR invoices", "数据库迁移"])
async def test_no_stem_for_a_phrase_an_operator_or_chinese(forms_home, make_app, query):
    async with make_app(forms_home).run_test(size=(120, 36)) as pilot:
        screen = await open_search(pilot)
        await type_query(pilot, query)
        assert screen.query_one(ResultsList).items
        assert "Few hits" not in status(screen)


@pytest.mark.parametrize("width", [80, 100, 120, 147, 148, 180])
async def test_every_filter_is_on_screen_at_any_width_from_the_first_visit(demo_home, make_app, width):
    """The filter row is laid out for the width the screen opens at (no resize needed): below 130
    columns (148 with the all-profiles switch, as in the demo) it becomes a grid, and no filter runs
    past the screen's edge."""
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(width, 36)) as pilot:
        await pilot.press("3")
        await pilot.pause(0.3)
        screen = app.screen
        assert isinstance(screen, SearchScreen)
        bar = screen.query_one("#search-filters")
        shown = [w for w in bar.children if w.display]
        assert len(shown) == 7  # the demo has several profiles: the all-profiles switch shows
        for w in shown:
            assert w.region.right <= width, (w.id, w.region, width)
        rows = {w.region.y for w in shown}
        assert len(rows) == (1 if width >= 148 else 3), (width, sorted(rows))
