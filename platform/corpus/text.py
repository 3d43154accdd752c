"""Text identity shared by the apps: two texts are the same problem (or paraphrase) when their
normalised forms are equal. ``Problem.text_hash`` and ``Candidate.text_hash`` hold
:func:`text_hash`, and the database refuses a second copy per dataset (or per problem and generator).
"""

from __future__ import annotations

import hashlib
import unicodedata

__all__ = ["text_normalize", "text_hash"]


def text_normalize(text: str) -> str:
    """NFKC, case-folded, whitespace collapsed to single spaces, stripped.

    >>> text_normalize("  Tom has\\n 3 Apples ")
    'tom has 3 apples'
    """
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def text_hash(text: str) -> str:
    """sha256 hex digest of :func:`text_normalize` (64 characters)."""
    return hashlib.sha256(text_normalize(text).encode("utf-8")).hexdigest()
