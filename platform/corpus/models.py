"""Datasets of word problems."""
from __future__ import annotations

from django.conf import settings
from django.db import models


class Dataset(models.Model):
    name = models.CharField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    guidelines = models.TextField(blank=True, help_text="Annotation guidelines (Markdown).")
    annotators = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="annotated_datasets"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Problem(models.Model):
    class Split(models.TextChoices):
        TRAIN = "train", "train"
        DEV = "dev", "dev"
        TEST = "test", "test"

    dataset = models.ForeignKey(Dataset, on_delete=models.CASCADE, related_name="problems")
    text = models.TextField()
    # sha256 of the normalised text (NFKC, case-folded, whitespace collapsed): duplicates are
    # detected on it, and the database refuses a second copy in the same dataset.
    text_hash = models.CharField(max_length=64)
    source = models.CharField(max_length=32, blank=True, help_text="aqua, gsm8k, svamp, mawps, jsonl, csv, paraqd, demo…")
    source_id = models.CharField(max_length=64, blank=True, help_text="Id or line number in the source file.")
    split = models.CharField(max_length=8, choices=Split.choices, blank=True, db_index=True)
    answer = models.TextField(blank=True)
    equation = models.TextField(blank=True)
    numbers = models.JSONField(default=list, blank=True, help_text="Numbers as written in the text.")
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "text_hash"], name="problem_unique_text_per_dataset"),
        ]
        indexes = [models.Index(fields=["dataset", "split"])]

    def __str__(self) -> str:
        return self.text[:80]
