"""PAP's outputs on held-out problems, measured for its promotion gate."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.conf import settings

from annotation.models import GoldLabel
from corpus.text import text_hash
from ml.metrics import paraphrase_scores_many
from ml.pap import pap_generate
from modelhub.models import ModelVersion

from ..paraqd import paraqd_cosines, paraqd_default_model
from ..seq2seq import scanning_preset, version_model


def pap_heldout_metrics(*, version: ModelVersion | None, problems: Sequence[tuple[int, str]],
                        preset: str | None = None) -> dict[str, Any]:
    """A PAP version's outputs on held-out problems, scored like everything else: mean PQI, N, S,
    D, and the human-valid rate among outputs that annotators already labelled (same problem and
    text), with how many such outputs there were. ``version=None``: no PAP yet (nothing to beat)."""
    if version is None or not problems:
        return {"n": 0, "problems": len(problems), "PQI": None, "N": None, "S": None, "D": None,
                "human_labelled_outputs": 0, "human_valid_rate": None}
    config = scanning_preset(preset)
    model = version_model(version)
    scorer = paraqd_default_model()
    outputs = pap_generate(model, [text for _, text in problems], preset=config)
    rows: list[dict[str, float]] = []
    labelled = valid = 0
    for (pk, text), outs in zip(problems, outputs):
        texts = [o.text for o in outs]
        if not texts:
            continue
        cos = paraqd_cosines(model=scorer, questions=[text] * len(texts), paraphrases=texts)
        rows += paraphrase_scores_many(text, texts, cos, spacy_model=settings.PARALAB_SPACY_MODEL)
        hashes = [text_hash(t) for t in texts]
        for gold_valid in GoldLabel.objects.filter(candidate__problem_id=pk, candidate__text_hash__in=hashes) \
                .values_list("valid", flat=True):
            labelled += 1
            valid += bool(gold_valid)

    def mean(key: str) -> float | None:
        return round(sum(r[key] for r in rows) / len(rows), 4) if rows else None

    return {"n": len(rows), "problems": len(problems), "PQI": mean("PQI"), "N": mean("N"), "S": mean("S"),
            "D": mean("D"), "human_labelled_outputs": labelled,
            "human_valid_rate": round(valid / labelled, 4) if labelled else None}
