"""Pure ML library: text analysis, noise, operators, models, metrics, selection.

Never imports django, celery, ``workers`` or the platform apps; callers hand it plain strings,
dataclasses and paths. Each concept lives in its own module and is re-exported here.
"""

from .text.numbers import NumberMention, extract_numbers, find_numbers, normalize_number

__all__ = ["NumberMention", "extract_numbers", "find_numbers", "normalize_number"]

# Text analysis and the ParaQD operators (spaCy, torch and transformers load lazily, on first use).
from .text.nlp import DEFAULT_SPACY_MODEL, load_spacy, named_entities, noun_chunks, sentences  # noqa: E402
from .text.number_mentions import NumberSpan, find_all_numbers, number_signature  # noqa: E402
from .text.number_words import NumberWordMention, find_number_words, number_to_words, words_to_number  # noqa: E402
from .operators import (  # noqa: E402
    TEST_OPERATORS,
    TRAINING_OPERATORS,
    OperatorNotApplicable,
    OperatorResult,
    apply_operator,
)
from .text.phrases import Phrase, PhraseSpans, phrase_spans  # noqa: E402
from .text.units import UnitMention, expand_abbreviation, find_units, same_category_units  # noqa: E402

__all__ += [
    "DEFAULT_SPACY_MODEL",
    "NumberSpan",
    "NumberWordMention",
    "OperatorNotApplicable",
    "OperatorResult",
    "Phrase",
    "PhraseSpans",
    "TEST_OPERATORS",
    "TRAINING_OPERATORS",
    "UnitMention",
    "apply_operator",
    "expand_abbreviation",
    "find_all_numbers",
    "find_number_words",
    "find_units",
    "load_spacy",
    "named_entities",
    "noun_chunks",
    "number_signature",
    "number_to_words",
    "phrase_spans",
    "same_category_units",
    "sentences",
    "words_to_number",
]

# ParaQD evaluation metrics and scorer (torch-backed names in ml.paraqd load on first access).
from . import paraqd  # noqa: E402
from .metrics import harmonic_mean_f1, nest_paraqd_metrics, paraqd_eval, paraqd_eval_nested  # noqa: E402
from .paraqd import ParaQDTrainConfig, Triplet, TripletBatcher  # noqa: E402

__all__ += [
    "ParaQDTrainConfig",
    "Triplet",
    "TripletBatcher",
    "harmonic_mean_f1",
    "nest_paraqd_metrics",
    "paraqd",
    "paraqd_eval",
    "paraqd_eval_nested",
]

# Inter-annotator agreement (pure Python).
from .agreement import cohen_kappa, fleiss_kappa, observed_agreement, weighted_kappa  # noqa: E402

__all__ += ["cohen_kappa", "fleiss_kappa", "observed_agreement", "weighted_kappa"]

# Generation metrics (paper 000's σ, ν, δ, PQI; BLEU, WPD, distinct-n, self-BLEU) and selection
# (QF-PCF, PAMMR, DiPS, tree ranking, paper 002's number-filtered selection).
from . import selection  # noqa: E402
from .metrics import (  # noqa: E402
    BLEU_SETTINGS,
    WPD_SETTINGS,
    distinct,
    numeracy,
    pair_diversity,
    paraphrase_scores,
    paraphrase_scores_many,
    pqi,
    self_bleu,
    sigma,
)
from .selection import SELECTORS, SelectionCandidate, select  # noqa: E402

__all__ += [
    "BLEU_SETTINGS",
    "SELECTORS",
    "SelectionCandidate",
    "WPD_SETTINGS",
    "distinct",
    "numeracy",
    "pair_diversity",
    "paraphrase_scores",
    "paraphrase_scores_many",
    "pqi",
    "select",
    "selection",
    "self_bleu",
    "sigma",
]

# Generators (rule-based, baselines; STEAD and PAP register the same way), by name.
from .generation import (  # noqa: E402
    GENERATORS,
    GeneratedCandidate,
    GenerationResources,
    GeneratorUnavailable,
    available_generators,
    generate,
    get_generator,
)

__all__ += [
    "GENERATORS",
    "GeneratedCandidate",
    "GenerationResources",
    "GeneratorUnavailable",
    "available_generators",
    "generate",
    "get_generator",
]
