"""Paraphrase generators for word problems (paper 002 §3 and its baselines), one module per family,
all behind one interface (:mod:`.base`) and one registry (:mod:`.registry`).

>>> from ml.generation import GenerationResources, generate
>>> candidates, refusals = generate(["reorder", "passive"], "John bought 5 apples. How many are left?", 0,
...                                 GenerationResources())
>>> [c.generator for c in candidates], sorted(refusals)
(['reorder', 'reorder', 'passive'], [])

Rule generators: ``reorder`` (facts and question change places, pronouns resolved),
``pp_permutation``, ``passive``, ``synonym`` (WordNet, else embedding neighbours),
``entity_substitution`` (consistent, gender-aware); neural: ``fill_mask`` (a configured masked LM);
compositions such as ``reorder+synonym``; baselines: ``copy``, ``eda``, ``instruct_llm``.
"""
from .base import (
    GeneratedCandidate,
    GenerationResources,
    Generator,
    GeneratorKind,
    GeneratorUnavailable,
    NotApplicable,
    combine_prompts,
)
from .baselines import CopyGenerator, EdaConfig, EdaGenerator
from .compose import ComposedGenerator
from .entities import EntitySubstitutionGenerator, entity_groups
from .fill_mask import FillMaskConfig, FillMaskGenerator, load_masked_lm
from .llm import InstructLLMGenerator
from .names import person_genders, person_mentions
from .registry import (
    GENERATORS,
    available_generators,
    generate,
    generator_seed,
    get_generator,
    is_default,
    register,
    warm_up,
)
from .reorder import ReorderGenerator, resolve_question_pronouns
from .structural import PassiveGenerator, PrepositionPermutationGenerator
from .synonyms import SynonymConfig, SynonymGenerator, load_wordnet, synonym_lookup

__all__ = [
    "ComposedGenerator",
    "CopyGenerator",
    "EdaConfig",
    "EdaGenerator",
    "EntitySubstitutionGenerator",
    "FillMaskConfig",
    "FillMaskGenerator",
    "GENERATORS",
    "GeneratedCandidate",
    "GenerationResources",
    "Generator",
    "GeneratorKind",
    "GeneratorUnavailable",
    "InstructLLMGenerator",
    "NotApplicable",
    "PassiveGenerator",
    "PrepositionPermutationGenerator",
    "ReorderGenerator",
    "SynonymConfig",
    "SynonymGenerator",
    "available_generators",
    "is_default",
    "combine_prompts",
    "entity_groups",
    "generate",
    "generator_seed",
    "get_generator",
    "load_masked_lm",
    "load_wordnet",
    "person_genders",
    "person_mentions",
    "register",
    "resolve_question_pronouns",
    "synonym_lookup",
    "warm_up",
]
