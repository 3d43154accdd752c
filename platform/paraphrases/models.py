"""Paraphrase candidates of problems and their scores."""
from __future__ import annotations

from django.db import models

# Generator names of candidates that no generator wrote: labelled pairs imported from files
# ("import:<format>") and ParaQD's synthesized test pairs ("test:<operator>").
IMPORTED_PAIR_PREFIX = "import:"
TEST_GENERATOR_PREFIX = "test:"
# The metrics every generated candidate gets, as the contract and the pages name them.
METRIC_KEYS = ("S", "D", "N", "PQI", "bleu_div", "wpd")
# Score columns behind those names.
SCORE_COLUMNS = {"S": "similarity", "D": "diversity", "N": "numeracy", "PQI": "pqi",
                 "bleu_div": "bleu_diversity", "wpd": "wpd", "paraqd": "paraqd"}


class Candidate(models.Model):
    problem = models.ForeignKey("corpus.Problem", on_delete=models.CASCADE, related_name="candidates")
    text = models.TextField()
    text_hash = models.CharField(max_length=64)
    generator = models.CharField(
        max_length=64, help_text="What produced it: an operator (paraqd:f5), a model (stead, pap), import…"
    )
    operator = models.CharField(max_length=64, blank=True)
    prompt = models.CharField(max_length=128, blank=True)
    noise_combination = models.CharField(max_length=128, blank=True)
    model_version = models.ForeignKey(
        "modelhub.ModelVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="candidates"
    )
    intended_valid = models.BooleanField(
        null=True, blank=True, help_text="Whether the operator meant it as a valid (True) or invalid (False) paraphrase."
    )
    metadata = models.JSONField(default=dict, blank=True)
    selected_by = models.CharField(
        max_length=32, blank=True, default="",
        help_text="The selector that picked it for annotation (pammr, dips, tree, mwp); empty: not selected.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    @property
    def selected(self) -> bool:
        return bool(self.selected_by)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["problem", "generator"], name="candidate_problem_generator")]
        constraints = [
            models.UniqueConstraint(
                fields=["problem", "generator", "text_hash"], name="candidate_unique_per_generator"
            ),
        ]

    def __str__(self) -> str:
        return self.text[:80]


class Score(models.Model):
    """Scores of one candidate by one scorer version (all against the original problem text)."""

    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="scores")
    scorer_version = models.CharField(max_length=128, help_text="e.g. paraqd:v12, or metrics:1")
    model_version = models.ForeignKey(
        "modelhub.ModelVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="scores"
    )
    paraqd = models.FloatField(null=True, blank=True, help_text="ParaQD cosine score in [-1, 1].")
    similarity = models.FloatField(null=True, blank=True, help_text="σ = (cos + 1) / 2.")
    probability = models.FloatField(
        null=True, blank=True,
        help_text="Calibrated probability that the pair is a valid paraphrase (the judge version's calibration).",
    )
    numeracy = models.FloatField(null=True, blank=True, help_text="ν, numeracy overlap^p.")
    bleu_diversity = models.FloatField(null=True, blank=True, help_text="1 − BLEU.")
    wpd = models.FloatField(null=True, blank=True, help_text="Word position deviation.")
    diversity = models.FloatField(null=True, blank=True, help_text="δ = 0.6(1 − BLEU) + 0.4 WPD.")
    pqi = models.FloatField(null=True, blank=True, help_text="σ^0.5 δ^0.25 ν^0.25.")
    extra = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["candidate", "scorer_version"], name="score_unique_per_scorer"),
        ]
        indexes = [
            # The annotation queue's "uncertainty" order walks the deciding judge's scores outward
            # from its threshold (annotation.selectors.fresh_head) instead of sorting every item.
            models.Index(fields=["model_version", "paraqd"], name="score_version_paraqd"),
            models.Index(fields=["model_version", "probability"], name="score_version_probability"),
        ]
