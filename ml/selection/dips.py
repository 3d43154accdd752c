"""DiPS: submodular selection of faithful yet diverse paraphrases (paper 003, sections 3-4.2).

The paper maximises, over sets X of at most k sequences of a ground set V,

    F(X) = lambda * (L1 + L2) + (1 - lambda) * (D1 + D2)

    L1 = mu1 * sqrt(sum_x sum_n beta_f^n * |x n-grams & s n-grams|)          (beta_f > 1)
    L2 = mu2 * sqrt(sum_x S(x, s)),  S(x, s) = mean over words w of x of max over source
         words w' of psi(w, w'),  psi = Gaussian RBF exp(-gamma * |v_w - v_w'|^2)
    D1 = mu3 * sum_n beta_d^n * |union over x of x n-grams|                   (beta_d < 1)
    D2 = mu4 * sum_{v in V} sum_{x in X} R(v, x),  R = 1 - Lev(v, x) / (|v| + |x|)

with n = 1..N (N = 3). Each term is monotone submodular (a concave function of a modular
function, a weighted coverage, a modular sum), so greedy selection is within 1 - 1/e of the
optimum and the *lazy* greedy of Minoux gives the same picks: marginal gains only shrink as X
grows, so a stale gain is an upper bound and only the head of a priority queue is re-evaluated.

Choices where the paper is silent (its supplementary with the hyperparameters is not in the
text we have), documented here:

- lambda = 0.5, mu1..mu4 = 1, gamma = 1 (RBF exp(-|a-b|^2 / sigma^2) with sigma = 1) are the
  defaults of the authors' released code (malllabiisc/DiPS ``args.py``, ``submodular_funcs.py``);
  beta_fidelity = 2 and beta_diversity = 0.5 are our choices satisfying beta > 1 and beta < 1.
- ``normalize=True`` divides each of the four terms by its value on the whole ground set, as
  the released code does, so the mu weights compare terms in [0, 1] instead of a distinct
  n-gram count against a square root; dividing by a constant keeps monotone submodularity.
- Texts are lower-cased word tokens (``\\w+`` runs, keeping "2.5" and "1,200" whole); n-gram
  overlaps and unions count distinct n-grams (sets); R is a word-level Levenshtein distance
  (``rapidfuzz``) over token counts, and R = 1 for two empty texts.
- Word similarity: ``word_similarity(a, b)`` if given; else the RBF over ``word_vectors(w)``
  (a word without a vector falls back to exact match); with neither, exact match of the
  lower-cased words (1 or 0), so S(x, s) is the share of x's words that occur in s.
  Similarities are clipped to [0, 1] so that L2 stays monotone.

>>> dips("Tom has 3 apples.", [SelectionCandidate(t) for t in
...      ("Tom has 3 apples.", "Tom owns 3 apples.", "3 apples belong to Tom.")], k=2)
[0, 2]
"""
from __future__ import annotations

import heapq
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .base import SelectionCandidate, check_k

__all__ = ["DiPSConfig", "WordSimilarity", "WordVectors", "dips", "dips_objective", "rbf_word_similarity", "tokens"]

WordSimilarity = Callable[[str, str], float]
WordVectors = Callable[[str], "Sequence[float] | None"]

_TOKEN = re.compile(r"\w+(?:[.,']\w+)*")


@dataclass(frozen=True)
class DiPSConfig:
    """Weights of F(X); see the module docstring for where each default comes from."""

    lambda_: float = 0.5
    mu1: float = 1.0
    mu2: float = 1.0
    mu3: float = 1.0
    mu4: float = 1.0
    beta_fidelity: float = 2.0
    beta_diversity: float = 0.5
    max_n: int = 3  # N of the paper
    gamma: float = 1.0  # RBF: psi(a, b) = exp(-gamma * |a - b|^2)
    normalize: bool = True

    def __post_init__(self) -> None:
        if not 0.0 <= self.lambda_ <= 1.0:
            raise ValueError(f"lambda_ must lie in [0, 1], got {self.lambda_}")
        for name in ("mu1", "mu2", "mu3", "mu4"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0 (monotonicity), got {getattr(self, name)}")
        if not self.beta_fidelity > 1.0:
            raise ValueError(f"beta_fidelity must be > 1 (longer overlaps weigh more), got {self.beta_fidelity}")
        if not 0.0 < self.beta_diversity < 1.0:
            raise ValueError(
                f"beta_diversity must lie in (0, 1) (shorter n-grams weigh more), got {self.beta_diversity}"
            )
        if self.max_n < 1:
            raise ValueError(f"max_n must be >= 1, got {self.max_n}")
        if not self.gamma > 0:
            raise ValueError(f"gamma must be > 0, got {self.gamma}")


def tokens(text: str) -> tuple[str, ...]:
    """Lower-cased word tokens: ``\\w+`` runs joined across "." "," "'" inside numbers and words.

    >>> tokens("Tom's 1,200 apples cost $2.50.")
    ("tom's", '1,200', 'apples', 'cost', '2.50')
    """
    return tuple(_TOKEN.findall(text.lower()))


def rbf_word_similarity(word_vectors: WordVectors, gamma: float = 1.0) -> WordSimilarity:
    """psi(a, b) = exp(-gamma * |v_a - v_b|^2) over ``word_vectors``; exact match for a word
    without a vector.

    >>> psi = rbf_word_similarity({"cat": (0.0, 0.0), "dog": (1.0, 0.0)}.get)
    >>> round(psi("cat", "dog"), 4), psi("cat", "cow"), psi("cow", "cow")
    (0.3679, 0.0, 1.0)
    """
    cache: dict[str, tuple[float, ...] | None] = {}

    def vector(word: str) -> tuple[float, ...] | None:
        if word not in cache:
            v = word_vectors(word)
            cache[word] = None if v is None else tuple(float(x) for x in v)
        return cache[word]

    def psi(a: str, b: str) -> float:
        va, vb = vector(a), vector(b)
        if va is None or vb is None:
            return 1.0 if a == b else 0.0
        return math.exp(-gamma * sum((x - y) ** 2 for x, y in zip(va, vb, strict=True)))

    return psi


def _exact_match(a: str, b: str) -> float:
    return 1.0 if a == b else 0.0


def _ngrams(toks: Sequence[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(toks[i:i + n]) for i in range(len(toks) - n + 1)}


def _resolve_similarity(
    config: DiPSConfig, word_similarity: WordSimilarity | None, word_vectors: WordVectors | None
) -> WordSimilarity:
    if word_similarity is not None and word_vectors is not None:
        raise ValueError("give word_similarity or word_vectors, not both")
    if word_similarity is not None:
        return word_similarity
    if word_vectors is not None:
        return rbf_word_similarity(word_vectors, config.gamma)
    return _exact_match


class _Terms:
    """Per-text modular quantities of F against one source and one ground set."""

    def __init__(self, source: str, ground: Sequence[str], config: DiPSConfig, psi: WordSimilarity) -> None:
        from rapidfuzz.distance import Levenshtein

        self._levenshtein = Levenshtein.distance
        self.config = config
        self.psi = psi
        self.source = tokens(source)
        self.source_grams = [_ngrams(self.source, n) for n in range(1, config.max_n + 1)]
        self.ground = [tokens(t) for t in ground]
        self._pair_cache: dict[tuple[str, str], float] = {}
        ones = (1.0, 1.0, 1.0, 1.0)
        self.norms = ones
        if config.normalize and self.ground:
            every = [self.features(t) for t in self.ground]
            raw = (
                math.sqrt(sum(f[0] for f in every)),
                math.sqrt(sum(f[1] for f in every)),
                self.union_weight(set().union(*(f[2] for f in every))),
                sum(f[3] for f in every),
            )
            # A term that is 0 on the whole ground set is 0 on every subset: any divisor works.
            self.norms = tuple(r if r > 0 else 1.0 for r in raw)  # type: ignore[assignment]

    def overlap(self, toks: Sequence[str]) -> float:
        beta = self.config.beta_fidelity
        return sum(
            beta ** n * len(_ngrams(toks, n) & self.source_grams[n - 1]) for n in range(1, self.config.max_n + 1)
        )

    def word_sim(self, a: str, b: str) -> float:
        key = (a, b)
        if key not in self._pair_cache:
            self._pair_cache[key] = min(1.0, max(0.0, float(self.psi(a, b))))
        return self._pair_cache[key]

    def similarity(self, toks: Sequence[str]) -> float:
        if not toks or not self.source:
            return 0.0
        return sum(max(self.word_sim(w, s) for s in self.source) for w in toks) / len(toks)

    def grams(self, toks: Sequence[str]) -> set[tuple[str, ...]]:
        return set().union(*(_ngrams(toks, n) for n in range(1, self.config.max_n + 1)))

    def union_weight(self, grams: set[tuple[str, ...]]) -> float:
        beta = self.config.beta_diversity
        return sum(beta ** len(g) for g in grams)

    def relatedness(self, a: Sequence[str], b: Sequence[str]) -> float:
        total = len(a) + len(b)
        return 1.0 if total == 0 else 1.0 - self._levenshtein(a, b) / total

    def coverage(self, toks: Sequence[str]) -> float:
        return sum(self.relatedness(v, toks) for v in self.ground)

    def features(self, toks: Sequence[str]) -> tuple[float, float, set[tuple[str, ...]], float]:
        return self.overlap(toks), self.similarity(toks), self.grams(toks), self.coverage(toks)

    def value(self, ov: float, sim: float, grams: set[tuple[str, ...]], cov: float) -> float:
        c, (z1, z2, z3, z4) = self.config, self.norms
        fidelity = c.mu1 * math.sqrt(ov) / z1 + c.mu2 * math.sqrt(sim) / z2
        diversity = c.mu3 * self.union_weight(grams) / z3 + c.mu4 * cov / z4
        return c.lambda_ * fidelity + (1.0 - c.lambda_) * diversity


def dips_objective(
    source: str,
    selected_texts: Sequence[str],
    ground_set_texts: Sequence[str],
    config: DiPSConfig = DiPSConfig(),
    *,
    word_similarity: WordSimilarity | None = None,
    word_vectors: WordVectors | None = None,
) -> float:
    """F(X) for X = ``selected_texts`` against ``source`` and the ground set, from scratch.

    >>> dips_objective("a b", [], ["a b", "c"])
    0.0
    >>> round(dips_objective("a b", ["a b"], ["a b"]), 6)   # every term at its ground-set value
    2.0
    """
    terms = _Terms(source, ground_set_texts, config, _resolve_similarity(config, word_similarity, word_vectors))
    feats = [terms.features(tokens(t)) for t in selected_texts]
    return terms.value(
        sum(f[0] for f in feats),
        sum(f[1] for f in feats),
        set().union(*(f[2] for f in feats)),
        sum(f[3] for f in feats),
    )


def dips(
    source: str,
    candidates: Sequence[SelectionCandidate],
    *,
    k: int = 2,
    config: DiPSConfig = DiPSConfig(),
    word_similarity: WordSimilarity | None = None,
    word_vectors: WordVectors | None = None,
) -> list[int]:
    """Indices of up to ``k`` candidates in lazy-greedy order for F over the candidates as the
    ground set; ties go to the earlier candidate."""
    check_k(k)
    texts = [c.text for c in candidates]
    terms = _Terms(source, texts, config, _resolve_similarity(config, word_similarity, word_vectors))
    feats = [terms.features(tokens(t)) for t in texts]
    ov = sim = cov = 0.0
    covered: set[tuple[str, ...]] = set()
    current = terms.value(ov, sim, covered, cov)

    def gain(i: int) -> float:
        f = feats[i]
        return terms.value(ov + f[0], sim + f[1], covered | f[2], cov + f[3]) - current

    # Entries (-upper bound, index, round in which the bound was computed); the heap order
    # breaks equal bounds by index, so picks equal plain greedy's lowest-index argmax.
    heap = [(-gain(i), i, 0) for i in range(len(texts))]
    heapq.heapify(heap)
    selected: list[int] = []
    while heap and len(selected) < k:
        step = len(selected)
        _, i, stamp = heapq.heappop(heap)
        if stamp != step:
            heapq.heappush(heap, (-gain(i), i, step))
            continue
        selected.append(i)
        f = feats[i]
        ov, sim, cov = ov + f[0], sim + f[1], cov + f[3]
        covered |= f[2]
        current = terms.value(ov, sim, covered, cov)
    return selected
