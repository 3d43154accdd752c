"""The examples in the generation modules' docstrings run as written."""
import doctest
import importlib

import pytest

MODULES = ["ml.generation", "ml.generation.base", "ml.generation.names", "ml.generation.reorder",
           "ml.generation.words", "ml.generation.entities", "ml.generation.compose", "ml.generation.baselines",
           "ml.generation.registry", "ml.generation.question_form", "ml.generation.question_task",
           "ml.generation.number_format", "ml.generation.rewording", "ml.generation.supposition",
           "ml.generation.question_count"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, spacy_model):
    failures, tried = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0
