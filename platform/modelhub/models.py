"""Versions of the platform's trained models, one row per version of any registered kind."""
from __future__ import annotations

from django.conf import settings
from django.db import models


class ModelVersion(models.Model):
    class Status(models.TextChoices):
        CANDIDATE = "candidate", "Candidate"
        ACTIVE = "active", "Active"
        RETIRED = "retired", "Retired"

    kind = models.CharField(max_length=16, db_index=True, help_text="A kind of the registry (modelhub.kinds).")
    # Which kinds exist is the registry's business (modelhub.kinds.registry): services validate
    # ``kind`` against it, so a new kind needs no migration.
    name = models.CharField(max_length=128, blank=True)
    base_model = models.CharField(max_length=256, help_text="Hub id, directory or 'scratch' it started from.")
    artifact_path = models.CharField(max_length=512, blank=True)
    training_data = models.JSONField(
        default=dict, blank=True, help_text="Snapshot of what it was trained on: datasets, counts, label ids, hash."
    )
    params = models.JSONField(default=dict, blank=True)
    metrics = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.CANDIDATE, db_index=True)
    job = models.ForeignKey("jobs.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    activated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["kind"], condition=models.Q(status="active"), name="modelversion_one_active_per_kind"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} v{self.pk} ({self.status})"
