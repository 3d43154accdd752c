"""Features of a (problem, candidate paraphrase) pair that a sentence embedding misses.

A cosine of two mean-pooled embeddings barely moves when "12 apples" becomes "15 apples", "km"
becomes "miles" or "Sara" becomes "Priya"; a teacher's variant is wrong for each. Every feature
here is a number in a fixed order (:data:`FEATURE_NAMES`), so a small classifier can weigh them:

- ``cosine``: the encoder's cosine of the two texts (ParaQD's score);
- ``numeracy``: ν, the overlap of number values (``ml.metrics.pqi.numeracy``, p = 3);
  ``numbers_missing`` / ``numbers_added``: how many values of one text the other lacks;
- ``units_kept``: the share of the problem's unit mentions the candidate keeps (``ml.text.units``);
- ``entities_kept``: the share of the problem's names (people, places, organisations; spaCy)
  that appear in the candidate;
- ``align_p``, ``align_r``, ``align_f``: BERTScore-style greedy alignment of the two texts' token
  embeddings from the same encoder (precision: each candidate token's best match in the problem);
- ``length_ratio``: |log(candidate words / problem words)|;
- ``foreign``: the share of the candidate's content words whose lemma is neither in the problem
  nor a WordNet synonym of one of its lemmas (lemmas only when WordNet is not installed);
- ``fluency``: how much less fluent the candidate reads than the problem under a causal LM
  (``ml.noise.fluency``; SmolLM2-135M offline): min(0, log fl(candidate) − log fl(problem)), fl
  the geometric-mean token probability, so 0 is "as fluent as the problem" and −0.7 is "each
  token half as probable". Words replaced at random and clumsy deletions read badly; a rewording
  does not. Only with a fluency scorer (0 without one; a judge then leaves it out).

With a fluency LM that gives per-token log-probabilities and a word embedder, the English checks
of :mod:`ml.judge.english` join the vector (:data:`ALL_FEATURE_NAMES`): where a rewrite's changed
words read badly, whether a swapped word fits the problem, quantity words lost, broken joins,
run-on sentences, stacked passives, new names, the question's words.

Beside the vector, ``PairFeatures.llm`` holds an instruct LLM's zero-shot verdict on the pair
(``ml.judge.llm_check``: log P(Yes) − log P(No)) when an LLM check read it; a judge weighs it
beside its own output (``NumeracyJudge.fit_llm``), not as one more feature of the vector.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from ..metrics.pqi import numeracy
from ..text.nlp import DEFAULT_SPACY_MODEL, named_entities, parse
from ..text.number_mentions import number_signature
from ..text.units import unit_signature

FEATURE_NAMES = (
    "cosine", "numeracy", "numbers_missing", "numbers_added", "units_kept", "entities_kept",
    "align_p", "align_r", "align_f", "length_ratio", "foreign", "fluency",
)
from .english import ENGLISH_FEATURE_NAMES, ENGLISH_FEATURE_SIGNS, english_features

# Every feature: the numeracy checks, fluency, and the English checks.
ALL_FEATURE_NAMES = FEATURE_NAMES + ENGLISH_FEATURE_NAMES
# The features a judge uses when no fluency LM scored the pairs.
BASE_FEATURE_NAMES = tuple(name for name in FEATURE_NAMES if name != "fluency")
# The direction each check may push a decision: +1 the higher the value, the more valid the pair
# can be; -1 the less. A monotone judge keeps its weights to these signs.
FEATURE_SIGNS = {
    "cosine": 1, "numeracy": 1, "numbers_missing": -1, "numbers_added": -1, "units_kept": 1, "entities_kept": 1,
    "align_p": 1, "align_r": 1, "align_f": 1, "length_ratio": -1, "foreign": -1, "fluency": 1,
    **ENGLISH_FEATURE_SIGNS,
}
CONTENT_POS = {"NOUN", "PROPN", "VERB", "ADJ", "ADV"}

# texts -> one (tokens, dim) array of L2-normalised token embeddings per text.
TokenEmbedder = Callable[[list[str]], list[np.ndarray]]


@dataclass
class PairFeatures:
    """The features of one pair (``values`` in :data:`FEATURE_NAMES` order) and what they saw,
    for explanations: numbers and units and names missing or added, foreign words."""

    values: dict[str, float]
    missing_numbers: list[str] = field(default_factory=list)
    added_numbers: list[str] = field(default_factory=list)
    missing_units: list[str] = field(default_factory=list)
    missing_entities: list[str] = field(default_factory=list)
    foreign_words: list[str] = field(default_factory=list)
    wordnet: bool = True
    fluency_lm: str | None = None
    llm: float | None = None
    llm_model: str | None = None

    def vector(self, names: Sequence[str] = FEATURE_NAMES) -> list[float]:
        return [float(self.values[name]) for name in names]


def _fmt_number(value: Any) -> str:
    try:
        f = float(value)
    except (TypeError, ValueError):
        return str(value)
    return str(int(f)) if f.is_integer() else f"{f:g}"


def number_difference(original: str, candidate: str) -> tuple[list[str], list[str]]:
    """(values of ``original`` missing from ``candidate``, values ``candidate`` adds), as multisets."""
    a, b = number_signature(original), number_signature(candidate)
    missing = [_fmt_number(v) for v, n in (a - b).items() for _ in range(n)]
    added = [_fmt_number(v) for v, n in (b - a).items() for _ in range(n)]
    return missing, added


def unit_difference(original: str, candidate: str) -> tuple[float, list[str]]:
    """(share of ``original``'s unit mentions kept, the unit keys dropped or changed)."""
    a, b = unit_signature(original), unit_signature(candidate)
    total = sum(a.values())
    if not total:
        return 1.0, []
    kept = sum(min(n, b.get(key, 0)) for key, n in a.items())
    missing = sorted(key for key, n in a.items() if b.get(key, 0) < n)
    return kept / total, missing


def entity_difference(original: str, candidate: str, *, spacy_model: str | None = None) -> tuple[float, list[str]]:
    """(share of ``original``'s named entities found in ``candidate``, the names not found)."""
    model = spacy_model or DEFAULT_SPACY_MODEL
    names = {e.text for e in named_entities(original, model=model)}
    # Small English pipelines miss many first names ("Sara drove..."): proper nouns count too.
    names |= {t.text for t in parse(original, model) if t.pos_ == "PROPN" and t.is_alpha and len(t.text) > 1
              and t.text[0].isupper() and not any(t.text in name for name in names)}
    names = sorted({n.strip(" .,;:!?") for n in names if len(n.strip(" .,;:!?")) > 1})
    if not names:
        return 1.0, []
    lowered = candidate.lower()
    missing = [name for name in names if name.lower() not in lowered]
    return 1.0 - len(missing) / len(names), missing


@lru_cache(maxsize=1)
def _wordnet():
    try:
        from nltk.corpus import wordnet

        wordnet.synsets("dog")
        return wordnet
    except Exception:  # noqa: BLE001 - LookupError when the data is absent, ImportError without nltk
        return None


@lru_cache(maxsize=4096)
def _synonyms(lemma: str) -> frozenset[str]:
    wordnet = _wordnet()
    if wordnet is None:
        return frozenset()
    return frozenset(name.lower().replace("_", " ") for syn in wordnet.synsets(lemma) for name in syn.lemma_names())


def foreign_words(original: str, candidate: str, *, spacy_model: str | None = None) -> tuple[float, list[str], bool]:
    """(share of ``candidate``'s content words foreign to ``original``, those words, whether
    WordNet synonyms were consulted)."""
    model = spacy_model or DEFAULT_SPACY_MODEL
    source = {t.lemma_.lower() for t in parse(original, model) if not t.is_punct}
    source |= {t.lower_ for t in parse(original, model)}
    related = set(source)
    wordnet = _wordnet() is not None
    for lemma in list(source):
        related |= _synonyms(lemma)
    content = [t for t in parse(candidate, model) if t.pos_ in CONTENT_POS and t.is_alpha]
    if not content:
        return 0.0, [], wordnet
    foreign = []
    for token in content:
        lemma = token.lemma_.lower()
        if lemma in related or token.lower_ in related:
            continue
        if wordnet and (_synonyms(lemma) & source):
            continue
        foreign.append(token.text)
    return len(foreign) / len(content), foreign, wordnet


def alignment(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """BERTScore-style greedy matching of normalised token embeddings: (precision of ``b``
    against ``a``, recall of ``a`` in ``b``, F1). ``a`` is the problem, ``b`` the candidate."""
    if len(a) == 0 or len(b) == 0:
        return 0.0, 0.0, 0.0
    sim = b @ a.T  # (len b, len a)
    precision = float(sim.max(axis=1).mean())
    recall = float(sim.max(axis=0).mean())
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return precision, recall, f1


def fluency_drop(original: float, candidate: float) -> float:
    """min(0, log ``candidate`` − log ``original``) of two fluencies (geometric-mean token
    probabilities in (0, 1]): how much less probable, per token, the candidate reads.

    >>> round(fluency_drop(0.2, 0.1), 3)  # each token half as probable
    -0.693
    >>> fluency_drop(0.1, 0.3)
    0.0
    """
    floor = 1e-12
    return min(0.0, math.log(max(candidate, floor)) - math.log(max(original, floor)))


def word_count(text: str) -> int:
    return max(1, len(text.split()))


def pair_features(
    original: str,
    candidate: str,
    *,
    cosine: float,
    original_tokens: np.ndarray | None = None,
    candidate_tokens: np.ndarray | None = None,
    spacy_model: str | None = None,
    fluency: tuple[float, float] | None = None,
    fluency_lm: str | None = None,
    llm: float | None = None,
    llm_model: str | None = None,
    english: dict[str, float] | None = None,
) -> PairFeatures:
    """The features of one pair. ``cosine`` is the encoder's; the token embeddings (normalised
    rows, e.g. from :func:`sentence_transformer_tokens`) give the alignment features (0 without);
    ``fluency`` is (the problem's, the candidate's) fluency under the LM named ``fluency_lm``;
    ``llm`` the LLM check's log-odds under ``llm_model``; ``english`` the English checks
    (:func:`ml.judge.english.english_features`), when computed."""
    missing, added = number_difference(original, candidate)
    units_kept, missing_units = unit_difference(original, candidate)
    entities_kept, missing_entities = entity_difference(original, candidate, spacy_model=spacy_model)
    foreign_share, foreign, wordnet = foreign_words(original, candidate, spacy_model=spacy_model)
    if original_tokens is not None and candidate_tokens is not None:
        p, r, f = alignment(original_tokens, candidate_tokens)
    else:
        p = r = f = 0.0
    values = {
        "cosine": float(cosine),
        "numeracy": float(numeracy(original, candidate)),
        "numbers_missing": float(len(missing)),
        "numbers_added": float(len(added)),
        "units_kept": float(units_kept),
        "entities_kept": float(entities_kept),
        "align_p": p,
        "align_r": r,
        "align_f": f,
        "length_ratio": abs(math.log(word_count(candidate) / word_count(original))),
        "foreign": float(foreign_share),
        "fluency": fluency_drop(*fluency) if fluency is not None else 0.0,
        **(english or {}),
    }
    return PairFeatures(values, missing, added, missing_units, missing_entities, foreign, wordnet,
                        fluency_lm=fluency_lm if fluency is not None else None,
                        llm=None if llm is None else float(llm), llm_model=llm_model if llm is not None else None)


def sentence_transformer_tokens(model: Any, *, batch_size: int = 64) -> TokenEmbedder:
    """A :data:`TokenEmbedder` over a loaded sentence-transformers model (the ParaQD encoder):
    its token embeddings, special tokens and padding dropped, rows L2-normalised."""

    def embed(texts: list[str]) -> list[np.ndarray]:
        if not texts:
            return []
        outputs = model.encode(texts, output_value="token_embeddings", batch_size=batch_size,
                               convert_to_numpy=False, show_progress_bar=False)
        arrays = []
        for out in outputs:
            m = out.detach().float().cpu().numpy() if hasattr(out, "detach") else np.asarray(out, dtype=np.float32)
            if len(m) > 2:
                m = m[1:-1]  # [CLS] ... [SEP]
            norms = np.linalg.norm(m, axis=1, keepdims=True)
            arrays.append(m / np.maximum(norms, 1e-12))
        return arrays

    return embed


def sentence_transformer_words(model: Any, *, batch_size: int = 64, cache_size: int = 20_000):
    """A word embedder (``ml.judge.english.WordEmbedder``) over a loaded sentence-transformers
    model: normalised sentence embeddings of each word or text, cached per string."""
    cache: dict[str, np.ndarray] = {}

    def embed(words: list[str]) -> np.ndarray:
        todo = [w for w in dict.fromkeys(words) if w not in cache]
        if todo:
            if len(cache) + len(todo) > cache_size:
                cache.clear()
            vectors = model.encode(todo, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True,
                                   show_progress_bar=False)
            cache.update(zip(todo, vectors))
        return np.asarray([cache[w] for w in words])

    return embed


def batch_features(
    originals: Sequence[str],
    candidates: Sequence[str],
    *,
    cosines: Sequence[float],
    token_embedder: TokenEmbedder | None = None,
    spacy_model: str | None = None,
    fluency_scorer: Any = None,
    llm_check: Any = None,
    word_embedder: Any = None,
    english: bool = False,
) -> list[PairFeatures]:
    """:func:`pair_features` for many pairs; each distinct text is embedded once and, with a
    ``fluency_scorer`` (``ml.noise.fluency``: ``.name`` and ``.score(texts)``), scored once; with
    an ``llm_check`` (``ml.judge.llm_check``: ``.name`` and ``.score_pairs(problems, candidates)``)
    each pair is read by the LLM. ``english``: the English checks too (:mod:`ml.judge.english`),
    reading the fluency scorer's per-token log-probabilities (``.token_logprobs``) and
    ``word_embedder`` (words -> normalised rows) when given."""
    if not (len(originals) == len(candidates) == len(cosines)):
        raise ValueError("originals, candidates and cosines differ in length")
    distinct = list(dict.fromkeys([*originals, *candidates]))
    tokens: dict[str, np.ndarray] = {}
    if token_embedder is not None:
        tokens = dict(zip(distinct, token_embedder(distinct)))
    fluent: dict[str, float] = {}
    token_lp: dict[str, Any] = {}
    if fluency_scorer is not None and english and hasattr(fluency_scorer, "token_logprobs"):
        token_lp = dict(zip(distinct, fluency_scorer.token_logprobs(distinct)))
    if fluency_scorer is not None:
        fluent = dict(zip(distinct, fluency_scorer.score(distinct)))
    checks: list[dict[str, float] | None] = [None] * len(originals)
    if english:
        model = spacy_model or DEFAULT_SPACY_MODEL
        checks = [english_features(o, c, original_doc=parse(o, model), candidate_doc=parse(c, model),
                                   candidate_lm=token_lp.get(c), embed=word_embedder)
                  for o, c in zip(originals, candidates)]
    lm = getattr(fluency_scorer, "name", None)
    verdicts: list[float | None] = [None] * len(originals)
    if llm_check is not None:
        verdicts = list(llm_check.score_pairs(list(originals), list(candidates)))
    llm_model = getattr(llm_check, "name", None)
    return [
        pair_features(o, c, cosine=cos, original_tokens=tokens.get(o), candidate_tokens=tokens.get(c),
                      spacy_model=spacy_model, fluency=(fluent[o], fluent[c]) if fluent else None, fluency_lm=lm,
                      llm=verdict, llm_model=llm_model, english=extra)
        for o, c, cos, verdict, extra in zip(originals, candidates, cosines, verdicts, checks)
    ]
