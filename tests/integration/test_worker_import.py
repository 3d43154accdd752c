"""A real Celery worker consumes import jobs through Redis."""
from __future__ import annotations

import json

import pytest
from django.db import connection, transaction

from corpus.models import Dataset, Problem
from corpus.services import dataset_import_start
from jobs.models import Job
from workers.corpus import import_job

from .conftest import wait_for

# The worker writes job progress through the second connection ("progress") while its import
# transaction is open, so both aliases are in play.
pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True, databases=["default", "progress"])]


def _write_jsonl(path, n: int) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n):
            fh.write(json.dumps({"text": f"Ann has {i} apples and buys {i + 3} more. How many now?"}) + "\n")


def _finished(job_id: int):
    job = Job.objects.get(pk=job_id)
    return job if job.is_terminal else None


def test_worker_consumes_import_job_through_redis(tmp_path, celery_worker, redis_broker):
    path = tmp_path / "problems.jsonl"
    _write_jsonl(path, 250)
    dataset = Dataset.objects.create(name="integration")
    with transaction.atomic():
        job = dataset_import_start(dataset=dataset, path=str(path), fmt="jsonl", split="train", user=None)
        # Not sent before commit: the message must not race the row it points to.
        assert redis_broker.llen("cpu") == 0
    job = wait_for(lambda: _finished(job.pk))
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert job.progress == 1.0
    assert job.result["created"] == 250
    assert job.attempts == 1
    assert job.celery_task_id
    assert Problem.objects.filter(dataset=dataset).count() == 250


def test_redelivered_message_does_not_import_twice(tmp_path, celery_worker):
    path = tmp_path / "problems.jsonl"
    _write_jsonl(path, 40)
    dataset = Dataset.objects.create(name="redelivery")
    job = dataset_import_start(dataset=dataset, path=str(path), fmt="jsonl", split="", user=None)
    wait_for(lambda: _finished(job.pk))
    # The broker hands the same message out again (e.g. after a lost ack): a no-op.
    import_job.apply_async(args=[job.pk], queue="cpu")
    import_job.apply_async(args=[job.pk], queue="cpu")
    sentinel = dataset_import_start(dataset=dataset, path=str(path), fmt="jsonl", split="", user=None)
    done = wait_for(lambda: _finished(sentinel.pk))  # FIFO: the redeliveries ran before it
    assert done.result["created"] == 0 and done.result["duplicates"] == 40
    assert Problem.objects.filter(dataset=dataset).count() == 40
    assert Job.objects.get(pk=job.pk).attempts == 1


def test_bad_file_fails_the_job_with_the_line_named(tmp_path, celery_worker):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"text": "Tom walks 3 km."}\n{"text": \n', encoding="utf-8")
    dataset = Dataset.objects.create(name="bad")
    job = dataset_import_start(dataset=dataset, path=str(path), fmt="jsonl", split="", user=None)
    job = wait_for(lambda: _finished(job.pk))
    assert job.status == Job.Status.FAILED
    assert "line 2" in job.error
    assert Problem.objects.filter(dataset=dataset).count() == 0


@pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite has one writer: progress shows at commit")
def test_progress_is_visible_while_the_import_transaction_is_open(tmp_path, celery_worker):
    path = tmp_path / "big.jsonl"
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(60000):
            fh.write(json.dumps({"text": f"Item {i}: a tank holds {i} litres and loses {i % 7 + 1} litres an hour."}) + "\n")
    dataset = Dataset.objects.create(name="progress")
    job = dataset_import_start(dataset=dataset, path=str(path), fmt="jsonl", split="", user=None)

    def mid_write():
        j = Job.objects.get(pk=job.pk)
        rows = Problem.objects.filter(dataset=dataset).count()
        # Progress past the reading phase while no row is committed yet: the write is in flight.
        return (j.progress, rows) if j.status == Job.Status.RUNNING and 0.5 < j.progress < 1.0 and rows == 0 else None

    seen = wait_for(mid_write, timeout=120, interval=0.05)
    assert seen[1] == 0
    done = wait_for(lambda: _finished(job.pk), timeout=180)
    assert done.status == Job.Status.SUCCEEDED, done.error
    assert Problem.objects.filter(dataset=dataset).count() == 60000
