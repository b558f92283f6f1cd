"""What start-up leaves out of the first frame still arrives: the other screens' styles (screens.tcss,
loaded after the first frame or when another screen first shows), the first screen styled once, and
entry rows measured without being rendered, to the same height."""

from __future__ import annotations

import subprocess
import sys

from textual.css.stylesheet import Stylesheet

import tui.app as app_module
from tests.tui.helpers import settle, until, until_dialog
from textual.visual import RichVisual
from tui.screens.help import HelpDialog
from tui.widgets.entries import EntryList, HangingVisual, entry_prompt


def other_rules(app) -> list:
    sheet = Stylesheet(variables=app.get_css_variables())
    sheet.read(app_module.OTHER_CSS)
    sheet.parse()
    return sheet.rules


async def test_the_other_screens_styles_select_nothing_on_the_first_screen(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        rules = other_rules(app)
        assert rules
        nodes = list(app.screen.walk_children(with_self=True))
        assert len(nodes) > 5
        for node in nodes:  # loading them later can't change what the first frame showed
            matched = [rule.css for rule in rules if list(Stylesheet._check_rule(rule, node.css_path_nodes))]
            assert not matched, f"{node!r}: {matched}"


async def test_a_dialog_opened_before_they_load_is_styled_by_them(demo_home, make_app, monkeypatch):
    monkeypatch.setattr(app_module, "AFTER_FIRST_FRAME", 60.0)  # the load after the first frame never comes
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        assert not app.stylesheet.has_source(str(app_module.OTHER_CSS))
        await pilot.press("question_mark")
        dialog = await until_dialog(pilot, HelpDialog)
        await pilot.pause()
        assert app.stylesheet.has_source(str(app_module.OTHER_CSS))
        assert (dialog.styles.align_horizontal, dialog.styles.align_vertical) == ("center", "middle")  # ModalScreen's
        assert dialog.query_one(".help-dialog").styles.width.value == 110


async def test_they_load_just_after_the_first_frame(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        assert await until(pilot, lambda: app.stylesheet.has_source(str(app_module.OTHER_CSS)))
        assert app.current_mode == "memory" and len(app.screen_stack) == 1


async def test_the_first_screen_is_not_styled_again_when_it_resumes(demo_home, make_app, monkeypatch):
    applied = []
    real_apply = Stylesheet.apply

    def apply(self, node, *args, **kwargs):
        applied.append(node)
        return real_apply(self, node, *args, **kwargs)

    monkeypatch.setattr(Stylesheet, "apply", apply)
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        header = app.screen.query_one("HmcHeader")
        assert applied.count(header) == 1  # as it mounted; the resume (Textual restyles the whole screen) skipped


async def test_an_entry_row_is_as_tall_as_textuals_own_measure_says(demo_home, make_app):
    app = make_app(demo_home)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        lst = app.screen.query_one("#entries-memory", EntryList)
        assert all(isinstance(lst._get_visual(option), HangingVisual) for option in lst.options if option.id != "empty")
        texts = [*app.curator.stores["memory"].last.entries, "", "x" * 300, "a\n\nb\n", "日本語" * 40, "tab\there",
                 "\u202eevil\u200b"]
        for n, text in enumerate(texts):
            for width in (1, 3, 5, 8, 20, 45, 56, 117):
                def row():
                    return entry_prompt(n + 1, text, 2200, ["⚠ scan"], "added 12 Oct · telegram" if n % 2 else None)

                assert HangingVisual(lst, row()).get_height(lst.styles, width) == \
                    RichVisual(lst, row()).get_height(lst.styles, width), (text[:20], width)


def test_a_second_start_reads_config_yaml_without_importing_pyyaml(demo_home):
    """The first start parses config.yaml (PyYAML's import and parse: ~25 ms before the first frame)
    and caches what it read; the next one, in a fresh interpreter, shows its first screen without
    importing PyYAML (core.config_cache). Neither imports the CLI's masking filter (nothing on the
    first screen is masked)."""
    code = (
        "import sys\n"
        "from textual.app import App\n"
        "from tui.app import CuratorApp\n"
        "seen = []\n"
        "async def first_screen(pilot):\n"
        "    from tui.widgets.store_pane import StorePane\n"
        "    seen.append(('yaml' in sys.modules, 'core.scan.mask' in sys.modules,\n"
        "                 len(pilot.app.screen.query(StorePane))))\n"
        "    pilot.app.exit()\n"
        "CuratorApp.run = lambda self, **_: App.run(self, headless=True, size=(120, 36), auto_pilot=first_screen)\n"
        "from tui.cli.common import CliContext\n"
        "from tui.cli.open_tui import run_tui\n"
        f"assert run_tui(CliContext(home={str(demo_home)!r}), lambda ctx: 1) == 0\n"
        "print(seen)\n"
    )
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60) for _ in range(2)]
    assert [r.returncode for r in runs] == [0, 0], [r.stderr for r in runs]
    assert [r.stdout.strip() for r in runs] == ["[(True, False, 2)]", "[(False, False, 2)]"]
