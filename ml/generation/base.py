"""What a paraphrase generator is, what it returns, and what it may raise.

A generator turns one word problem into zero or more candidate paraphrases that keep the same
numbers, units and solution. It is any object with ``name``, ``description``, ``kind`` and two
methods (:class:`Generator`); rule-based generators, baselines and, later, STEAD and PAP all
register the same way (see :mod:`ml.generation.registry`).

- "Cannot run here at all" (no model configured or installed): :class:`GeneratorUnavailable`.
- "Does not apply to this text" (no entity to replace, a single sentence to reorder):
  :class:`NotApplicable`, which is ``ml.operators.OperatorNotApplicable``.
- A generator never returns its input unchanged (only the ``copy`` baseline does).

>>> c = GeneratedCandidate("In 5 hours, a train covers 300 km.", "pp_permutation", prompt="shuffle")
>>> combine_prompts("shuffle", "replace"), c.prompt
('replace shuffle', 'shuffle')
"""
from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal, Protocol, runtime_checkable

from ..text.nlp import DEFAULT_SPACY_MODEL, parse
from ..text.number_mentions import number_signature
from ..operators.base import OperatorNotApplicable
from ..operators.preservation import require_preserved
from ..encoders import DEFAULT_SENTENCE_ENCODER
from ..text.units import unit_signature

__all__ = [
    "GeneratedCandidate",
    "GenerationResources",
    "Generator",
    "GeneratorKind",
    "GeneratorUnavailable",
    "NotApplicable",
    "PROMPT_WORDS",
    "SynonymSource",
    "candidates_or_refuse",
    "combine_prompts",
    "one_rewrite",
    "require_quantities",
    "content_refusal",
    "MAX_NOUNS_DROPPED",
    "require_same_problem",
]

# "Does not apply to this text": the operators' exception, so operators can be called as they are.
NotApplicable = OperatorNotApplicable

GeneratorKind = Literal["rule", "baseline", "neural"]
SynonymSource = Literal["auto", "wordnet", "embedding"]

# SCANNING's prompt words (PAP), in the order the paper writes combinations ("fix replace
# shuffle"): shuffle = reorderings and permutations, replace = substitutions, fix = deletions
# and insertions, passive = voice change.
PROMPT_WORDS = ("fix", "replace", "shuffle", "passive")


class GeneratorUnavailable(Exception):
    """A generator cannot run in this environment (no model configured or installed)."""

    def __init__(self, reason: str, *, generator: str | None = None) -> None:
        self.reason = reason
        self.generator = generator
        super().__init__(f"{generator}: {reason}" if generator else reason)


@dataclass(frozen=True)
class GeneratedCandidate:
    """One candidate paraphrase. ``generator``: the registry name that made it; ``prompt``: the
    method's prompt words (SCANNING style); ``meta``: JSON-safe details (what was replaced, which
    synonym source ran, ...)."""

    text: str
    generator: str
    prompt: str = ""
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class GenerationResources:
    """Where the generators find their models. Plain names and paths only (ml stays pure).

    spacy_model: spaCy pipeline name or path.
    synonym_source: "wordnet" (NLTK WordNet, must be installed), "embedding" (nearest neighbours
        among the encoder's input token embeddings) or "auto" (WordNet when installed, else
        embedding).
    wordnet_dir: an NLTK data directory holding corpora/wordnet (None: NLTK's search path).
    embedding_model: sentence-transformers model (directory or hub id) for the embedding source.
    masked_lm: hub id or directory of a masked LM for fill-mask (None: fill_mask unavailable).
    llm_dir, llm_file: directory and GGUF file of an optional instruct LLM (never a default).
    device: "cpu", "cuda", ... for the neural generators.
    stead_model, pap_model: directories of the trained STEAD / PAP versions to generate with
        (None: those generators are unavailable and say so).
    scanning_preset: the SCANNING preset whose decoding settings STEAD and PAP use ("paper":
        diverse beam search, 6 beams, 3 groups, penalty 10; "tiny": the same, fewer inputs).
    fluency_lm: the causal LM STEAD's inference noise ranks rewrites with ("auto": the packaged
        SmolLM2-135M when installed, else a Kneser-Ney n-gram LM; or a hub id / directory).
    """

    spacy_model: str = DEFAULT_SPACY_MODEL
    synonym_source: SynonymSource = "auto"
    wordnet_dir: str | None = None
    embedding_model: str = DEFAULT_SENTENCE_ENCODER
    masked_lm: str | None = None
    llm_dir: str | None = None
    llm_file: str | None = None
    device: str = "cpu"
    stead_model: str | None = None
    pap_model: str | None = None
    scanning_preset: str = "paper"
    fluency_lm: str = "auto"

    def __post_init__(self) -> None:
        if self.synonym_source not in ("auto", "wordnet", "embedding"):
            raise ValueError(f"synonym_source must be auto, wordnet or embedding, not {self.synonym_source!r}")
        if not self.spacy_model:
            raise ValueError("spacy_model must name a spaCy pipeline")
        if not self.device:
            raise ValueError("device must be set (e.g. 'cpu')")


@runtime_checkable
class Generator(Protocol):
    """A paraphrase generator. ``kind``: "rule", "baseline" or "neural"."""

    name: str
    description: str
    kind: GeneratorKind

    def unavailable_reason(self, resources: GenerationResources) -> str | None:
        """Why this generator cannot run with ``resources`` (None: it can)."""
        ...

    def generate(self, text: str, rng: random.Random, resources: GenerationResources) -> list[GeneratedCandidate]:
        """Candidates for ``text``; raises :class:`NotApplicable` or :class:`GeneratorUnavailable`."""
        ...


def combine_prompts(*prompts: str) -> str:
    """The prompt words of several methods, each once, in SCANNING's order.

    >>> combine_prompts("passive", "shuffle"), combine_prompts("replace", "", "replace")
    ('shuffle passive', 'replace')
    """
    words = {w for p in prompts for w in p.split()}
    known = [w for w in PROMPT_WORDS if w in words]
    return " ".join(known + sorted(words - set(PROMPT_WORDS)))


def require_quantities(original: str, output: str, *, generator: str) -> None:
    """Raise :class:`NotApplicable` unless ``output`` states the same numbers (by value) and units
    as ``original`` (entities may change: entity substitution).

    >>> require_quantities("It costs $4.50.", "The price is 4.50 dollars.", generator="x")
    """
    if number_signature(original) != number_signature(output):
        raise NotApplicable("the rewrite would change the numbers", operator=generator)
    if Counter(unit_signature(original)) != Counter(unit_signature(output)):
        raise NotApplicable("the rewrite would change the units", operator=generator)


def require_same_problem(original: str, output: str, *, generator: str, spacy_model: str) -> None:
    """Raise :class:`NotApplicable` when ``output`` lost a number, unit or named entity."""
    require_preserved(original, output, operator=generator, spacy_model=spacy_model)


_COMMENT = re.compile(r"\b(?:note|solution|answer|hint|explanation)\s*:|\(note\b|\bstep\s+1\b", re.IGNORECASE)
#: Nouns the problem states that the rewrite may leave out before it is refused: at most this
#: share of them, and never two or more with that share exceeded (an LLM rewrite that merges or
#: drops facts loses their nouns; one that rewords keeps most of them).
MAX_NOUNS_DROPPED = 0.25


def content_refusal(original: str, rewrite: str, *, spacy_model: str | None = None,
                    check_nouns: bool = True) -> str | None:
    """Why ``rewrite`` is not the same problem in content, or None: what the neural generators
    (the instruct LLM, STEAD, PAP) get wrong beside numbers, by their blind labels (sub-questions
    added, facts merged or dropped, comments):
    - more question sentences than the problem has (at least one allowed);
    - more than one sentence added;
    - a comment ("Note:", "Solution:", "Step 1");
    - the problem's nouns dropped: more than :data:`MAX_NOUNS_DROPPED` of its distinct content
      nouns (by lemma) missing from the rewrite, two or more of them.

    >>> content_refusal("Tom has 3 apples and buys 2 pears. How many fruits does he have?",
    ...                 "Tom, who has 3 apples, buys 2 pears. How many fruits does he have now?") is None
    True
    >>> content_refusal("Tom has 3 apples and buys 2 pears. How many fruits does he have?",
    ...                 "Tom has 3 apples and buys 2 pears. How many apples does he have? How many pears?")
    'it asks 2 questions where the problem asks 1'
    """
    model = spacy_model or DEFAULT_SPACY_MODEL
    source, output = parse(original, model), parse(rewrite, model)
    asked = sum(1 for s in source.sents if s.text.strip().endswith("?"))
    asks = rewrite.count("?")
    if asks > max(asked, 1):
        return f"it asks {asks} questions where the problem asks {max(asked, 1)}"
    if len(list(output.sents)) > len(list(source.sents)) + 1:
        return "it adds sentences the problem does not have"
    if _COMMENT.search(rewrite) and not _COMMENT.search(original):
        return "it adds a comment"
    if not check_nouns:  # a rewording may change nouns; solving is what catches a dropped fact there
        return None
    nouns = {t.lemma_.lower() for t in source if t.pos_ == "NOUN" and t.is_alpha and not t.is_stop and len(t) > 2}
    kept = {t.lemma_.lower() for t in output} | {t.lower_ for t in output}
    missing = sorted(n for n in nouns if n not in kept)
    if nouns and len(missing) >= 2 and len(missing) / len(nouns) > MAX_NOUNS_DROPPED:
        return f"it drops what the problem says of {', '.join(missing[:4])}"
    return None


def candidates_or_refuse(
    original: str, candidates: Iterable[GeneratedCandidate], *, generator: str, reason: str, limit: int | None = None
) -> list[GeneratedCandidate]:
    """Distinct candidates that differ from ``original`` (at most ``limit``); :class:`NotApplicable`
    with ``reason`` when none is left."""
    seen = {original.strip()}
    kept = []
    for candidate in candidates:
        key = candidate.text.strip()
        if not key or key in seen:
            continue
        seen.add(key)
        kept.append(candidate)
        if limit is not None and len(kept) >= limit:
            break
    if not kept:
        raise NotApplicable(reason, operator=generator)
    return kept


def one_rewrite(original: str, rewritten: str, *, generator: str, prompt: str, refusal: str,
                spacy_model: str) -> list[GeneratedCandidate]:
    """The single candidate of a generator that rewrites the whole text one way: refused with
    ``refusal`` when nothing changed, with :class:`NotApplicable` when a quantity or name was lost."""
    if rewritten.strip() == original.strip():
        raise NotApplicable(refusal, operator=generator)
    require_same_problem(original, rewritten, generator=generator, spacy_model=spacy_model)
    return [GeneratedCandidate(rewritten, generator, prompt)]
