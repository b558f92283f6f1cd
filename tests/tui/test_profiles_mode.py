"""Profiles mode with the real keys, checked on disk: 5 lists every profile, Enter opens one, the
leaked line moves back in three keys (M, Enter, Enter) and u puts both files back."""

from __future__ import annotations

from core.demo.content import CONTENU_REPO
from tests.tui.helpers import settle, until_dialog
from tui.screens.dialogs import ChoiceDialog, ConfirmDialog, PickDialog


def _memory(home, profile: str) -> str:
    root = home if profile == "default" else home / "profiles" / profile
    return (root / "memories" / "MEMORY.md").read_text(encoding="utf-8")


async def test_5_lists_every_profile_and_enter_opens_one(demo_home, make_app):
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("5")
        await settle(app, pilot)
        screen = app.screen
        assert [r.name for r in screen.rows] == ["default", "contenu", "ops"]
        assert screen.rows[0].active and screen.rows[0].sessions_known and screen.rows[0].recent
        assert "profiles/default/ holds 1 MEMORY.md entry" in str(screen.query_one("#profiles-notice").render())
        await pilot.press("j", "j", "enter")
        await settle(app, pilot)
        assert app.curator.home.profile == "ops" and app.current_mode == "memory"
        assert "ops" in str(app.screen.query_one("HmcHeader").render())


async def test_the_leak_moves_back_in_three_keys_and_u_undoes_both(demo_home, make_app):
    app = make_app(demo_home, poll=False)
    before = {p: _memory(demo_home, p) for p in ("ops", "contenu")}
    assert CONTENU_REPO in before["ops"] and CONTENU_REPO in before["contenu"]
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        app.switch_profile("ops")
        await settle(app, pilot)
        await pilot.press("G")  # the leaked line is ops's last entry
        await pilot.press("M")
        await until_dialog(pilot, PickDialog)  # (after the profiles holding it are looked up, in a thread)
        await pilot.press("enter")  # contenu, listed first: it holds the line already
        await until_dialog(pilot, ChoiceDialog)
        await pilot.press("enter")  # Move
        await settle(app, pilot)
        assert CONTENU_REPO not in _memory(demo_home, "ops")
        assert _memory(demo_home, "contenu") == before["contenu"]
        await pilot.press("u")
        await until_dialog(pilot, ConfirmDialog)
        await pilot.press("enter")
        await settle(app, pilot)
        assert {p: _memory(demo_home, p) for p in ("ops", "contenu")} == before


async def test_c_compares_two_profiles_and_t_switches_the_file(demo_home, make_app):
    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        app.switch_profile("ops")
        await settle(app, pilot)
        await pilot.press("5")
        await settle(app, pilot)
        await pilot.press("k", "c")  # contenu, beside ops
        await settle(app, pilot)
        title = str(app.screen.query_one("#compare-title").render())
        assert "MEMORY.md" in title and "= 1 the same" in title
        await pilot.press("t")
        await pilot.pause()
        assert "USER.md" in str(app.screen.query_one("#compare-title").render())
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.MODE == "profiles"


async def test_P_in_the_review_counts_every_profiles_findings_and_enter_reviews_one(demo_home, make_app):
    """The review's profile switch: each profile's open findings, counted as its own review counts
    them (this profile first); Enter on ops reviews ops; nothing is recorded for the profiles counted."""
    from core.review import findings as R
    from tui.screens.dialogs import PickDialog
    from tui.screens.review import ReviewScreen
    from tests.tui.helpers import until

    app = make_app(demo_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("4")
        await settle(app, pilot)
        here = len([f for f in app.screen.everything if f.key not in app.screen.kept])
        await pilot.press("P")
        assert await until(pilot, lambda: isinstance(app.screen, PickDialog), timeout=30)
        rows = [str(r) for r in app.screen.rows]
        assert rows[0].startswith("default  (here)") and f"{here} findings" in rows[0]
        assert [r.split()[0] for r in rows] == ["default", "contenu", "ops"]
        assert "ops  ·  1 finding: 1 warning" in rows[2]
        assert R.last_review_date(app.curator.switch_profile("ops")) is None  # counted, not recorded
        await pilot.press("j", "j", "enter")
        await settle(app, pilot)
        assert app.curator.home.profile == "ops" and isinstance(app.screen, ReviewScreen)
        assert await until(pilot, lambda: [f.kind for f in app.screen.everything] == ["cross-profile"])


async def test_P_is_greyed_on_a_home_with_one_profile(hermes_home, make_app):
    from core.store.memory import serialize

    (hermes_home / "memories").mkdir(parents=True)
    (hermes_home / "memories" / "MEMORY.md").write_text(serialize(["one entry", "one entry"]))
    app = make_app(hermes_home, poll=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        await pilot.press("4")
        await settle(app, pilot)
        assert app.screen.why_not("profiles") == "By profile: this home has one profile"
