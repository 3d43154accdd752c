"""Annotation items, human labels and gold labels."""
from __future__ import annotations

from django.conf import settings
from django.db import models

# The 0–5 ratings a label may carry besides valid/invalid (paper 000, section 5.3).
RATINGS = ("solvability", "diversity", "fluency")


def _rating_field(help_text: str) -> models.PositiveSmallIntegerField:
    return models.PositiveSmallIntegerField(null=True, blank=True, help_text=help_text)


class AnnotationItem(models.Model):
    """A candidate put in front of annotators."""

    dataset = models.ForeignKey("corpus.Dataset", on_delete=models.CASCADE, related_name="annotation_items")
    candidate = models.OneToOneField(
        "paraphrases.Candidate", on_delete=models.CASCADE, related_name="annotation_item"
    )
    purpose = models.CharField(
        max_length=32, default="review", help_text="review, synthesized_test, import…"
    )
    required_labels = models.PositiveSmallIntegerField(
        default=2,
        help_text="k: distinct annotators who label it. Follows the dataset's labels_per_item "
        "(set when the item is queued, updated when staff change the dataset setting).",
    )
    spans = models.JSONField(
        default=dict, blank=True,
        help_text='Highlight spans, computed once: {"problem": [...], "paraphrase": [...]} (ml.text.highlight).',
    )
    label_count = models.PositiveIntegerField(
        default=0, editable=False,
        help_text="How many labels the item has: kept by the Label signals (annotation.signals) in the "
        "transaction that adds or removes one, so the queue finds started and fresh items by index.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [
            # Items someone started and nobody finished: the head of a "complete" fill order. Small
            # (about the annotators at work), however many items the dataset has.
            models.Index(fields=["dataset", "label_count"], name="annotationitem_started",
                         condition=models.Q(label_count__gt=0) & models.Q(label_count__lt=models.F("required_labels"))),
            # Items nobody labelled yet: counted (progress) without reading the finished ones.
            models.Index(fields=["dataset", "id"], name="annotationitem_fresh", condition=models.Q(label_count=0)),
        ]

    def __str__(self) -> str:
        return f"item {self.pk} (candidate {self.candidate_id})"


class Assignment(models.Model):
    """An item handed to one annotator: leased while they work on it, done once labelled.

    A lease past ``leased_until`` no longer holds a slot: the item can go to someone else. One
    row per (item, annotator), so an item never reaches the same person twice.
    """

    class Status(models.TextChoices):
        LEASED = "leased", "Leased"
        DONE = "done", "Done"
        SKIPPED = "skipped", "Skipped"

    item = models.ForeignKey(AnnotationItem, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.LEASED)
    leased_until = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator"], name="assignment_one_per_annotator_item"),
        ]
        indexes = [
            # "what does this annotator hold" (next, progress) and "which slots are taken" (next).
            models.Index(fields=["annotator", "status"], name="assignment_annotator_status"),
            models.Index(fields=["item", "status", "leased_until"], name="assignment_item_slots"),
            # Running leases (few: a lease becomes "done" once labelled), found without a scan.
            models.Index(fields=["leased_until"], name="assignment_leases", condition=models.Q(status="leased")),
        ]

    def __str__(self) -> str:
        return f"item {self.item_id} → {self.annotator_id} ({self.status})"


class LabelHistory(models.Model):
    """Every change to a label, kept when the label itself changes or goes."""

    class Action(models.TextChoices):
        CREATED = "created", "Created"
        UPDATED = "updated", "Updated"
        UNDONE = "undone", "Undone"

    item = models.ForeignKey(AnnotationItem, on_delete=models.CASCADE, related_name="label_history")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="label_history")
    label = models.ForeignKey("Label", null=True, blank=True, on_delete=models.SET_NULL, related_name="history")
    action = models.CharField(max_length=8, choices=Action.choices)
    data = models.JSONField(default=dict, help_text="The label's values after the change (before it, for undone).")
    request_id = models.CharField(
        max_length=64, blank=True,
        help_text="The client's Idempotency-Key of the request that made the change: a retry of a request "
        "the server already applied (the answer was lost on the way) changes nothing.",
    )
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["annotator", "item"], name="labelhistory_annotator_item")]
        constraints = [
            models.UniqueConstraint(fields=["annotator", "request_id"], condition=~models.Q(request_id=""),
                                    name="labelhistory_one_change_per_request"),
        ]

    def __str__(self) -> str:
        return f"{self.action} by {self.annotator_id} on item {self.item_id}"


class Label(models.Model):
    item = models.ForeignKey(AnnotationItem, on_delete=models.CASCADE, related_name="labels")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="labels")
    valid = models.BooleanField()
    solvability = _rating_field("0–5")
    diversity = _rating_field("0–5")
    fluency = _rating_field("0–5")
    comment = models.TextField(blank=True)
    time_spent_ms = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["annotator", "updated_at"], name="label_annotator_updated")]
        constraints = [
            models.UniqueConstraint(fields=["item", "annotator"], name="label_one_per_annotator_item"),
            *[
                models.CheckConstraint(
                    condition=models.Q(**{f"{field}__isnull": True}) | models.Q(**{f"{field}__lte": 5}),
                    name=f"label_{field}_0_5",
                )
                for field in ("solvability", "diversity", "fluency")
            ],
        ]

    def __str__(self) -> str:
        return f"{self.annotator_id} → item {self.item_id}: {'valid' if self.valid else 'invalid'}"


class GoldLabel(models.Model):
    """The accepted answer for a candidate: imported, agreed by annotators, or adjudicated by staff."""

    class Source(models.TextChoices):
        IMPORT = "import", "Imported"
        AGREEMENT = "agreement", "Annotators agreed"
        ADJUDICATION = "adjudication", "Staff adjudication"

    candidate = models.OneToOneField("paraphrases.Candidate", on_delete=models.CASCADE, related_name="gold")
    valid = models.BooleanField()
    source = models.CharField(max_length=16, choices=Source.choices)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"gold {self.candidate_id}: {'valid' if self.valid else 'invalid'} ({self.source})"
