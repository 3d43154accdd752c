"""Jobs: the state machine that makes every background task observable and idempotent."""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class Job(models.Model):
    class Kind(models.TextChoices):
        IMPORT_PROBLEMS = "import_problems", "Import problems"
        IMPORT_PAIRS = "import_pairs", "Import labelled pairs"
        EXPORT = "export", "Export"
        SCORE = "score", "Score candidates"
        SYNTHESIZE = "synthesize", "Synthesize test pairs"
        TRAIN = "train", "Train a model"
        EVALUATE = "evaluate", "Evaluate a model"
        GENERATE = "generate", "Generate paraphrases"
        RETRAIN = "retrain", "Retrain"
        CALIBRATE = "calibrate", "Calibrate a judge"
        PARAPHRASE = "paraphrase", "Paraphrase a problem"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    TERMINAL = (Status.SUCCEEDED, Status.FAILED, Status.CANCELLED)

    kind = models.CharField(max_length=32, choices=Kind.choices, db_index=True)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    progress = models.FloatField(default=0.0)
    params = models.JSONField(default=dict, blank=True)
    result = models.JSONField(default=dict, blank=True)
    # What a running job already has to show (a paraphrase job's rule variants, then each verified
    # LLM rewrite as it passes); the final answer is ``result``.
    partial = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    log = models.TextField(blank=True, help_text="Human-readable notes the task wrote while running.")
    queue = models.CharField(max_length=16, default="cpu")
    celery_task_id = models.CharField(max_length=64, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    dataset = models.ForeignKey(
        "corpus.Dataset", null=True, blank=True, on_delete=models.SET_NULL, related_name="jobs"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    # What the reaper needs to send a job again: the Celery task's name, when its message last
    # reached the broker (null: never, e.g. the broker was down at enqueue), and how often the
    # reaper put it back after its worker was lost.
    task = models.CharField(max_length=128, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    requeues = models.PositiveIntegerField(default=0)
    # Someone asked to stop it: a queued job is cancelled at once, a running one at its next
    # progress report (its work so far is rolled back or left resumable, as for a failure).
    cancel_requested = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(progress__gte=0.0) & models.Q(progress__lte=1.0),
                name="job_progress_0_1",
            ),
        ]

    def __str__(self) -> str:
        return f"Job {self.pk} {self.kind} {self.status}"

    @property
    def is_terminal(self) -> bool:
        return self.status in self.TERMINAL

    @property
    def eta_seconds(self) -> float | None:
        """Seconds left at the pace up to its last progress report, counted from then (a running
        job past 2 % of its work), else None."""
        if self.status != self.Status.RUNNING or not self.started_at or self.progress < 0.02:
            return None
        # the pace up to the last report, so a job that reports rarely does not look ever slower
        reported = self.heartbeat_at or timezone.now()
        elapsed = max(0.0, (reported - self.started_at).total_seconds())
        left = elapsed * (1 - self.progress) / self.progress - (timezone.now() - reported).total_seconds()
        return round(max(0.0, left), 1)
