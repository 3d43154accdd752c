"""PAP's parallel corpus (paper 000, section 3.8): for every training problem, STEAD's candidates
are scored against it (σ, δ, ν), filtered by QF-PCF and the best k picked by PAMMR; each pick
becomes a pair ``[prompt || problem] -> pick`` with the prompt words of the noise that produced
it. Human labels then edit the corpus: a gold-valid STEAD/PAP candidate joins it (weighted up
when the model disagreed with the annotators), a gold-invalid one leaves it.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..selection import SelectionCandidate, pammr, qf_pcf
from ..selection.registry import default_pair_diversity

__all__ = ["PapPair", "apply_gold_labels", "pap_examples", "pap_source", "select_parallel_corpus"]


@dataclass(frozen=True)
class PapPair:
    """One PAP training pair. ``prompt``: prompt words ("replace shuffle"); ``weight``: how many
    times it is repeated per epoch (hard examples count more); ``origin``: "selected" (QF-PCF +
    PAMMR over STEAD's outputs) or "gold" (an annotator-validated candidate)."""

    problem: str
    prompt: str
    target: str
    weight: int = 1
    origin: str = "selected"
    scores: Mapping[str, float] | None = None


def pap_source(prompt: str, problem: str) -> str:
    """PAP's input, the paper's format: ``paraphrase replace shuffle : <problem>``."""
    words = " ".join(w for w in prompt.replace(":", " ").split() if w != "paraphrase")
    return f"paraphrase {words} : {problem}" if words else f"paraphrase : {problem}"


def select_parallel_corpus(
    problem: str,
    candidates: Sequence[tuple[str, str, Mapping[str, float]]],
    *,
    k: int = 2,
    selector: str = "pammr",
) -> list[PapPair]:
    """The pairs one problem contributes: ``candidates`` are (text, prompt words, scores with
    S, D, N, PQI, bleu_div, wpd); QF-PCF keeps the passing ones and PAMMR picks at most ``k``
    among them. Unlike the platform's variant selection there is no fall-back to the whole pool:
    when none passes, the problem gives no pair (PAP learns only from candidates that kept the
    problem). ``selector="none_filter"`` skips QF-PCF (ablations)."""
    pool = [SelectionCandidate(text, dict(scores), prompt=prompt, generator="stead")
            for text, prompt, scores in candidates]
    passing = qf_pcf(pool) if selector == "pammr" else list(range(len(pool)))
    if not passing:
        return []
    subset = [pool[i] for i in passing]
    picks = pammr(subset, k=min(k, len(subset)), pair_diversity=default_pair_diversity())
    return [PapPair(problem, subset[i].prompt, subset[i].text, scores=dict(subset[i].scores)) for i in picks]


def apply_gold_labels(
    pairs: Iterable[PapPair],
    gold: Iterable[tuple[str, str, str, bool, bool]],
    *,
    hard_weight: int = 2,
) -> tuple[list[PapPair], dict[str, int]]:
    """The corpus after the annotators: ``gold`` holds (problem, prompt words, candidate text,
    gold valid?, model disagreed?) for labelled STEAD/PAP candidates. Gold-valid ones join as
    pairs (``hard_weight`` copies when the model disagreed with the annotators); gold-invalid
    ones leave the corpus wherever they were selected. Returns (pairs, counts)."""
    invalid: set[tuple[str, str]] = set()
    added: list[PapPair] = []
    for problem, prompt, text, valid, disagreed in gold:
        if valid:
            added.append(PapPair(problem, prompt, text, weight=hard_weight if disagreed else 1, origin="gold"))
        else:
            invalid.add((problem.strip(), " ".join(text.split())))
    kept, removed = [], 0
    for pair in pairs:
        if (pair.problem.strip(), " ".join(pair.target.split())) in invalid:
            removed += 1
        else:
            kept.append(pair)
    existing = {(p.problem.strip(), " ".join(p.target.split())) for p in kept}
    joined = [p for p in added if (p.problem.strip(), " ".join(p.target.split())) not in existing]
    return kept + joined, {"gold_valid_added": len(joined), "gold_invalid_removed": removed,
                           "hard_examples": sum(1 for p in joined if p.weight > 1)}


def pap_examples(pairs: Sequence[PapPair]) -> list[tuple[str, str]]:
    """(source, target) pairs of one epoch, each pair repeated ``weight`` times."""
    return [(pap_source(p.prompt, p.problem), p.target) for p in pairs for _ in range(max(1, p.weight))]
