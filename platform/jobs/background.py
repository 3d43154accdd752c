"""The embedded default's job runner: with no broker, the web server runs each job on one
background thread, so a page that starts a job answers at once and the job page shows it move.

Why a background thread and not Celery over kombu's filesystem or SQLite transport: the embedded default
is one process a newcomer starts with one command (``manage.py demo`` or ``runserver``). A second
worker process would have to be started, watched and stopped beside it, and on a 2-core machine it
would compete with the server for the same cores anyway. A thread in the server process shares
its loaded models (spaCy, the encoder) instead of loading them twice, and the job's state lives in
the database as with Celery, so progress, ETA and cancel work the same way. One worker thread runs
jobs in order (SQLite allows one writer; two trainings on 2 cores would only slow each other).
Production uses Celery with Redis and GPU workers, where none of this runs.

The thread is a daemon: stopping the server (Ctrl-C, an autoreload) does not wait for queued
jobs. A job the stopped server was running, or had queued, is picked up by the next server: the
first job it runs first fails each orphaned ``running`` job ("the server stopped while it ran";
all-or-nothing jobs left nothing half-written) and sends every orphaned ``queued`` job again
(``jobs.services.jobs_recover_orphans``, handed in as ``recover``: this module imports no other
of the app).
"""
from __future__ import annotations

import logging
import queue
import threading
from concurrent.futures import Future
from typing import Any, Callable

from django.db import close_old_connections, connections

logger = logging.getLogger("paralab.jobs")

_lock = threading.Lock()
_queue: queue.Queue[tuple[Any, Any, Future]] = queue.Queue()
_thread: threading.Thread | None = None


def _worker() -> None:
    while True:
        task, job_id, future = _queue.get()
        try:
            if task is not None:
                _run(task, job_id)
        finally:
            future.set_result(None)
            _queue.task_done()


def _run(task: Any, job_id: int) -> None:
    close_old_connections()
    try:
        task.apply(args=[job_id], throw=False)  # job_run records success, failure or cancel on the row
    except BaseException:  # noqa: BLE001 - a job thread must never die silently
        logger.exception("background job %s crashed outside its task", job_id)
    finally:
        connections.close_all()


def run_in_background(task: Any, job_id: int, *, recover: Callable[[int], None]) -> Future:
    """Run ``task(job_id)`` on the background thread; returns at once. The call that starts the
    thread (the first of this process) first runs ``recover(job_id)``: an earlier server's
    orphans, in their order."""
    global _thread
    future: Future = Future()
    start = False
    with _lock:
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_worker, name="paralab-job", daemon=True)
            _thread.start()
            start = True
    if start:
        recover(job_id)  # an earlier server's orphans first, in their order
    _queue.put((task, job_id, future))
    return future


def wait_idle(timeout: float = 60.0) -> bool:
    """Block until every job handed to the thread so far has finished (tests and shutdown)."""
    if _thread is None or not _thread.is_alive():
        return True
    marker: Future = Future()
    _queue.put((None, None, marker))
    try:
        marker.result(timeout=timeout)
        return True
    except TimeoutError:
        return False
