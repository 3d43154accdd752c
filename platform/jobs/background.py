"""The embedded default's job runner: with no broker, the web server runs each job on one
background thread, so a page that starts a job answers at once and the job page shows it move.

Why a thread pool and not Celery over kombu's filesystem or SQLite transport: the embedded default
is one process a newcomer starts with one command (``manage.py demo`` or ``runserver``). A second
worker process would have to be started, watched and stopped beside it, and on a 2-core machine it
would compete with the server for the same cores anyway. A thread in the server process shares
its loaded models (spaCy, the encoder) instead of loading them twice, and the job's state lives in
the database as with Celery, so progress, ETA and cancel work the same way. One worker thread runs
jobs in order (SQLite allows one writer; two trainings on 2 cores would only slow each other).
Production uses Celery with Redis and GPU workers, where none of this runs.

Jobs queued here are lost if the server stops; they stay ``queued`` in the database and the next
start's reaper (or a click on the job page) sends them again.
"""
from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from django.db import close_old_connections, connections

logger = logging.getLogger("paralab.jobs")

_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None


def _pool() -> ThreadPoolExecutor:
    global _executor
    with _lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="paralab-job")
        return _executor


def _run(task: Any, job_id: int) -> None:
    close_old_connections()
    try:
        task.apply(args=[job_id], throw=False)  # job_run records success, failure or cancel on the row
    except BaseException:  # noqa: BLE001 - a job thread must never die silently
        logger.exception("background job %s crashed outside its task", job_id)
    finally:
        connections.close_all()


def run_in_background(task: Any, job_id: int) -> Future:
    """Run ``task(job_id)`` on the background thread; returns at once."""
    return _pool().submit(_run, task, job_id)


def wait_idle(timeout: float = 60.0) -> bool:
    """Block until every job handed to the thread so far has finished (tests and shutdown)."""
    marker = _pool().submit(lambda: None)
    try:
        marker.result(timeout=timeout)
        return True
    except TimeoutError:
        return False
