"""The judge that ships with the code: active from the first ``migrate`` until a retrained version
is promoted.

Its parameters (a few KB: the classifier's weights over the packaged encoder, SmolLM2's fluency and
the English checks, its calibration, threshold and handout floor) are in ``shipped/judge.json``,
with ``shipped/card.json`` (data, metrics, date) and ``shipped/MODEL_CARD.md``. They are built by
``scripts/build_judge.py`` from public data. :func:`judge_install_shipped` registers them as a
``judge`` version (once per parameter file: the version records the file's SHA-256) and activates
it when no judge decides yet; ``post_migrate`` calls it (``modelhub.apps``).
"""
from __future__ import annotations

import hashlib
import json
import logging
import shutil
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction

from ml.judge import NumeracyJudge
from modelhub.judging import decision_version
from modelhub.models import ModelVersion
from modelhub.services import modelversion_activate, modelversion_create

from .service import KIND

logger = logging.getLogger("paralab.judge")
SHIPPED_DIR = Path(__file__).resolve().parent / "shipped"


def shipped_card() -> dict[str, Any]:
    """What ``shipped/card.json`` says (built date, data, metrics, threshold and handout floor)."""
    return json.loads((SHIPPED_DIR / "card.json").read_text())


def _digest() -> str:
    return hashlib.sha256((SHIPPED_DIR / "judge.json").read_bytes()).hexdigest()


def judge_install_shipped(*, activate: bool | None = None) -> ModelVersion | None:
    """Register the shipped judge (once per parameter file: its files are copied into
    ``MODEL_DIR/judge/shipped-<digest>``, so a version never changes under its id) and activate it
    when no judge decides yet, or when the one deciding is an earlier shipped judge (``activate``
    True/False forces either). Returns the version; None when ``PARALAB_SHIPPED_JUDGE`` is off."""

    if not settings.PARALAB_SHIPPED_JUDGE:
        return None
    digest = _digest()
    with transaction.atomic():
        version = ModelVersion.objects.filter(kind=KIND, params__shipped=digest).first()
        if version is None:
            judge = NumeracyJudge.load(SHIPPED_DIR)  # refuses a file of another format
            card = shipped_card()
            folder = Path(settings.MODEL_DIR) / KIND / f"shipped-{digest[:16]}"
            if not (folder / "judge.json").is_file():
                partial = folder.with_name(folder.name + ".partial")
                shutil.rmtree(partial, ignore_errors=True)
                shutil.copytree(SHIPPED_DIR, partial)
                partial.replace(folder)
            calibration = {**judge.calibration.to_dict(), "handout_floor": card.get("handout_floor"),
                           "fitted_on": "labels/aqua_dev_candidates_val.csv (grouped out-of-fold scores)"}
            version = modelversion_create(
                kind=KIND, base_model=card.get("encoder", ""), artifact_path=str(folder),
                training_data={"datasets": judge.trained_on.get("datasets", []), "pairs": judge.trained_on.get("pairs")},
                # The encoder by name ("packaged:…"), resolved where the judge is loaded.
                params={"encoder_path": card.get("encoder"), "fluency_lm": judge.fluency_lm,
                        "english": judge.english, "monotone": judge.monotone, "shipped": digest, "llm": None},
                metrics={"calibration": calibration, "card": {k: card[k] for k in
                                                              ("built", "labelled_candidates_grouped_cv", "aqua_test")
                                                              if k in card}},
                name=f"shipped judge ({card.get('built', '')})",
            )
            logger.info("shipped judge registered as version %s", version.pk)
    deciding = decision_version()
    earlier_shipped = (deciding is not None and deciding.pk != version.pk
                       and bool((deciding.params or {}).get("shipped")))
    if activate or (activate is None and (deciding is None or earlier_shipped)):
        version = modelversion_activate(version=version)
    return version


def install_on_migrate(sender, **kwargs) -> None:
    """``post_migrate`` receiver: the shipped judge once the modelhub tables exist."""
    if getattr(sender, "name", "") != "modelhub":
        return
    judge_install_shipped()
