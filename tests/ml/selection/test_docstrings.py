"""The examples in the selection modules' docstrings run as written."""
import doctest
import importlib

import pytest

MODULES = [
    "ml.selection",
    "ml.selection.base",
    "ml.selection.qf_pcf",
    "ml.selection.pammr",
    "ml.selection.dips",
    "ml.selection.tree_rank",
    "ml.selection.mwp",
    "ml.selection.registry",
    "ml.selection.usefulness",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0
    assert tried > 0 or name == "ml.selection"
