"""Metrics: ParaQD classification metrics, and the scores of generated paraphrases.

- :mod:`ml.metrics.classification`: precision, recall, F1 and separation of ParaQD scores.
- :mod:`ml.metrics.bleu`: sentence BLEU on the 0-1 scale with fixed sacrebleu settings.
- :mod:`ml.metrics.wpd`: word position deviation (Liu & Soh 2022) over spaCy lemmas.
- :mod:`ml.metrics.pqi`: SCANNING's similarity, numeracy, diversity and PQI against the original.
- :mod:`ml.metrics.diversity`: diversity of a set of texts, distinct-n and self-BLEU.

The functions ``pqi``, ``wpd`` and ``diversity`` (delta) re-exported here shadow the submodules
of the same names as attributes of the package: import from a submodule with
``from ml.metrics.diversity import self_bleu`` (which works), not ``import ml.metrics.diversity
as m`` (which binds the function).

sacrebleu and spaCy load on first use, so importing this package stays cheap.

>>> round(harmonic_mean_f1(0.762, 0.625), 3)
0.687
>>> round(pqi(0.98, 0.29, 1.0), 2), numeracy("It costs $4.50.", "It costs 4.50 dollars.")
(0.73, 1.0)
"""
from .bleu import BLEU_SETTINGS, bleu_against, sentence_bleu
from .classification import (
    harmonic_mean_f1,
    nest_paraqd_metrics,
    paraqd_eval,
    paraqd_eval_nested,
    score_histogram,
)
from .diversity import distinct, distinct_n, self_bleu, set_tokens
from .pqi import (
    DIVERSITY_WEIGHTS,
    NUMERACY_POWER,
    PQI_WEIGHTS,
    SCORE_KEYS,
    DiversityParts,
    diversity,
    diversity_parts,
    numeracy,
    pair_diversity,
    paraphrase_scores,
    paraphrase_scores_many,
    pqi,
    sigma,
)
from .wpd import WPD_SETTINGS, cache_lemmas, position_lemmas, word_position_deviation, wpd

__all__ = [
    # ParaQD classification
    "harmonic_mean_f1",
    "nest_paraqd_metrics",
    "paraqd_eval",
    "paraqd_eval_nested",
    "score_histogram",
    # Paraphrase scores against the original (SCANNING)
    "BLEU_SETTINGS",
    "DIVERSITY_WEIGHTS",
    "NUMERACY_POWER",
    "PQI_WEIGHTS",
    "SCORE_KEYS",
    "WPD_SETTINGS",
    "DiversityParts",
    "bleu_against",
    "cache_lemmas",
    "diversity",
    "diversity_parts",
    "numeracy",
    "pair_diversity",
    "paraphrase_scores",
    "paraphrase_scores_many",
    "position_lemmas",
    "pqi",
    "sentence_bleu",
    "sigma",
    "word_position_deviation",
    "wpd",
    # Set diversity
    "distinct",
    "distinct_n",
    "self_bleu",
    "set_tokens",
]
