"""Compositions of two generators: the second runs on each output of the first ("reorder" then
"synonym" gives "Given that Maya purchased …"). A composition is not applicable when either step
is not, and unavailable when either generator is. Prompt words are combined ("replace shuffle").

>>> from ml.generation.structural import PassiveGenerator, PrepositionPermutationGenerator
>>> ComposedGenerator(PassiveGenerator(), PrepositionPermutationGenerator()).name
'passive+pp_permutation'
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import chain, zip_longest

from .base import (
    GeneratedCandidate,
    GenerationResources,
    Generator,
    NotApplicable,
    candidates_or_refuse,
    combine_prompts,
    require_quantities,
)

__all__ = ["ComposedGenerator"]


@dataclass(frozen=True)
class ComposedGenerator:
    """``first``, then ``second`` on each of its outputs; up to ``max_candidates``, taking the
    second step's best output of each first output before any second one (variety)."""

    first: Generator
    second: Generator
    max_candidates: int = 2

    def __post_init__(self) -> None:
        if self.max_candidates < 1:
            raise ValueError("max_candidates must be >= 1")

    @property
    def name(self) -> str:
        return f"{self.first.name}+{self.second.name}"

    @property
    def description(self) -> str:
        return f"{self.first.name}, then {self.second.name} on its output"

    @property
    def kind(self) -> str:
        kinds = {self.first.kind, self.second.kind}
        return "neural" if "neural" in kinds else "baseline" if "baseline" in kinds else "rule"

    def unavailable_reason(self, resources: GenerationResources) -> str | None:
        for step in (self.first, self.second):
            reason = step.unavailable_reason(resources)
            if reason is not None:
                return f"{step.name}: {reason}"
        return None

    def generate(self, text: str, rng: random.Random, resources: GenerationResources) -> list[GeneratedCandidate]:
        firsts = self.first.generate(text, rng, resources)
        per_first: list[list[GeneratedCandidate]] = []
        refusals: list[str] = []
        for step_one in firsts:
            try:
                seconds = self.second.generate(step_one.text, rng, resources)
            except NotApplicable as exc:
                refusals.append(exc.reason)
                continue
            combined = []
            for step_two in seconds:
                try:  # each step checked its own input; check against the original once more
                    require_quantities(text, step_two.text, generator=self.name)
                except NotApplicable as exc:
                    refusals.append(exc.reason)
                    continue
                meta = {"steps": [{"generator": self.first.name, **step_one.meta},
                                  {"generator": self.second.name, **step_two.meta}]}
                for key in ("synonym_source",):
                    source = step_two.meta.get(key, step_one.meta.get(key))
                    if source is not None:
                        meta[key] = source
                combined.append(GeneratedCandidate(step_two.text, self.name,
                                                   combine_prompts(step_one.prompt, step_two.prompt), meta))
            per_first.append(combined)
        interleaved = [c for c in chain.from_iterable(zip_longest(*per_first)) if c is not None]
        reason = f"{self.second.name} applies to no output of {self.first.name}"
        if refusals:
            reason += f" ({refusals[0]})"
        return candidates_or_refuse(text, interleaved, generator=self.name, reason=reason, limit=self.max_candidates)
