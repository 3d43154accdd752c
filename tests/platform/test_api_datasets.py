"""The dataset endpoints: list/create/detail, problems, import uploads, streamed export, tokens, schema."""
from __future__ import annotations

import csv
import io
import json
import shutil
import tempfile
from pathlib import Path

from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import StreamingHttpResponse
from django.test import TestCase, override_settings
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from corpus.exporters import export_stream
from corpus.models import Dataset, Problem
from jobs.models import Job

from .corpus.factories import (
    PASSWORD, make_candidate, make_dataset, make_gold, make_item, make_label, make_problem, make_problems, make_user,
)

GOOD_JSONL = (
    b'{"text": "Ann has 2 cats and 3 dogs. How many pets does she have?", "answer": "5", "numbers": ["2", "3"]}\n'
    b'{"text": "A bus carries 40 people; 12 get off. How many remain?", "answer": "28"}\n'
    b'{"text": "ann has 2 cats and 3 dogs.  How many pets does she have?"}\n'
)
BAD_JSONL = (
    b'{"text": "Ann has 2 cats and 3 dogs. How many pets does she have?"}\n'
    b'{"text": "A bus carries 40 people.", "numbers": "forty"}\n'
)


class ApiTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.staff = make_user("boss", staff=True)
        cls.member = make_user("member")
        cls.dataset = make_dataset("algebra", annotators=[cls.member], description="word problems")
        make_problems(cls.dataset, 60)

    def setUp(self):
        self.media = Path(tempfile.mkdtemp(prefix="paralab-media-"))
        self.addCleanup(shutil.rmtree, self.media, True)
        override = override_settings(MEDIA_ROOT=self.media)
        override.enable()
        self.addCleanup(override.disable)
        self.client = APIClient()
        self.client.force_login(self.staff)

    def url(self, name: str, **kwargs) -> str:
        return reverse(name, kwargs=kwargs or None)


class DatasetCrudTests(ApiTestCase):
    def test_annotators_see_only_read_only_fields(self):
        self.client.force_login(self.member)
        response = self.client.get(self.url("api-dataset-list"))
        self.assertEqual(response.status_code, 200)
        self.assertEqual(
            response.data["results"],
            [{"id": self.dataset.pk, "name": "algebra", "description": "word problems", "problem_count": 60}],
        )
        detail = self.client.get(self.url("api-dataset-detail", dataset_id=self.dataset.pk))
        self.assertEqual(set(detail.data), {"id", "name", "description", "problem_count"})

    def test_staff_create_with_annotators_then_patch_and_delete(self):
        response = self.client.post(
            self.url("api-dataset-list"),
            {"name": "svamp", "description": "challenge set", "guidelines": "# Be strict", "annotators": ["member"]},
            format="json",
        )
        self.assertEqual(response.status_code, 201, response.data)
        self.assertEqual(response.data["annotators"], ["member"])
        self.assertEqual((response.data["created_by"], response.data["problem_count"]), ("boss", 0))
        dataset = Dataset.objects.get(name="svamp")
        self.assertEqual(dataset.guidelines, "# Be strict")

        duplicate = self.client.post(self.url("api-dataset-list"), {"name": "svamp"}, format="json")
        self.assertEqual(duplicate.status_code, 400)
        self.assertIn("name", duplicate.data)
        unknown_user = self.client.post(
            self.url("api-dataset-list"), {"name": "x", "annotators": ["ghost"]}, format="json"
        )
        self.assertEqual(unknown_user.status_code, 400)
        self.assertIn("annotators", unknown_user.data)

        url = self.url("api-dataset-detail", dataset_id=dataset.pk)
        patched = self.client.patch(url, {"description": "changed", "annotators": []}, format="json")
        self.assertEqual(patched.status_code, 200, patched.data)
        self.assertEqual((patched.data["name"], patched.data["description"], patched.data["annotators"]),
                         ("svamp", "changed", []))
        taken = self.client.patch(url, {"name": "algebra"}, format="json")
        self.assertEqual(taken.status_code, 400)
        same = self.client.patch(url, {"name": "svamp"}, format="json")
        self.assertEqual(same.status_code, 200)

        self.assertEqual(self.client.delete(url).status_code, 204)
        self.assertFalse(Dataset.objects.filter(pk=dataset.pk).exists())
        self.assertEqual(self.client.get(url).status_code, 404)

    def test_problems_are_paginated(self):
        url = self.url("api-problem-list", dataset_id=self.dataset.pk)
        first = self.client.get(url)
        self.assertEqual(first.status_code, 200)
        self.assertEqual(first.data["count"], 60)
        self.assertEqual(len(first.data["results"]), 50)
        self.assertEqual(
            set(first.data["results"][0]),
            {"id", "text", "source", "source_id", "split", "answer", "equation", "numbers", "metadata", "created_at"},
        )
        second = self.client.get(first.data["next"])
        self.assertEqual(len(second.data["results"]), 10)


class ImportUploadTests(ApiTestCase):
    def _post(self, content: bytes, *, name="upload.jsonl", query="", **fields):
        data = {"file": SimpleUploadedFile(name, content), "format": "jsonl", **fields}
        return self.client.post(self.url("api-dataset-import", dataset_id=self.dataset.pk) + query, data,
                                format="multipart")

    def uploads_left(self) -> list[Path]:
        folder = self.media / "uploads"
        return list(folder.iterdir()) if folder.exists() else []

    def test_small_file_is_imported_in_the_request(self):
        response = self._post(GOOD_JSONL, split="train")
        self.assertEqual(response.status_code, 201, response.data)
        self.assertEqual((response.data["dataset"], response.data["created"], response.data["duplicates"]),
                         ("algebra", 2, 1))
        problem = Problem.objects.get(dataset=self.dataset, text__startswith="Ann has")
        self.assertEqual((problem.numbers, problem.split), (["2", "3"], "train"))
        self.assertEqual(self.uploads_left(), [])

    def test_bad_file_is_refused_naming_the_line_and_nothing_is_written(self):
        response = self._post(BAD_JSONL, name="mine.jsonl")
        self.assertEqual(response.status_code, 400)
        detail = str(response.data["detail"])
        self.assertIn("mine.jsonl", detail)
        self.assertIn("line 2", detail)
        self.assertIn("numbers", detail)
        self.assertEqual(Problem.objects.filter(dataset=self.dataset).count(), 60)
        self.assertEqual(self.uploads_left(), [])

    def test_missing_file_or_bad_format_is_a_400(self):
        url = self.url("api-dataset-import", dataset_id=self.dataset.pk)
        self.assertIn("file", self.client.post(url, {"format": "jsonl"}, format="multipart").data)
        bad_format = self._post(GOOD_JSONL, format="xlsx")
        self.assertEqual(bad_format.status_code, 400)
        self.assertIn("format", bad_format.data)
        pairs_format = self._post(GOOD_JSONL, kind="pairs", format="jsonl")
        self.assertEqual(pairs_format.status_code, 400)
        self.assertIn("format", pairs_format.data)

    def test_oversized_file_is_refused_before_it_is_stored(self):
        with override_settings(PARALAB_MAX_UPLOAD_BYTES=100):
            response = self._post(GOOD_JSONL)
        self.assertEqual(response.status_code, 413)
        self.assertIn("100 bytes", str(response.data["detail"]))
        self.assertEqual(Problem.objects.filter(dataset=self.dataset).count(), 60)
        self.assertEqual(self.uploads_left(), [])

    def test_async_import_returns_a_job_that_succeeds(self):
        with self.captureOnCommitCallbacks(execute=True):
            response = self._post(GOOD_JSONL, query="?async=1")
        self.assertEqual(response.status_code, 202, response.data)
        self.assertIn(response.data["status"], {"queued", "succeeded"})
        job = self.client.get(self.url("api-job-detail", job_id=response.data["job"])).data
        self.assertEqual((job["status"], job["progress"], job["kind"]), ("succeeded", 1.0, "import_problems"))
        self.assertEqual((job["result"]["created"], job["result"]["duplicates"]), (2, 1))
        self.assertEqual(Problem.objects.filter(dataset=self.dataset).count(), 62)
        self.assertEqual(self.uploads_left(), [])  # the job removed its upload

    def test_async_flag_without_a_value_and_async_0(self):
        with self.captureOnCommitCallbacks(execute=True):
            self.assertEqual(self._post(GOOD_JSONL, query="?async").status_code, 202)
        self.assertEqual(self._post(GOOD_JSONL, name="again.jsonl", query="?async=0").status_code, 201)

    def test_a_file_over_the_sync_limit_becomes_a_job(self):
        with override_settings(PARALAB_IMPORT_SYNC_MAX_BYTES=50), self.captureOnCommitCallbacks(execute=True):
            response = self._post(GOOD_JSONL)
        self.assertEqual(response.status_code, 202)
        self.assertEqual(Job.objects.get(pk=response.data["job"]).status, Job.Status.SUCCEEDED)

    def test_async_bad_file_fails_the_job_with_the_line(self):
        with self.captureOnCommitCallbacks(execute=True):
            response = self._post(BAD_JSONL, query="?async=1")
        job = Job.objects.get(pk=response.data["job"])
        self.assertEqual(job.status, Job.Status.FAILED)
        self.assertIn("line 2", job.error)
        self.assertEqual(Problem.objects.filter(dataset=self.dataset).count(), 60)

    def test_labelled_pairs(self):
        content = (
            "question,augmented,final_label\n"
            "Tom has 3 apples. How many?,How many apples does Tom have if he has 3?,1\n"
            "Tom has 3 apples. How many?,Tom has apples. How many?,0\n"
        ).encode()
        response = self._post(content, name="pairs.csv", kind="pairs", format="paraqd")
        self.assertEqual(response.status_code, 201, response.data)
        self.assertEqual((response.data["created"], response.data["gold_labels"]), (2, 2))


class ExportApiTests(ApiTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        make_problem(cls.dataset, "=HYPERLINK(\"http://evil\") apples", answer="-3")
        candidate = make_candidate(cls.dataset.problems.first(), "A paraphrase.")
        make_label(make_item(cls.dataset, candidate), cls.member, valid=True)
        make_gold(candidate, valid=True)
        cls.token = Token.objects.create(user=cls.staff)

    def export_url(self, query: str) -> str:
        return self.url("api-dataset-export", dataset_id=self.dataset.pk) + query

    def test_streams_jsonl_with_a_filename(self):
        response = self.client.get(self.export_url("?what=problems&format=jsonl"))
        self.assertEqual(response.status_code, 200)
        self.assertIsInstance(response, StreamingHttpResponse)
        self.assertEqual(response["Content-Type"], "application/x-ndjson; charset=utf-8")
        self.assertEqual(response["Content-Disposition"], 'attachment; filename="algebra-problems.jsonl"')
        body = b"".join(response.streaming_content).decode()
        self.assertEqual(body, "".join(export_stream(dataset=self.dataset, what="problems", fmt="jsonl")))
        self.assertEqual(len(body.splitlines()), 61)

    def test_export_job_then_download_the_file(self):
        with self.captureOnCommitCallbacks(execute=True):
            response = self.client.post(
                self.url("api-dataset-export-job", dataset_id=self.dataset.pk), {"what": "problems", "format": "csv"}, format="json"
            )
        self.assertEqual(response.status_code, 202, response.data)
        job = Job.objects.get(pk=response.data["job"])
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        download = self.client.get(self.url("api-job-download", job_id=job.pk))
        self.assertEqual(download.status_code, 200)
        self.assertEqual(download["Content-Disposition"], 'attachment; filename="algebra-problems.csv"')
        body = b"".join(download.streaming_content).decode()
        self.assertEqual(body, "".join(export_stream(dataset=self.dataset, what="problems", fmt="csv")))
        # A file outside the exports folder is never served, whatever the job row says.
        Job.objects.filter(pk=job.pk).update(result={"path": "/etc/passwd"})
        self.assertEqual(self.client.get(self.url("api-job-download", job_id=job.pk)).status_code, 404)
        # Another kind of job has nothing to download.
        other = Job.objects.create(kind=Job.Kind.IMPORT_PROBLEMS, status=Job.Status.SUCCEEDED)
        self.assertEqual(self.client.get(self.url("api-job-download", job_id=other.pk)).status_code, 404)

    def test_csv_over_token_auth(self):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {self.token.key}")
        response = client.get(self.export_url("?what=problems&format=csv"))
        self.assertEqual(response.status_code, 200)
        self.assertEqual(response["Content-Type"], "text/csv; charset=utf-8")
        rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode(), newline="")))
        self.assertEqual(len(rows), 61)
        self.assertEqual(rows[-1]["text"], "'=HYPERLINK(\"http://evil\") apples")
        self.assertEqual(rows[-1]["answer"], "'-3")

    def test_labels_and_paraphrases(self):
        labels = b"".join(self.client.get(self.export_url("?what=labels&format=jsonl")).streaming_content)
        rows = [json.loads(line) for line in labels.decode().splitlines()]
        self.assertEqual([(r["kind"], r["annotator"]) for r in rows], [("human", "member"), ("gold", None)])
        self.assertNotIn(b"@example.org", labels)
        paraphrases = self.client.get(self.export_url("?what=paraphrases&format=csv"))
        self.assertEqual(paraphrases["Content-Disposition"], 'attachment; filename="algebra-paraphrases.csv"')

    def test_filenames_of_odd_dataset_names(self):
        for name, header in (("Über set", "attachment; filename*=utf-8''%C3%9Cber-set-problems.csv"),
                             ("???", 'attachment; filename="dataset-{pk}-problems.csv"')):
            with self.subTest(name=name):
                dataset = make_dataset(name)
                response = self.client.get(
                    self.url("api-dataset-export", dataset_id=dataset.pk) + "?what=problems&format=csv"
                )
                self.assertEqual(response.status_code, 200)
                self.assertEqual(response["Content-Disposition"], header.format(pk=dataset.pk))

    def test_bad_what_or_format_is_a_400(self):
        for query, field in (("?what=users", "what"), ("?what=problems&format=xlsx", "format"), ("", "what")):
            with self.subTest(query=query):
                response = self.client.get(self.export_url(query))
                self.assertEqual(response.status_code, 400)
                self.assertIn(field, response.json())

    def test_annotators_cannot_export_even_their_own_dataset(self):
        self.client.force_login(self.member)
        self.assertEqual(self.client.get(self.export_url("?what=problems")).status_code, 403)


class TokenAndSchemaTests(ApiTestCase):
    def test_token_for_good_credentials_and_400_for_bad(self):
        client = APIClient()
        url = self.url("api-token")
        good = client.post(url, {"username": "member", "password": PASSWORD}, format="json")
        self.assertEqual(good.status_code, 200)
        self.assertEqual(good.data["token"], Token.objects.get(user=self.member).key)
        again = client.post(url, {"username": "member", "password": PASSWORD}, format="json")
        self.assertEqual(again.data["token"], good.data["token"])
        bad = client.post(url, {"username": "member", "password": "wrong"}, format="json")
        self.assertEqual(bad.status_code, 400)
        self.assertNotIn("token", bad.data)
        self.assertEqual(client.post(url, {"username": "member"}, format="json").status_code, 400)

        client.credentials(HTTP_AUTHORIZATION=f"Token {good.data['token']}")
        self.assertEqual(client.get(self.url("api-dataset-list")).data["count"], 1)

    def test_inactive_users_get_no_token(self):
        self.member.is_active = False
        self.member.save()
        response = APIClient().post(self.url("api-token"), {"username": "member", "password": PASSWORD}, format="json")
        self.assertEqual(response.status_code, 400)

    def test_schema_is_served(self):
        response = self.client.get(self.url("api-schema"))
        self.assertEqual(response.status_code, 200)
        text = response.content.decode()
        for path in ("/api/v1/datasets/{dataset_id}/export/", "/api/v1/datasets/{dataset_id}/import/",
                     "/api/v1/jobs/{job_id}/", "/api/v1/auth/token/"):
            self.assertIn(path, text)
