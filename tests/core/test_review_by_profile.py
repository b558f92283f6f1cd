"""core.review.by_profile: each profile's open findings counted as its own review counts them,
kept ones left out, a profile that can't be opened named, and nothing recorded by counting."""

from __future__ import annotations

from datetime import date

from core.curator import open_curator
from core.home import HomeError
from core.review import findings as R
from core.review.by_profile import ProfileFindings, by_profile
from core.store.memory import serialize

TODAY = date(2026, 11, 15)


def _home(tmp_path):
    home = tmp_path / "h"
    (home / "memories").mkdir(parents=True)
    (home / "memories" / "MEMORY.md").write_text(serialize(["Deploys run on Fridays", "Deploys run on Fridays."]))
    for name, entries in (("contenu", ["Articles live in ~/contenu"]), ("ops", ["Pager rota in PagerDuty"])):
        root = home / "profiles" / name
        (root / "memories").mkdir(parents=True)
        (root / "config.yaml").write_text("memory: {}\n")
        (root / "memories" / "MEMORY.md").write_text(serialize(entries))
    return home


def _open(curator) -> dict[str, int]:
    kept = R.decisions(curator).kept_keys()
    out: dict[str, int] = {}
    for f in R.run_review(curator, include_kept=True, stale_days=90, old_days=180):
        if f.key not in kept:
            out[f.severity] = out.get(f.severity, 0) + 1
    return out


def test_each_profile_is_counted_as_its_own_review_counts_it(tmp_path):
    home = _home(tmp_path)
    here = open_curator(home, None, TODAY)
    found = by_profile(here, stale_days=90, old_days=180)
    assert [p.profile for p in found] == ["default", "contenu", "ops"]
    for p in found:
        assert p.counts == _open(here if p.profile == "default" else open_curator(home, p.profile, TODAY))
    assert found[0].counts.get("warning")  # the near-duplicate pair
    for name in ("contenu", "ops"):  # counted, never recorded as reviewed
        assert R.last_review_date(open_curator(home, name, TODAY)) is None


def test_a_kept_finding_is_left_out(tmp_path):
    home = _home(tmp_path)
    here = open_curator(home, None, TODAY)
    before = by_profile(here, stale_days=90, old_days=180)[0]
    duplicate = next(f for f in R.run_review(here, stale_days=90, old_days=180) if f.severity == "warning")
    R.decisions(here).keep([duplicate], TODAY)
    after = by_profile(here, stale_days=90, old_days=180)[0]
    assert after.total == before.total - 1


def test_a_profile_that_cannot_be_opened_is_named_and_the_others_counted(tmp_path, monkeypatch):
    from core.curator import Curator

    home = _home(tmp_path)
    here = open_curator(home, None, TODAY)
    real = Curator.switch_profile

    def refusing(self, name):
        if name == "ops":
            raise HomeError("profiles/ops can't be read (permission denied)")
        return real(self, name)

    monkeypatch.setattr(Curator, "switch_profile", refusing)
    found = {p.profile: p for p in by_profile(here, stale_days=90, old_days=180)}
    assert found["ops"].counts is None and "permission denied" in found["ops"].said()
    assert found["contenu"].counts is not None


def test_said():
    assert ProfileFindings("x", {}).said() == "nothing to fix"
    assert ProfileFindings("x", {"info": 2, "warning": 1}).said() == "3 findings: 1 warning, 2 info"
    assert ProfileFindings("x", {"critical": 1}).said() == "1 finding: 1 critical"
