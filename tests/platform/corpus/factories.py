"""Rows for the corpus and API tests, made directly through the ORM (no importer involved)."""
from __future__ import annotations

from typing import Iterable

from django.contrib.auth import get_user_model

from annotation.models import AnnotationItem, GoldLabel, Label
from corpus.models import Dataset, Problem
from corpus.text import text_hash
from paraphrases.models import Candidate, Score

PASSWORD = "correct-horse-battery-9"


def make_user(username: str, *, staff: bool = False, email: str | None = None):
    return get_user_model().objects.create_user(
        username=username, password=PASSWORD, email=email or f"{username}@example.org", is_staff=staff
    )


def make_dataset(name: str, *, annotators: Iterable = (), description: str = "") -> Dataset:
    dataset = Dataset.objects.create(name=name, description=description)
    dataset.annotators.set(list(annotators))
    return dataset


def make_problem(dataset: Dataset, text: str, **fields) -> Problem:
    return Problem.objects.create(dataset=dataset, text=text, text_hash=text_hash(text), **fields)


def make_problems(dataset: Dataset, n: int, *, prefix: str = "Problem") -> list[Problem]:
    texts = [f"{prefix} {i}: Tom has {i} apples and buys 3 more. How many apples does he have?" for i in range(n)]
    rows = [
        Problem(
            dataset=dataset,
            text=texts[i],
            text_hash=text_hash(texts[i]),
            source="test",
            source_id=str(i),
            answer=str(i + 3),
            equation=f"{i}+3",
            numbers=[str(i), "3"],
        )
        for i in range(n)
    ]
    return Problem.objects.bulk_create(rows, batch_size=1000)


def make_candidate(problem: Problem, text: str, *, generator: str = "paraqd:f1", **fields) -> Candidate:
    return Candidate.objects.create(
        problem=problem, text=text, text_hash=text_hash(text), generator=generator, **fields
    )


def make_score(candidate: Candidate, scorer_version: str, **values) -> Score:
    return Score.objects.create(candidate=candidate, scorer_version=scorer_version, **values)


def make_item(dataset: Dataset, candidate: Candidate) -> AnnotationItem:
    return AnnotationItem.objects.create(dataset=dataset, candidate=candidate)


def make_label(item: AnnotationItem, annotator, *, valid: bool = True, **fields) -> Label:
    return Label.objects.create(item=item, annotator=annotator, valid=valid, **fields)


def make_gold(candidate: Candidate, *, valid: bool, source: str = GoldLabel.Source.IMPORT, **fields) -> GoldLabel:
    return GoldLabel.objects.create(candidate=candidate, valid=valid, source=source, **fields)
