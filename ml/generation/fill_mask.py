"""Fill-mask substitution (paper 002 §3.3.2): nouns and adjectives, preferably those near a number
("3 more walnut trees today"), are masked one at a time and filled by a masked language model;
the filled word must be a whole word of the same part of speech (lemminflect's lexicon), is
inflected like the word it replaces, and the problem must keep every number, unit and entity.

The model is a setting (``GenerationResources.masked_lm``: a hub id in the local cache or a
directory), loaded with ``local_files_only=True``. No masked LM is packaged offline: without one
the generator is unavailable, and STEAD's template filling will stand in once trained.
"""
from __future__ import annotations

import logging
import os
import random
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..text.nlp import parse
from ..text.number_mentions import find_all_numbers
from ..operators.base import replace_spans
from .base import (
    GeneratedCandidate,
    GenerationResources,
    GeneratorUnavailable,
    NotApplicable,
    candidates_or_refuse,
    require_same_problem,
)
from .words import inflect, is_variant, lexicon_lemmas, match_case, replace_tokens, replaceable_tokens, usable_word

if TYPE_CHECKING:
    from spacy.tokens import Token

__all__ = ["FillMaskConfig", "FillMaskGenerator", "load_masked_lm", "masked_lm_unavailable_reason"]

logger = logging.getLogger(__name__)

NO_MODEL_REASON = ("no masked LM configured (set PARALAB_MASKED_LM to a hub id or directory); offline, STEAD "
                   "template filling will stand in once trained")
_FILL_POS = ("NOUN", "ADJ")


@dataclass(frozen=True)
class FillMaskConfig:
    """max_words: at most this many words masked per candidate; max_candidates: distinct
    candidates per problem; top_k: predictions looked at per mask; choose_among: the filled word is
    drawn among this many best valid predictions; near: a word within this many tokens of a number
    is "near" it (near words are preferred when there are any); max_length: tokens fed to the model."""

    max_words: int = 2
    max_candidates: int = 2
    top_k: int = 50
    choose_among: int = 2
    near: int = 3
    max_length: int = 256

    def __post_init__(self) -> None:
        if min(self.max_words, self.max_candidates, self.top_k, self.choose_among, self.max_length) < 1:
            raise ValueError("max_words, max_candidates, top_k, choose_among and max_length must be >= 1")
        if self.near < 0:
            raise ValueError("near must be >= 0")


def masked_lm_unavailable_reason(masked_lm: str | None) -> str | None:
    """Why ``masked_lm`` cannot be loaded here (None: it can, as far as a cheap check tells)."""
    if not masked_lm:
        return NO_MODEL_REASON
    path = os.path.expanduser(masked_lm)
    if os.path.isdir(path):
        return None
    # A hub id is "name" or "org/name"; anything else is a path.
    if os.path.isabs(path) or masked_lm.startswith((".", "~")) or masked_lm.count("/") > 1:
        return f"the masked LM directory {masked_lm} does not exist"
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return "huggingface_hub is not installed"
    if not isinstance(try_to_load_from_cache(masked_lm, "config.json"), str):
        return f"the masked LM {masked_lm!r} is not in the local Hugging Face cache (nothing is downloaded)"
    return None


@lru_cache(maxsize=2)
def load_masked_lm(model: str, device: str = "cpu") -> tuple[Any, Any]:
    """(tokenizer, model) of a masked LM, loaded once per process from local files only."""
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model, local_files_only=True)
    lm = AutoModelForMaskedLM.from_pretrained(model, local_files_only=True).to(device).eval()
    if tokenizer.mask_token is None:
        raise ValueError(f"{model} has no mask token")
    logger.info("loaded masked LM %s on %s", model, device)
    return tokenizer, lm


def _predict(tokenizer: Any, lm: Any, masked: str, config: FillMaskConfig) -> list[str]:
    """The model's ``top_k`` tokens for the (single) mask of ``masked``, best first, as words
    (sub-word pieces dropped)."""
    import torch

    enc = tokenizer(masked, return_tensors="pt", truncation=True, max_length=config.max_length).to(lm.device)
    positions = (enc["input_ids"][0] == tokenizer.mask_token_id).nonzero()
    if len(positions) != 1:
        return []  # the mask fell beyond max_length
    with torch.no_grad():
        logits = lm(**enc).logits[0, positions[0, 0]]  # (V,)
    ids = torch.topk(logits, min(config.top_k, logits.shape[-1])).indices.tolist()
    words = []
    for token in tokenizer.convert_ids_to_tokens(ids):
        if token.startswith("##"):
            continue
        words.append(token.lstrip("\u2581\u0120"))
    return words


def _fill_options(token: Token, predictions: list[str]) -> list[str]:
    """Predictions that can stand for ``token``: same part of speech, another lemma, inflected."""
    options = []
    for word in predictions:
        word = word.lower()
        if not usable_word(word) or is_variant(word, token.lower_) or is_variant(word, token.lemma_):
            continue
        lemmas = lexicon_lemmas(word).get(token.pos_)
        if not lemmas or is_variant(lemmas[0], token.lemma_):
            continue
        form = inflect(lemmas[0].lower(), token.tag_)
        if form and form not in options:
            options.append(form)
    return options


def _near_numbers(text: str, tokens: list[Token], near: int, spacy_model: str) -> list[Token]:
    doc = parse(text, spacy_model)
    numbers = find_all_numbers(text)
    number_tokens = [t.i for t in doc if any(n.start <= t.idx < n.end for n in numbers)]
    if not number_tokens:
        return tokens
    close = [t for t in tokens if min(abs(t.i - i) for i in number_tokens) <= near]
    return close or tokens


@dataclass(frozen=True)
class FillMaskGenerator:
    """Fill-mask substitution of nouns and adjectives near numbers, through a configurable masked LM."""

    name: str = "fill_mask"
    description: str = ("Fill-mask substitution (paper 002): nouns and adjectives near numbers masked and filled by "
                        "a masked LM (a setting; none is packaged offline)")
    kind: str = "neural"
    config: FillMaskConfig = FillMaskConfig()

    def unavailable_reason(self, resources: GenerationResources) -> str | None:
        return masked_lm_unavailable_reason(resources.masked_lm)

    def generate(self, text: str, rng: random.Random, resources: GenerationResources) -> list[GeneratedCandidate]:
        reason = self.unavailable_reason(resources)
        if reason is not None:
            raise GeneratorUnavailable(reason, generator=self.name)
        try:
            tokenizer, lm = load_masked_lm(str(resources.masked_lm), resources.device)
        except (OSError, ValueError) as exc:
            raise GeneratorUnavailable(f"cannot load the masked LM {resources.masked_lm!r}: {exc}",
                                       generator=self.name) from exc
        model = resources.spacy_model
        pool = _near_numbers(text, replaceable_tokens(text, model, pos=_FILL_POS), self.config.near, model)
        if not pool:
            raise NotApplicable("no noun or adjective to mask", operator=self.name)
        cache: dict[str, list[str]] = {}
        candidates = []
        for _ in range(3 * self.config.max_candidates):
            w = rng.randint(1, min(self.config.max_words, len(pool)))
            picked = sorted(rng.sample(pool, w), key=lambda t: t.i)
            filled: list[tuple[Token, str]] = []
            for token in picked:
                # Each mask is filled with the earlier fills already in place.
                masked = replace_spans(text, [(t.idx, t.idx + len(t.text), word) for t, word in filled]
                                       + [(token.idx, token.idx + len(token.text), tokenizer.mask_token)])
                if masked not in cache:
                    cache[masked] = _fill_options(token, _predict(tokenizer, lm, masked, self.config))
                options = cache[masked][:self.config.choose_among]
                if options:
                    filled.append((token, match_case(rng.choice(options), token.text)))
            if not filled:
                continue
            out = replace_tokens(text, filled)
            try:
                require_same_problem(text, out, generator=self.name, spacy_model=model)
            except NotApplicable:
                continue
            candidates.append(GeneratedCandidate(out, self.name, "replace", {
                "masked_lm": str(resources.masked_lm),
                "changes": [{"word": t.text, "replacement": word} for t, word in filled],
            }))
            if len({c.text for c in candidates}) >= self.config.max_candidates:
                break
        return candidates_or_refuse(text, candidates, generator=self.name, reason="no fill kept the problem",
                                    limit=self.config.max_candidates)
