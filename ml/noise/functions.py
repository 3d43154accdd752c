"""SCANNING's noise functions (paper 000, Table 1 and section 3.3) over noise units.

Training (q1–q7): sentence permutation, random shuffling of contiguous spans, complete shuffling,
templatization, synonym substitution, random deletion, word insertion. Inference (i1–i6):
pseudo-adversarial sentence permutation at prepositions and phrase shuffling over the phrase
structure (both keep the most fluent candidate), templatization and synonym substitution that
prefer dependency objects, deletion (= q6) and insertion (= q7).

Constraints (App. A.1.1), enforced for every function: a quantity is one protected unit, never
templated, deleted or substituted, and moves only as a whole; tokens tagged VERB, ADJ, ADV (and
AUX, and negations) are never templated or deleted, while substitution and insertion may touch
verbs, adjectives and adverbs; inserted and substituted words are never number or unit words;
one template per entity, the same at every mention (``NOUN1`` wherever that noun was).

Every function works on a text (``fn(text, rng, resources) -> str``, one cached parse) and on
units (``fn(units, rng, resources) -> units``, for combinations); ``rng`` is the only source of
randomness, so the same seed gives the same output.

One module per family, all re-exported here: :mod:`.base` (the :class:`NoiseFunction` wrapper and
what the families share), :mod:`.permutation` (q1, i1), :mod:`.shuffling` (q2, q3, i2),
:mod:`.templatization` (q4, i3), :mod:`.substitution` (q5, i4), :mod:`.deletion` (q6, i5),
:mod:`.insertion` (q7, i6). A rate is read where its family lives (patch it there).

>>> import random
>>> q6_random_deletion("Steve rode his car for 5 miles on the way home.", random.Random(1))
'Steve rode car for 5 miles on the way home.'
"""
from __future__ import annotations

from .base import MAX_FLUENCY_CANDIDATES, NoiseFunction, Units, UnitsFunction, noise_function  # noqa: F401
from .deletion import DELETION_RATE, i5_deletion, q6_random_deletion
from .insertion import INSERTION_RATE, SYNONYM_INSERTION_SHARE, i6_insertion, q7_word_insertion  # noqa: F401
from .permutation import SENTENCE_PERMUTATION_SHARE, i1_sentence_permutation, q1_sentence_permutation  # noqa: F401
from .shuffling import SHUFFLE_SPAN, i2_phrase_shuffling, q2_random_shuffling, q3_complete_shuffling
from .substitution import SUBSTITUTE_POS, SUBSTITUTION_RATE, i4_synonym_substitution, q5_synonym_substitution
from .templatization import TEMPLATE_POS, TEMPLATE_RATE, i3_templatization, q4_templatization

__all__ = [
    "DELETION_RATE", "INSERTION_RATE", "MAX_FLUENCY_CANDIDATES", "SHUFFLE_SPAN", "SUBSTITUTE_POS",
    "SUBSTITUTION_RATE", "TEMPLATE_POS", "TEMPLATE_RATE", "NoiseFunction", "i1_sentence_permutation",
    "i2_phrase_shuffling", "i3_templatization", "i4_synonym_substitution", "i5_deletion", "i6_insertion",
    "noise_function", "q1_sentence_permutation", "q2_random_shuffling", "q3_complete_shuffling",
    "q4_templatization", "q5_synonym_substitution", "q6_random_deletion", "q7_word_insertion",
]
