"""Selection: which of a problem's candidate paraphrases the platform keeps.

Every selector takes :class:`SelectionCandidate` objects (text, scores against the original,
SCANNING prompt, generator) and returns indices into that list, in selection order, at most
``k``, without repeats. Use :func:`select` with a name from :data:`SELECTORS`.

- :mod:`.qf_pcf`: SCANNING's quality and prompt-consistency filters (paper 000, 3.8.1-3.8.2);
- :mod:`.pammr`: SCANNING's paraphrase-adapted MMR (paper 000, 3.8.3);
- :mod:`.dips`: DiPS' monotone submodular objective with lazy greedy selection (paper 003);
- :mod:`.tree_rank`: tree-based paraphrase ranking (paper 004);
- :mod:`.mwp`: paper 002's candidate selection with a number filter instead of a solver;
- :mod:`.registry`: :data:`SELECTORS` and :func:`select`.
"""
from .base import SCORE_KEYS, PairDiversity, SelectionCandidate, check_k, prompt_words, score_of
from .dips import DiPSConfig, dips, dips_objective, rbf_word_similarity
from .mwp import DEFAULT_MWP_THRESHOLD, keeps_numbers, mwp_select
from .pammr import DEFAULT_ALPHA, DEFAULT_WEIGHTS, pammr, relevance
from .qf_pcf import PCF_CONDITIONS, QFThresholds, prompt_conditions_met, qf_pcf, quality_filter
from .registry import SELECTORS, default_pair_diversity, select
from .tree_rank import (
    build_tree,
    default_content_lemmas,
    jaccard_distance,
    spacy_content_lemmas,
    string_similarity,
    tree_rank,
)

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_MWP_THRESHOLD",
    "DEFAULT_WEIGHTS",
    "PCF_CONDITIONS",
    "SCORE_KEYS",
    "SELECTORS",
    "DiPSConfig",
    "PairDiversity",
    "QFThresholds",
    "SelectionCandidate",
    "build_tree",
    "check_k",
    "default_content_lemmas",
    "default_pair_diversity",
    "dips",
    "dips_objective",
    "jaccard_distance",
    "keeps_numbers",
    "mwp_select",
    "pammr",
    "prompt_conditions_met",
    "prompt_words",
    "qf_pcf",
    "quality_filter",
    "rbf_word_similarity",
    "relevance",
    "score_of",
    "select",
    "spacy_content_lemmas",
    "string_similarity",
    "tree_rank",
]
