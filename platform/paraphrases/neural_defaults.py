"""Whether a trained generator (STEAD, PAP) is in the default set: only once its active version
passed the handout gate (``paraphrases.neural_gate`` measures it and stores the result)."""
from __future__ import annotations

from modelhub.models import ModelVersion
from modelhub.selectors import modelversion_active


def neural_default_reason(kind: str) -> str | None:
    """Why the active ``kind`` version is not in the default set (None: it passed its gate)."""
    version: ModelVersion | None = modelversion_active(kind=kind)
    if version is None:
        return "no active version"
    gate = (version.metrics or {}).get("handout_gate")
    if not gate:
        return f"v{version.pk} has no handout gate yet (manage.py neural_gate {kind})"
    if gate.get("passed"):
        return None
    return (f"v{version.pk}: the judge passed {gate['judged_valid']} of its {gate['candidates']} candidates on "
            f"{gate['problems']} problems ({100 * gate['judged_valid_share']:.0f} %, the default set needs "
            f"{100 * gate['min_share']:.0f} %)")
