"""The ways staff start a retrain: ``POST models/{kind}/retrain/``, the ``retrain`` command, the
/models/ page (which also shows every version with its gate report)."""
from __future__ import annotations

import json
from io import StringIO
from unittest import mock

from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import TestCase
from django.urls import reverse
from rest_framework.test import APIClient

from jobs.models import Job
from modelhub.kinds import paraqd as paraqd_kind
from modelhub.models import ModelVersion
from modelhub.services import modelversion_activate, modelversion_create

from ..corpus.factories import make_candidate, make_dataset, make_gold, make_problems, make_user
from .retrain_helpers import RetrainSetUpMixin
from .test_retraining import fake_metrics


class RetrainApiTests(RetrainSetUpMixin, TestCase):
    def setUp(self):
        super().setUp()
        self.staff = make_user("boss", staff=True)
        self.annotator = make_user("ann")

    def post(self, user, kind: str = "paraqd"):
        client = APIClient()
        if user:
            client.force_login(user)
        with self.captureOnCommitCallbacks(execute=False):  # the job is queued, not run
            return client.post(reverse("api-model-retrain", kwargs={"kind": kind}))

    def test_staff_start_a_retrain_whatever_the_threshold(self):
        with self.settings(PARALAB_RETRAIN_MIN_NEW=1000):
            response = self.post(self.staff)
        self.assertEqual(response.status_code, 202, response.data)
        job = Job.objects.get(pk=response.data["job"])
        self.assertEqual(response.data, {"job": job.pk})
        self.assertEqual((job.kind, job.status, job.queue, job.created_by), ("retrain", "queued", "gpu", self.staff))
        self.assertTrue(job.params["force"])

    def test_a_second_request_while_one_is_queued_is_a_conflict_naming_it(self):
        first = self.post(self.staff)
        second = self.post(self.staff)
        self.assertEqual(second.status_code, 409)
        self.assertEqual(second.data["job"], first.data["job"])
        self.assertIn("already queued", second.data["detail"])

    def test_stead_is_not_retrained_and_pap_is(self):
        response = self.post(self.staff, "stead")
        self.assertEqual(response.status_code, 409)
        self.assertEqual(response.data, {"detail": "no generator yet"})
        self.assertEqual(self.post(self.staff, "bert").status_code, 404)
        self.assertFalse(Job.objects.exists())
        # the fixture's gold labels are on stead candidates: PAP has something to learn from
        response = self.post(self.staff, "pap")
        self.assertEqual(response.status_code, 202)
        job = Job.objects.get(pk=response.data["job"])
        self.assertEqual((job.kind, job.params["model"], job.queue), (Job.Kind.RETRAIN, "pap", "gpu"))

    def test_no_annotator_gold_is_a_conflict_with_the_reason(self):
        self.dataset.problems.all().delete()
        response = self.post(self.staff)
        self.assertEqual(response.status_code, 409)
        self.assertIn("annotators have not agreed", response.data["detail"])

    def test_annotators_and_anonymous_are_refused(self):
        self.assertEqual(self.post(self.annotator).status_code, 403)
        self.assertEqual(self.post(self.annotator, "pap").status_code, 403)
        self.assertIn(self.post(None).status_code, (401, 403))
        self.assertFalse(Job.objects.exists())


class RetrainCommandTests(RetrainSetUpMixin, TestCase):
    def call(self, *args) -> dict:
        out = StringIO()
        call_command("retrain", *args, stdout=out)
        return json.loads(out.getvalue())

    def test_not_due_without_force_prints_why_and_starts_nothing(self):
        with self.settings(PARALAB_RETRAIN_MIN_NEW=9):
            result = self.call("--model", "paraqd")
        self.assertFalse(result["started"])
        self.assertEqual((result["trigger"]["new"], result["trigger"]["threshold"]), (8, 9))
        self.assertFalse(Job.objects.exists())

    def test_due_it_retrains_here_and_prints_the_version_and_gate(self):
        with self.settings(PARALAB_RETRAIN_MIN_NEW=8), \
                mock.patch.object(paraqd_kind, "paraqd_heldout_metrics",
                                  side_effect=fake_metrics({"pretrained": (0.5, 0.1), "candidate": (0.6, 0.2)})):
            result = self.call("--model", "paraqd")
        self.assertTrue(result["started"])
        job = Job.objects.get(pk=result["job"])
        self.assertEqual(job.status, Job.Status.SUCCEEDED)
        version = ModelVersion.objects.get(pk=result["version"])
        self.assertEqual((result["status"], version.status, result["promoted"]), ("active", "active", True))
        self.assertEqual(result["gate"]["active"]["model"], "pretrained")
        self.assertEqual(result["gate"], version.metrics["gate"])
        # Nothing new since that version: the next run is not due, --force runs anyway.
        self.assertFalse(self.call("--model", "paraqd")["started"])
        with mock.patch.object(paraqd_kind, "paraqd_heldout_metrics",
                               side_effect=fake_metrics({f"v{version.pk}": (0.6, 0.2), "candidate": (0.1, 0.2)})):
            forced = self.call("--model", "paraqd", "--force")
        self.assertTrue(forced["started"])
        self.assertFalse(forced["promoted"])
        self.assertEqual(ModelVersion.objects.get(status="active"), version)

    def test_a_running_retrain_is_reported_not_duplicated(self):
        running = Job.objects.create(kind=Job.Kind.RETRAIN, status=Job.Status.RUNNING, params={"model": "paraqd"})
        result = self.call("--model", "paraqd", "--force")
        self.assertEqual((result["started"], result["job"]), (False, running.pk))

    def test_bad_input_exits_with_one_clear_message(self):
        with self.assertRaisesMessage(CommandError, "--model stead: no generator yet"):
            call_command("retrain", "--model", "stead", stdout=StringIO())
        with self.assertRaisesMessage(CommandError, "invalid choice: 'bert'"):
            call_command("retrain", "--model", "bert", stdout=StringIO())
        with self.assertRaises(CommandError):
            call_command("retrain", stdout=StringIO())

    def test_a_failed_retrain_exits_non_zero_with_the_job_error(self):
        with mock.patch("ml.paraqd.train.train_paraqd", side_effect=RuntimeError("disk full")), \
                self.assertLogs("paralab.jobs", level="ERROR"), \
                self.assertRaisesMessage(CommandError, "RuntimeError: disk full"):
            call_command("retrain", "--model", "paraqd", "--force", stdout=StringIO())
        self.assertFalse(ModelVersion.objects.exists())


class ModelsPageTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.staff = make_user("boss", staff=True)
        cls.annotator = make_user("ann")
        cls.old = modelversion_activate(version=modelversion_create(kind="paraqd", base_model="x", artifact_path="/a"))
        cls.kept = modelversion_create(
            kind="paraqd", base_model="x", artifact_path="/b", training_data={"triplets": 40, "hard_examples": 3},
            metrics={
                "gate": {"promoted": False, "reason": "regression: separation 0.1000 < 0.3000 - 0",
                         "rule": "promote when <b>no</b> regression",
                         "checks": [{"metric": "separation", "candidate": 0.1, "active": 0.3, "passed": False}],
                         "active": {"version": cls.old.pk}, "heldout": {"n": 5, "valid": 3, "invalid": 2}},
                "eval": {"aqua-test": {"n": 30, "weighted": {"f1_hm": 0.8123}, "separation": 0.25}},
            },
        )

    def test_staff_see_every_version_its_gate_and_the_active_one(self):
        self.client.force_login(self.staff)
        response = self.client.get(reverse("model-list"))
        self.assertEqual(response.status_code, 200)
        self.assertContains(response, f'data-version="{self.old.pk}" data-status="active"')
        self.assertContains(response, f'data-version="{self.kept.pk}" data-status="candidate"')
        self.assertContains(response, f'<strong data-field="active">v{self.old.pk}</strong>')
        self.assertContains(response, "regression: separation 0.1000 &lt; 0.3000 - 0")
        self.assertContains(response, "not promoted")
        self.assertContains(response, "promote when &lt;b&gt;no&lt;/b&gt; regression")
        self.assertContains(response, "5 held-out pairs (3 valid, 2 invalid)")
        self.assertContains(response, "weighted F1 0.812")
        self.assertContains(response, "40 triplets")
        self.assertContains(response, "No generator yet")
        self.assertContains(response, reverse("model-retrain", kwargs={"kind": "paraqd"}))

    def test_only_staff_may_open_it(self):
        url = reverse("model-list")
        self.assertTrue(self.client.get(url)["Location"].startswith("/login/"))
        self.client.force_login(self.annotator)
        self.assertEqual(self.client.get(url).status_code, 403)
        self.assertEqual(self.client.post(reverse("model-retrain", kwargs={"kind": "paraqd"})).status_code, 403)
        self.assertFalse(Job.objects.exists())

    def test_the_retrain_button_queues_a_job_or_says_why_not(self):
        self.client.force_login(self.staff)
        response = self.client.post(reverse("model-retrain", kwargs={"kind": "stead"}), follow=True)
        self.assertRedirects(response, reverse("model-list"))
        self.assertContains(response, "Retrain of stead not started: no generator yet")
        # No gold labels from annotators in this fixture: refused with the reason, nothing queued.
        response = self.client.post(reverse("model-retrain", kwargs={"kind": "paraqd"}), follow=True)
        self.assertContains(response, "annotators have not agreed")
        self.assertFalse(Job.objects.exists())
        self.assertEqual(self.client.get(reverse("model-retrain", kwargs={"kind": "paraqd"})).status_code, 405)

    def test_with_annotator_gold_the_button_queues_a_retrain_and_shows_the_jobs(self):
        problem = make_problems(make_dataset("algebra"), 1)[0]
        make_gold(make_candidate(problem, "Tom had some apples."), valid=False, source="agreement")
        self.client.force_login(self.staff)
        with self.captureOnCommitCallbacks(execute=False) as callbacks:
            response = self.client.post(reverse("model-retrain", kwargs={"kind": "paraqd"}), follow=True)
        self.assertRedirects(response, reverse("job-list"))
        job = Job.objects.get(kind=Job.Kind.RETRAIN)
        self.assertContains(response, f'Retrain of paraqd started as <a href="/jobs/#job-{job.pk}">job {job.pk}</a>')
        self.assertEqual((job.created_by, len(callbacks)), (self.staff, 1))
        page = self.client.get(reverse("model-list"))
        self.assertContains(page, f'job {job.pk}</a> is queued')
        self.assertNotContains(page, "Retrain paraqd now")
