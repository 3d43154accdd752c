"""Structure-changing rule generators over the ParaQD offline positives: sentence permutation at
prepositions (SCANNING's PAN noise made grammatical) and active -> passive voice.

Both call the operators in :mod:`ml.operators` as they are (which already refuse an output that
lost a number, unit or entity) and only adapt their results to candidates.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, replace

from ..operators.passive import AWKWARD_PASSIVE_VERBS, PassiveConfig, active_to_passive
from ..operators.permutation import permute_at_preposition
from .base import GeneratedCandidate, GenerationResources, NotApplicable, candidates_or_refuse

__all__ = ["PassiveGenerator", "PrepositionPermutationGenerator"]


@dataclass(frozen=True)
class PrepositionPermutationGenerator:
    """A prepositional phrase after the main verb moves to the front of its sentence ("In 5
    hours, a train covers 300 km."). Up to ``max_candidates`` different moves, drawn with the rng
    over ``draws`` tries."""

    name: str = "pp_permutation"
    description: str = "Sentence permutation at a preposition: an adverbial phrase moves to the front"
    kind: str = "rule"
    max_candidates: int = 2
    draws: int = 6

    def __post_init__(self) -> None:
        if self.max_candidates < 1 or self.draws < self.max_candidates:
            raise ValueError("need max_candidates >= 1 and draws >= max_candidates")

    def unavailable_reason(self, resources: GenerationResources) -> str | None:
        return None

    def generate(self, text: str, rng: random.Random, resources: GenerationResources) -> list[GeneratedCandidate]:
        results = []
        for _ in range(self.draws):
            # refuses on draw 1 or never; strict: only moves that read well (no verb in the phrase, …)
            result = permute_at_preposition(text, rng, spacy_model=resources.spacy_model, strict=True)
            results.append(GeneratedCandidate(result.text, self.name, "shuffle",
                                              {"sentence": result.meta["sentence"], "phrase": result.meta["phrase"]}))
            if len({r.text for r in results}) >= self.max_candidates:
                break
        return candidates_or_refuse(text, results, generator=self.name, reason="no phrase to move",
                                    limit=self.max_candidates)


# What the generator hands out: a noun agent the sentence names, no progressive passive, not on
# verbs whose passive reads badly, never a second passive in a sentence (labelled failures).
PARAPHRASE_PASSIVE = PassiveConfig(pronoun_agent=False, progressive=False, avoid=AWKWARD_PASSIVE_VERBS)


@dataclass(frozen=True)
class PassiveGenerator:
    """Active -> passive voice by rule: every sentence that can be rewritten, and (when several
    can) one drawn sentence alone; only where the passive reads well (``config``)."""

    name: str = "passive"
    description: str = ("Active to passive voice, by rule over the dependency parse (lemminflect participles); "
                        "only with a named agent, never stacked")
    kind: str = "rule"
    config: PassiveConfig = PARAPHRASE_PASSIVE

    def unavailable_reason(self, resources: GenerationResources) -> str | None:
        return None

    def generate(self, text: str, rng: random.Random, resources: GenerationResources) -> list[GeneratedCandidate]:
        model = resources.spacy_model
        every = active_to_passive(text, rng, config=self.config, spacy_model=model)
        candidates = [GeneratedCandidate(every.text, self.name, "passive", {"sentences": every.meta["sentences"]})]
        if len(every.meta["sentences"]) > 1:
            try:
                one = active_to_passive(text, rng, config=replace(self.config, max_sentences=1), spacy_model=model)
                candidates.append(GeneratedCandidate(one.text, self.name, "passive",
                                                     {"sentences": one.meta["sentences"]}))
            except NotApplicable:
                pass
        return candidates_or_refuse(text, candidates, generator=self.name, reason="no sentence to turn passive")
