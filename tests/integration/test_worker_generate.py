"""A real Celery worker consumes generate jobs through Redis; a redelivered message changes nothing."""
from __future__ import annotations

import pytest
from django.test import override_settings

from annotation.models import AnnotationItem
from corpus.models import Dataset, Problem
from corpus.text import text_hash
from jobs.models import Job
from paraphrases.generation import generation_start
from paraphrases.models import Candidate, Score
from workers.generation import generate_job

from ..platform.paraphrases.tiny_encoder import tiny_encoder_dir
from .conftest import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True, databases=["default", "progress"])]

TEXTS = [
    "A train covers 300 km in 5 hours. What is its speed in km/h?",
    "Mary has 12 pens and gives 4 pens to Tom. How many pens does Mary have left?",
]


def _finished(job_id: int):
    job = Job.objects.get(pk=job_id)
    return job if job.is_terminal else None


def test_worker_generates_scores_and_queues_once(celery_worker, tmp_path):
    with override_settings(PARALAB_SENTENCE_ENCODER=tiny_encoder_dir(), MODEL_DIR=tmp_path, PARALAB_DEVICE="cpu"):
        dataset = Dataset.objects.create(name="generate-integration")
        for text in TEXTS:
            Problem.objects.create(dataset=dataset, text=text, text_hash=text_hash(text))
        job = generation_start(dataset=dataset, generators=["reorder", "pp_permutation"], per_problem=1)
        job = wait_for(lambda: _finished(job.pk), timeout=180)
        assert job.status == Job.Status.SUCCEEDED, job.error
        assert job.queue == "cpu" and job.attempts == 1
        counts = (Candidate.objects.count(), Score.objects.count(), AnnotationItem.objects.count())
        assert counts[0] == job.result["candidates"] > 0
        assert counts[1] == counts[0]
        assert counts[2] == job.result["selected"] == 2
        # The broker hands the message out again: the finished job is a no-op.
        generate_job.apply_async(args=[job.pk], queue="cpu")
        sentinel = generation_start(dataset=dataset, generators=["reorder", "pp_permutation"], per_problem=1)
        done = wait_for(lambda: _finished(sentinel.pk), timeout=180)  # FIFO: the redelivery ran first
        assert done.status == Job.Status.SUCCEEDED, done.error
        assert (Candidate.objects.count(), Score.objects.count(), AnnotationItem.objects.count()) == counts
        assert Job.objects.get(pk=job.pk).attempts == 1
