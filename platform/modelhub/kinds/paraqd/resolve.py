"""Which model scores: a version, the active one, the packaged pretrained encoder or a folder."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from django.conf import settings

from modelhub.models import ModelVersion
from modelhub.disagreements import disagreeing_gold
from modelhub.judging import version_threshold
from modelhub.selectors import human_gold_labels, modelversion_active, modelversion_get
from modelhub.services import modelversion_activate, modelversion_create

from .common import KIND, PRETRAINED_SCORER, ParaQDError, base_encoder_path, paraqd_device

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser


@dataclass(frozen=True)
class ScoringModel:
    """A model to score with: a version (``version`` set) or an encoder path (pretrained / a path)."""

    path: str
    scorer_version: str
    version: ModelVersion | None = None

    @property
    def label(self) -> str:
        return f"v{self.version.pk}" if self.version else self.scorer_version.removeprefix("paraqd:")


def _version_model(version: ModelVersion) -> ScoringModel:
    if version.kind != KIND:
        raise ParaQDError(f"model version {version.pk} is a {version.kind} model, not a ParaQD scorer")
    if (version.params or {}).get("pretrained"):
        # The packaged base encoder registered as a version (``pretrained_judge`` below).
        path = base_encoder_path((version.params or {}).get("encoder_setting") or version.base_model)
        return ScoringModel(path=path, scorer_version=f"paraqd:v{version.pk}", version=version)
    if not version.artifact_path or not Path(version.artifact_path).is_dir():
        raise ParaQDError(f"model version {version.pk} has no model directory on disk ({version.artifact_path!r})")
    return ScoringModel(path=version.artifact_path, scorer_version=f"paraqd:v{version.pk}", version=version)


def pretrained_model() -> ScoringModel:
    """The untrained base encoder (``PARALAB_SENTENCE_ENCODER``): the paper's 'Pretrained' row."""
    return ScoringModel(path=base_encoder_path(), scorer_version=PRETRAINED_SCORER)


def paraqd_resolve_model(*, model: str | int | ModelVersion = "active") -> ScoringModel:
    """``active`` (the active version), ``pretrained`` (the base encoder), a version id, a
    ``ModelVersion``, or a model directory. ParaQDError when it does not resolve."""
    if isinstance(model, ModelVersion):
        return _version_model(model)
    name = str(model).strip()
    if name == "active":
        active = modelversion_active(kind=KIND)
        if active is None:
            raise ParaQDError(
                "no active ParaQD model: train one with `train_paraqd --activate`, or pass --model pretrained"
            )
        return _version_model(active)
    if name == "pretrained":
        return pretrained_model()
    if name.isdigit():
        version = modelversion_get(version_id=int(name))
        if version is None:
            raise ParaQDError(f"--model: no model version with id {name}")
        return _version_model(version)
    path = Path(name).expanduser()
    if not path.is_dir():
        raise ParaQDError(f"--model: expected active, pretrained, a version id or a model directory; {name!r} is none")
    return ScoringModel(path=str(path.resolve()), scorer_version=f"paraqd:path:{path.resolve()}"[:128])


def default_scoring_model(version: ModelVersion | None) -> ScoringModel:
    if version is not None:
        return _version_model(version)
    active = modelversion_active(kind=KIND)
    return _version_model(active) if active is not None else pretrained_model()


def scorer_for(model: ScoringModel):
    from ml.paraqd.model import get_scorer

    return get_scorer(model.path, paraqd_device())


def paraqd_default_model() -> ScoringModel:
    """What scores new candidates: the active ParaQD version, else the packaged pretrained encoder
    (scorer version ``paraqd:pretrained``), so generation works before any model was trained."""
    return default_scoring_model(None)


def paraqd_cosines(*, model: ScoringModel, questions: Sequence[str], paraphrases: Sequence[str]) -> list[float]:
    """ParaQD cosines of (question, paraphrase) pairs with ``model`` (the scorer stays cached)."""
    if not questions:
        return []
    return [float(c) for c in scorer_for(model).score(list(questions), list(paraphrases))]


def pretrained_judge(*, user: AbstractBaseUser | None = None, activate: bool = True) -> ModelVersion:
    """The packaged base encoder registered as a ParaQD version (once), so a fresh installation has
    an active judge before anything is trained; activated when no ParaQD version is active."""
    encoder = settings.PARALAB_SENTENCE_ENCODER
    version = ModelVersion.objects.filter(kind=KIND, params__pretrained=True,
                                          base_model=encoder).order_by("id").first()
    if version is None:
        version = modelversion_create(
            kind=KIND, base_model=encoder, artifact_path=base_encoder_path(encoder),
            training_data={}, params={"pretrained": True, "encoder_setting": encoder}, metrics={},
            created_by=user, name="paraqd pretrained (the base encoder, untrained)",
        )
    active = ModelVersion.objects.filter(kind=KIND, status=ModelVersion.Status.ACTIVE).first()
    if activate and active is None:
        version = modelversion_activate(version=version)
    return version


def paraqd_threshold() -> float:
    """The threshold the active ParaQD version reads its cosine at (score > threshold: valid): its
    calibrated threshold (``calibrate``), else 0.5 as in the paper."""
    return version_threshold(modelversion_active(kind=KIND))


def retrain_disagreement_count(*, since: datetime | None = None) -> int:
    """Among ``human_gold_labels`` (since ``since``), those the active ParaQD version scores on
    the other side of the threshold: the hard examples a retrain weights up (``modelhub.disagreements``).

    Narrower than ``annotation.selectors.human_model_disagreement_count`` (the dashboard's list,
    which also counts imported gold labels): imported pairs are never trained on, so they must not
    trigger a retrain.
    """
    active = modelversion_active(kind=KIND)
    if active is None:
        return 0
    return disagreeing_gold(human_gold_labels(since=since), version_id=active.pk, threshold=paraqd_threshold()).count()
