"""The `/` filter line shows its prompt, and every row it keeps highlights the words typed, found by
the rule that kept the row (tui.widgets.filter_match): case-folded, as literal Text ranges, never markup.
Clearing the filter removes the highlight."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from rich.text import Text
from textual.widgets import OptionList

from tests.core.pending_support import build_home, two_staged_writes
from tests.tui.helpers import settle, shown, until
from tui.widgets.filter_match import MATCH_STYLE, filter_words, highlight, match_spans, matches
from tui.widgets.filter_bar import FilterBar

HOSTILE = "Use [bold]pnpm[/] for web, [red]never[/red] PNPM 7 ([link=https://x]here[/link])"


def marked(text: Text) -> list[str]:
    """The parts of `text` styled as filter matches."""
    return [text.plain[s.start:s.end] for s in text.spans if str(s.style) == MATCH_STYLE]


# -- the rule ---------------------------------------------------------------------------------------

def test_the_words_are_case_folded_and_split_on_spaces():
    assert filter_words("  Deploy  KEY ") == ("deploy", "key")
    assert filter_words("   ") == ()


def test_a_row_is_kept_when_every_word_is_in_one_of_its_texts():
    assert matches(("deploy", "key"), "Deploy", "the KEY") is True
    assert matches(("deploy", "key"), "Deploy") is False
    assert matches((), "anything") is True
    assert matches(("straße",), "STRASSE") is False  # casefold of the words too: "strasse" finds it
    assert matches(filter_words("Straße"), "STRASSE") is True
    assert matches(filter_words("cafe"), "café") is False  # accents count, as they always did


def test_the_spans_are_what_the_rule_found_in_the_text_itself():
    assert match_spans(("pn",), "pnpm over npm") == [(0, 2)]
    assert match_spans(("np",), "pnpm over npm") == [(1, 3), (10, 12)]
    assert match_spans(("pnpm", "npm"), "pnpm") == [(0, 4)]  # overlapping matches merge
    assert match_spans(filter_words("STRASSE"), "Die Straße 5") == [(4, 10)]  # ß folds to ss: mapped back
    assert match_spans(filter_words("ss"), "Straße") == [(4, 5)]
    assert match_spans((), "text") == [] and match_spans(("x",), "") == []


def test_the_spans_agree_with_the_rule_on_random_texts():
    """Wherever the rule keeps a text for a word, the spans find it, and cover only folded matches."""
    rng = random.Random(36)
    alphabet = "aAbBßSsİiéE [/]"
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        word = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 3))).casefold().strip()
        if not word or " " in word:
            continue
        spans = match_spans((word,), text)
        assert bool(spans) == matches((word,), text), (text, word)
        for a, b in spans:  # each (merged) range holds the word, folded
            assert word in text[a:b].casefold(), (text, word, spans)


def test_highlight_styles_literal_ranges_and_never_reads_markup():
    row = Text(HOSTILE)
    out = highlight(row, filter_words("pnpm"))
    assert out.plain == HOSTILE  # brackets stay brackets
    assert marked(out) == ["pnpm", "PNPM"]
    assert marked(highlight(row, filter_words("[bold]"))) == ["[bold]"]
    assert highlight(row, ()) is row and highlight(row, ("absent",)) is row and not marked(row)


def test_highlight_stays_inside_its_range():
    row = Text("deploy · deploy · deploy")
    assert [s.start for s in highlight(row, ("deploy",), 9, 15).spans] == [9]


# -- memory mode ------------------------------------------------------------------------------------

@pytest.fixture
def hostile_home(hermes_home) -> Path:
    return build_home(hermes_home, memory=[HOSTILE, "Deploys go through CI only.", "Editor: neovim"])


def entry_body(app, index: int) -> Text:
    lst = app.screen.query_one("#entries-memory")
    for n in range(lst.option_count):
        option = lst.get_option_at_index(n)
        if option.id == f"e{index}":
            return option.prompt.body
    raise AssertionError(f"entry {index} is not listed")


async def test_the_filter_line_shows_its_prompt(hostile_home, make_app):
    app = make_app(hostile_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash")
        await settle(app, pilot)
        bar = app.screen.query_one(FilterBar)
        assert shown(bar).startswith(" / type to narrow")
        await pilot.press(*"pnpm")
        await settle(app, pilot)
        assert bar.value == "pnpm" and shown(bar).startswith(" / pnpm")
        await pilot.press("enter")  # kept: the list has the keyboard, the line still says what filters it
        await settle(app, pilot)
        assert not bar.has_focus and shown(bar).startswith(" / pnpm")


async def test_memory_rows_highlight_the_words_and_show_markup_literally(hostile_home, make_app):
    app = make_app(hostile_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        assert not marked(entry_body(app, 0))
        await pilot.press("slash", *"PNPM never")
        await settle(app, pilot)
        lst = app.screen.query_one("#entries-memory")
        assert lst.numbers == [0]
        body = entry_body(app, 0)
        assert body.plain.startswith(HOSTILE)
        assert marked(body) == ["pnpm", "never", "PNPM"]
        assert "Use [bold]pnpm[/] for web" in shown(lst)  # painted literally
        await pilot.press("escape")  # clears the filter: every entry, no highlight
        await settle(app, pilot)
        assert lst.numbers == [0, 1, 2]
        assert not any(marked(entry_body(app, i)) for i in range(3))


async def test_memory_rows_highlight_a_word_in_brackets(hostile_home, make_app):
    app = make_app(hostile_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("slash", *"[/red]")
        await settle(app, pilot)
        assert app.screen.query_one("#entries-memory").numbers == [0]
        assert marked(entry_body(app, 0)) == ["[/red]"]


# -- the other lists with a filter ----------------------------------------------------------------

async def test_queue_rows_highlight_the_words(hermes_home, make_app):
    app = make_app(two_staged_writes(hermes_home))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("2")
        await settle(app, pilot)
        lst = app.screen.query_one("#pending-list", OptionList)
        assert not marked(lst.get_option_at_index(0).prompt)
        await pilot.press("slash", *"REPL")
        await settle(app, pilot)
        assert lst.option_count == 1
        assert {m.casefold() for m in marked(lst.get_option_at_index(0).prompt)} == {"repl"}
        await pilot.press("escape")
        await settle(app, pilot)
        assert lst.option_count == 2
        assert not any(marked(lst.get_option_at_index(n).prompt) for n in range(2))


async def test_timeline_and_review_rows_highlight_the_words(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("t")
        await until(pilot, lambda: app.screen.query("#tl-writes") and app.screen.query_one("#tl-writes").option_count)
        writes = app.screen.query_one("#tl-writes", OptionList)
        await pilot.press("slash", *"PNPM")
        await settle(app, pilot)
        rows = [writes.get_option_at_index(n).prompt.text for n in range(writes.option_count)]
        assert rows and all("pnpm" in [m.casefold() for m in marked(row)] for row in rows)
        await pilot.press("escape")
        await settle(app, pilot)
        assert not any(marked(writes.get_option_at_index(n).prompt.text) for n in range(writes.option_count))
        await pilot.press("escape", "4")
        await settle(app, pilot)
        await pilot.press("slash", *"Restates")  # in the reason each row shows
        await settle(app, pilot)
        findings = app.screen.query_one("#findings", OptionList)
        details = [findings.get_option_at_index(n).prompt.renderables[1].renderable
                   for n in range(findings.option_count) if findings.get_option_at_index(n).id.startswith("f-")]
        assert details and all([m.casefold() for m in marked(d)] == ["restates"] for d in details)
        await pilot.press("escape")
        await settle(app, pilot)
        assert not any(marked(findings.get_option_at_index(n).prompt.renderables[1].renderable)
                       for n in range(findings.option_count) if findings.get_option_at_index(n).id.startswith("f-"))
