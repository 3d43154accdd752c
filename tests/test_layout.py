"""Invariants of the layout (DESIGN.md): the stdlib `platform` is not shadowed, `ml` stays pure."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_stdlib_platform_module_is_not_shadowed():
    import platform

    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    assert Path(platform.__file__).resolve().parent == stdlib
    assert not (REPO / "platform" / "__init__.py").exists()
    # Django itself relies on it (via uuid); the stdlib function must be the real one.
    assert platform.python_version().startswith("3.")


def test_ml_imports_without_django_or_celery():
    code = (
        "import json, sys, ml, ml.text.numbers, ml.noise, ml.seq2seq, ml.stead, ml.pap, ml.generation.neural, ml.judge, "
        "ml.judge.features, ml.judge.numeracy_judge, ml.generation.llm, ml.generation.synonym_fit, ml.input_checks, "
        "ml.vocabulary; "
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'django', 'celery', 'workers', 'core', 'paralab', 'corpus', 'jobs'})))"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_ml_sources_do_not_import_the_platform():
    offenders = []
    for path in (REPO / "ml").rglob("*.py"):
        for line in path.read_text().splitlines():
            stripped = line.strip()
            if stripped.startswith(("import ", "from ")):
                top = stripped.split()[1].split(".")[0]
                if top in {"django", "celery", "workers", "core", "paralab", "corpus", "jobs", "paraphrases", "annotation", "modelhub"}:
                    offenders.append(f"{path.relative_to(REPO)}: {stripped}")
    assert offenders == []
