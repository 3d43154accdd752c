"""STEAD and PAP (paper 000) as generators: they run the trained version the resources name
(``stead_model`` / ``pap_model``, directories saved by :mod:`ml.seq2seq`) and are unavailable,
with the reason, when none is trained. ``kind = "neural"``: the platform runs them on the gpu
queue. Models and the inference-noise resources load once per process.

Every output passes the platform's number guard before it is handed out: a decoded candidate
that changed a number or a unit is dropped (the benchmark scores raw outputs and reports the
share this guard drops), and so is one that asks more, adds sentences or comments, or drops the
problem's nouns (:func:`~ml.generation.base.content_refusal`; on 220 blind-labelled STEAD/PAP
outputs it refused 112 of the 204 invalid ones and 1 of the 16 valid ones,
``docs/results/neural-labels.md``).
"""
from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..operators.base import OperatorNotApplicable
from ..seq2seq import load_text_model
from .base import (
    GeneratedCandidate,
    GenerationResources,
    GeneratorUnavailable,
    candidates_or_refuse,
    content_refusal,
    require_quantities,
)
from .synonyms import synonym_lookup

__all__ = ["PapGenerator", "SteadGenerator", "load_generator_model", "inference_noise_resources"]

logger = logging.getLogger(__name__)


@lru_cache(maxsize=4)
def load_generator_model(directory: str, device: str = "cpu") -> Any:
    """The text model saved in ``directory``, loaded once per process."""
    logger.info("loading generator model %s on %s", directory, device)
    return load_text_model(Path(directory), device=device)


@lru_cache(maxsize=2)
def inference_noise_resources(spacy_model: str, synonym_source: str, wordnet_dir: str | None, embedding_model: str,
                              fluency: str) -> Any:
    """``ml.noise`` resources for STEAD's inference noise (synonyms as the rule-based generators
    find them, the fluency LM of PAN), built once per process."""
    from ..noise import noise_resources

    resources = GenerationResources(spacy_model=spacy_model, synonym_source=synonym_source,  # type: ignore[arg-type]
                                    wordnet_dir=wordnet_dir, embedding_model=embedding_model)
    try:
        synonyms = synonym_lookup(resources)
    except GeneratorUnavailable as exc:
        logger.warning("STEAD inference noise without synonyms: %s", exc.reason)
        synonyms = None
    return noise_resources([], fluency=fluency, synonyms=synonyms)


def _model_reason(directory: str | None, kind: str) -> str | None:
    if not directory:
        return (f"no {kind} version is active: train one (manage.py train_{kind.lower()} --activate, "
                f"or manage.py scanning) first")
    if not Path(directory).is_dir():
        return f"the {kind} model directory {directory} does not exist"
    return None


def _guarded(text: str, outputs, name: str) -> list[GeneratedCandidate]:
    kept = []
    for output in outputs:
        try:
            require_quantities(text, output.text, generator=name)
        except OperatorNotApplicable:
            continue
        if content_refusal(text, output.text) is not None:
            continue
        kept.append(GeneratedCandidate(output.text, name, output.prompt, {**output.meta, "source": output.source}))
    return kept


@dataclass(frozen=True)
class SteadGenerator:
    """STEAD: the problem with pseudo-adversarial inference noise (Table 7), denoised."""

    name: str = "stead"
    description: str = "SCANNING's denoiser: inference noise (Table 7) undone by the trained STEAD model"
    kind: str = "neural"

    def unavailable_reason(self, resources: GenerationResources) -> str | None:
        return _model_reason(resources.stead_model, "STEAD")

    def generate(self, text: str, rng: random.Random, resources: GenerationResources) -> list[GeneratedCandidate]:
        from ..noise import apply_inference_noise
        from ..stead import preset, stead_generate

        reason = self.unavailable_reason(resources)
        if reason:
            raise GeneratorUnavailable(reason, generator=self.name)
        model = load_generator_model(str(resources.stead_model), resources.device)
        noise = inference_noise_resources(resources.spacy_model, resources.synonym_source, resources.wordnet_dir,
                                          resources.embedding_model, resources.fluency_lm)
        outputs = stead_generate(
            model, [text], seed=rng.getrandbits(31), preset=preset(resources.scanning_preset),
            inference_noise=lambda t, r: apply_inference_noise(t, r, noise),
        )[0]
        return candidates_or_refuse(text, _guarded(text, outputs, self.name), generator=self.name,
                                    reason="STEAD produced no output that keeps the numbers and units")


@dataclass(frozen=True)
class PapGenerator:
    """PAP: the problem under each prompt (shuffle, replace, fix, passive), paraphrased."""

    name: str = "pap"
    description: str = "SCANNING's prompt-controlled paraphraser, trained on STEAD's selected outputs"
    kind: str = "neural"

    def unavailable_reason(self, resources: GenerationResources) -> str | None:
        return _model_reason(resources.pap_model, "PAP")

    def generate(self, text: str, rng: random.Random, resources: GenerationResources) -> list[GeneratedCandidate]:
        from ..pap import pap_generate
        from ..stead import preset

        reason = self.unavailable_reason(resources)
        if reason:
            raise GeneratorUnavailable(reason, generator=self.name)
        model = load_generator_model(str(resources.pap_model), resources.device)
        outputs = pap_generate(model, [text], preset=preset(resources.scanning_preset))[0]
        return candidates_or_refuse(text, _guarded(text, outputs, self.name), generator=self.name,
                                    reason="PAP produced no output that keeps the numbers and units")
