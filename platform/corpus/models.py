"""Datasets of word problems."""
from __future__ import annotations

from django.conf import settings
from django.db import models


class Dataset(models.Model):
    class QueueOrder(models.TextChoices):
        UNCERTAINTY = "uncertainty", "Uncertain first (ParaQD score nearest the threshold)"
        DISAGREEMENT = "disagreement", "Disagreements first"
        RANDOM = "random", "Random (a fixed shuffle per annotator)"

    class FillOrder(models.TextChoices):
        COMPLETE = "complete", "Complete items first (an item someone labelled goes next to the next annotator)"
        BREADTH = "breadth", "Breadth first (every item gets a first label before any gets its last)"

    name = models.CharField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    guidelines = models.TextField(blank=True, help_text="Annotation guidelines (Markdown).")
    labels_per_item = models.PositiveSmallIntegerField(
        default=2, help_text="k: how many distinct annotators label each item (new items copy it)."
    )
    lease_seconds = models.PositiveIntegerField(
        default=600, help_text="How long an item handed to an annotator stays reserved for them."
    )
    queue_order = models.CharField(
        max_length=16, choices=QueueOrder.choices, default=QueueOrder.UNCERTAINTY,
        help_text="Which items an annotator is offered first.",
    )
    fill_order = models.CharField(
        max_length=16, choices=FillOrder.choices, default=FillOrder.COMPLETE,
        help_text="complete: an item already labelled by someone goes to the next annotator until it has its k "
        "labels (agreement and gold labels arrive from the first hour); breadth: every item gets a first label "
        "before any gets its last. Within either, queue_order decides.",
    )
    annotators = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="annotated_datasets"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=models.Q(labels_per_item__gte=1), name="dataset_labels_per_item_min_1"),
            models.CheckConstraint(condition=models.Q(lease_seconds__gte=1), name="dataset_lease_seconds_min_1"),
        ]

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
