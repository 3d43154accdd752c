"""The real corpora (../shared/data) import completely, with every number of every text kept."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest
from django.test import TestCase

from annotation.models import GoldLabel
from corpus.models import Dataset, Problem
from corpus.services import dataset_import, pairs_import
from ml.text.numbers import extract_numbers, normalize_number
from paraphrases.models import Candidate

# Distinct problems of mawps_asdiv/train.csv once the masked numbers are put back and texts are
# compared normalised (NFKC, case-folded, whitespace collapsed): 3138 rows, 309 of them repeats.
MAWPS_DISTINCT = 2829


def _numbers_kept(source_text: str, stored_text: str) -> bool:
    """Every number of the source text is in the stored text, as often as in the source."""
    return not Counter(extract_numbers(source_text)) - Counter(extract_numbers(stored_text))


@pytest.mark.slow
class RealCorporaImportTests(TestCase):
    data: Path

    @pytest.fixture(autouse=True)
    def _shared_data(self, shared_data):
        self.data = shared_data

    def _import(self, relative: str, **kwargs) -> tuple[Dataset, dict]:
        dataset = Dataset.objects.create(name=relative)
        return dataset, dataset_import(dataset=dataset, path=self.data / relative, **kwargs)

    def _stored(self, dataset: Dataset) -> dict[str, str]:
        return dict(Problem.objects.filter(dataset=dataset).values_list("source_id", "text"))

    def test_gsm8k_train(self):
        dataset, result = self._import("gsm8k/train.jsonl", split="train")
        self.assertEqual(result, {"dataset": dataset.name, "created": 7473, "duplicates": 0, "format": "gsm8k"})
        stored = self._stored(dataset)
        with open(self.data / "gsm8k/train.jsonl", encoding="utf-8") as fh:
            for line, raw in enumerate(fh, start=1):
                question = json.loads(raw)["question"]
                self.assertEqual(stored[str(line)], question.strip())
                self.assertTrue(_numbers_kept(question, stored[str(line)]), line)
        answers = Problem.objects.filter(dataset=dataset).values_list("answer", flat=True)
        self.assertTrue(all(a.lstrip("-").replace(".", "", 1).isdigit() for a in answers))

    def test_svamp(self):
        dataset, result = self._import("svamp/SVAMP.json")
        self.assertEqual((result["created"], result["duplicates"], result["format"]), (1000, 0, "svamp"))
        stored = self._stored(dataset)
        for item in json.loads((self.data / "svamp/SVAMP.json").read_text(encoding="utf-8")):
            source = item["Body"].strip() + " " + item["Question"].strip()
            self.assertEqual(stored[item["ID"]], source)
            self.assertTrue(_numbers_kept(source, stored[item["ID"]]), item["ID"])

    def test_mawps_asdiv(self):
        dataset, result = self._import("mawps_asdiv/train.csv")
        self.assertEqual(result["format"], "mawps")
        self.assertEqual(result["created"] + result["duplicates"], 3138)
        self.assertEqual(result["created"], MAWPS_DISTINCT)
        stored = self._stored(dataset)
        checked = 0
        with open(self.data / "mawps_asdiv/train.csv", encoding="utf-8", newline="") as fh:
            reader = csv.reader(fh)
            header = next(reader)
            columns = {name: header.index(name) for name in ("Question", "Numbers")}
            line = reader.line_num + 1
            for row in reader:
                text = stored.get(str(line))
                line = reader.line_num + 1
                if text is None:  # a repeat of an earlier problem
                    continue
                in_text = {normalize_number(n) for n in extract_numbers(text)}
                for value in row[columns["Numbers"]].split():
                    self.assertIn(normalize_number(value), in_text, text)
                self.assertNotIn("number0", text)
                checked += 1
        self.assertEqual(checked, MAWPS_DISTINCT)

    def test_aqua_dev(self):
        dataset, result = self._import("aqua/dev.json", split="dev")
        self.assertEqual((result["created"], result["duplicates"], result["format"]), (254, 0, "aqua"))
        stored = self._stored(dataset)
        with open(self.data / "aqua/dev.json", encoding="utf-8") as fh:
            for line, raw in enumerate(fh, start=1):
                item = json.loads(raw)
                self.assertEqual(stored[str(line)], item["question"].strip())
                self.assertTrue(_numbers_kept(item["question"], stored[str(line)]), line)
        problem = Problem.objects.filter(dataset=dataset).get(source_id="1")
        self.assertEqual(problem.answer, "A)32400")

    def test_paraqd_aqua_val_wide_pairs(self):
        dataset = Dataset.objects.create(name="paraqd-aqua-val")
        result = pairs_import(dataset=dataset, path=self.data / "paraqd/aqua_val.csv", fmt="paraqd-wide", split="dev")
        self.assertEqual(result["problems_created"], 254)
        expected_valid = expected_invalid = 0
        with open(self.data / "paraqd/aqua_val.csv", encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh):
                expected_valid += len({row[k].strip() for k in row if k.startswith("positive") and row[k].strip()})
                expected_invalid += len({row[k].strip() for k in row if k.startswith("neg") and row[k].strip()})
        gold = GoldLabel.objects.filter(candidate__problem__dataset=dataset)
        # Cells repeating another cell of the same row are one candidate (the first label wins).
        self.assertLessEqual(gold.count(), expected_valid + expected_invalid)
        self.assertGreater(gold.filter(valid=True).count(), 0.9 * expected_valid)
        self.assertGreater(gold.filter(valid=False).count(), 0.9 * expected_invalid)
        self.assertEqual(set(Problem.objects.filter(dataset=dataset).values_list("split", flat=True)), {"dev"})

    def test_paraqd_aqua_test_pairs(self):
        dataset = Dataset.objects.create(name="paraqd-aqua-test")
        result = pairs_import(dataset=dataset, path=self.data / "paraqd/AQUA_test.csv", split="test")
        self.assertEqual(
            (result["problems_created"], result["candidates_created"], result["gold_labels"], result["duplicates"]),
            (220, 440, 440, 0),
        )
        gold = GoldLabel.objects.filter(candidate__problem__dataset=dataset)
        self.assertEqual((gold.filter(valid=True).count(), gold.filter(valid=False).count()), (139, 301))
        candidates = {
            (c.problem.text, c.text): c.gold.valid
            for c in Candidate.objects.filter(problem__dataset=dataset).select_related("problem", "gold")
        }
        with open(self.data / "paraqd/AQUA_test.csv", encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh):
                question, paraphrase = row["question"].strip(), row["augmented"].strip()
                self.assertEqual(candidates[(question, paraphrase)], row["final_label"] == "1")
                self.assertTrue(_numbers_kept(row["question"], question))
                self.assertTrue(_numbers_kept(row["augmented"], paraphrase))
