"""The middle of SCANNING (paper 000, Figure 2): STEAD's outputs on the training problems are
scored against their problem (σ from a ParaQD cosine, δ, ν, PQI) and filtered/selected into PAP's
parallel corpus. The cosine function is passed in (the platform's active ParaQD or the pretrained
encoder), so this stays pure."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..metrics.pqi import paraphrase_scores_many
from ..selection import SelectionCandidate, qf_pcf
from ..stead.model import NeuralOutput
from ..text.nlp import DEFAULT_SPACY_MODEL
from .data import PapPair, select_parallel_corpus

__all__ = ["Cosines", "build_parallel_corpus", "score_outputs"]

# (originals, candidates) -> cosine of each pair under the ParaQD encoder
Cosines = Callable[[Sequence[str], Sequence[str]], Sequence[float]]


def score_outputs(
    problem: str, outputs: Sequence[NeuralOutput], cosines: Cosines, *, spacy_model: str = DEFAULT_SPACY_MODEL
) -> list[dict[str, float]]:
    """S, D, N, PQI, bleu_div, wpd of each output against ``problem``."""
    if not outputs:
        return []
    texts = [o.text for o in outputs]
    cos = [float(c) for c in cosines([problem] * len(texts), texts)]
    return paraphrase_scores_many(problem, texts, cos, spacy_model=spacy_model)


def build_parallel_corpus(
    problems: Sequence[str],
    outputs: Sequence[Sequence[NeuralOutput]],
    cosines: Cosines,
    *,
    k: int = 2,
    spacy_model: str = DEFAULT_SPACY_MODEL,
    progress: Callable[[float, str], None] | None = None,
) -> tuple[list[PapPair], dict[str, Any]]:
    """PAP's pairs from STEAD's outputs (QF-PCF then PAMMR, at most ``k`` per problem) and a
    summary: candidates scored, passing QF-PCF, pairs, problems covered, mean scores of the picks."""
    pairs: list[PapPair] = []
    scored = passing = covered = 0
    for index, (problem, outs) in enumerate(zip(problems, outputs)):
        scores = score_outputs(problem, outs, cosines, spacy_model=spacy_model)
        scored += len(scores)
        passing += len(qf_pcf([SelectionCandidate(o.text, s, prompt=o.prompt) for o, s in zip(outs, scores)]))
        picked = select_parallel_corpus(problem, [(o.text, o.prompt, s) for o, s in zip(outs, scores)], k=k)
        covered += bool(picked)
        pairs.extend(picked)
        if progress and (index + 1) % 25 == 0:
            progress((index + 1) / len(problems), f"scored {index + 1}/{len(problems)} problems, {len(pairs)} pairs")

    def mean(key: str) -> float | None:
        values = [p.scores[key] for p in pairs if p.scores and key in p.scores]
        return round(sum(values) / len(values), 4) if values else None

    summary = {
        "problems": len(problems), "candidates": scored, "passing_qf_pcf": passing, "pairs": len(pairs),
        "problems_covered": covered, "mean_selected": {key: mean(key) for key in ("S", "D", "N", "PQI")},
    }
    return pairs, summary
