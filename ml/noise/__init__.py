"""SCANNING's noise library (paper 000): training noise for STEAD (q1–q7), pseudo-adversarial
inference noise (i1–i6), their combinations (Tables 6 and 7, with PAP's prompts) and the fluency
LM PAN ranks candidates with. Pure: no Django; torch/transformers load only when a causal-LM
fluency scorer is built.

>>> import random
>>> resources = NoiseResources(vocabulary=("blue", "then"))
>>> noised = apply_training_noise("Steve rode his car for 5 miles.", random.Random(3), resources)
>>> "5 miles" in noised.text, noised.prompt
(True, 'paraphrase:')
"""
from __future__ import annotations

from .combinations import (
    APPLICATION_ORDER,
    FUNCTIONS,
    INFERENCE_COMBINATIONS,
    PROMPT_FIX,
    PROMPT_PASSIVE,
    PROMPT_REPLACE,
    PROMPT_SHUFFLE,
    TRAINING_COMBINATIONS,
    TRAINING_PROMPT,
    Combination,
    NoisedText,
    apply_combination,
    apply_function,
    apply_inference_noise,
    apply_training_noise,
    combination_named,
    prompt_for,
    prompt_words,
    sample_combination,
)
from .fluency import CausalLMFluency, FluencyScorer, KneserNeyFluency, load_fluency
from .functions import (
    DELETION_RATE,
    INSERTION_RATE,
    MAX_FLUENCY_CANDIDATES,
    SUBSTITUTION_RATE,
    TEMPLATE_RATE,
    NoiseFunction,
    i1_sentence_permutation,
    i2_phrase_shuffling,
    i3_templatization,
    i4_synonym_substitution,
    i5_deletion,
    i6_insertion,
    q1_sentence_permutation,
    q2_random_shuffling,
    q3_complete_shuffling,
    q4_templatization,
    q5_synonym_substitution,
    q6_random_deletion,
    q7_word_insertion,
)
from .resources import NoiseResources, SynonymFunction, corpus_vocabulary, noise_resources
from .units import Unit, detokenize, parse_units

__all__ = [
    "APPLICATION_ORDER", "CausalLMFluency", "Combination", "DELETION_RATE", "FUNCTIONS", "FluencyScorer",
    "INFERENCE_COMBINATIONS", "INSERTION_RATE", "KneserNeyFluency", "MAX_FLUENCY_CANDIDATES", "NoiseFunction",
    "NoiseResources", "NoisedText", "PROMPT_FIX", "PROMPT_PASSIVE", "PROMPT_REPLACE", "PROMPT_SHUFFLE",
    "SUBSTITUTION_RATE", "SynonymFunction", "TEMPLATE_RATE", "TRAINING_COMBINATIONS", "TRAINING_PROMPT", "Unit",
    "apply_combination", "apply_function", "apply_inference_noise", "apply_training_noise", "combination_named",
    "corpus_vocabulary", "detokenize", "i1_sentence_permutation", "i2_phrase_shuffling", "i3_templatization",
    "i4_synonym_substitution", "i5_deletion", "i6_insertion", "load_fluency", "noise_resources", "parse_units",
    "prompt_for", "prompt_words", "q1_sentence_permutation", "q2_random_shuffling", "q3_complete_shuffling",
    "q4_templatization", "q5_synonym_substitution", "q6_random_deletion", "q7_word_insertion", "sample_combination",
]
