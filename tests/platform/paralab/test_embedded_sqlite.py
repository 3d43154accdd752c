"""The embedded default (no ``DATABASE_URL``: SQLite) runs what a newcomer tries first.

The suite runs on PostgreSQL; SQLite refuses some SQL that PostgreSQL takes (a UNION of sliced
queries broke the uncertainty queue there). This runs a few of the suite's own tests in a child
pytest with ``DATABASE_URL`` unset, so they run on SQLite."""
from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import REPO_ROOT

ON_SQLITE = [
    # Uncertainty order reads the scores nearest the judge's threshold from both sides.
    "tests/platform/annotation/test_assignment.py::QueueOrderTests",
    # A recalibrated threshold reaches the queue and the disagreement list.
    "tests/platform/modelhub/test_calibration.py::CalibrationTests::"
    "test_recalibration_changes_the_threshold_of_the_queue_and_the_disagreement_list",
]


def test_queue_and_calibration_run_on_the_embedded_sqlite_default(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["PARALAB_DATA_DIR"] = str(tmp_path)
    probe = subprocess.run(
        [sys.executable, "-c", "import django; from django.conf import settings; django.setup(); "
                               "print(settings.DATABASES['default']['ENGINE'])"],
        cwd=REPO_ROOT / "platform", env={**env, "DJANGO_SETTINGS_MODULE": "paralab.settings"},
        capture_output=True, text=True, timeout=120)
    assert probe.stdout.strip() == "django.db.backends.sqlite3", probe.stderr
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *ON_SQLITE],
                         cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "skipped" not in run.stdout, run.stdout[-2000:]
