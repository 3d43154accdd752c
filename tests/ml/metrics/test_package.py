"""ml.metrics became a package: the old names still import, and the docstring examples run."""
import doctest
import importlib
import subprocess
import sys

import pytest

OLD_NAMES = ["harmonic_mean_f1", "nest_paraqd_metrics", "paraqd_eval", "paraqd_eval_nested", "score_histogram"]


def test_old_names_import_from_the_package():
    import ml
    import ml.metrics
    from ml.metrics import classification

    for name in OLD_NAMES:
        assert getattr(ml.metrics, name) is getattr(classification, name)
        assert name in ml.metrics.__all__
    assert ml.paraqd_eval is classification.paraqd_eval
    assert ml.metrics.paraqd_eval([0.9, 0.1], [1, 0])["accuracy"] == 1.0


def test_new_names_and_submodule_imports():
    import ml.metrics
    from ml.metrics.diversity import self_bleu
    from ml.metrics.pqi import diversity, pqi

    # The package's ``pqi`` and ``diversity`` are the functions; ``from <submodule> import`` still works.
    assert ml.metrics.pqi is pqi and ml.metrics.diversity is diversity and ml.metrics.self_bleu is self_bleu
    for name in ml.metrics.__all__:
        assert hasattr(ml.metrics, name), name


def test_import_is_cheap():
    code = ("import sys, ml.metrics; heavy = [m for m in ('spacy', 'sacrebleu', 'torch', 'sklearn') "
            "if m in sys.modules]; assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    "name", ["ml.metrics", "ml.metrics.classification", "ml.metrics.bleu", "ml.metrics.wpd", "ml.metrics.pqi",
             "ml.metrics.diversity"],
)
def test_docstring_examples(name, spacy_model):
    module = importlib.import_module(name)
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0
