"""What ``paraphrase`` answers, typed: one :class:`Variant` per handed-out variant, the instruct
LLM's :class:`LLMStatus`, and the whole :class:`HandoutAnswer`. The command prints, the API returns
and the job stores :meth:`HandoutAnswer.as_dict` (the shape CONTRACT.md documents); the output
serializers in ``paraphrases.apis`` describe the same fields for the OpenAPI schema."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["HandoutAnswer", "LLMStatus", "Variant"]


@dataclass(frozen=True)
class Variant:
    """One handed-out variant: its text and generator, the deciding judge's calibrated probability
    (None when ParaQD's cosine decides) and reasons (one dict per check; an LLM rewrite's include
    ``same answer``), how reworded it is (1 - BLEU, LLM rewrites), the paper's metrics (σ = the
    encoder's cosine), and the highlighted spans and numbers/units/names checks the pages draw."""

    text: str
    generator: str
    prompt: str
    valid_probability: float | None
    useful_probability: float | None
    reasons: list[dict[str, Any]]
    reworded: float | None
    S: float
    D: float
    N: float
    PQI: float
    bleu_div: float
    wpd: float
    paraqd: float
    numbers_kept: bool
    spans: list[dict[str, Any]]
    checks: dict[str, Any]


@dataclass(frozen=True)
class LLMStatus:
    """The instruct LLM's stage: ``state`` "running", "done" or "off"; ``message`` says why there
    are no (or fewer) reworded variants; counts and seconds of what it did."""

    state: str
    message: str = ""
    verified: int = 0
    refused: int = 0
    first_seconds: float | None = None
    seconds: float | None = None


@dataclass(frozen=True)
class HandoutAnswer:
    """The whole answer for one pasted problem."""

    variants: list[Variant]
    problem: dict[str, Any]
    candidates: int
    passed: int
    rejected: int
    rejected_reasons: dict[str, int]
    message: str
    judge: dict[str, Any] | None
    refused: dict[str, str]
    llm_asked: bool
    llm: LLMStatus
    scorer: str
    select: str
    seconds: float
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.update(data.pop("extra"))
        return data
