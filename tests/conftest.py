"""Shared test configuration.

Django TestCase suites run with eager Celery (the default when CELERY_BROKER_URL is unset);
tests marked ``integration`` reconfigure the Celery app to the machine's Redis and start a real
worker (see tests/integration/conftest.py).
"""
from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real corpora beside the project (../shared/data); never copied into the repository."""
    if not SHARED_DATA.is_dir():
        pytest.fail(f"the shared corpora are missing: expected them at {SHARED_DATA}")
    return SHARED_DATA
