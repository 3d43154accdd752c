"""Judges of paraphrase validity beyond ParaQD's cosine: calibration of any judge's score
(:mod:`ml.judge.calibration`) and the numeracy-aware judge (:mod:`ml.judge.features`,
:mod:`ml.judge.numeracy_judge`). No Django; spaCy, scikit-learn and the encoder load on use."""
from .calibration import Calibration, expected_calibration_error, fit_calibration, fit_threshold, reliability_curve
from .features import (
    BASE_FEATURE_NAMES,
    FEATURE_NAMES,
    PairFeatures,
    batch_features,
    fluency_drop,
    pair_features,
    sentence_transformer_tokens,
)
from .numeracy_judge import NumeracyJudge, explain

__all__ = ["BASE_FEATURE_NAMES", "FEATURE_NAMES", "Calibration", "NumeracyJudge", "PairFeatures", "batch_features",
           "expected_calibration_error", "explain", "fit_calibration", "fit_threshold", "fluency_drop",
           "pair_features", "reliability_curve", "sentence_transformer_tokens"]
