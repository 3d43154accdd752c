"""Judges of paraphrase validity beyond ParaQD's cosine: calibration of any judge's score
(:mod:`ml.judge.calibration`) and the numeracy-aware judge (:mod:`ml.judge.features`,
:mod:`ml.judge.numeracy_judge`). No Django; spaCy, scikit-learn and the encoder load on use."""
from .calibration import Calibration, expected_calibration_error, fit_calibration, fit_threshold, reliability_curve
from .english import ENGLISH_FEATURE_NAMES, english_features, english_reasons
from .features import (
    ALL_FEATURE_NAMES,
    BASE_FEATURE_NAMES,
    FEATURE_NAMES,
    PairFeatures,
    batch_features,
    fluency_drop,
    pair_features,
    sentence_transformer_tokens,
    sentence_transformer_words,
)
from .numeracy_judge import NumeracyJudge, explain

__all__ = ["ALL_FEATURE_NAMES", "ENGLISH_FEATURE_NAMES", "english_features", "english_reasons",
           "sentence_transformer_words", "BASE_FEATURE_NAMES", "FEATURE_NAMES", "Calibration", "NumeracyJudge", "PairFeatures", "batch_features",
           "expected_calibration_error", "explain", "fit_calibration", "fit_threshold", "fluency_drop",
           "pair_features", "reliability_curve", "sentence_transformer_tokens"]
