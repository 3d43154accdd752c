"""The generation resources the generators and the kinds read (``ml.generation.GenerationResources``):
the models and lexicons named in the settings, the device, and the folders of the active STEAD and
PAP versions. The generation app reads them here; so do STEAD's and PAP's training noise."""
from __future__ import annotations

from django.conf import settings

from ml.generation import GenerationResources

from .artifacts import model_device
from .scorer import encoder_path
from .selectors import modelversion_active


def generation_resources() -> GenerationResources:
    """The generators' resources from the settings (spaCy pipeline, synonym source, WordNet data,
    encoder for the embedding-neighbour synonyms, masked LM, optional instruct LLM)."""
    return GenerationResources(
        spacy_model=settings.PARALAB_SPACY_MODEL,
        synonym_source=settings.PARALAB_SYNONYM_SOURCE,
        wordnet_dir=settings.PARALAB_WORDNET_DIR or None,
        embedding_model=encoder_path(),
        masked_lm=settings.PARALAB_MASKED_LM or None,
        llm_dir=settings.PARALAB_LLM_DIR or None,
        llm_file=settings.PARALAB_LLM_FILE or None,
        device=model_device(),
        stead_model=_active_path("stead"),
        pap_model=_active_path("pap"),
        scanning_preset=settings.PARALAB_SCANNING_PRESET,
        fluency_lm=settings.PARALAB_FLUENCY_LM,
    )


def _active_path(kind: str) -> str | None:
    """The model folder of the active STEAD/PAP version (None: none is active)."""
    version = modelversion_active(kind=kind)
    return version.artifact_path if version is not None and version.artifact_path else None
