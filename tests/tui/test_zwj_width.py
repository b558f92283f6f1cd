"""An entry holding emoji joined by U+200D (woman + laptop, a family of three) keeps the memory
pane's right border in line: Rich counts such a sequence as one 2-cell picture, a terminal that
doesn't join them (tmux, xterm) paints every part, so the joiner is shown as `\\u200d` instead."""

from __future__ import annotations

from rich.cells import cell_len, get_character_cell_size

from tests.tui.helpers import settle
from tui.literal import fitting

ZWJ = "\u200d"
WOMAN_TECHNOLOGIST = "\U0001F469" + ZWJ + "\U0001F4BB"
FAMILY = "\U0001F468" + ZWJ + "\U0001F469" + ZWJ + "\U0001F467"


def unjoined_width(line: str) -> int:
    """The cells a terminal that joins nothing paints for `line`: each code point on its own."""
    return sum(get_character_cell_size(c) for c in line)


async def test_a_zwj_entry_keeps_the_panes_border_in_line(demo_home, make_app):
    path = demo_home / "memories" / "MEMORY.md"
    entry = f"Team: {WOMAN_TECHNOLOGIST} Inès on the API and {FAMILY} family chat on Sundays."
    path.write_text(entry + "\n§\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        lines = [strip.text for strip in app.screen._compositor.render_strips()]
        shown = "\n".join(lines)
        assert "Team:" in shown and "\\u200d" in shown and ZWJ not in shown
        for line in lines:  # every terminal paints each line in the width Rich laid it out in
            assert unjoined_width(line) == cell_len(line) == 120, line
        row = next(line for line in lines if "Team:" in line)
        border = unjoined_width(lines[3][:lines[3].index("│", 2)])  # MEMORY.md's right border on its title row
        assert unjoined_width(row[:row.index("│", 2)]) == border == 59


def test_fitting_shows_the_joiner_and_keeps_the_other_literal_rules():
    assert fitting(WOMAN_TECHNOLOGIST) == "\U0001F469\\u200d\U0001F4BB"
    assert fitting("a\x1b[31mb\u202ec") == "a␛[31mb\\u202ec"  # as visible() shows them
    assert fitting(None) == ""
