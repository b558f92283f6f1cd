"""Conformance fixtures and the per-test area marker.

Every test here that uses ``oracle`` runs once per selected release
(HMC_CONFORMANCE_RELEASES, default 0.19.0 and 0.22.2) and carries an
``@pytest.mark.area(...)`` (its own, or its module's ``pytestmark``) so matrix.py can report agreement per area.
"""

from __future__ import annotations

import pytest

from tests.conformance import releases
from tests.conformance.oracle import hermes_release, make_home, oracle, oracle_pool  # noqa: F401

DEVIATIONS = "deviations"  # hmc differs from the release on purpose; each difference asserted exactly
AREAS = ("reading", "drift", "matching", "ops", "limits", "prompt", "config", "scan",
         "pending", "sessions", "doctor", DEVIATIONS)
HARNESS = "harness"


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        f"area(name): conformance area, one of {', '.join(AREAS + (HARNESS,))}",
    )


def pytest_report_header(config):
    return [f"hermes releases: {', '.join(releases.selected_releases())} "
            f"(cache {releases.default_cache_root()}; "
            f"{releases.RELEASES_ENV}={releases._START_ENV.get(releases.RELEASES_ENV, '')!r})"]


def pytest_generate_tests(metafunc):
    if "hermes_release" in metafunc.fixturenames:
        versions = releases.selected_releases()
        metafunc.parametrize("hermes_release", versions, indirect=True, scope="session",
                             ids=[f"hermes-{v}" for v in versions])


def item_area(item) -> str | None:
    """The closest area mark (a test's own mark wins over its module's)."""
    marks = list(item.iter_markers("area"))
    return marks[0].args[0] if marks and marks[0].args else None


def pytest_collection_modifyitems(config, items):
    bad = []
    for item in items:
        if "tests/conformance/" not in item.nodeid.replace("\\", "/"):
            continue
        if "hermes_release" not in getattr(item, "fixturenames", ()):
            continue
        if item_area(item) not in AREAS + (HARNESS,):
            bad.append(item.nodeid)
        elif item_area(item) != HARNESS:  # tests/conftest.py prints the agreement per release
            release = item.callspec.params.get("hermes_release") if hasattr(item, "callspec") else None
            item.user_properties.append(("hmc_conformance", f"{release}|{item_area(item)}"))
    if bad:
        raise pytest.UsageError(
            "conformance tests need @pytest.mark.area(<one of "
            f"{', '.join(AREAS + (HARNESS,))}>):\n  " + "\n  ".join(bad))
