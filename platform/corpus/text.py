"""Text identity shared by the apps: two texts are the same problem (or paraphrase) when their
normalised forms are equal. ``Problem.text_hash`` and ``Candidate.text_hash`` hold
:func:`text_hash`, and the database refuses a second copy per dataset (or per problem and generator).
"""

from __future__ import annotations

import hashlib
import unicodedata

from django.conf import settings

from ml.checks import pair_checks as check
from ml.text.highlight import highlight_spans

__all__ = ["pair_checks", "text_normalize", "text_hash"]


def text_normalize(text: str) -> str:
    """NFKC, case-folded, whitespace collapsed to single spaces, stripped.

    >>> text_normalize("  Tom has\\n 3 Apples ")
    'tom has 3 apples'
    """
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def text_hash(text: str) -> str:
    """sha256 hex digest of :func:`text_normalize` (64 characters)."""
    return hashlib.sha256(text_normalize(text).encode("utf-8")).hexdigest()


def pair_checks(original: str, paraphrase: str, spans: dict | None = None) -> dict[str, dict]:
    """The numbers, units and names check of a pair (:func:`ml.checks.pair_checks`), as every page
    and endpoint that shows a pair returns it under ``checks``. ``spans`` are the pair's highlight
    spans (``{"problem": [...], "paraphrase": [...]}``) when already computed; otherwise they are
    computed (and cached) with the platform's spaCy pipeline."""
    if not spans or "problem" not in spans or "paraphrase" not in spans:
        model = settings.PARALAB_SPACY_MODEL
        spans = {"problem": highlight_spans(original, spacy_model=model),
                 "paraphrase": highlight_spans(paraphrase, spacy_model=model)}
    return check(original, paraphrase, original_spans=spans["problem"], paraphrase_spans=spans["paraphrase"])
