"""`manage.py demo --no-server`: the logins it prints work, and running it twice changes nothing."""
from __future__ import annotations

import json
from io import StringIO

from django.contrib.auth import authenticate, get_user_model
from django.core.management import call_command
from django.test import TestCase

from corpus.models import Dataset, Problem


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
    }


class DemoCommandTests(TestCase):
    def test_prints_logins_as_json_last_and_they_authenticate(self):
        text, result = run_demo()
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
        run_demo()
        dataset = Dataset.objects.get(name="demo")
        self.assertGreaterEqual(dataset.problems.count(), 48)
        self.assertEqual(set(dataset.problems.values_list("source", flat=True)), {"demo"})
        self.assertEqual(set(dataset.problems.values_list("split", flat=True)), {"train", "dev", "test"})
        self.assertEqual(sorted(dataset.annotators.values_list("username", flat=True)), ["annotator1", "annotator2"])
        self.assertFalse(dataset.problems.filter(answer="").exists())

    def test_running_it_twice_changes_nothing(self):
        _, first_json = run_demo()
        first = snapshot()
        _, second_json = run_demo()
        self.assertEqual(snapshot(), first)
        self.assertEqual(second_json, first_json)

    def test_it_restores_a_demo_password_that_was_changed(self):
        run_demo()
        admin = get_user_model().objects.get(username="admin")
        admin.set_password("something-else-entirely")
        admin.save()
        _, result = run_demo()
        password = next(u["password"] for u in result["users"] if u["username"] == "admin")
        self.assertIsNotNone(authenticate(username="admin", password=password))

    def test_port_must_be_a_port(self):
        from django.core.management.base import CommandError

        with self.assertRaises(CommandError):
            call_command("demo", "--no-server", "--port", "70000", stdout=StringIO(), stderr=StringIO())
