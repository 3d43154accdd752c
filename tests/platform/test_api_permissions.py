"""Who may call what: every endpoint of /api/v1/ against every role (doccano's table pattern).

Roles: anonymous, an annotator who is a member of the dataset, an annotator who is not, staff.
An annotator never learns that a dataset they do not annotate exists (404, like a missing id);
staff-only endpoints answer 403 to annotators whatever the id. The table runs twice, once with
session auth and once with token auth.
"""
from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import TestCase, override_settings
from django.urls import resolve, reverse
from drf_spectacular.generators import SchemaGenerator
from rest_framework.authtoken.models import Token
from rest_framework.settings import api_settings
from rest_framework.test import APIClient

from jobs.models import Job
from paralab import api_urls

from annotation import services as annotation_services

from .corpus.factories import PASSWORD, make_candidate, make_dataset, make_gold, make_item, make_problems, make_user

ANON, MEMBER, OUTSIDER, STAFF = "anonymous", "member", "non-member", "staff"
# DRF answers an unauthenticated request 401 when the first authentication class names a
# WWW-Authenticate scheme (token), 403 otherwise (session first). Either way: denied.
DENIED = 401 if api_settings.DEFAULT_AUTHENTICATION_CLASSES[0]().authenticate_header(None) else 403


def _upload():
    return {"file": SimpleUploadedFile("tiny.jsonl", b'{"text": "Ann has 2 cats and 3 dogs. How many pets?"}\n'),
            "format": "jsonl"}


def _everyone(status: int) -> dict[str, int]:
    return {ANON: status, MEMBER: status, OUTSIDER: status, STAFF: status}


# (method, url name, kwargs key, query, body factory, body format, {role: expected status})
TABLE = [
    ("post", "api-token", None, "", lambda: {"username": "member", "password": PASSWORD}, "json", _everyone(200)),
    ("get", "api-dataset-list", None, "", None, None, {ANON: DENIED, MEMBER: 200, OUTSIDER: 200, STAFF: 200}),
    ("post", "api-dataset-list", None, "", lambda: {"name": "fresh"}, "json",
     {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 201}),
    ("get", "api-dataset-detail", "dataset", "", None, None, {ANON: DENIED, MEMBER: 200, OUTSIDER: 404, STAFF: 200}),
    ("patch", "api-dataset-detail", "dataset", "", lambda: {"description": "x"}, "json",
     {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 200}),
    ("delete", "api-dataset-detail", "dataset", "", None, None, {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 204}),
    ("get", "api-problem-list", "dataset", "", None, None, {ANON: DENIED, MEMBER: 200, OUTSIDER: 404, STAFF: 200}),
    ("post", "api-dataset-import", "dataset", "", _upload, "multipart",
     {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 201}),
    ("post", "api-dataset-import", "dataset", "?async=1", _upload, "multipart",
     {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 202}),
    ("get", "api-dataset-export", "dataset", "?what=problems&format=csv", None, None,
     {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 200}),
    ("get", "api-dataset-export", "dataset", "?what=labels&format=jsonl", None, None,
     {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 200}),
    ("post", "api-dataset-export-job", "dataset", "", lambda: {"what": "problems", "format": "jsonl"}, "json",
     {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 202}),
    # The table's job is a queued export: nothing to download yet (409) — but only staff learn that.
    ("get", "api-job-download", "job", "", None, None, {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 409}),
    ("get", "api-job-list", None, "", None, None, {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 200}),
    ("get", "api-job-detail", "job", "", None, None, {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 200}),
    ("post", "api-job-cancel", "job", "", None, None, {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 200}),
    # Annotation. The member holds a lease on the table's item and labelled another one. Staff
    # label only datasets they are members of (this one they are not): 404 like an outsider.
    ("get", "api-annotation-next", None, "?dataset={dataset}", None, None,
     {ANON: DENIED, MEMBER: 200, OUTSIDER: 404, STAFF: 404}),
    ("get", "api-annotation-item", "item", "", None, None, {ANON: DENIED, MEMBER: 200, OUTSIDER: 404, STAFF: 404}),
    ("post", "api-annotation-label", "item", "", lambda: {"valid": True, "fluency": 5}, "json",
     {ANON: DENIED, MEMBER: 201, OUTSIDER: 403, STAFF: 403}),
    ("post", "api-annotation-skip", "item", "", None, None, {ANON: DENIED, MEMBER: 200, OUTSIDER: 403, STAFF: 403}),
    ("post", "api-annotation-undo", None, "", lambda t: {"dataset": t.dataset.pk}, "json",
     {ANON: DENIED, MEMBER: 200, OUTSIDER: 404, STAFF: 404}),
    ("get", "api-annotation-labels", None, "?dataset={dataset}", None, None,
     {ANON: DENIED, MEMBER: 200, OUTSIDER: 404, STAFF: 404}),
    ("get", "api-dataset-agreement", "dataset", "", None, None, {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 200}),
    ("get", "api-annotation-progress", "dataset", "", None, None,
     {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 200}),
    ("get", "api-disagreement-list", None, "?dataset={dataset}&kind=human_human", None, None,
     {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 200}),
    ("get", "api-disagreement-list", None, "?dataset={dataset}&kind=human_model", None, None,
     {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 200}),
    ("post", "api-annotation-adjudicate", "item", "", lambda: {"valid": False, "note": "unit lost"}, "json",
     {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 200}),
    ("get", "api-model-list", None, "", None, None, {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 200}),
    ("get", "api-model-list", None, "?kind=paraqd", None, None, {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 200}),
    ("post", "api-model-retrain", "paraqd", "", None, None, {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 202}),
    # STEAD does not learn from labels: 409 "no generator yet" (staff only learn that); PAP needs
    # gold labels on STEAD/PAP candidates, which this fixture has none of: 409 too.
    ("post", "api-model-retrain", "stead", "", None, None, {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 409}),
    ("post", "api-model-retrain", "pap", "", None, None, {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 409}),
    ("post", "api-model-retrain", "bert", "", None, None, {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 404}),
    # Recalibrating the active judge: ParaQD (the packaged encoder is registered when none is
    # active; no validation pairs here, so the job fails with its reason); the numeracy-aware judge
    # has no active version (409); a generator is not a judge (404).
    ("post", "api-model-calibrate", "paraqd", "", None, None, {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 202}),
    ("post", "api-model-calibrate", "judge", "", None, None, {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 409}),
    ("post", "api-model-calibrate", "pap", "", None, None, {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 404}),
    # Refitting the deciding judge on gold labels: no numeracy-aware judge decides in this fixture (409).
    ("post", "api-judge-refit", None, "", None, None, {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 409}),
    # Generation (staff only; the member of a dataset is an annotator all the same).
    ("post", "api-dataset-generate", "dataset", "", lambda: {"generators": ["reorder"], "per_problem": 1}, "json",
     {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 202}),
    ("get", "api-dataset-candidates", "dataset", "?min_pqi=0.1", None, None,
     {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 200}),
    ("post", "api-paraphrase", None, "",
     lambda: {"text": "Ann has 2 cats. She buys 3 dogs. How many pets does Ann have?", "k": 1,
              "generators": ["reorder"]}, "json",
     {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 200}),
    ("get", "api-generator-list", None, "", None, None, {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 200}),
    ("get", "api-dataset-export", "dataset", "?what=variants&format=csv", None, None,
     {ANON: DENIED, MEMBER: 403, OUTSIDER: 403, STAFF: 200}),
    # The schema and its browsable docs are public (drf-spectacular's SERVE_PERMISSIONS default).
    ("get", "api-schema", None, "", None, None, _everyone(200)),
    ("get", "api-docs", None, "", None, None, _everyone(200)),
]


class ApiPermissionTableTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.users = {
            MEMBER: make_user("member"),
            OUTSIDER: make_user("outsider"),
            STAFF: make_user("boss", staff=True),
        }
        cls.dataset = make_dataset("shared", annotators=[cls.users[MEMBER]])
        problems = make_problems(cls.dataset, 3)
        # Two items: the member labels the first and holds a lease on the second (the table's item).
        for problem in problems[:2]:
            make_item(cls.dataset, make_candidate(problem, f"Reworded: {problem.text}"))
        labelled = annotation_services.annotation_next(user=cls.users[MEMBER], dataset=cls.dataset)
        annotation_services.label_submit(user=cls.users[MEMBER], item=labelled, valid=True)
        cls.item = annotation_services.annotation_next(user=cls.users[MEMBER], dataset=cls.dataset)
        make_dataset("outsiders-own", annotators=[cls.users[OUTSIDER]])
        # A job the member started: annotators still see no job, not even their own.
        cls.job = Job.objects.create(kind=Job.Kind.EXPORT, dataset=cls.dataset, created_by=cls.users[MEMBER])
        # A gold label annotators agreed on: something to retrain ParaQD on.
        make_gold(make_candidate(problems[2], "Ann owns 2 cats and 3 dogs; how many pets?"), valid=True,
                  source="agreement")

    def setUp(self):
        media = Path(tempfile.mkdtemp(prefix="paralab-media-"))
        self.addCleanup(shutil.rmtree, media, True)
        override = override_settings(MEDIA_ROOT=media)
        override.enable()
        self.addCleanup(override.disable)

    def test_the_table_covers_every_api_endpoint(self):
        self.assertEqual({row[1] for row in TABLE}, {p.name for p in api_urls.urlpatterns})

    def test_the_table_covers_every_method_of_every_endpoint(self):
        """Each (method, endpoint) a view answers has a row, and each row names a method it answers."""
        handled = set()
        for pattern in api_urls.urlpatterns:
            view = pattern.callback.view_class
            handled |= {(m, pattern.name) for m in view.http_method_names
                        if m not in ("options", "head") and hasattr(view, m)}
        self.assertEqual({(row[0], row[1]) for row in TABLE}, handled)

    def test_the_table_covers_every_operation_of_the_openapi_schema(self):
        schema = SchemaGenerator().get_schema(request=None, public=True)
        operations = set()
        for path, item in schema["paths"].items():
            # A concrete URL for the template, to find the url name it belongs to.
            concrete = re.sub(r"\{(\w+)\}", lambda m: "1" if m.group(1).endswith("_id") else "paraqd", path)
            name = resolve(concrete).url_name
            operations |= {(method, name) for method in item if method in ("get", "post", "put", "patch", "delete")}
        self.assertGreaterEqual(len(operations), 30)
        self.assertEqual(operations - {(row[0], row[1]) for row in TABLE}, set())

    def _client(self, role: str, auth: str) -> APIClient:
        client = APIClient()
        if role != ANON:
            if auth == "session":
                client.force_login(self.users[role])
            else:
                token, _ = Token.objects.get_or_create(user=self.users[role])
                client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        return client

    def _run_table(self, auth: str) -> None:
        ids = {"dataset": {"dataset_id": self.dataset.pk}, "job": {"job_id": self.job.pk},
               "item": {"item_id": self.item.pk}, **{kind: {"kind": kind} for kind in ("paraqd", "judge", "stead", "pap", "bert")}}
        for method, name, key, query, body, fmt, expected in TABLE:
            url = reverse(name, kwargs=ids[key] if key else None) + query.format(dataset=self.dataset.pk)
            for role, status in expected.items():
                with self.subTest(auth=auth, method=method, url=url, role=role):
                    # Each call in its own savepoint, rolled back: a DELETE does not spoil the next row.
                    with transaction.atomic():
                        # A body factory may take the test case, for ids made in setUpTestData.
                        data = (body(self) if body.__code__.co_argcount else body()) if body else None
                        kwargs = {"data": data, "format": fmt} if body else {}
                        response = getattr(self._client(role, auth), method)(url, **kwargs)
                        transaction.set_rollback(True)
                    self.assertEqual(response.status_code, status, getattr(response, "data", None))

    def test_session_auth(self):
        self._run_table("session")

    def test_token_auth(self):
        self._run_table("token")

    def test_annotators_list_only_their_own_datasets(self):
        for role, names in ((MEMBER, ["shared"]), (OUTSIDER, ["outsiders-own"]), (STAFF, ["outsiders-own", "shared"])):
            with self.subTest(role=role):
                response = self._client(role, "session").get(reverse("api-dataset-list"))
                self.assertEqual([d["name"] for d in response.data["results"]], names)

    def test_a_missing_dataset_and_a_foreign_one_look_the_same_to_an_annotator(self):
        client = self._client(OUTSIDER, "session")
        missing = client.get(reverse("api-dataset-detail", kwargs={"dataset_id": 999999}))
        foreign = client.get(reverse("api-dataset-detail", kwargs={"dataset_id": self.dataset.pk}))
        self.assertEqual((missing.status_code, foreign.status_code), (404, 404))
        self.assertEqual(missing.data, foreign.data)

    def test_session_writes_need_the_csrf_token(self):
        client = APIClient(enforce_csrf_checks=True)
        client.force_login(self.users[STAFF])
        response = client.post(reverse("api-dataset-list"), {"name": "csrf"}, format="json")
        self.assertEqual(response.status_code, 403)
        self.assertIn("CSRF", str(response.data["detail"]))

    def test_a_bad_token_is_refused(self):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION="Token not-a-real-key")
        response = client.get(reverse("api-dataset-list"))
        self.assertIn(response.status_code, (401, 403))
        self.assertEqual(response.status_code, DENIED)
