"""The generators by name, and one call that runs several of them on a problem.

:func:`generate` is what the platform's job, ``POST paraphrase/`` and the benchmark call. Each
generator gets its own ``random.Random`` seeded from the caller's seed and its name, so the same
seed gives the same candidates and adding or removing a generator leaves the others' outputs as
they were. Later kinds (STEAD, PAP) register the same way: ``register(MyGenerator())``.

>>> "reorder" in GENERATORS and "copy" not in available_generators(GenerationResources())
True
>>> generator_seed(7, "reorder") == generator_seed(7, "reorder") != generator_seed(7, "synonym")
True
"""
from __future__ import annotations

import hashlib
import logging
import random
from collections import OrderedDict
from typing import Sequence

from ..text.nlp import load_spacy
from .base import GeneratedCandidate, GenerationResources, Generator, GeneratorUnavailable, NotApplicable
from .baselines import CopyGenerator, EdaGenerator
from .compose import ComposedGenerator
from .entities import EntitySubstitutionGenerator
from .fill_mask import FillMaskGenerator, load_masked_lm, masked_lm_unavailable_reason
from .llm import InstructLLMGenerator
from .neural import PapGenerator, SteadGenerator
from .number_format import NumberFormatGenerator
from .question_count import CountAsTaskGenerator
from .question_form import ConditionMovedGenerator, QuestionFormGenerator
from .question_task import BlankAsTaskGenerator, QuestionAsTaskGenerator
from .reorder import ReorderGenerator
from .rewording import RewordingGenerator
from .structural import PassiveGenerator, PrepositionPermutationGenerator
from .supposition import SuppositionGenerator
from .synonyms import SynonymConfig, SynonymGenerator, synonym_lookup

__all__ = [
    "GENERATORS", "OPTIONAL", "available_generators", "is_default", "generate", "generator_seed", "get_generator", "register", "warm_up",
]

logger = logging.getLogger(__name__)

GENERATORS: OrderedDict[str, Generator] = OrderedDict()
# Registered, runnable by name, but not in the default set (what ``paraphrase`` and ``generate``
# run when no generator is named): chosen from the blind-labelled valid share of each generator
# (docs/results/handout.md, "By generator").
OPTIONAL: set[str] = set()


def register(generator: Generator, *, replace: bool = False, default: bool = True) -> Generator:
    """Add ``generator`` under its name (``replace``: overwrite one of the same name; ``default``:
    False keeps it out of the default set)."""
    for attribute in ("name", "description", "kind", "unavailable_reason", "generate"):
        if not hasattr(generator, attribute):
            raise TypeError(f"{generator!r} is not a generator: it has no {attribute!r}")
    if generator.kind not in ("rule", "baseline", "neural"):
        raise ValueError(f"generator {generator.name!r}: kind must be rule, baseline or neural, not {generator.kind!r}")
    if generator.name in GENERATORS and not replace:
        raise ValueError(f"a generator named {generator.name!r} is already registered")
    GENERATORS[generator.name] = generator
    if default:
        OPTIONAL.discard(generator.name)
    else:
        OPTIONAL.add(generator.name)
    return generator


def get_generator(name: str) -> Generator:
    """The generator registered as ``name``; ``KeyError`` naming the known ones otherwise."""
    try:
        return GENERATORS[name]
    except KeyError:
        raise KeyError(f"unknown generator {name!r} (known: {', '.join(GENERATORS)})") from None


def available_generators(resources: GenerationResources, *, include_baselines: bool = False,
                         include_optional: bool | None = None) -> list[str]:
    """Names of the registered generators that can run with ``resources``, in registration order:
    the default set; baselines only when ``include_baselines``, the optional generators only when
    ``include_optional`` (None: as ``include_baselines``, so benchmarks that ask for baselines see
    everything)."""
    optional = include_baselines if include_optional is None else include_optional
    return [name for name, g in GENERATORS.items()
            if (include_baselines or g.kind != "baseline") and (optional or name not in OPTIONAL)
            and g.unavailable_reason(resources) is None]


def is_default(name: str) -> bool:
    """Whether the registered generator ``name`` is in the default set."""
    return name in GENERATORS and name not in OPTIONAL and GENERATORS[name].kind != "baseline"


def generator_seed(seed: int, name: str) -> int:
    """A generator's own seed, derived from the run's seed and its name (stable across processes,
    unlike ``hash``)."""
    digest = hashlib.sha256(f"{seed}:{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def generate(
    names: Sequence[str] | str,
    text: str,
    rng_seed_or_rng: int | random.Random,
    resources: GenerationResources | None = None,
    *,
    gold: str | None = None,
) -> tuple[list[GeneratedCandidate], dict[str, str]]:
    """Candidates of every named generator for ``text``, in the order of ``names``, and the
    reasons of those that produced none (not applicable, unavailable, or failed).

    A text appears once per generator (two generators may both produce it). A seed (or one draw
    from a ``random.Random``) seeds every generator separately (:func:`generator_seed`). Unknown
    names raise ``KeyError`` before anything runs.
    """
    resources = resources or GenerationResources()
    names = [names] if isinstance(names, str) else list(dict.fromkeys(names))
    generators = [get_generator(name) for name in names]
    if isinstance(rng_seed_or_rng, random.Random):
        seed = rng_seed_or_rng.getrandbits(64)
    else:
        seed = int(rng_seed_or_rng)
    candidates: list[GeneratedCandidate] = []
    refusals: dict[str, str] = {}
    for generator in generators:
        rng = random.Random(generator_seed(seed, generator.name))
        try:
            if gold and getattr(generator, "accepts_gold", False):
                produced = generator.generate(text, rng, resources, gold=gold)
            else:
                produced = generator.generate(text, rng, resources)
        except (NotApplicable, GeneratorUnavailable) as exc:
            refusals[generator.name] = exc.reason
            continue
        except Exception as exc:  # one broken generator must not cost the others' candidates
            logger.exception("generator %s failed", generator.name)
            refusals[generator.name] = f"failed: {type(exc).__name__}: {exc}"
            continue
        seen = set()
        for candidate in produced:
            if candidate.text in seen or (candidate.text.strip() == text.strip() and generator.name != "copy"):
                continue
            seen.add(candidate.text)
            candidates.append(candidate)
        if not seen:
            refusals[generator.name] = "no candidate"
    return candidates, refusals


def warm_up(resources: GenerationResources) -> list[str]:
    """Load what the generators need once (spaCy; the synonym source, ~5 s for WordNet; the masked
    LM when configured), so that the first request is as fast as the next. Returns what loaded."""
    load_spacy(resources.spacy_model)
    loaded = [f"spacy:{resources.spacy_model}"]
    try:
        loaded.append(f"synonyms:{synonym_lookup(resources).source}")
    except GeneratorUnavailable as exc:
        logger.warning("no synonym source: %s", exc.reason)
    if resources.masked_lm and masked_lm_unavailable_reason(resources.masked_lm) is None:
        load_masked_lm(resources.masked_lm, resources.device)
        loaded.append(f"masked_lm:{resources.masked_lm}")
    return loaded


COMPOSED_CANDIDATES = 6
# From the blind labels of each generator's output on AQuA dev problems (docs/results/handout.md,
# "By generator"): the structural rules and entity substitution were valid in every labelled case;
# synonym was not, even repaired (76 % of 114; with reorder 56 %, passive 92 %, pp_permutation
# 83 %: wrong-sense swaps, one mention of a repeated word swapped, antonyms), so it and every
# composition with it are run by name; fill_mask was never labelled.
# passive's compositions were valid in every AQuA dev label but 88 % (53 of 60) on fresh AQuA train
# and GSM8K problems after passive's repairs (docs/results/handout.md, night of 2026-11-26), so they
# run by name; passive alone stays (29 of 30).
_OPTIONAL_RULES = {"fill_mask", "synonym", "reorder+synonym", "passive+synonym", "pp_permutation+synonym",
                   "passive+pp_permutation", "passive+reorder"}


def _register_builtins() -> None:
    reorder, permutation, passive = ReorderGenerator(), PrepositionPermutationGenerator(), PassiveGenerator()
    # Up to 4 synonym draws and 6 outputs per composition: a larger pool raised PAMMR's mean PQI
    # on the validation problems (AQuA dev, GSM8K train: docs/results/generation.md), and the
    # structural steps before reordering (passive, fronted phrase) add word-order diversity.
    synonym, entities = SynonymGenerator(config=SynonymConfig(max_candidates=4)), EntitySubstitutionGenerator()
    for generator in (reorder, permutation, passive, synonym, entities, FillMaskGenerator()):
        register(generator, default=generator.name not in _OPTIONAL_RULES)
    pairs = [ComposedGenerator(first, second, max_candidates=COMPOSED_CANDIDATES) for first, second in (
        (reorder, synonym), (passive, synonym), (permutation, synonym), (reorder, entities), (passive, permutation),
        (passive, reorder), (permutation, reorder))]
    for generator in pairs:
        register(generator, default=generator.name not in _OPTIONAL_RULES)
    for pair in pairs[-2:]:  # passive+reorder+synonym, pp_permutation+reorder+synonym
        register(ComposedGenerator(pair, synonym, max_candidates=COMPOSED_CANDIDATES), default=False)
    # The question asked another way, alone and after a structural step. Alone it is in the default
    # set: 94 of 94 blind-labelled outputs valid (two passes, kappa 1.00; docs/results/handout.md),
    # though a question swapped alone is rarely useful; the compositions are run by name.
    question = QuestionFormGenerator()
    register(question)
    for first in (passive, permutation):
        register(ComposedGenerator(first, question, max_candidates=COMPOSED_CANDIDATES), default=False)
    # The question's leading condition moved after it: in the default set, 128 of 132 blind-labelled
    # outputs valid (97 %: AQuA dev and test, where its refusals were learnt, and fresh GSM8K train
    # problems, 58 of 60); with question_form after it 44 of 47 (94 %), so that runs by name.
    condition = ConditionMovedGenerator()
    register(condition)
    register(ComposedGenerator(condition, question, max_candidates=COMPOSED_CANDIDATES), default=False)
    # The question, or an unfinished last statement, set as a task ("Find how many …", "Find the
    # sum borrowed."): in the default set, 120 of 120 and 27 of 27 blind-labelled outputs valid (AQuA
    # dev and test, GSM8K train; two passes, kappa 1.00), though labelled not useful alone; they give
    # a variant to problems no other rule rewrites. After condition_moved or reorder too: 51 of 51 and
    # 51 of 51 valid. After passive 42 of 46, then 25 of 25 after passive's first repair but 22 of 24
    # on the freshest problems; after pp_permutation 24 of 27 (89 %); the blank rule after a
    # structural step only 4 labels: those run by name.
    task, blank = QuestionAsTaskGenerator(), BlankAsTaskGenerator()
    register(task)
    register(blank)
    for first in (condition, reorder, passive, permutation):
        register(ComposedGenerator(first, task, max_candidates=COMPOSED_CANDIDATES), default=first in (condition, reorder))
    for first in (reorder, passive, permutation):
        register(ComposedGenerator(first, blank, max_candidates=COMPOSED_CANDIDATES), default=False)
    # Two or three changes at once, what labellers call a useful variant: a structural step on the
    # facts and the question reworded. Run by name until labelled.
    for first in (passive, permutation):
        register(ComposedGenerator(first, condition, max_candidates=COMPOSED_CANDIDATES), default=False)
    for pair in ((passive, condition), (passive, permutation)):
        register(ComposedGenerator(ComposedGenerator(*pair, max_candidates=COMPOSED_CANDIDATES), task,
                                   max_candidates=COMPOSED_CANDIDATES), default=False)
    # Units, symbols and small counts written out, alone and before a question rule: in the default
    # set, 57 of 58 and 42 of 42 blind-labelled outputs valid on fresh AQuA train and GSM8K problems
    # (the one failure, "$10 million" -> "10 dollars million", now keeps its symbol); labelled not
    # useful, but it gives most problems a valid variant.
    number_format = NumberFormatGenerator()
    register(number_format)
    for first in (question, task):
        register(ComposedGenerator(number_format, first, max_candidates=COMPOSED_CANDIDATES))
    # Everyday words reworded from a hand-kept lexicon of safe pairs, alone and with a second change
    # (the question reworded, a condition moved, sentences reordered, numbers written out), so that a
    # variant differs by more than one word. In the default set: two blind rounds on fresh problems
    # (AQuA train 1001-1200 and 1601-2100, GSM8K train 5001-5800; two passes each, kappa 1.00): 135
    # of 140 valid in the first, the five failures repaired (a reorder of "But …", a modal before a
    # gerund, "largest" -> "big"), then every rewording output of the second round valid. Alone it is
    # rarely useful; with question_as_task after it both passes called 71 of 72 outputs useful
    # (docs/results/handout.md). With the larger lexicon (rate-problem words, fixed phrases), a third
    # round (AQuA train 1201-1600, GSM8K train 6001-6800, the handout's AQuA dev variants): 76 of 77
    # rewording outputs valid, its compositions 43 of 43 (docs/results/handout.md, 2026-11-28 morning).
    rewording = RewordingGenerator()
    register(rewording)
    for first, second in ((rewording, task), (rewording, question), (rewording, condition), (reorder, rewording),
                          (number_format, rewording)):
        register(ComposedGenerator(first, second, max_candidates=COMPOSED_CANDIDATES))
    with_numbers = ComposedGenerator(number_format, rewording, max_candidates=COMPOSED_CANDIDATES)
    for last in (task, question):
        register(ComposedGenerator(with_numbers, last, max_candidates=COMPOSED_CANDIDATES))
    register(ComposedGenerator(ComposedGenerator(reorder, rewording, max_candidates=COMPOSED_CANDIDATES), task,
                               max_candidates=COMPOSED_CANDIDATES))
    # Three changes where a condition can move: the words, the condition, the question. Blind
    # labels on fresh problems (AQuA train 1201-1600, GSM8K train 6001-6800; two passes, kappa 1.00):
    # 21 of 21 valid, all useful.
    register(ComposedGenerator(ComposedGenerator(rewording, condition, max_candidates=COMPOSED_CANDIDATES), task,
                               max_candidates=COMPOSED_CANDIDATES))
    # People renamed consistently, with the words or the question reworded too: a variant whose
    # story differs as well as its wording. Blind labels on fresh problems (GSM8K train 6801-7400,
    # AQuA train 1401-1600; two passes, kappa 1.00): 40 of 40 valid; useful 30 of 30 with a question
    # rule, 2 of 10 with the words alone.
    entities = GENERATORS["entity_substitution"]
    for rest in ("rewording", "question_as_task", "rewording+question_as_task", "rewording+condition_moved"):
        register(ComposedGenerator(entities, GENERATORS[rest], max_candidates=COMPOSED_CANDIDATES))
    # A leading "If …," condition stated as a supposition ("Suppose A. Find B."), alone and with the
    # question or the words reworded too: exam problems whose facts sit in the condition get a
    # variant that reads differently. In the default set: blind labels on fresh problems (AQuA train
    # 1-1000 and GSM8K train 1-5000 with an "If" sentence; two passes, docs/results/handout.md,
    # 2026-11-28 midday): 105 of 105 valid; alone never useful, each composition 15 of 15 useful.
    supposition = SuppositionGenerator()
    register(supposition)
    for second in (question, task, blank):
        register(ComposedGenerator(supposition, second, max_candidates=COMPOSED_CANDIDATES))
    reworded_supposition = ComposedGenerator(rewording, supposition, max_candidates=COMPOSED_CANDIDATES)
    register(reworded_supposition)
    for last in (question, task):
        register(ComposedGenerator(reworded_supposition, last, max_candidates=COMPOSED_CANDIDATES))
    # A "How many/much …?" question set as a task about the number or amount ("Find the number of
    # pens he has now."): a second question rule for count questions, alone and wherever
    # question_as_task follows a first step in the default set.
    count = CountAsTaskGenerator()
    register(count)
    for first in (condition, reorder, number_format, rewording, entities, supposition, reworded_supposition,
                  GENERATORS["rewording+condition_moved"], GENERATORS["reorder+rewording"],
                  GENERATORS["number_format+rewording"], GENERATORS["entity_substitution+rewording"]):
        register(ComposedGenerator(first, count, max_candidates=COMPOSED_CANDIDATES))
    # An unfinished last statement set as a task after the words are reworded ("The least perfect square
    # number, exactly divisible by 21, 36 and 56 is?" -> "Find the least perfect square number, precisely
    # divisible by …"): the exam one-liners no other useful rule reaches. Blind labels on fresh AQuA test
    # and train problems (two passes, kappa 1.00): 24 of 24 and 10 of 10 valid, all useful.
    for first in (rewording, GENERATORS["number_format+rewording"]):
        register(ComposedGenerator(first, blank, max_candidates=COMPOSED_CANDIDATES))
    for generator in (CopyGenerator(), EdaGenerator()):
        register(generator)
    # Optional (make llm) and seconds a problem: run by name, not on every paste.
    register(InstructLLMGenerator(), default=False)
    for generator in (SteadGenerator(), PapGenerator()):
        register(generator)


_register_builtins()
