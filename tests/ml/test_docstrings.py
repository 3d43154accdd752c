"""The examples in the docstrings of the text-analysis and operator modules run as written."""
import doctest
import importlib

import pytest

MODULES = [
    "ml.text.number_words", "ml.text.number_spelling", "ml.text.number_parsing", "ml.text.number_mentions",
    "ml.text.units", "ml.text.unit_lexicon", "ml.text.nlp", "ml.text.phrases",
    "ml.operators.base", "ml.operators.identity", "ml.operators.numbers_to_words", "ml.operators.unit_expansion",
    "ml.operators.passive", "ml.operators.permutation", "ml.operators.reordering", "ml.operators.phrase_deletion",
    "ml.operators.sentence_deletion", "ml.operators.entity_replacement", "ml.operators.number_perturbation",
    "ml.operators.unit_replacement", "ml.operators.hard_negatives", "ml.operators.paraphraser",
    "ml.operators.backtranslation", "ml.operators.tfidf_replacement", "ml.operators.random_deletion",
    "ml.operators.reconstruction", "ml.operators.registry", "ml.serialization", "ml.input_checks",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, spacy_model):
    module = importlib.import_module(name)
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0
