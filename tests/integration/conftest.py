"""Integration tests: the machine's Redis as broker and a real Celery worker thread.

The Django suites run tasks eagerly; these tests switch the same Celery app to Redis
(``PARALAB_TEST_BROKER_URL``, default redis://127.0.0.1:6379/15), start a worker with
``celery.contrib.testing.worker.start_worker`` and put eager mode back afterwards.
Data must be committed for the worker's own connection to see it, hence transactional tests.
"""
from __future__ import annotations

import os
import time

import kombu
import pytest
import redis
from celery.contrib.testing.worker import start_worker

from paralab.celery import app

BROKER_URL = os.environ.get("PARALAB_TEST_BROKER_URL", "redis://127.0.0.1:6379/15")


def _reset_connections() -> None:
    """Drop cached broker connections so the next send uses the current broker_url.

    (What Celery itself does after a fork; app.close() would also deregister the app.)
    """
    if app._pool is not None:
        app._pool.force_close_all()
    app._pool = None
    app.amqp._producer_pool = None
    kombu.pools.reset()


@pytest.fixture
def redis_broker():
    client = redis.Redis.from_url(BROKER_URL)
    try:
        client.ping()
    except redis.exceptions.ConnectionError as exc:  # a real failure, not a skip: CI starts Redis
        pytest.fail(f"Redis is not reachable at {BROKER_URL}: {exc} (run scripts/services.sh)")
    client.flushdb()
    saved = {k: app.conf[k] for k in ("broker_url", "task_always_eager")}
    _reset_connections()
    app.conf.update(broker_url=BROKER_URL, task_always_eager=False)
    yield client
    _reset_connections()
    app.conf.update(saved)
    client.flushdb()
    client.close()


@pytest.fixture
def celery_worker(redis_broker, transactional_db):
    """A real worker consuming both queues through Redis, in a thread of this process."""
    with start_worker(
        app,
        pool="solo",
        concurrency=1,
        queues=["cpu", "gpu"],
        perform_ping_check=False,
        shutdown_timeout=30,
        loglevel="WARNING",
    ) as worker:
        yield worker


def wait_for(predicate, timeout: float = 90.0, interval: float = 0.2):
    """Poll until predicate() returns a truthy value; fail with the last value after timeout."""
    deadline = time.monotonic() + timeout
    value = None
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    pytest.fail(f"condition not met within {timeout}s (last value: {value!r})")
