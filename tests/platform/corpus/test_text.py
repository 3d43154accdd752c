"""The normalised text identity shared by problems and candidates."""

from __future__ import annotations

from corpus.text import text_hash, text_normalize


def test_normalize_folds_case_width_and_whitespace():
    assert text_normalize("  Tom  HAS\t3\n apples. ") == "tom has 3 apples."
    assert text_normalize("Ｔｏｍ ｈａｓ ３") == "tom has 3"  # NFKC: full-width forms
    assert text_normalize("Straße") == "strasse"  # casefold, not lower


def test_hash_is_sha256_hex_of_the_normalised_text():
    assert len(text_hash("Tom has 3 apples.")) == 64
    assert text_hash("Tom has 3 apples.") == text_hash("  tom   HAS 3 apples. ")
    assert text_hash("Tom has 3 apples.") != text_hash("Tom has 4 apples.")
