"""The package's docstring examples run, and importing it loads no django (DESIGN.md, "Layers")."""
from __future__ import annotations

import doctest
import importlib
import subprocess
import sys

import pytest

MODULES = ["ml.verify", "ml.verify.errors", "ml.verify.program", "ml.verify.evaluator", "ml.verify.equations",
           "ml.verify.answers", "ml.verify.prompts", "ml.verify.solving"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    failures, tried = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0


def test_importing_ml_verify_loads_no_django_and_no_llm_runtime():
    code = ("import ml.verify, sys; bad = [m for m in ('django', 'llama_cpp', 'xllamacpp', 'sympy') "
            "if m in sys.modules]; assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)
