"""Export of problems, paraphrases and labels: content, CSV escaping, streaming, files and jobs."""
from __future__ import annotations

import csv
import io
import json
import math
import shutil
import tempfile
import types
from pathlib import Path

from django.core.management import CommandError, call_command
from django.db import connection
from django.test import TestCase, override_settings
from django.test.utils import CaptureQueriesContext

from corpus import exporters
from corpus.exporters import postgres
from corpus.exporters import csv_cell, csv_escape, dataset_export_rows, dataset_export_start, export_stream
from jobs.models import Job

from .factories import (
    make_candidate, make_dataset, make_gold, make_item, make_label, make_problem, make_problems, make_score,
    make_user,
)


def _text(dataset, what, fmt, **kw) -> str:
    return "".join(export_stream(dataset=dataset, what=what, fmt=fmt, **kw))


def _jsonl(dataset, what, **kw) -> list[dict]:
    return [json.loads(line) for line in _text(dataset, what, "jsonl", **kw).splitlines()]


def _csv(dataset, what, **kw) -> list[dict]:
    return list(csv.DictReader(io.StringIO(_text(dataset, what, "csv", **kw), newline="")))


class MediaRootMixin:
    def setUp(self):
        super().setUp()
        self.media = Path(tempfile.mkdtemp(prefix="paralab-media-"))
        self.addCleanup(shutil.rmtree, self.media, True)
        override = override_settings(MEDIA_ROOT=self.media)
        override.enable()
        self.addCleanup(override.disable)


class ProblemExportTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.dataset = make_dataset("algebra")
        cls.other = make_dataset("other")
        cls.p1 = make_problem(
            cls.dataset, "Tom has 3 apples and buys 2.5 kg more. How much?", source="gsm8k", source_id="7",
            split="train", answer="5.5", equation="3+2.5", numbers=["3", "2.5"], metadata={"level": 2, "tags": ["a"]},
        )
        cls.p2 = make_problem(cls.dataset, "A train travels 60 km in 1 hour.", numbers=["60", "1"])
        make_problem(cls.other, "Not in this dataset.")

    def test_jsonl_rows_have_the_importable_fields_in_id_order(self):
        rows = _jsonl(self.dataset, "problems")
        self.assertEqual([r["id"] for r in rows], [self.p1.pk, self.p2.pk])
        self.assertEqual(list(rows[0]), exporters.PROBLEM_FIELDS)
        self.assertEqual(
            rows[0],
            {
                "id": self.p1.pk, "text": self.p1.text, "source": "gsm8k", "source_id": "7", "split": "train",
                "answer": "5.5", "equation": "3+2.5", "numbers": ["3", "2.5"], "metadata": {"level": 2, "tags": ["a"]},
            },
        )

    def test_csv_serialises_json_fields_as_json_strings(self):
        rows = _csv(self.dataset, "problems")
        self.assertEqual(len(rows), 2)
        self.assertEqual(json.loads(rows[0]["numbers"]), ["3", "2.5"])
        self.assertEqual(json.loads(rows[0]["metadata"]), {"level": 2, "tags": ["a"]})
        self.assertEqual(rows[0]["text"], self.p1.text)
        self.assertEqual(rows[1]["split"], "")

    def test_unknown_what_or_format_is_refused_before_streaming(self):
        with self.assertRaisesMessage(exporters.ExportError, "what must be one of"):
            export_stream(dataset=self.dataset, what="users", fmt="jsonl")
        with self.assertRaisesMessage(exporters.ExportError, "format must be one of"):
            export_stream(dataset=self.dataset, what="problems", fmt="xlsx")


class CsvEscapingTests(TestCase):
    def test_every_formula_prefix_is_escaped(self):
        for prefix in ("=", "+", "-", "@", "\t", "\r", "\0"):
            with self.subTest(prefix=repr(prefix)):
                self.assertEqual(csv_escape(f"{prefix}1+2"), f"'{prefix}1+2")

    def test_only_the_first_character_of_the_cell_counts(self):
        self.assertEqual(csv_escape("Tom has -5 apples = loss"), "Tom has -5 apples = loss")
        self.assertEqual(csv_escape("-5 apples"), "'-5 apples")
        self.assertEqual(csv_escape(""), "")

    def test_cells_by_type(self):
        self.assertEqual(csv_cell(None), "")
        self.assertEqual(csv_cell(True), "true")
        self.assertEqual(csv_cell(-0.31), -0.31)  # a number the exporter wrote, not attacker text
        self.assertEqual(csv_cell(["-5", "3"]), '["-5", "3"]')
        self.assertEqual(csv_cell("=HYPERLINK(\"http://x\")"), "'=HYPERLINK(\"http://x\")")

    def test_exported_csv_escapes_dangerous_cells_and_parses_back(self):
        dataset = make_dataset("csv-injection")
        texts = {
            "=SUM(A1:A9)": "'=SUM(A1:A9)",
            "+1 more apple": "'+1 more apple",
            "-5 degrees at night": "'-5 degrees at night",
            "@cmd|' /C calc'!A0": "'@cmd|' /C calc'!A0",
            "\tTabbed problem": "'\tTabbed problem",
            "\rCarriage problem": "'\rCarriage problem",
            'Tom has "3" apples, -5 pears; = what?\nTwo lines.': 'Tom has "3" apples, -5 pears; = what?\nTwo lines.',
        }
        for text in texts:
            make_problem(dataset, text, answer="-5", equation="=2+3")
        rows = _csv(dataset, "problems")
        self.assertEqual([r["text"] for r in rows], list(texts.values()))
        for row in rows:
            self.assertEqual(row["answer"], "'-5")
            self.assertEqual(row["equation"], "'=2+3")
            self.assertEqual(row["source"], "")


class StreamingTests(TestCase):
    N = 5003

    @classmethod
    def setUpTestData(cls):
        cls.dataset = make_dataset("big")
        make_problems(cls.dataset, cls.N)

    def test_stream_is_lazy(self):
        stream = export_stream(dataset=self.dataset, what="problems", fmt="jsonl")
        self.assertIsInstance(stream, types.GeneratorType)
        with CaptureQueriesContext(connection) as queries:
            first = next(stream)
        self.assertEqual(len(queries), 1)  # one chunk read, not the whole dataset
        self.assertLessEqual(len(first), exporters.PIECE_CHARS + 1000)
        stream.close()
        self.assertIsInstance(dataset_export_rows(dataset=self.dataset, what="problems"), types.GeneratorType)

    def test_every_row_is_exported_with_one_query_per_chunk(self):
        for fmt in ("jsonl", "csv"):
            for chunk_size in (2000, 500):
                with self.subTest(fmt=fmt, chunk_size=chunk_size), CaptureQueriesContext(connection) as queries:
                    text = _text(self.dataset, "problems", fmt, chunk_size=chunk_size)
                    rows = len(text.splitlines()) - (1 if fmt == "csv" else 0)
                    self.assertEqual(rows, self.N)
                    self.assertLessEqual(len(queries), math.ceil(self.N / chunk_size) + 1)

    def test_paraphrase_and_label_queries_grow_with_chunks_not_rows(self):
        annotator = make_user("ann")
        problems = list(self.dataset.problems.all()[:30])
        for i, problem in enumerate(problems):
            candidate = make_candidate(problem, f"Paraphrase {i}")
            make_score(candidate, "metrics:1", pqi=0.5)
            make_label(make_item(self.dataset, candidate), annotator, valid=bool(i % 2))
            make_gold(candidate, valid=True)
        for what, per_chunk in (("paraphrases", 2), ("labels", 1)):
            counts = []
            for chunk_size in (10, 5):
                with CaptureQueriesContext(connection) as queries:
                    rows = _jsonl(self.dataset, what, chunk_size=chunk_size)
                counts.append(len(queries))
                self.assertEqual(len(rows), 30 if what == "paraphrases" else 60)
            # paraphrases: (candidates + scores) per chunk; labels: labels chunks then gold chunks
            chunks10 = 3 + 1 if what == "paraphrases" else 2 * (3 + 1)
            self.assertLessEqual(counts[0], chunks10 * per_chunk)
            self.assertGreater(counts[1], counts[0])


class ParaphraseExportTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.dataset = make_dataset("para")
        problem = make_problem(cls.dataset, "Tom has 3 apples. He eats 1. How many are left?")
        cls.c1 = make_candidate(
            problem, "Tom had 3 apples and ate 1; how many remain?", generator="paraqd:f5", operator="f5",
            prompt="p1", noise_combination="swap+drop", intended_valid=True,
        )
        cls.c2 = make_candidate(problem, "-1 apples remain?", generator="stead", intended_valid=False)
        make_score(cls.c1, "paraqd:v2", paraqd=-0.31, similarity=0.345, extra={"note": "x"})
        make_score(cls.c1, "metrics:1", pqi=0.71, diversity=0.4)
        make_score(cls.c2, "metrics:1", pqi=0.12)
        make_gold(cls.c1, valid=True)
        other = make_dataset("para-other")
        make_candidate(make_problem(other, "Elsewhere."), "Somewhere else.")

    def test_jsonl_nests_scores_by_scorer_version(self):
        rows = _jsonl(self.dataset, "paraphrases")
        self.assertEqual([r["candidate_id"] for r in rows], [self.c1.pk, self.c2.pk])
        first = rows[0]
        self.assertEqual(first["problem_text"], "Tom has 3 apples. He eats 1. How many are left?")
        self.assertEqual(first["paraphrase_text"], self.c1.text)
        self.assertEqual((first["generator"], first["operator"], first["prompt"]), ("paraqd:f5", "f5", "p1"))
        self.assertEqual(first["noise_combination"], "swap+drop")
        self.assertEqual((first["intended_valid"], first["gold_valid"], first["gold_source"]), (True, True, "import"))
        self.assertEqual(set(first["scores"]), {"paraqd:v2", "metrics:1"})
        self.assertEqual(first["scores"]["paraqd:v2"]["paraqd"], -0.31)
        self.assertEqual(first["scores"]["paraqd:v2"]["extra"], {"note": "x"})
        self.assertEqual(first["scores"]["metrics:1"]["pqi"], 0.71)
        self.assertIsNone(rows[1]["gold_valid"])
        self.assertEqual(set(rows[1]["scores"]), {"metrics:1"})

    def test_csv_flattens_scores_into_columns(self):
        rows = _csv(self.dataset, "paraphrases")
        self.assertEqual(len(rows), 2)
        self.assertIn("score.paraqd:v2.paraqd", rows[0])
        self.assertEqual(float(rows[0]["score.paraqd:v2.paraqd"]), -0.31)  # numbers are not escaped
        self.assertEqual(float(rows[0]["score.metrics:1.pqi"]), 0.71)
        self.assertEqual(rows[1]["score.paraqd:v2.paraqd"], "")  # no such score: empty
        self.assertEqual(rows[1]["paraphrase_text"], "'-1 apples remain?")
        self.assertEqual(rows[0]["intended_valid"], "true")
        self.assertEqual(json.loads(rows[0]["score.paraqd:v2.extra"]), {"note": "x"})


class LabelExportTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.dataset = make_dataset("labels")
        cls.alice = make_user("alice", email="alice.secret@example.org")
        cls.boss = make_user("boss", staff=True, email="boss.secret@example.org")
        problem = make_problem(cls.dataset, "Sam has 4 pens. He buys 2. How many now?")
        cls.c = make_candidate(problem, "Sam had 4 pens and bought 2; how many does he have?")
        item = make_item(cls.dataset, cls.c)
        cls.label = make_label(item, cls.alice, valid=True, solvability=5, diversity=3, fluency=4,
                               comment="fine", time_spent_ms=1234)
        cls.gold = make_gold(cls.c, valid=False, source="adjudication", decided_by=cls.boss, note="numbers lost")

    def test_labels_carry_usernames_and_nothing_else_about_users(self):
        for fmt in ("jsonl", "csv"):
            with self.subTest(fmt=fmt):
                text = _text(self.dataset, "labels", fmt)
                self.assertIn("alice", text)
                self.assertNotIn("secret@", text)
                self.assertNotIn("pbkdf2", text)
                self.assertNotIn(self.alice.password, text)
        human, gold = _jsonl(self.dataset, "labels")
        self.assertEqual(list(human), exporters.LABEL_FIELDS)
        self.assertEqual(
            {k: human[k] for k in ("kind", "label_id", "candidate_id", "annotator", "valid", "solvability",
                                   "diversity", "fluency", "comment", "time_spent_ms")},
            {"kind": "human", "label_id": self.label.pk, "candidate_id": self.c.pk, "annotator": "alice",
             "valid": True, "solvability": 5, "diversity": 3, "fluency": 4, "comment": "fine",
             "time_spent_ms": 1234},
        )
        self.assertEqual(human["problem_text"], "Sam has 4 pens. He buys 2. How many now?")
        self.assertEqual(human["paraphrase_text"], self.c.text)
        self.assertEqual(human["item_id"], self.label.item_id)
        self.assertTrue(human["created_at"].startswith(str(self.label.created_at.year)))
        self.assertEqual(
            (gold["kind"], gold["label_id"], gold["annotator"], gold["valid"], gold["gold_source"], gold["comment"]),
            ("gold", self.gold.pk, "boss", False, "adjudication", "numbers lost"),
        )
        self.assertEqual(gold["item_id"], self.label.item_id)
        csv_rows = _csv(self.dataset, "labels")
        self.assertEqual([r["kind"] for r in csv_rows], ["human", "gold"])
        self.assertEqual(csv_rows[0]["valid"], "true")


class ExportFileAndJobTests(MediaRootMixin, TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.dataset = make_dataset("gsm8k mini")
        make_problems(cls.dataset, 25)
        cls.staff = make_user("staff", staff=True)

    def test_export_to_file_reports_counts_and_progress(self):
        seen = []
        out = self.media / "x" / "p.csv"
        result = exporters.dataset_export_to_file(
            dataset=self.dataset, what="problems", fmt="csv", path=out, progress=seen.append
        )
        self.assertEqual(result["rows"], 25)
        self.assertEqual(result["path"], str(out))
        self.assertEqual(out.read_bytes().decode("utf-8"), _text(self.dataset, "problems", "csv"))
        self.assertEqual(seen[-1], 1.0)
        self.assertEqual(list(out.parent.iterdir()), [out])  # no temporary file left behind

    def test_export_job_writes_under_media_exports(self):
        with self.captureOnCommitCallbacks(execute=True):
            job = dataset_export_start(dataset=self.dataset, what="problems", fmt="jsonl", user=self.staff)
        job.refresh_from_db()
        self.assertEqual((job.kind, job.status, job.progress), (Job.Kind.EXPORT, Job.Status.SUCCEEDED, 1.0))
        self.assertEqual(job.result["rows"], 25)
        path = Path(job.result["path"])
        self.assertEqual(path.parent, self.media / "exports")
        self.assertEqual(path.name, f"gsm8k-mini-problems-job{job.pk}.jsonl")
        self.assertEqual(path.read_text(encoding="utf-8"), _text(self.dataset, "problems", "jsonl"))
        self.assertEqual(job.created_by, self.staff)

    def test_export_job_of_a_deleted_dataset_fails_with_a_message(self):
        from jobs.services import job_create
        from workers.corpus import export_job

        job = job_create(kind=Job.Kind.EXPORT, params={"what": "problems", "format": "csv"}, dataset=None)
        export_job.apply(args=[job.pk])
        job.refresh_from_db()
        self.assertEqual(job.status, Job.Status.FAILED)
        self.assertIn("no longer exists", job.error)


class ExportCommandTests(MediaRootMixin, TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.dataset = make_dataset("cmd")
        make_problems(cls.dataset, 12)
        make_problem(cls.dataset, "=1+1 is a formula", answer="2")

    def test_stdout_carries_the_same_content_as_the_stream(self):
        for fmt in ("jsonl", "csv"):
            with self.subTest(fmt=fmt):
                out = io.StringIO()
                call_command("export_dataset", "--dataset", "cmd", "--what", "problems", "--format", fmt, stdout=out)
                self.assertEqual(out.getvalue(), _text(self.dataset, "problems", fmt))

    def test_output_file_and_json_summary(self):
        target = self.media / "cmd.jsonl"
        out = io.StringIO()
        call_command("export_dataset", "--dataset", "cmd", "--what", "problems", "--output", str(target), stdout=out)
        summary = json.loads(out.getvalue())
        self.assertEqual((summary["rows"], summary["format"], summary["path"]), (13, "jsonl", str(target)))
        self.assertEqual(len(target.read_text().splitlines()), 13)

    def test_unknown_dataset_is_a_clear_error(self):
        with self.assertRaisesMessage(CommandError, "no dataset named 'nope'"):
            call_command("export_dataset", "--dataset", "nope", "--what", "problems", stdout=io.StringIO())


class RoundTripTests(MediaRootMixin, TestCase):
    def test_jsonl_export_reimports_the_same_content(self):
        from corpus.services import dataset_create, dataset_import

        source = make_dataset("original")
        make_problem(
            source, "Natalia sold clips to 48 of her friends in April, and then half as many in May.",
            source="gsm8k", source_id="0", split="train", answer="72", equation="48+48/2",
            numbers=["48"], metadata={"solution": "48/2 = 24\n#### 72", "nested": {"k": [1, 2.5, None]}},
        )
        make_problem(
            source, "Über 3,5 km läuft Jo — −2 °C, “quoted”.", source="csv", source_id="17", split="test",
            numbers=["3,5", "−2"],
        )
        make_problem(source, "-5 plus =7 is what?", source="svamp", source_id="chal-9", answer="2", numbers=["-5", "7"])
        make_problems(source, 40, prefix="Bulk")
        path = self.media / "original.jsonl"
        exporters.dataset_export_to_file(dataset=source, what="problems", fmt="jsonl", path=path)

        copy = dataset_create(name="copy")
        result = dataset_import(dataset=copy, path=path, fmt="jsonl")
        self.assertEqual((result["created"], result["duplicates"]), (43, 0))

        fields = ["text", "source", "source_id", "split", "answer", "equation", "numbers", "metadata"]
        before = [{f: r[f] for f in fields} for r in _jsonl(source, "problems")]
        after = [{f: r[f] for f in fields} for r in _jsonl(copy, "problems")]
        self.assertEqual(after, before)
        # Importing the same export again finds every problem already there.
        again = dataset_import(dataset=copy, path=path, fmt="jsonl")
        self.assertEqual((again["created"], again["duplicates"]), (0, 43))


class PostgresParaphraseLinesTests(TestCase):
    """On PostgreSQL the paraphrase JSON lines are written by the database: each line must parse
    to exactly the row the Python path gives (same keys in the same order, same values)."""

    def test_sql_lines_equal_the_python_rows(self):
        if connection.vendor != "postgresql":
            self.skipTest("the SQL path is PostgreSQL's; SQLite exports through the Python path")
        from paraphrases.models import Score

        dataset = make_dataset("sql-lines")
        problems = make_problems(dataset, 3)
        texts = ['Tom "quoted" said:\n\tcafé ✓ 5% of 1/2', "Back\\slash and </script> and \u2028", "Plain."]
        for i, problem in enumerate(problems):
            candidate = make_candidate(problem, texts[i], generator="reorder", prompt="p\"q", operator="op",
                                       noise_combination="mask+shuffle", intended_valid=bool(i % 2))
            if i < 2:
                make_score(candidate, "metrics:1", similarity=0.1, diversity=1e-05, numeracy=1.0, pqi=2 / 3,
                           bleu_diversity=0.3333333333333333, wpd=None, extra={"nested": {"a": [1, "é"]}})
                Score.objects.create(candidate=candidate, scorer_version="paraqd:v9", paraqd=-0.25)
            if i == 0:
                make_gold(candidate, valid=False, source="agreement")
        make_candidate(make_problems(make_dataset("not-this-one"), 1)[0], "Elsewhere.")
        python = [json.loads(json.dumps(row, ensure_ascii=False, default=exporters.json_default))
                  for row in dataset_export_rows(dataset=dataset, what="paraphrases")]
        sql = [json.loads(line) for line in postgres.paraphrase_lines_sql(dataset, chunk_size=2)]
        self.assertEqual(len(python), 3)
        self.assertEqual(sql, python)
        self.assertEqual([list(row) for row in sql], [list(row) for row in python])
        self.assertEqual([list(row["scores"]) for row in sql], [["metrics:1", "paraqd:v9"]] * 2 + [[]])
        # JSON lines end at "\n" only (str.splitlines would also split at the U+2028 in a text).
        streamed = "".join(export_stream(dataset=dataset, what="paraphrases", fmt="jsonl")).split("\n")[:-1]
        self.assertEqual([json.loads(line) for line in streamed], python)


class PostgresLabelLinesTests(TestCase):
    """The same for the label rows: human labels then gold labels, timestamps as isoformat()."""

    def test_sql_lines_equal_the_python_rows(self):
        if connection.vendor != "postgresql":
            self.skipTest("the SQL path is PostgreSQL's; SQLite exports through the Python path")
        from datetime import datetime, timezone as tz

        from annotation.models import Label
        from django.contrib.auth import get_user_model

        dataset = make_dataset("sql-labels")
        ann, boss = make_user("ann"), make_user("boss", staff=True)
        problems = make_problems(dataset, 3)
        items = [make_item(dataset, make_candidate(p, f'Reworded "{i}"\n✓')) for i, p in enumerate(problems)]
        make_label(items[0], ann, valid=True, solvability=4, comment='a "quote"\tand é')
        make_label(items[1], ann, valid=False)
        # A timestamp with no microseconds: isoformat() leaves them out, and so must the SQL.
        Label.objects.filter(item=items[1]).update(created_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=tz.utc),
                                                   updated_at=datetime(2026, 1, 2, 3, 4, 5, 120000, tzinfo=tz.utc))
        make_gold(items[0].candidate, valid=True, source="adjudication", decided_by=boss, note="checked")
        make_gold(make_candidate(problems[2], "Not queued."), valid=False, source="import")
        self.assertTrue(get_user_model().objects.filter(username="boss").exists())
        python = [json.loads(json.dumps(row, ensure_ascii=False, default=exporters.json_default))
                  for row in dataset_export_rows(dataset=dataset, what="labels")]
        sql = [json.loads(line) for line in postgres.label_lines_sql(dataset, chunk_size=1)]
        self.assertEqual(len(python), 4)
        self.assertEqual(sql, python)
        self.assertEqual([list(row) for row in sql], [list(row) for row in python])
        self.assertIn("2026-01-02T03:04:05+00:00", [row["created_at"] for row in sql])
        self.assertIn("2026-01-02T03:04:05.120000+00:00", [row["updated_at"] for row in sql])


# Text cells that exercise every rule of the CSV writer: quoting (comma, double quote, CR, LF),
# the formula prefixes, a prefix that is not the first character, an empty string, non-ASCII.
NASTY_TEXTS = [
    'Tom, "the farmer", has 5\r\napples', "=SUM(A1:A9)", "+1 more", "-5 apples", "@user", "\tTabbed",
    "\rCarriage", "Tom has -5", "", "café ✓ \u2028 ünï", "'quoted'", 'a"b', "line\nbreak", "-", "x,y",
]
# Floats around every branch of repr(): integral, negative zero, tiny and huge exponents, the band
# where PostgreSQL's shortest form takes an exponent and Python's does not, NaN and infinities.
NASTY_FLOATS = [
    0.0, -0.0, 1.0, -1.0, 0.1, 2 / 3, -0.25, 1e-05, 1.5e-07, 0.0001, 123.456, 1e15, 1e16, 1.5e300, 5e-324,
    123456789012345.67, 1234567890123456.8, -1234567890123456.8, 9007199254740993.0, 1e22, 12345678.0,
    float("nan"), float("inf"), float("-inf"), 0.30000000000000004,
]


class PostgresCsvTests(TestCase):
    """On PostgreSQL the CSV lines are written by the database: the text must equal, byte for
    byte, what csv.writer makes of the Python rows."""

    def setUp(self):
        if connection.vendor != "postgresql":
            self.skipTest("the SQL path is PostgreSQL's; SQLite exports through the Python path")

    def _python(self, dataset, what) -> str:
        columns, versions = exporters.csv_header(dataset=dataset, what=what)
        rows = dataset_export_rows(dataset=dataset, what=what, chunk_size=2)
        return "".join(piece for piece, _ in exporters.csv_pieces(rows, columns, versions))

    def _sql(self, dataset, what) -> str:
        return "".join(export_stream(dataset=dataset, what=what, fmt="csv", chunk_size=2))

    def test_float_cells_are_written_as_repr(self):
        with connection.cursor() as cursor:
            for value in NASTY_FLOATS:
                cursor.execute(f"SELECT {postgres.csv_cell_sql('float', 'v')} FROM (SELECT %s::float8 AS v) t", [value])
                self.assertEqual(cursor.fetchone()[0], repr(value), value)
            cursor.execute(f"SELECT {postgres.csv_cell_sql('float', 'NULL::float8')}")
            self.assertEqual(cursor.fetchone()[0], "")

    def test_text_cells_are_escaped_and_quoted_as_csv_writer(self):
        with connection.cursor() as cursor:
            for text in NASTY_TEXTS:
                out = io.StringIO()
                csv.writer(out, lineterminator="\r\n").writerow([csv_cell(text), "end"])
                cursor.execute(f"SELECT {postgres.csv_cell_sql('text', 'v')} || ',end' || chr(13) || chr(10) "
                               "FROM (SELECT %s::text AS v) t", [text])
                self.assertEqual(cursor.fetchone()[0], out.getvalue(), repr(text))

    def test_problems_csv_equals_the_python_writer(self):
        dataset = make_dataset("csv-problems")
        for i, text in enumerate(NASTY_TEXTS[:-1]):
            make_problem(dataset, text or "Empty?", source=text[:32], source_id=str(i), answer=NASTY_TEXTS[i + 1],
                         equation="-x + 3", numbers=[[], ["-5", 1.0], [], None][i % 4] or [],
                         metadata=[{}, {"zz": 1, "b": [1.5, "é"], "aaa": {"y": None, "x": "=1"}}, {"k": "v,w"},
                                   "-plain string"][i % 4])
        make_problems(make_dataset("csv-other"), 2)
        sql = self._sql(dataset, "problems")
        self.assertEqual(sql, self._python(dataset, "problems"))
        self.assertEqual(len(list(csv.reader(io.StringIO(sql, newline="")))), len(NASTY_TEXTS))

    def test_paraphrases_csv_equals_the_python_writer(self):
        dataset = make_dataset("csv-paraphrases")
        problems = make_problems(dataset, 4)
        for i, text in enumerate(NASTY_TEXTS):
            candidate = make_candidate(problems[i % 4], text or "Blank?", generator="reorder" if i % 2 else "eda",
                                       operator=NASTY_TEXTS[-1 - i][:64], prompt=NASTY_TEXTS[i - 1][:128],
                                       noise_combination="mask+shuffle", intended_valid=[True, False, None][i % 3])
            floats = NASTY_FLOATS[i:] + NASTY_FLOATS[:i]
            if i % 3:
                make_score(candidate, "metrics:1", **dict(zip(exporters.SCORE_FIELDS, floats)),
                           extra=[{}, {"checks": {"numbers": True, "units": "-kg"}, "a": 0.5}][i % 2])
            if i % 4:
                make_score(candidate, "paraqd:v1", paraqd=floats[3], similarity=None, extra={"zz": [1, "x,\"y\""], "b": 2})
            if i % 5 == 0:
                make_gold(candidate, valid=bool(i % 2), source="agreement")
        sql = self._sql(dataset, "paraphrases")
        self.assertEqual(sql, self._python(dataset, "paraphrases"))
        header = next(csv.reader(io.StringIO(sql, newline="")))
        self.assertIn("score.paraqd:v1.extra", header)

    def test_labels_csv_equals_the_python_writer(self):
        from datetime import datetime, timezone as tz

        from annotation.models import Label

        dataset = make_dataset("csv-labels")
        ann, boss = make_user("ann"), make_user("=boss", staff=True)
        problems = make_problems(dataset, 3)
        items = [make_item(dataset, make_candidate(p, NASTY_TEXTS[i])) for i, p in enumerate(problems)]
        make_label(items[0], ann, valid=True, solvability=4, diversity=0, comment=NASTY_TEXTS[0], time_spent_ms=1234)
        make_label(items[1], boss, valid=False, comment="-1 apples")
        Label.objects.filter(item=items[1]).update(created_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=tz.utc),
                                                   updated_at=datetime(2026, 1, 2, 3, 4, 5, 120000, tzinfo=tz.utc))
        make_gold(items[0].candidate, valid=True, source="adjudication", decided_by=boss, note="@checked, ok")
        make_gold(make_candidate(problems[2], "Not queued."), valid=False, source="import")
        sql = self._sql(dataset, "labels")
        self.assertEqual(sql, self._python(dataset, "labels"))
        rows = list(csv.DictReader(io.StringIO(sql, newline="")))
        self.assertEqual([row["kind"] for row in rows], ["human", "human", "gold", "gold"])
        self.assertEqual(rows[1]["annotator"], "'=boss")
