"""Importing problems and labelled pairs into the database: every format, duplicates, all-or-nothing."""

from __future__ import annotations

import json
from unittest import mock

from django.core.exceptions import ValidationError
from django.db import IntegrityError
from django.test import TestCase, override_settings

from annotation.models import GoldLabel
from corpus import exporters
from corpus.importers import ImportFormatError
from corpus.models import Dataset, Problem
from corpus.services import dataset_create, dataset_get_or_create, dataset_import, pairs_import
from corpus.services import imports as import_services
from corpus.text import text_hash
from paraphrases.models import Candidate

from .importing import FIXTURES, TempFilesMixin


class CountsMixin:
    def counts(self) -> tuple[int, int, int, int]:
        return Dataset.objects.count(), Problem.objects.count(), Candidate.objects.count(), GoldLabel.objects.count()


class DatasetCreateTests(TestCase):
    def test_create_and_duplicate_name(self):
        dataset = dataset_create(name=" algebra ", description="word problems")
        self.assertEqual((dataset.name, dataset.description), ("algebra", "word problems"))
        with self.assertRaisesMessage(ValidationError, "A dataset named 'algebra' already exists."):
            dataset_create(name="algebra")
        with self.assertRaises(ValidationError):
            dataset_create(name="  ")

    def test_get_or_create(self):
        first, created = dataset_get_or_create(name="gsm8k")
        again, created_again = dataset_get_or_create(name="gsm8k")
        self.assertEqual((first.pk, created, created_again), (again.pk, True, False))


class ProblemImportTests(TempFilesMixin, CountsMixin, TestCase):
    def setUp(self):
        super().setUp()
        self.dataset = Dataset.objects.create(name="algebra")

    def test_every_format(self):
        cases = [
            ("aqua_small.json", "aqua", 3, 0),
            ("gsm8k_small.jsonl", "gsm8k", 3, 0),
            ("svamp_small.json", "svamp", 3, 0),
            ("mawps_small.csv", "mawps", 4, 1),  # row 4 repeats row 2 up to case and spacing
            ("problems_small.jsonl", "jsonl", 3, 0),
            ("problems_small.csv", "csv", 3, 0),
        ]
        for name, fmt, created, duplicates in cases:
            for given in (fmt, "auto"):
                with self.subTest(name=name, given=given):
                    dataset = Dataset.objects.create(name=f"{name}-{given}")
                    result = dataset_import(dataset=dataset, path=FIXTURES / name, fmt=given)
                    self.assertEqual(
                        result, {"dataset": dataset.name, "created": created, "duplicates": duplicates, "format": fmt}
                    )
                    self.assertEqual(dataset.problems.count(), created)

    def test_rows_hold_every_field(self):
        dataset_import(dataset=self.dataset, path=FIXTURES / "svamp_small.json", split="test")
        problem = self.dataset.problems.get(source_id="t-3")
        self.assertEqual(problem.text, "Priya read 0.5 of a 240 page book on Monday. How many pages did she read?")
        self.assertEqual(problem.text_hash, text_hash(problem.text))
        self.assertEqual(
            (problem.source, problem.split, problem.answer, problem.equation),
            ("svamp", "test", "120", "( 0.5 * 240.0 )"),
        )
        self.assertEqual(problem.numbers, ["0.5", "240"])
        self.assertEqual(problem.metadata, {"type": "Multiplication"})

    def test_duplicates_within_the_file_and_against_the_dataset(self):
        Problem.objects.create(dataset=self.dataset, text="Ann has 3 apples.", text_hash=text_hash("Ann has 3 apples."))
        lines = [
            "ANN  has 3 apples.",  # already in the dataset (case, spacing)
            "Bo has 4 pears.",
            "  bo HAS 4\tpears.  ",  # earlier in the file
            "Ｂｏ has ４ pears.",  # NFKC
            "Bo has 5 pears.",  # a different number is a different problem
        ]
        path = self.write("dups.jsonl", "".join(json.dumps({"text": t}) + "\n" for t in lines))
        result = dataset_import(dataset=self.dataset, path=path)
        self.assertEqual((result["created"], result["duplicates"]), (2, 3))
        self.assertEqual(
            list(self.dataset.problems.values_list("text", flat=True)),
            ["Ann has 3 apples.", "Bo has 4 pears.", "Bo has 5 pears."],
        )
        # Importing the same file again adds nothing.
        again = dataset_import(dataset=self.dataset, path=path)
        self.assertEqual((again["created"], again["duplicates"]), (0, 5))

    def test_the_same_text_may_live_in_two_datasets(self):
        other = Dataset.objects.create(name="other")
        dataset_import(dataset=self.dataset, path=FIXTURES / "gsm8k_small.jsonl")
        result = dataset_import(dataset=other, path=FIXTURES / "gsm8k_small.jsonl")
        self.assertEqual(result["created"], 3)

    def test_progress_goes_from_reading_to_writing_to_done(self):
        seen: list[tuple[float, str | None]] = []
        with mock.patch.object(import_services, "BATCH_SIZE", 1):
            dataset_import(
                dataset=self.dataset,
                path=FIXTURES / "gsm8k_small.jsonl",
                progress=lambda fraction, note=None: seen.append((fraction, note)),
            )
        fractions = [fraction for fraction, _ in seen]
        self.assertEqual(fractions, sorted(fractions))
        self.assertEqual(fractions[-1], 1.0)
        self.assertIn((import_services.READ_SHARE, "read 3 problems (gsm8k)"), seen)
        self.assertGreaterEqual(len(fractions), 4)  # read, one per batch of one row, done

    def test_exported_jsonl_reimports_to_the_same_content(self):
        dataset_import(dataset=self.dataset, path=FIXTURES / "problems_small.jsonl")
        dataset_import(dataset=self.dataset, path=FIXTURES / "mawps_small.csv", split="train")
        exported = self.write(
            "export.jsonl", "".join(exporters.export_stream(dataset=self.dataset, what="problems", fmt="jsonl"))
        )
        copy = Dataset.objects.create(name="copy")
        result = dataset_import(dataset=copy, path=exported)
        self.assertEqual((result["format"], result["created"], result["duplicates"]), ("jsonl", 7, 0))
        fields = ["text", "text_hash", "source", "source_id", "split", "answer", "equation", "numbers", "metadata"]
        self.assertEqual(
            list(copy.problems.order_by("id").values(*fields)),
            list(self.dataset.problems.order_by("id").values(*fields)),
        )

    def test_a_database_error_half_way_writes_nothing(self):
        real = Problem.objects.bulk_create
        calls = []

        def failing(objs, *args, **kwargs):
            calls.append(len(objs))
            if len(calls) == 2:
                raise IntegrityError("simulated failure in the second batch")
            return real(objs, *args, **kwargs)

        before = self.counts()
        with mock.patch.object(import_services, "BATCH_SIZE", 1), mock.patch.object(Problem.objects, "bulk_create", failing):
            with self.assertRaises(IntegrityError):
                dataset_import(dataset=self.dataset, path=FIXTURES / "gsm8k_small.jsonl")
        self.assertEqual(calls, [1, 1])
        self.assertEqual(self.counts(), before)


class BadProblemFileTests(TempFilesMixin, CountsMixin, TestCase):
    """Each bad input names the file, line and field, and leaves every table as it was."""

    def setUp(self):
        super().setUp()
        self.dataset = Dataset.objects.create(name="algebra")
        dataset_import(dataset=self.dataset, path=FIXTURES / "gsm8k_small.jsonl")
        self.before = self.counts()

    def assertRejected(self, name: str, content: str | bytes, message: str, fmt: str = "auto") -> None:
        path = self.write(name, content)
        with self.assertRaises(ImportFormatError) as ctx:
            dataset_import(dataset=self.dataset, path=path, fmt=fmt)
        self.assertTrue(str(ctx.exception).startswith(message), str(ctx.exception))
        self.assertEqual(self.counts(), self.before)

    def test_invalid_json_after_good_lines(self):
        good = "".join(json.dumps({"text": f"Ann has {i} cats."}) + "\n" for i in range(5))
        self.assertRejected("p.jsonl", good + '{"text": "Bo has 2 dogs.",}\n', "p.jsonl, line 6: invalid JSON (")

    def test_empty_text(self):
        self.assertRejected("data.csv", 'text\nAnn has 2 cats.\n"  "\n', "data.csv, line 3: column 'text' is empty")

    def test_missing_columns(self):
        self.assertRejected(
            "data.csv", "question,answer\nQ 1?,1\n", "data.csv, line 1: missing columns: expected a 'text'"
        )
        self.assertRejected(
            "m.csv",
            "Question,Answer\nA number0,1\n",
            "m.csv, line 1: missing columns: expected Question, Numbers",
            "mawps",
        )

    def test_unknown_placeholder(self):
        self.assertRejected(
            "m.csv",
            "Question,Numbers,Equation,Answer\nA number0 b,1.0,number0,1\nA number1 b,1.0,number1,1\n",
            "m.csv, line 3: column 'Question' refers to number1",
        )

    @override_settings(PARALAB_MAX_UPLOAD_BYTES=64)
    def test_file_over_the_upload_limit(self):
        content = json.dumps({"text": "Ann has 2 cats. " * 10}) + "\n"
        self.assertRejected(
            "big.jsonl", content, f"big.jsonl: the file is {len(content)} bytes, over the upload limit of 64 bytes"
        )

    def test_non_utf8(self):
        self.assertRejected(
            "l.jsonl", b'{"text": "Ann has 2 cats."}\n{"text": "Caf\xe9 has 3"}\n', "l.jsonl, line 2: not valid UTF-8"
        )

    def test_empty_file(self):
        self.assertRejected("e.jsonl", b"", "e.jsonl: the file is empty")

    def test_bad_split_and_bad_gsm8k_answer(self):
        self.assertRejected(
            "s.jsonl", '{"text": "Ann has 2 cats.", "split": "val"}\n', "s.jsonl, line 1: field 'split' is 'val'"
        )
        self.assertRejected(
            "g.jsonl",
            '{"question": "Q 1?", "answer": "1\\n#### 1"}\n{"question": "Q 2?", "answer": "2"}\n',
            "g.jsonl, line 2: field 'answer' has no '#### <answer>'",
            "gsm8k",
        )

    def test_pairs_file_given_as_problems(self):
        self.assertRejected(
            "pairs.csv",
            "question,augmented,final_label\nQ 1?,P 1?,1\n",
            "pairs.csv, line 1: this is a file of question/paraphrase pairs",
        )


class PairImportTests(TempFilesMixin, CountsMixin, TestCase):
    def setUp(self):
        super().setUp()
        self.dataset = Dataset.objects.create(name="pairs")

    def test_problems_candidates_and_gold_labels(self):
        result = pairs_import(dataset=self.dataset, path=FIXTURES / "pairs_paraqd.csv", split="test")
        self.assertEqual(
            result,
            {
                "dataset": "pairs",
                "problems_created": 2,
                "candidates_created": 5,
                "gold_labels": 5,
                "duplicates": 1,
                "format": "paraqd",
            },
        )
        tom = self.dataset.problems.get(text__startswith="Tom")
        self.assertEqual((tom.source, tom.source_id, tom.split), ("paraqd", "2", "test"))
        self.assertEqual(tom.numbers, ["5", "2"])
        candidates = Candidate.objects.filter(problem=tom).order_by("id")
        self.assertEqual([c.generator for c in candidates], ["import:paraqd"] * 3)
        self.assertEqual([c.gold.valid for c in candidates], [True, False, True])
        self.assertEqual({c.gold.source for c in candidates}, {"import"})
        self.assertEqual(candidates[0].text_hash, text_hash(candidates[0].text))
        self.assertEqual(candidates[0].metadata, {"source": "pairs_paraqd.csv", "line": 2})
        # The car pair appears twice; the second copy brings the label the first lacked.
        car = Candidate.objects.get(problem__text__startswith="A car", text__startswith="What is the speed")
        self.assertTrue(car.gold.valid)
        self.assertEqual(GoldLabel.objects.filter(valid=True).count(), 3)

    def test_unlabelled_pairs_get_no_gold_label_and_label_words_are_read(self):
        result = pairs_import(dataset=self.dataset, path=FIXTURES / "pairs_label_words.csv")
        self.assertEqual((result["problems_created"], result["candidates_created"], result["gold_labels"]), (2, 5, 4))
        unlabelled = Candidate.objects.get(text__startswith="Of a pie's 8 slices")
        self.assertFalse(GoldLabel.objects.filter(candidate=unlabelled).exists())
        self.assertEqual(sorted(GoldLabel.objects.values_list("valid", flat=True)), [False, False, True, True])

    def test_questions_already_in_the_dataset_are_reused_and_reimport_adds_nothing(self):
        Problem.objects.create(
            dataset=self.dataset,
            text="Tom has 5 apples and eats 2. How many are left?",
            text_hash=text_hash("tom has 5 apples and eats 2. how many are left?"),
            source="aqua",
        )
        first = pairs_import(dataset=self.dataset, path=FIXTURES / "pairs_paraqd.csv")
        self.assertEqual(first["problems_created"], 1)
        before = self.counts()
        again = pairs_import(dataset=self.dataset, path=FIXTURES / "pairs_paraqd.csv")
        self.assertEqual(
            (again["problems_created"], again["candidates_created"], again["gold_labels"], again["duplicates"]),
            (0, 0, 0, 6),
        )
        self.assertEqual(self.counts(), before)

    def test_bad_label_writes_nothing(self):
        path = self.write(
            "pairs.csv", "question,augmented,final_label\nQ has 1?,P has 1?,1\nQ has 2?,P has 2?,yes please\n"
        )
        before = self.counts()
        with self.assertRaises(ImportFormatError) as ctx:
            pairs_import(dataset=self.dataset, path=path)
        self.assertEqual(
            str(ctx.exception),
            "pairs.csv, line 3: column 'final_label' is 'yes please'; "
            "expected 1 or 0 (true/false, valid/invalid) or empty",
        )
        self.assertEqual(self.counts(), before)

    def test_missing_columns_and_empty_cells_write_nothing(self):
        before = self.counts()
        for content, message in [
            (
                "question,label\nQ 1?,1\n",
                "pairs.csv, line 1: missing columns: expected question, augmented (or paraphrase)",
            ),
            ("question,paraphrase\nQ 1?,P 1?\n ,P 2?\n", "pairs.csv, line 3: column 'question' is empty"),
            (b"", "pairs.csv: the file is empty"),
            (b"question,paraphrase\nQ 1?,P \xff\n", "pairs.csv, line 2: not valid UTF-8"),
        ]:
            with self.subTest(message=message):
                path = self.write("pairs.csv", content)
                with self.assertRaises(ImportFormatError) as ctx:
                    pairs_import(dataset=self.dataset, path=path)
                self.assertTrue(str(ctx.exception).startswith(message), str(ctx.exception))
                self.assertEqual(self.counts(), before)

    @override_settings(PARALAB_MAX_UPLOAD_BYTES=10)
    def test_size_limit(self):
        before = self.counts()
        with self.assertRaisesMessage(ImportFormatError, "over the upload limit of 10 bytes"):
            pairs_import(dataset=self.dataset, path=FIXTURES / "pairs_paraqd.csv")
        self.assertEqual(self.counts(), before)
