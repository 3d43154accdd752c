"""Shared test configuration.

Django TestCase suites run with eager Celery (the default when CELERY_BROKER_URL is unset);
tests marked ``integration`` reconfigure the Celery app to the machine's Redis and start a real
worker (see tests/integration/conftest.py).

The instruct LLM is off in the same way (see the fixture).

The judge that ships with the code (``modelhub.kinds.judge.shipped``) is registered by every
``migrate`` on an installation; here it is switched off while the test databases are made, so that
each test says which judge decides (most set up their own ParaQD or judge versions). The shipped
judge, and what changes when it decides (selection, the variants export, refits), have their own
tests, which switch it on (``tests/platform/modelhub/test_shipped_judge.py``).
"""
from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session", autouse=True)
def _shipped_judge_off_by_default():
    """PARALAB_SHIPPED_JUDGE and the instruct LLM (PARALAB_LLM) off for the session: tests switch
    them on with override_settings (the LLM's own tests run the packaged SmolLM2 GGUF, never the
    1.5B model `make install` places, which would make every handout test a minute long)."""
    from django.test import override_settings

    with override_settings(PARALAB_SHIPPED_JUDGE=False, PARALAB_LLM=False):
        yield


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real corpora beside the project (../shared/data); never copied into the repository."""
    if not SHARED_DATA.is_dir():
        pytest.fail(f"the shared corpora are missing: expected them at {SHARED_DATA}")
    return SHARED_DATA
