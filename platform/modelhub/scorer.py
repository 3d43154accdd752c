"""The scoring model the paper's metrics read: σ of PQI is the ParaQD encoder's cosine (the active
ParaQD version, else the packaged pretrained encoder). Generation reads it here, as it reads the
judge through ``modelhub.judging``, so no generation module names a model kind; which judge
*decides* is the judging port's business, not this one's."""
from __future__ import annotations

from collections.abc import Sequence

from .kinds.paraqd.common import base_encoder_path
from .kinds.paraqd.resolve import ScoringModel, paraqd_cosines, paraqd_default_model

__all__ = ["ScoringModel", "encoder_path", "scoring_cosines", "scoring_model"]


def scoring_model() -> ScoringModel:
    """What scores new candidates (σ): the active ParaQD version, else the packaged encoder."""
    return paraqd_default_model()


def scoring_cosines(*, model: ScoringModel, questions: Sequence[str], paraphrases: Sequence[str]) -> list[float]:
    """The scoring model's cosine per (question, paraphrase) pair."""
    return paraqd_cosines(model=model, questions=questions, paraphrases=paraphrases)


def encoder_path() -> str:
    """The configured base sentence encoder as a loadable path (generators' embedding resource)."""
    return base_encoder_path()
