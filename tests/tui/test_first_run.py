"""The first-run screen (issue 12, bug 10): `hmc` on a folder that isn't a Hermes home asks first.

Create (the same folders `--init` makes, then the app opens on them), try the demo, or quit with
nothing created; a folder that can't be created says why in one line. Without a terminal the TUI
refuses as the CLI does (exit 2)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import Static

import tui.cli.open_tui as first_run_module
from core.home import init_home, is_hermes_home
from tui.app import CuratorApp
from tui.cli.main import main
from tui.screens.first_run import CREATED, DEMO, MISSING, NOT_HOME, QUIT, FirstRunApp

ROOT_USER = hasattr(os, "geteuid") and os.geteuid() == 0


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.fixture
def work(tmp_path) -> Path:
    """A folder of the test's own (tmp_path also holds the isolated user folder)."""
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


@pytest.fixture
def drive_tui(monkeypatch):
    """Run `hmc` as if in a terminal: the first-run screen gets `keys`; the app that would open
    next records which home it opened on (and what memory mode shows) instead of taking over."""
    opened: list[tuple[Path, str]] = []
    real_run = FirstRunApp.run

    def run(keys):
        def first_run_app(self, **_):
            async def press(pilot):
                await pilot.pause()
                for key in keys:
                    await pilot.press(key)
                    await pilot.pause()

            return real_run(self, headless=True, size=(120, 36), auto_pilot=press)

        def curator_app(self, **_):
            async def look(pilot):
                await pilot.pause()
                opened.append((self.curator.home.root, type(pilot.app.screen).__name__))
                pilot.app.exit()

            return real_curator_run(self, headless=True, size=(120, 36), auto_pilot=look)

        monkeypatch.setattr(FirstRunApp, "run", first_run_app)
        monkeypatch.setattr(CuratorApp, "run", curator_app)
        monkeypatch.setattr(first_run_module, "has_terminal", lambda: True)
        return opened

    real_curator_run = CuratorApp.run
    return run


# -- the whole path: hmc --home DIR -------------------------------------------------------------------


def test_create_makes_what_init_makes_and_the_app_opens_on_it(work, drive_tui):
    target = work / "new" / "home"
    opened = drive_tui(["y"])
    assert main(["--home", str(target)]) == 0
    assert (target / "memories").is_dir() and is_hermes_home(target)
    assert stat.S_IMODE((target / "memories").stat().st_mode) == 0o700  # owner-only, as Hermes makes it
    assert listing(work / "new") == ["home", "home/memories"]  # nothing else
    assert opened == [(target.resolve(), "MemoryScreen")]
    # what --init makes on the command line is the same
    other = work / "cli" / "home"
    assert subprocess.run([sys.executable, "-m", "tui.cli", "--home", str(other), "--init", "status"],
                          capture_output=True, text=True, timeout=60).returncode == 0
    assert listing(work / "cli") == listing(work / "new")


def test_an_existing_folder_gains_only_memories(work, drive_tui):
    folder = work / "project"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    opened = drive_tui(["enter"])  # Enter presses the focused button: Create
    assert main(["--home", str(folder)]) == 0
    assert listing(folder) == ["memories", "notes.txt"] and (folder / "notes.txt").read_text() == "mine"
    assert [root for root, _ in opened] == [folder.resolve()]
    opened.clear()
    assert main(["--home", str(folder)]) == 0  # a home now: no question, straight to the app
    assert [root for root, _ in opened] == [folder.resolve()]


@pytest.mark.parametrize("key", ["n", "escape", "q", "3"])
def test_quit_creates_nothing(work, drive_tui, key):
    empty, missing = work / "empty", work / "missing"
    empty.mkdir()
    opened = drive_tui([key])
    assert main(["--home", str(empty)]) == 0
    assert main(["--home", str(missing)]) == 0
    assert listing(work) == ["empty"] and opened == []


def test_demo_opens_hmc_demo_instead(work, drive_tui, monkeypatch):
    import tui.cli.demo as demo

    asked = []
    monkeypatch.setattr(demo, "run", lambda args, ctx: asked.append((args.dir, args.fresh, args.no_tui)) or 0)
    opened = drive_tui(["d"])
    empty = work / "empty"
    empty.mkdir()
    assert main(["--home", str(empty)]) == 0
    assert asked == [(None, False, False)]  # exactly `hmc demo`
    assert listing(empty) == [] and opened == []


def test_init_skips_the_question(work, drive_tui):
    opened = drive_tui(["n"])  # would quit if asked
    target = work / "home"
    assert main(["--home", str(target), "--init"]) == 0
    assert [root for root, _ in opened] == [target.resolve()] and (target / "memories").is_dir()


def test_default_home_is_asked_about_too(work, drive_tui, isolated_user):
    opened = drive_tui(["n"])
    assert main([]) == 0  # ~/.hermes doesn't exist
    assert not (isolated_user / ".hermes").exists() and opened == []


# -- the screen itself ------------------------------------------------------------------------------


async def test_the_screen_says_what_it_found(work):
    folder = work / "project"
    folder.mkdir()
    for name in ("a.txt", "b.txt"):
        (folder / name).write_text("x")
    app = FirstRunApp(folder, NOT_HOME, "--home")
    async with app.run_test(size=(80, 24)) as pilot:
        body = str(app.query_one("#first-run-body", Static).render())
        assert str(folder) in body and "(--home)" in body and "not a Hermes home" in body
        assert "no config.yaml, no memories/ folder and no state.db" in body and "2 other files" in body
        await pilot.press("n")
    assert app.return_value == QUIT and listing(folder) == ["a.txt", "b.txt"]
    app = FirstRunApp(work / "nowhere", MISSING, "$HERMES_HOME")
    async with app.run_test(size=(80, 24)) as pilot:
        body = str(app.query_one("#first-run-body", Static).render())
        assert "doesn't exist" in body and "($HERMES_HOME)" in body
        await pilot.press("right", "enter")  # arrows move between the buttons: the demo
    assert app.return_value == DEMO


async def test_a_file_in_the_way_says_why_and_creates_nothing(work):
    (work / "file").write_text("not a folder")
    target = work / "file" / "home"
    app = FirstRunApp(target, MISSING)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("y")
        error = app.query_one("#first-run-error", Static)
        assert error.display and "\n" not in str(error.render()).split(" — ")[0]
        assert f"can't create {target}: {work / 'file'} is a file, not a folder" in str(error.render())
        assert app.is_running  # still asking: demo or quit
        await pilot.press("n")
    assert app.return_value == QUIT and listing(work) == ["file"]


async def test_permission_denied_says_why_and_leaves_nothing_half_made(work, monkeypatch):
    """A parent made, then the next folder refused: the reason shows and the parent goes again."""
    target = work / "a" / "b" / "home"
    real_mkdir = Path.mkdir

    def mkdir(self, *args, **kwargs):
        if self.name == "b":
            raise PermissionError(13, "Permission denied", str(self))
        return real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", mkdir)
    app = FirstRunApp(target, MISSING)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("y")
        shown = str(app.query_one("#first-run-error", Static).render())
        assert f"can't create {work / 'a' / 'b'}: permission denied" in shown
        await pilot.press("escape")
    assert app.return_value == QUIT and listing(work) == []


@pytest.mark.skipif(ROOT_USER, reason="root may write into a read-only folder")
async def test_an_unwritable_parent_for_real(work):
    parent = work / "locked"
    parent.mkdir()
    parent.chmod(0o555)
    try:
        app = FirstRunApp(parent / "home", MISSING)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("y")
            assert "permission denied" in str(app.query_one("#first-run-error", Static).render())
            await pilot.press("n")
        assert listing(parent) == []
    finally:
        parent.chmod(0o755)


async def test_created_exits_with_the_home_made(work):
    app = FirstRunApp(work / "h", MISSING)
    async with app.run_test() as pilot:
        await pilot.press("1")
    assert app.return_value == CREATED and is_hermes_home(work / "h")


def test_init_home_leaves_a_home_alone_and_refuses_a_file(work):
    assert init_home(work / "x") == [work / "x", work / "x" / "memories"]
    assert init_home(work / "x") == []  # already there: nothing to do
    (work / "f").write_text("")
    with pytest.raises(NotADirectoryError):
        init_home(work / "f")
    assert listing(work) == ["f", "x", "x/memories"]


# -- without a terminal: the CLI's refusal -------------------------------------------------------------


def test_without_a_terminal_the_tui_refuses_like_the_cli(work):
    empty = work / "empty"
    empty.mkdir()
    for path, says in ((empty, "is not a Hermes home"), (work / "missing", "no Hermes home at")):
        result = subprocess.run([sys.executable, "-m", "tui.cli", "--home", str(path)], stdin=subprocess.DEVNULL,
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 2 and says in result.stderr and result.stdout == ""
        assert "--init" in result.stderr and "hmc demo" in result.stderr  # what to do instead
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert listing(work) == ["empty"]


async def test_on_a_short_terminal_the_buttons_stay_in_view(work):
    """The text scrolls; the reason and the buttons are always on screen (here 60×16, with an error)."""
    from textual.widgets import Button

    (work / "file").write_text("")
    app = FirstRunApp(work / "file" / "home", MISSING)
    async with app.run_test(size=(60, 16)) as pilot:
        await pilot.press("y")
        await pilot.pause()
        await pilot.pause()
        assert app.query_one("#first-run-error", Static).region.bottom <= 16
        for button in app.query(Button):
            assert button.region.height and button.region.bottom <= 16, button.id
        await pilot.press("n")
    assert app.return_value == QUIT


def test_a_home_opens_the_tui_without_importing_the_first_run_screen(demo_home):
    """Only a folder that isn't a home needs the first-run screen: start-up doesn't pay for it."""
    code = (
        "import sys\n"
        "from tui.app import CuratorApp\n"
        "CuratorApp.run = lambda self, **_: None\n"
        "from tui.cli.common import CliContext\n"
        "from tui.cli.open_tui import run_tui\n"
        f"assert run_tui(CliContext(home={str(demo_home)!r}), lambda ctx: 1) == 0\n"
        "print('tui.screens.first_run' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"
