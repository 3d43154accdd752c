"""``import_problems`` and ``import_pairs``: one JSON line on success; one message and exit 1 on bad input."""

from __future__ import annotations

import contextlib
import io
import json
from unittest import mock

from django.core.management import CommandError, call_command, execute_from_command_line
from django.test import TestCase

from annotation.models import GoldLabel
from corpus.models import Dataset, Problem
from paraphrases.models import Candidate

from .importing import FIXTURES, TempFilesMixin


def _run(*args: str) -> dict:
    out = io.StringIO()
    call_command(*args, stdout=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 1, lines
    return json.loads(lines[0])


def _command_line(*argv: str) -> None:
    """``manage.py *argv`` in this process; run_from_argv's closing of every database connection
    at the end is skipped, as it would end the test's transaction (PostgreSQL)."""
    with mock.patch("django.core.management.base.connections.close_all"):
        execute_from_command_line(["manage.py", *argv])


def _counts() -> tuple[int, int, int, int]:
    return Dataset.objects.count(), Problem.objects.count(), Candidate.objects.count(), GoldLabel.objects.count()


class ImportProblemsCommandTests(TempFilesMixin, TestCase):
    def test_prints_one_json_line_and_creates_the_dataset(self):
        result = _run("import_problems", str(FIXTURES / "mawps_small.csv"), "--dataset", "mawps", "--split", "train")
        self.assertEqual(result, {"dataset": "mawps", "created": 4, "duplicates": 1})
        dataset = Dataset.objects.get(name="mawps")
        self.assertEqual(set(dataset.problems.values_list("split", flat=True)), {"train"})
        self.assertEqual(set(dataset.problems.values_list("source", flat=True)), {"mawps"})

    def test_existing_dataset_and_explicit_format(self):
        Dataset.objects.create(name="aqua")
        self.assertEqual(
            _run("import_problems", str(FIXTURES / "aqua_small.json"), "--dataset", "aqua", "--format", "aqua"),
            {"dataset": "aqua", "created": 3, "duplicates": 0},
        )
        self.assertEqual(
            _run("import_problems", str(FIXTURES / "aqua_small.json"), "--dataset", "aqua"),
            {"dataset": "aqua", "created": 0, "duplicates": 3},
        )

    def test_bad_file_raises_one_message_and_writes_nothing_not_even_the_dataset(self):
        path = self.write("bad.jsonl", '{"text": "Ann has 2 cats."}\n{"text": \n')
        before = _counts()
        with self.assertRaisesMessage(CommandError, "bad.jsonl, line 2: invalid JSON"):
            call_command("import_problems", str(path), "--dataset", "brand-new", stdout=io.StringIO())
        self.assertEqual(_counts(), before)
        self.assertFalse(Dataset.objects.filter(name="brand-new").exists())

    def test_exit_status_and_stderr_from_the_command_line(self):
        path = self.write("data.csv", "text,answer\nAnn has 2 cats.,2\n,3\n")
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            with self.assertRaises(SystemExit) as ctx:
                _command_line("import_problems", str(path), "--dataset", "new")
        self.assertNotEqual(ctx.exception.code, 0)
        self.assertEqual(out.getvalue(), "")
        self.assertEqual(err.getvalue().strip(), "CommandError: data.csv, line 3: column 'text' is empty")
        self.assertFalse(Dataset.objects.filter(name="new").exists())

    def test_missing_file(self):
        with self.assertRaisesMessage(CommandError, "nowhere.jsonl: no such file"):
            call_command("import_problems", str(self.tmp / "nowhere.jsonl"), "--dataset", "x", stdout=io.StringIO())
        self.assertFalse(Dataset.objects.exists())

    def test_help(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), self.assertRaises(SystemExit):
            _command_line("import_problems", "--help")
        self.assertIn("all or nothing", out.getvalue())
        self.assertIn("--format {auto,aqua,gsm8k,svamp,mawps,jsonl,csv}", out.getvalue())


class ImportPairsCommandTests(TempFilesMixin, TestCase):
    def test_prints_json_counts(self):
        result = _run("import_pairs", str(FIXTURES / "pairs_paraqd.csv"), "--dataset", "paraqd")
        self.assertEqual(
            result,
            {"dataset": "paraqd", "problems_created": 2, "candidates_created": 5, "gold_labels": 5, "duplicates": 1},
        )
        self.assertEqual(Candidate.objects.filter(problem__dataset__name="paraqd").count(), 5)

    def test_bad_label_writes_nothing(self):
        path = self.write("pairs.csv", "question,paraphrase,label\nQ 1?,P 1?,1\nQ 2?,P 2?,maybe\n")
        before = _counts()
        with self.assertRaisesMessage(CommandError, "pairs.csv, line 3: column 'label' is 'maybe'"):
            call_command("import_pairs", str(path), "--dataset", "fresh", stdout=io.StringIO())
        self.assertEqual(_counts(), before)

    def test_help(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), self.assertRaises(SystemExit):
            _command_line("import_pairs", "--help")
        self.assertIn("final_label", out.getvalue())
