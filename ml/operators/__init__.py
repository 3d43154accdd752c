"""ParaQD's data-augmentation operators (paper 001, sections 3.2, 3.3 and 4.2) and the offline
structure-changing positives, one module per family.

Every operator is ``op(text, rng: random.Random, **resources) -> OperatorResult`` and raises
:class:`OperatorNotApplicable` when it cannot apply. Use :func:`apply_operator` with a name from
:data:`TRAINING_OPERATORS` or :data:`TEST_OPERATORS`.
"""
from .backtranslation import f1_backtranslation
from .base import OperatorNotApplicable, OperatorResult, Similarity, TextGenerator
from .entity_replacement import EntityReplacementConfig, f7_entity_replacement
from .hard_negatives import FluentNegativeConfig, fluent_hard_negative
from .identity import f2_same_sentence
from .number_perturbation import F8_REPLACEMENTS, NumberReplacementConfig, f8_number_replacement, number_change
from .numbers_to_words import f3_numbers_to_words
from .paraphraser import f9_general_paraphraser, fe_seq2seq_paraphraser
from .passive import PassiveConfig, active_to_passive, fa_active_to_passive, to_passive
from .permutation import permute_at_preposition
from .phrase_deletion import PhraseDeletionConfig, f5_important_phrase_deletion
from .preservation import lost_information, require_preserved
from .random_deletion import RandomDeletionConfig, fd_random_deletion
from .reconstruction import CorruptionConfig, corrupt, fb_corrupted_reconstruction
from .registry import RESOURCE_NAMES, TEST_OPERATORS, TRAINING_OPERATORS, OperatorSpec, apply_operator, get_operator
from .reordering import ReorderConfig, given_that_reorder
from .sentence_deletion import f6_last_sentence_deletion
from .tfidf_replacement import TfidfConfig, TfidfModel, fc_tfidf_replacement, fit_tfidf
from .unit_expansion import UnitExpansionConfig, f4_unit_expansion
from .unit_replacement import UnitReplacementConfig, f10_unit_replacement
from .word_replacement import WordReplacementConfig, vocabulary_of, word_replacement

__all__ = [
    "CorruptionConfig",
    "EntityReplacementConfig",
    "F8_REPLACEMENTS",
    "FluentNegativeConfig",
    "NumberReplacementConfig",
    "OperatorNotApplicable",
    "OperatorResult",
    "OperatorSpec",
    "PassiveConfig",
    "PhraseDeletionConfig",
    "RESOURCE_NAMES",
    "RandomDeletionConfig",
    "ReorderConfig",
    "Similarity",
    "TEST_OPERATORS",
    "TRAINING_OPERATORS",
    "TextGenerator",
    "TfidfConfig",
    "TfidfModel",
    "UnitExpansionConfig",
    "UnitReplacementConfig",
    "WordReplacementConfig",
    "active_to_passive",
    "apply_operator",
    "corrupt",
    "f10_unit_replacement",
    "f1_backtranslation",
    "f2_same_sentence",
    "f3_numbers_to_words",
    "f4_unit_expansion",
    "f5_important_phrase_deletion",
    "f6_last_sentence_deletion",
    "f7_entity_replacement",
    "f8_number_replacement",
    "f9_general_paraphraser",
    "fa_active_to_passive",
    "fb_corrupted_reconstruction",
    "fc_tfidf_replacement",
    "fd_random_deletion",
    "fe_seq2seq_paraphraser",
    "fit_tfidf",
    "fluent_hard_negative",
    "get_operator",
    "given_that_reorder",
    "lost_information",
    "number_change",
    "permute_at_preposition",
    "require_preserved",
    "to_passive",
    "vocabulary_of",
    "word_replacement",
]
