"""Beat's retrain trigger: new annotator gold labels plus human–model disagreements since the
last version, against PARALAB_RETRAIN_MIN_NEW; never two retrains at once; --force."""
from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.test import TestCase
from django.utils import timezone

from annotation.models import GoldLabel
from jobs.models import Job
from modelhub.selectors import retrain_trigger
from modelhub.services import (
    RetrainNotDue,
    RetrainError,
    RetrainUnavailable,
    model_retrain_check,
    model_retrain_start,
    modelversion_activate,
    modelversion_create,
)
from paralab.celery import app
from workers.retraining import retrain_check

from ..corpus.factories import make_candidate, make_dataset, make_gold, make_problems, make_score


class RetrainTriggerTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.dataset = make_dataset("algebra")
        cls.problems = make_problems(cls.dataset, 4)

    def setUp(self):
        override = self.settings(PARALAB_RETRAIN_MIN_NEW=3)
        override.enable()
        self.addCleanup(override.disable)
        self.n = 0

    def version(self, *, active: bool = True):
        """The last ParaQD version, made an hour ago."""
        version = modelversion_create(kind="paraqd", base_model="x", artifact_path="/m")
        if active:
            version = modelversion_activate(version=version)
        type(version).objects.filter(pk=version.pk).update(created_at=timezone.now() - timedelta(hours=1))
        version.refresh_from_db()
        return version

    def gold(self, *, valid: bool = True, score: float | None = None, version=None, hours_ago: float = 0,
             source: str = GoldLabel.Source.AGREEMENT) -> GoldLabel:
        self.n += 1
        candidate = make_candidate(self.problems[self.n % 4], f"Paraphrase number {self.n}.", generator="stead")
        gold = make_gold(candidate, valid=valid, source=source)
        if hours_ago:
            GoldLabel.objects.filter(pk=gold.pk).update(created_at=timezone.now() - timedelta(hours=hours_ago))
        if score is not None:
            make_score(candidate, f"paraqd:v{version.pk}", model_version=version, paraqd=score)
        return gold

    def check(self) -> dict:
        """What beat runs, through the Celery task; the retrain it may queue is not run here."""
        with self.captureOnCommitCallbacks(execute=False) as callbacks:
            result = retrain_check.apply(kwargs={"kind": "paraqd"}).get()
        self.assertEqual(len(callbacks), int(result["started"]))
        return result

    def test_below_the_threshold_beat_starts_nothing(self):
        self.version()
        self.gold()
        self.gold()
        result = self.check()
        self.assertFalse(result["started"])
        self.assertEqual((result["trigger"]["new"], result["trigger"]["threshold"]), (2, 3))
        self.assertIn("not due: 2 new", result["reason"])
        self.assertFalse(Job.objects.filter(kind=Job.Kind.RETRAIN).exists())

    def test_at_the_threshold_beat_starts_exactly_one_retrain(self):
        last = self.version()
        for _ in range(3):
            self.gold()
        result = self.check()
        self.assertTrue(result["started"])
        job = Job.objects.get(kind=Job.Kind.RETRAIN)
        self.assertEqual(result["job"], job.pk)
        self.assertEqual((job.status, job.queue, job.created_by), (Job.Status.QUEUED, "gpu", None))
        self.assertEqual(job.params["model"], "paraqd")
        self.assertFalse(job.params["force"])
        self.assertEqual(job.params["trigger"]["last_version"], last.pk)
        self.assertEqual(job.params["trigger"]["new_gold_labels"], 3)
        # The next beat finds it queued: never two retrains at once.
        again = self.check()
        self.assertFalse(again["started"])
        self.assertEqual(again["job"], job.pk)
        self.assertIn("already queued", again["reason"])
        self.assertEqual(Job.objects.filter(kind=Job.Kind.RETRAIN).count(), 1)

    def test_human_model_disagreements_count_toward_the_threshold(self):
        active = self.version()
        retired = modelversion_create(kind="paraqd", base_model="x", artifact_path="/old")
        self.gold(valid=True, score=0.9, version=active)  # the model agrees
        self.gold(valid=False, score=0.2, version=active)  # agrees
        self.assertEqual(retrain_trigger(kind="paraqd")["new"], 2)
        mistake = self.gold(valid=True, score=0.9, version=retired)  # only an old version's score
        make_score(mistake.candidate, f"paraqd:v{active.pk}", model_version=active, paraqd=0.1)
        trigger = retrain_trigger(kind="paraqd")
        self.assertEqual((trigger["new_gold_labels"], trigger["human_model_disagreements"]), (3, 1))
        self.assertEqual(trigger["new"], 4)
        self.assertTrue(trigger["due"])

    def test_a_score_from_another_version_is_not_a_disagreement(self):
        # The retired version is the newest, so `since` is its creation; the active one scores right.
        active = self.version()
        retired = modelversion_create(kind="paraqd", base_model="x", artifact_path="/old")
        gold = self.gold(valid=True, score=0.1, version=retired)
        make_score(gold.candidate, f"paraqd:v{active.pk}", model_version=active, paraqd=0.8)
        trigger = retrain_trigger(kind="paraqd")
        self.assertEqual(trigger["last_version"], retired.pk)
        self.assertEqual((trigger["new_gold_labels"], trigger["human_model_disagreements"]), (1, 0))

    def test_older_and_imported_gold_labels_do_not_count(self):
        self.version(active=False)
        self.gold(hours_ago=2)  # before the last version
        self.gold(source=GoldLabel.Source.IMPORT)
        self.gold(source=GoldLabel.Source.IMPORT)
        self.gold(source=GoldLabel.Source.ADJUDICATION)
        trigger = retrain_trigger(kind="paraqd")
        self.assertEqual((trigger["new_gold_labels"], trigger["new"], trigger["due"]), (1, 1, False))

    def test_without_any_version_every_annotator_label_counts(self):
        for hours in (5, 50, 500):
            self.gold(hours_ago=hours)
        trigger = retrain_trigger(kind="paraqd")
        self.assertEqual((trigger["last_version"], trigger["since"], trigger["new"]), (None, None, 3))
        self.assertTrue(self.check()["started"])

    def test_force_starts_below_the_threshold(self):
        self.version()
        self.gold()
        with self.assertRaises(RetrainNotDue) as caught:
            model_retrain_start(kind="paraqd", enqueue=False)
        self.assertEqual(caught.exception.trigger["new"], 1)
        job = model_retrain_start(kind="paraqd", force=True, enqueue=False)
        self.assertTrue(job.params["force"])

    def test_a_queued_job_that_lost_its_message_long_ago_does_not_block_retraining(self):
        self.gold()
        stale = Job.objects.create(kind=Job.Kind.RETRAIN, params={"model": "paraqd"})
        long_ago = timezone.now() - timedelta(seconds=settings.PARALAB_TASK_HARD_LIMIT_S + 7200)
        Job.objects.filter(pk=stale.pk).update(created_at=long_ago)
        job = model_retrain_start(kind="paraqd", force=True, enqueue=False)
        self.assertNotEqual(job.pk, stale.pk)

    def test_stead_is_not_retrained_and_pap_needs_labels_on_its_candidates(self):
        with self.assertRaisesMessage(RetrainUnavailable, "no generator yet"):
            model_retrain_start(kind="stead", force=True)
        self.assertEqual(model_retrain_check(kind="stead")["reason"], "no generator yet")
        # PAP learns from labels on STEAD/PAP candidates only: the ParaQD labels here do not count.
        with self.assertRaisesMessage(RetrainError, "nothing to retrain on"):
            model_retrain_start(kind="pap", force=True)
        with self.assertRaises(ValueError):
            model_retrain_start(kind="bert")

    def test_beat_schedules_the_check(self):
        entry = settings.CELERY_BEAT_SCHEDULE["retrain-check"]
        self.assertEqual(entry["task"], "paralab.retrain.check")
        self.assertNotIn("kwargs", entry)  # one entry checks every retrainable kind
        self.assertEqual(set(retrain_check.apply().get()), {"paraqd", "pap", "llm_gate"})
        self.assertEqual(entry["schedule"].total_seconds(), settings.PARALAB_RETRAIN_INTERVAL_S)
        app.loader.import_default_modules()
        self.assertIn("paralab.retrain.check", app.tasks)
        self.assertIn("paralab.gpu.retrain", app.tasks)
        self.assertEqual(app.amqp.router.route({}, "paralab.gpu.retrain")["queue"].name, "gpu")
