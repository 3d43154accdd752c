"""Where a kind that generates hands its candidates: STEAD writing PAP's parallel corpus
(``kinds.pap.corpus``) scores its rewrites, stores them as candidates and queues the picks for
annotation through the same services as every generator's candidates. Those services are the
generation app's (``paraphrases.selection.candidates_score``, ``paraphrases.candidates``); it
registers them here when Django starts (``ParaphrasesConfig.ready``), so modelhub imports none of
them (DESIGN.md, "Layers and the direction of imports").
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from corpus.models import Dataset
    from ml.generation import GeneratedCandidate

    from .scorer import ScoringModel


@dataclass(frozen=True)
class CandidateServices:
    """``score(original, generated, model)``: the rewrites with their S, D, N, PQI (each has
    ``text``, ``generator``, ``prompt``, ``meta``, ``scores``); ``store(problem_id, scored, model)``:
    their candidate ids, created when new, with their score rows; ``queue(dataset, candidate_ids)``:
    how many were queued for annotation."""

    score: Callable[[str, Sequence[GeneratedCandidate], ScoringModel], list[Any]]
    store: Callable[[int, Sequence[Any], ScoringModel], list[int]]
    queue: Callable[[Dataset, Sequence[int]], int]


_registered: CandidateServices | None = None


def candidate_services_register(services: CandidateServices) -> None:
    """Called once by the generation app when Django starts."""
    global _registered
    _registered = services


def candidate_services() -> CandidateServices:
    """The registered services; RuntimeError when no app registered them (Django not set up)."""
    if _registered is None:
        raise RuntimeError("no app registered the candidate services: the paraphrases app does when Django starts")
    return _registered
