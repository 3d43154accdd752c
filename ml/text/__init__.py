"""Text analysis the rest of ``ml`` reads: numbers and number words, units, the spaCy pipeline,
constituency phrases and the highlight spans pages show.

>>> from fractions import Fraction
>>> from ml.text import find_all_numbers
>>> [s.value for s in find_all_numbers("Tom has 3 apples and five pears.")]
[Fraction(3, 1), Fraction(5, 1)]
"""
from .numbers import NumberMention, extract_numbers, find_numbers, normalize_number
from .number_words import NumberWordMention, find_number_words, format_number, number_to_words, words_to_number
from .number_mentions import NumberSpan, find_all_numbers, number_signature, numeral_value
from .units import UnitMention, expand_abbreviation, find_units, same_category_units
from .nlp import DEFAULT_SPACY_MODEL, load_spacy, named_entities, noun_chunks, sentences
from .phrases import Phrase, PhraseSpans, phrase_spans
from .highlight import highlight_spans

__all__ = [
    "DEFAULT_SPACY_MODEL", "NumberMention", "NumberSpan", "NumberWordMention", "Phrase", "PhraseSpans",
    "UnitMention", "expand_abbreviation", "extract_numbers", "find_all_numbers", "find_number_words",
    "find_numbers", "find_units", "format_number", "highlight_spans", "load_spacy", "named_entities",
    "normalize_number", "noun_chunks", "number_signature", "number_to_words", "numeral_value",
    "phrase_spans", "same_category_units", "sentences", "words_to_number",
]
