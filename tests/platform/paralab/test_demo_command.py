"""`manage.py demo --no-server`: the logins it prints work, the annotators find test pairs queued
for them, staff find agreement and gold labels a retrain learns from, and running it twice
changes nothing."""
from __future__ import annotations

import json
from io import StringIO

from django.contrib.auth import authenticate, get_user_model
from django.core.management import call_command
from django.test import TestCase, override_settings
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import AnnotationItem, Assignment, GoldLabel, Label, LabelHistory
from annotation.selectors import annotation_progress
from annotation.services import annotation_next
from corpus.models import Dataset, Problem
from jobs.models import Job
from modelhub.models import ModelVersion
from paraphrases.models import Candidate

from ..paraphrases.helpers import ParaQDSettingsMixin


def run_demo() -> tuple[str, dict]:
    out, err = StringIO(), StringIO()
    call_command("demo", "--no-server", stdout=out, stderr=err)
    text = out.getvalue()
    return text, json.loads(text.strip().splitlines()[-1])


def snapshot() -> dict:
    """Everything the demo writes, in a form two runs can be compared by."""
    users = get_user_model().objects.order_by("username")
    dataset = Dataset.objects.get(name="demo")
    return {
        "users": list(users.values_list("pk", "username", "password", "is_staff", "is_superuser", "is_active")),
        "datasets": list(Dataset.objects.values_list("pk", "name", "description")),
        "annotators": sorted(dataset.annotators.values_list("username", flat=True)),
        "problems": list(Problem.objects.order_by("pk").values_list("pk", "dataset_id", "text_hash", "split", "answer")),
        "candidates": list(Candidate.objects.order_by("pk").values_list("pk", "problem_id", "generator", "text_hash")),
        "items": list(AnnotationItem.objects.order_by("pk").values_list("pk", "candidate_id", "purpose", "required_labels")),
        "assignments": list(Assignment.objects.order_by("pk").values_list("pk", "item_id", "annotator_id", "status")),
        "labels": list(Label.objects.order_by("pk").values_list("pk", "item_id", "annotator_id", "valid", "updated_at")),
        "history": LabelHistory.objects.count(),
        "gold": list(GoldLabel.objects.order_by("pk").values_list("pk", "candidate_id", "valid", "source")),
        "jobs": list(Job.objects.order_by("pk").values_list("pk", "kind", "status")),
    }


@override_settings(PARALAB_DEMO_NEURAL=False)  # the neural step has its own slow test (test_demo_neural.py)
class DemoCommandTests(ParaQDSettingsMixin, TestCase):
    """The demo runs once for the class (synthesizing the test pairs loads spaCy: seconds); each
    test sees its result and may run it again."""

    @classmethod
    def setUpTestData(cls):
        cls.first_text, cls.first_json = run_demo()

    def test_prints_logins_as_json_last_and_they_authenticate(self):
        text, result = self.first_text, self.first_json
        self.assertEqual(result["dataset"], "demo")
        roles = {user["username"]: user["role"] for user in result["users"]}
        self.assertEqual(roles, {"admin": "staff", "annotator1": "annotator", "annotator2": "annotator"})
        for login in result["users"]:
            with self.subTest(user=login["username"]):
                self.assertIn(login["password"], text.rsplit("\n", 2)[0], "the readable block shows the logins too")
                user = authenticate(username=login["username"], password=login["password"])
                self.assertIsNotNone(user, "the printed password does not log in")
                self.assertEqual(user.is_staff, login["role"] == "staff")
        self.assertIn("http://127.0.0.1:8000/", text)

    def test_creates_the_demo_dataset_with_its_problems_and_annotators(self):
        dataset = Dataset.objects.get(name="demo")
        self.assertGreaterEqual(dataset.problems.count(), 48)
        self.assertEqual(set(dataset.problems.values_list("source", flat=True)), {"demo"})
        self.assertEqual(set(dataset.problems.values_list("split", flat=True)), {"train", "dev", "test"})
        self.assertEqual(sorted(dataset.annotators.values_list("username", flat=True)), ["annotator1", "annotator2"])
        self.assertFalse(dataset.problems.filter(answer="").exists())
        # the annotators get the labelling rules with the dataset
        self.assertIn("Every number stays, with its unit and its role", dataset.guidelines)

    def test_running_it_twice_changes_nothing(self):
        first = snapshot()
        self.assertTrue(first["labels"] and first["items"] and first["gold"])
        _, second_json = run_demo()
        self.assertEqual(snapshot(), first)
        self.assertEqual(second_json, self.first_json)

    def test_it_restores_a_demo_password_that_was_changed(self):
        admin = get_user_model().objects.get(username="admin")
        admin.set_password("something-else-entirely")
        admin.save()
        _, result = run_demo()
        password = next(u["password"] for u in result["users"] if u["username"] == "admin")
        self.assertIsNotNone(authenticate(username="admin", password=password))

    def test_the_served_demo_shows_the_sites_404_and_runs_jobs_off_the_request(self):
        """What the demo's server runs with: DEBUG off (a missing page is the site's own 404, not
        Django's URL list) and jobs on the background thread; set-up itself ran them inline."""
        from unittest import mock

        from django.conf import settings

        from paralab.management.commands import demo as demo_command

        seen = {}
        real_call = demo_command.call_command

        def call(name, *args, **kwargs):
            if name == "runserver":
                seen.update(debug=settings.DEBUG, runner=settings.PARALAB_JOB_RUNNER)
                self.client.force_login(get_user_model().objects.get(username="admin"))
                seen["404"] = self.client.get("/no-such-page/")
                return None
            if name == "collectstatic":
                return None  # STATIC_ROOT is not this test's business
            return real_call(name, *args, **kwargs)

        with override_settings(DEBUG=True, PARALAB_JOB_RUNNER="inline"), \
                mock.patch.dict("os.environ", {}, clear=False) as env, \
                mock.patch.object(demo_command, "call_command", call):
            env.pop("DEBUG", None)
            env.pop("PARALAB_JOB_RUNNER", None)
            call_command("demo", stdout=StringIO(), stderr=StringIO())
        self.assertEqual((seen["debug"], seen["runner"]), (False, "thread"))
        self.assertEqual(seen["404"].status_code, 404)
        page = seen["404"].content.decode()
        self.assertNotIn("Using the URLconf", page)  # Django's debug 404
        self.assertIn("paralab", page)

    def test_port_must_be_a_port(self):
        from django.core.management.base import CommandError

        with self.assertRaises(CommandError):
            call_command("demo", "--no-server", "--port", "70000", stdout=StringIO(), stderr=StringIO())

    # --- the annotation loop ------------------------------------------------------------------

    def test_each_annotator_finds_synthesized_test_pairs_queued_for_them(self):
        dataset = Dataset.objects.get(name="demo")
        tests = AnnotationItem.objects.filter(dataset=dataset, purpose="synthesized_test")
        self.assertGreaterEqual(tests.count(), dataset.problems.count(), "at least one test pair per problem")
        self.assertTrue(all(tests.values_list("candidate__generator", flat=True)))
        self.assertFalse(Label.objects.filter(item__in=tests).exists(), "the test pairs wait for the annotators")
        self.assertFalse(tests.filter(spans={}).exists(), "highlight spans are computed in advance")
        # every problem gets a positive pair (the paper's fa where it applies, else a validated rule
        # generator) beside its negative one: at least half the test pairs are meant to be valid
        intended = list(tests.values_list("candidate__intended_valid", flat=True))
        self.assertGreaterEqual(sum(intended), len(intended) / 2, intended)
        self.assertTrue(tests.filter(candidate__generator="test:reorder").exists())
        self.assertIn("annotate/", self.first_text)
        n_items = AnnotationItem.objects.filter(dataset=dataset).count()
        for username in ("annotator1", "annotator2"):
            with self.subTest(annotator=username):
                user = get_user_model().objects.get(username=username)
                item = annotation_next(user=user, dataset=dataset)
                self.assertIsNotNone(item)
                # An active, calibrated judge from the start: the queue hands out the pair its
                # score puts nearest the threshold (test pairs and generated variants alike).
                self.assertIn(item.purpose, ("synthesized_test", "generated"))
                self.assertTrue(item.candidate.scores.filter(model_version__status="active").exists())
                # k = 2 with two annotators: each labels every pair; the reviewed ones are done.
                done = Label.objects.filter(annotator=user, item__dataset=dataset).count()
                self.assertEqual(done, 24)
                self.assertEqual(annotation_progress(user=user, dataset=dataset), {"done": done, "total": n_items})
                # The same over the REST API, as the labelling screen asks.
                client = APIClient()
                client.force_login(user)
                response = client.get(reverse("api-annotation-next"), {"dataset": dataset.pk})
                self.assertEqual(response.status_code, 200)
                self.assertEqual(response.data["item"], item.pk, "their running lease comes back")
                self.assertIsNone(response.data["label"])

    def test_reviewed_pairs_are_labelled_by_both_through_the_real_services(self):
        dataset = Dataset.objects.get(name="demo")
        reviewed = AnnotationItem.objects.filter(dataset=dataset, candidate__generator="demo:reviewed")
        self.assertEqual(reviewed.count(), 24)
        for item in reviewed:
            self.assertEqual(
                sorted(item.labels.values_list("annotator__username", flat=True)), ["annotator1", "annotator2"]
            )
        self.assertEqual(LabelHistory.objects.filter(item__in=reviewed, action="created").count(), 48)
        self.assertFalse(Assignment.objects.filter(item__in=reviewed).exclude(status="done").exists())
        gold = GoldLabel.objects.filter(candidate__annotation_item__in=reviewed)
        self.assertEqual(set(gold.values_list("source", flat=True)), {"agreement"})
        self.assertEqual(gold.count(), 21, "21 agreed pairs; 3 split pairs wait for adjudication")
        self.assertEqual(set(gold.values_list("valid", flat=True)), {True, False})

    def test_staff_see_agreement_and_disagreements(self):
        dataset = Dataset.objects.get(name="demo")
        client = APIClient()
        client.force_login(get_user_model().objects.get(username="admin"))
        agreement = client.get(reverse("api-dataset-agreement", kwargs={"dataset_id": dataset.pk})).data
        self.assertEqual(agreement["n_items"], 24)
        (pair,) = agreement["binary"]["pairs"]
        self.assertEqual((pair["a"], pair["b"], pair["n"]), ("annotator1", "annotator2", 24))
        self.assertAlmostEqual(pair["agreement"], 21 / 24)
        self.assertIsNotNone(pair["kappa"])
        self.assertGreater(pair["kappa"], 0.5)
        for rating in ("solvability", "diversity", "fluency"):
            self.assertEqual(agreement["ratings"][rating]["pairs"][0]["n"], 24)
        split = client.get(reverse("api-disagreement-list"), {"dataset": dataset.pk, "kind": "human_human"}).data
        self.assertEqual(split["count"], 3)
        page = client.get(reverse("dashboard"), {"dataset": dataset.pk})
        self.assertEqual(page.status_code, 200)
        self.assertContains(page, "annotator1 · annotator2")
        self.assertContains(page, "retrain-button")

    def test_a_retrain_started_from_the_api_completes_and_yields_a_version(self):
        # The demo starts with one judge: the packaged encoder, active and calibrated on the gold.
        (first,) = ModelVersion.objects.all()
        self.assertEqual((first.kind, first.status, first.params.get("pretrained")), ("paraqd", "active", True))
        self.assertIn("calibration", first.metrics)
        client = APIClient()
        client.force_login(get_user_model().objects.get(username="admin"))
        # Tiny encoder (ParaQDSettingsMixin), tiny preset, a few problems: the real job, in seconds.
        with self.settings(PARALAB_RETRAIN_PRESET="tiny", PARALAB_RETRAIN_MAX_PROBLEMS=8):
            with self.captureOnCommitCallbacks(execute=True):  # eager Celery: the job runs on commit
                response = client.post(reverse("api-model-retrain", kwargs={"kind": "paraqd"}))
        self.assertEqual(response.status_code, 202, response.data)
        job = Job.objects.get(pk=response.data["job"])
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        version = ModelVersion.objects.get(pk=job.result["version"])
        self.assertEqual((version.kind, version.params["preset"]), ("paraqd", "tiny"))
        heldout = job.result["heldout"]
        self.assertGreater(heldout["train_gold"], 0, "the reviewed pairs' agreement gold is trained on")
        self.assertEqual(heldout["synthesized_test"], 0)
        self.assertEqual(heldout["n"] + heldout["train_gold"], 21)
        self.assertIn(version.status, ("active", "candidate"))
        self.assertEqual(version.metrics["gate"]["promoted"], version.status == "active")
