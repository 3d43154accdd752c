"""The examples in the docstrings of the metrics and ParaQD modules run as written."""
import doctest
import importlib

import pytest

MODULES = ["ml.metrics", "ml.encoders", "ml.paraqd.config", "ml.paraqd.data", "ml.paraqd.losses", "ml.paraqd.model",
           "ml.paraqd.train"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0


def test_package_reexports_load_lazily():
    import subprocess
    import sys

    code = ("import sys, ml.paraqd as p; assert 'torch' not in sys.modules, 'torch imported eagerly'; "
            "p.ParaQDTrainConfig(); p.Triplet('a', 'b', 'c'); assert callable(p.train_paraqd); "
            "assert 'torch' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
