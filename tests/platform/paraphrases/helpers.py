"""Shared set-up for the ParaQD platform tests: a tiny encoder, a temporary model directory,
CPU only, and a few real-looking word problems."""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from django.test import override_settings

from annotation.models import GoldLabel
from corpus.models import Dataset, Problem

from ..corpus.factories import make_candidate, make_dataset, make_gold, make_problem
from .tiny_encoder import tiny_encoder_dir

PROBLEMS = [
    "John bought 5 apples at the market on Monday. He ate 2 apples. How many apples does John have now?",
    "A train covers 300 km in 5 hours. What is its speed in km/h?",
    "Mary has 12 pens and gives 4 pens to Tom. How many pens does Mary have left?",
    "A shop sold 40 books on Monday and 25 books on Tuesday. How many books did the shop sell in total?",
]


class ParaQDSettingsMixin:
    """Tiny encoder, a fresh MODEL_DIR per test, CPU."""

    def setUp(self):
        super().setUp()
        self.model_dir = Path(tempfile.mkdtemp(prefix="paralab-models-"))
        self.addCleanup(shutil.rmtree, self.model_dir, True)
        self.encoder = tiny_encoder_dir()
        override = override_settings(
            PARALAB_SENTENCE_ENCODER=self.encoder, MODEL_DIR=self.model_dir, PARALAB_DEVICE="cpu",
            PARALAB_BACKTRANSLATION_MODELS=[], PARALAB_PARAPHRASER_MODEL="",
        )
        override.enable()
        self.addCleanup(override.disable)

    def model_folders(self) -> list[str]:
        root = self.model_dir / "paraqd"
        return sorted(p.name for p in root.iterdir()) if root.exists() else []


def make_algebra(name: str = "algebra", texts=PROBLEMS, **fields) -> tuple[Dataset, list[Problem]]:
    dataset = make_dataset(name)
    return dataset, [make_problem(dataset, text, **fields) for text in texts]


def make_gold_pairs(dataset: Dataset) -> list[GoldLabel]:
    """A hand-made gold set: per problem one valid and one invalid imported pair."""
    golds = []
    for problem in dataset.problems.all():
        valid = make_candidate(problem, problem.text.replace("How many", "Tell me how many"), generator="import:paraqd")
        invalid = make_candidate(problem, problem.text.split(".")[0] + ".", generator="import:paraqd")
        golds.append(make_gold(valid, valid=True))
        golds.append(make_gold(invalid, valid=False))
    return golds
