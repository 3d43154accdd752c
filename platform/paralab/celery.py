"""The Celery application.

Two queues (DESIGN.md): ``gpu`` for generation, scoring and training (run one worker per GPU with
``--pool solo --concurrency 1``; models are loaded once per worker process and cached) and ``cpu``
for import, export, synthesis and evaluation. With no ``CELERY_BROKER_URL`` the settings make every
task run eagerly in-process (the embedded default); this is logged once at start-up.
"""
from __future__ import annotations

import logging
import os

from celery import Celery
from django.conf import settings
from kombu import Queue

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paralab.settings")

logger = logging.getLogger("paralab.celery")

app = Celery("paralab")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.task_queues = (Queue("cpu"), Queue("gpu"))
# Task modules live in the top-level `workers` package (thin adapters), not in the Django apps.
app.conf.imports = (
    "workers.calibration", "workers.corpus", "workers.generation", "workers.jobs", "workers.paraqd", "workers.retraining",
    "workers.scanning",
)
app.conf.task_routes = {
    "paralab.gpu.*": {"queue": "gpu"},
    "paralab.*": {"queue": "cpu"},
}


def log_execution_mode() -> None:
    if app.conf.task_always_eager:
        logger.info("CELERY_BROKER_URL is not set: tasks run in this process (embedded default, "
                    "PARALAB_JOB_RUNNER=%s)", settings.PARALAB_JOB_RUNNER)
    else:
        logger.info("Celery broker: %s", app.conf.broker_url.split("@")[-1])
