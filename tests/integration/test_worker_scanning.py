"""A real Celery worker through Redis trains tiny STEAD and PAP versions and generates with them;
a training job whose worker died after a checkpoint is redelivered and resumes from it."""
from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.test import override_settings
from django.utils import timezone

from annotation.models import GoldLabel
from corpus.models import Dataset, Problem
from corpus.text import text_hash
from jobs.models import Job
from modelhub.models import ModelVersion
from paraphrases.generation import generation_start
from paraphrases.models import Candidate
from modelhub.kinds.seq2seq import scanning_train_start
from workers.scanning import train_job

from ..platform.paraphrases.tiny_encoder import tiny_encoder_dir
from .conftest import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True, databases=["default", "progress"])]

TEXTS = [
    "John bought 5 apples at the market on Monday. He ate 2 apples. How many apples does John have now?",
    "A train covers 300 km in 5 hours. What is its speed in km/h?",
    "Mary has 12 pens and gives 4 pens to Tom. How many pens does Mary have left?",
    "A shop sold 40 books on Monday and 25 books on Tuesday. How many books did the shop sell in total?",
    "Sam reads 20 pages every day. How many pages does Sam read in 7 days?",
    "A farmer has 36 cows and sells 9 cows. How many cows does the farmer have left?",
]


def _finished(job_id: int):
    job = Job.objects.get(pk=job_id)
    return job if job.is_terminal else None


def _settings(tmp_path):
    return override_settings(PARALAB_SENTENCE_ENCODER=tiny_encoder_dir(), MODEL_DIR=tmp_path, PARALAB_DEVICE="cpu",
                             PARALAB_SCANNING_PRESET="tiny", PARALAB_SEQ2SEQ_BASE="scratch",
                             PARALAB_FLUENCY_LM="kneser-ney")


def _dataset(name: str) -> Dataset:
    dataset = Dataset.objects.create(name=name)
    for text in TEXTS:
        Problem.objects.create(dataset=dataset, text=text, text_hash=text_hash(text))
    return dataset


def test_worker_trains_stead_and_pap_and_generates_with_them(celery_worker, tmp_path):
    with _settings(tmp_path):
        dataset = _dataset("scanning-integration")
        job = scanning_train_start(kind="stead", dataset_names=[dataset.name], activate=True)
        job = wait_for(lambda: _finished(job.pk), timeout=900)
        assert job.status == Job.Status.SUCCEEDED, job.error
        assert (job.queue, job.attempts, job.result["kind"]) == ("gpu", 1, "stead")
        stead = ModelVersion.objects.get(pk=job.result["version"])
        assert stead.status == "active"
        # annotators agreed that two STEAD-style rewrites are valid: PAP has pairs to learn from
        for problem in Problem.objects.filter(dataset=dataset)[:2]:
            rewrite = problem.text.replace("How many", "Tell me how many").replace("What is", "Tell me")
            candidate = Candidate.objects.create(problem=problem, text=rewrite, text_hash=text_hash(rewrite),
                                                 generator="stead")
            GoldLabel.objects.create(candidate=candidate, valid=True, source=GoldLabel.Source.AGREEMENT)
        job = scanning_train_start(kind="pap", dataset_names=[dataset.name], activate=True)
        job = wait_for(lambda: _finished(job.pk), timeout=900)
        assert job.status == Job.Status.SUCCEEDED, job.error
        pap = ModelVersion.objects.get(pk=job.result["version"])
        assert (pap.kind, pap.status, pap.training_data["stead_version"]) == ("pap", "active", stead.pk)
        assert Candidate.objects.filter(generator="stead", model_version=stead).exists()  # the corpus step ran

        generate = generation_start(dataset=dataset, generators=["stead", "pap"], per_problem=1)
        assert generate.queue == "gpu"
        generate = wait_for(lambda: _finished(generate.pk), timeout=900)
        assert generate.status == Job.Status.SUCCEEDED, generate.error
        assert set(generate.result["generators"]) == {"stead", "pap"}
        for candidate in Candidate.objects.filter(generator__in=["stead", "pap"], model_version__kind="pap"):
            assert candidate.model_version == pap


def test_a_killed_training_job_is_redelivered_and_resumes(celery_worker, tmp_path):
    """The first delivery dies after epoch 1's checkpoint (a worker killed mid-training leaves the
    job running and the folder behind); the broker delivers the task again once the heartbeat is
    stale, and the real worker resumes from the checkpoint and registers one version."""
    import ml.seq2seq

    with _settings(tmp_path):
        dataset = _dataset("scanning-kill")
        job = scanning_train_start(kind="stead", dataset_names=[dataset.name], enqueue=False)
        real = ml.seq2seq.train_text_model

        def dies_in_the_second_epoch(model, examples_for_epoch, config, **kwargs):
            def examples(epoch):
                if epoch == 1:
                    raise SystemExit("worker killed")
                return examples_for_epoch(epoch)

            return real(model, examples, config, **kwargs)

        with mock.patch.object(ml.seq2seq, "train_text_model", dies_in_the_second_epoch):
            with pytest.raises(SystemExit):
                train_job.apply(args=[job.pk], throw=True)
        job.refresh_from_db()
        assert job.status == Job.Status.RUNNING
        Job.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
        train_job.apply_async(args=[job.pk], queue="gpu")  # the redelivery, consumed by the real worker
        job = wait_for(lambda: _finished(job.pk), timeout=900)
        assert job.status == Job.Status.SUCCEEDED, job.error
        assert job.attempts == 2
        assert job.result["metrics"]["training"]["resumed_from_step"] > 0
        assert ModelVersion.objects.filter(kind="stead", job=job).count() == 1
        assert not (tmp_path / "stead" / f".job-{job.pk}").exists()
