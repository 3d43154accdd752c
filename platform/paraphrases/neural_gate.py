"""Whether a trained generator (STEAD, PAP) is good enough to run by default: its handout gate.

A neural version can be active (it serves when asked by name) and still write non-paraphrases: a
2-step demo model wrote "…?assistantsystemuser…" at PQI 0.8. So after training, the active version
generates for up to ``PARALAB_NEURAL_GATE_PROBLEMS`` problems of the datasets it was trained on
through the same path as ``paraphrase`` (number guard, the deciding judge and its floor), and the
share of its candidates the judge lets through is stored on the version
(``metrics["handout_gate"]``). The generator joins the default set (ticked on the forms, run when
no generator is named) only when that share reaches ``PARALAB_NEURAL_GATE_MIN_SHARE``; otherwise
it is listed with the reason. The problems were seen in training, so a pass is optimistic and a
failure is conclusive; the gate says which.
"""
from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils import timezone

from corpus.models import Problem
from modelhub.selectors import modelversion_active
from modelhub.services import modelversion_set_metrics

from .generation import GenerationError
from .handout import paraphrase_variants


def neural_gate_run(*, kind: str, dataset_names: list[str] | None = None) -> dict[str, Any] | None:
    """Measure the active ``kind`` version's handout gate and store it on the version; None when
    no version is active. ``dataset_names``: where the problems come from (default: the version's
    training datasets, else any)."""
    version = modelversion_active(kind=kind)
    if version is None:
        return None
    names = dataset_names or (version.training_data or {}).get("datasets") or []
    problems = Problem.objects.order_by("id")
    if names:
        problems = problems.filter(dataset__name__in=names)
    texts = list(problems.values_list("text", flat=True)[: settings.PARALAB_NEURAL_GATE_PROBLEMS])
    candidates = passed = served = 0
    examples: list[str] = []
    for text in texts:
        try:
            answer = paraphrase_variants(text=text, k=3, generators=[kind])
        except GenerationError:
            continue
        candidates += answer["candidates"]
        passed += answer["passed"]
        served += bool(answer["variants"])
        examples += [v["text"] for v in answer["variants"][:1]][: max(0, 3 - len(examples))]
    share = passed / candidates if candidates else 0.0
    minimum = settings.PARALAB_NEURAL_GATE_MIN_SHARE
    gate = {
        "problems": len(texts), "candidates": candidates, "judged_valid": passed, "problems_served": served,
        "judged_valid_share": round(share, 4), "min_share": minimum, "passed": bool(candidates) and share >= minimum,
        "seen_in_training": not dataset_names and bool(names), "examples": examples, "measured_at": timezone.now().isoformat(timespec="seconds"),
    }
    modelversion_set_metrics(version=version, metrics={"handout_gate": gate})
    return gate
