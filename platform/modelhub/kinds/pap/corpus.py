"""PAP's parallel corpus (paper 000): the active (or given) STEAD rewrites training problems under
Table 7 inference noise; every output is stored as a ``stead`` candidate with its scores (σ from
the active ParaQD, else the pretrained encoder); QF-PCF + PAMMR pick at most k per problem, marked
``selected_by="pammr"`` and queued for annotation. Those picks *are* the stored parallel corpus:
browsable on the dataset's candidate page (generator ``stead``, selected only). The corpus goes
through the generation app's services (score, store, queue) like every other generator's candidates:
that app registers them in ``modelhub.generated``.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction

from corpus.models import Dataset, Problem
from ml.generation import GeneratedCandidate
from ml.noise import apply_inference_noise
from ml.pap import PapPair, select_parallel_corpus
from ml.stead import stead_generate
from modelhub.generated import candidate_services
from modelhub.models import ModelVersion
from paraphrases.models import Candidate

from ..paraqd import paraqd_default_model
from ..seq2seq import STEAD, Progress, noise_resources_for, scanning_preset, version_model, version_resolve

CORPUS_SELECTOR = "pammr"


def pap_corpus_build(
    *,
    rows: Sequence[tuple[int, str]],
    stead_version: ModelVersion | int | None = None,
    preset: str | None = None,
    seed: int = 3407,
    queue: bool = True,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """STEAD's outputs on ``rows`` (problem id, text), stored and scored, with QF-PCF + PAMMR's
    picks marked and (``queue``) queued for annotation. Returns ``{"pairs": [(candidate id,
    problem, prompt, target)], "summary": {...}}``. Rerunning it reuses what is stored."""
    stead = version_resolve(STEAD, stead_version)
    config = scanning_preset(preset)
    model = version_model(stead)
    resources = noise_resources_for([text for _, text in rows])
    scorer = paraqd_default_model()
    services = candidate_services()
    pairs: list[tuple[int, str, str, str]] = []
    stats = {"problems": len(rows), "candidates": 0, "pairs": 0, "problems_covered": 0, "reused": 0}
    datasets = dict(Problem.objects.filter(pk__in=[pk for pk, _ in rows]).values_list("pk", "dataset_id"))
    dataset_rows = {d.pk: d for d in Dataset.objects.filter(pk__in=set(datasets.values()))}
    batch = 16
    for start in range(0, len(rows), batch):
        chunk = rows[start:start + batch]
        stored = stored_corpus(stead, [pk for pk, _ in chunk])
        todo = [(pk, text) for pk, text in chunk if pk not in stored]
        outputs = stead_generate(model, [text for _, text in todo], seed=seed, preset=config,
                                 inference_noise=lambda t, r: apply_inference_noise(t, r, resources)) if todo else []
        for (pk, text), outs in zip(todo, outputs):
            generated = [GeneratedCandidate(o.text, STEAD, o.prompt, {"combination": o.meta.get("combination", ""),
                                                                      "stead_version": stead.pk})
                         for o in outs]
            scored = services.score(text, generated, scorer) if generated else []
            picked = select_parallel_corpus(text, [(s.text, s.prompt, s.scores) for s in scored],
                                            k=config.selected_per_problem)
            picked_texts = {p.target for p in picked}
            with transaction.atomic():
                ids = services.store(pk, scored, scorer)
                Candidate.objects.filter(pk__in=ids).update(model_version=stead)
                for cid, item in zip(ids, scored):
                    if item.meta.get("combination"):
                        Candidate.objects.filter(pk=cid).update(noise_combination=str(item.meta["combination"])[:128])
                chosen = [cid for cid, item in zip(ids, scored) if item.text in picked_texts]
                Candidate.objects.filter(pk__in=chosen).update(selected_by=CORPUS_SELECTOR)
                if queue and chosen:
                    services.queue(dataset_rows[datasets[pk]], chosen)
            stats["candidates"] += len(scored)
            stored[pk] = [(cid, item.prompt, item.text) for cid, item in zip(ids, scored) if item.text in picked_texts]
        for pk, text in chunk:
            picks = stored.get(pk, [])
            stats["problems_covered"] += bool(picks)
            pairs.extend((cid, text, prompt, target) for cid, prompt, target in picks)
        stats["reused"] += len(chunk) - len(todo)
        if progress:
            progress(min(1.0, (start + len(chunk)) / max(1, len(rows))),
                     f"STEAD rewrote {start + len(chunk)}/{len(rows)} problems; {len(pairs)} corpus pairs")
    stats["pairs"] = len(pairs)
    stats["scorer"] = scorer.scorer_version
    return {"pairs": pairs, "summary": stats}


def stored_corpus(stead: ModelVersion, problem_ids: Sequence[int]) -> dict[int, list[tuple[int, str, str]]]:
    """Corpus picks already stored for these problems by this STEAD version (a rerun reuses them);
    a problem whose outputs were stored without any pick counts as done with none."""
    out: dict[int, list[tuple[int, str, str]]] = {}
    for cid, pid, prompt, text, selected in Candidate.objects.filter(
            generator=STEAD, model_version=stead, problem_id__in=list(problem_ids)).values_list(
            "pk", "problem_id", "prompt", "text", "selected_by"):
        out.setdefault(pid, [])
        if selected:
            out[pid].append((cid, prompt, text))
    return out


def pap_corpus_pairs(*, stead: ModelVersion | None = None, problem_ids: Sequence[int] | None = None) -> list[Any]:
    """The stored parallel corpus as ``ml.pap.PapPair``s: the selected STEAD candidates (of one
    STEAD version when given; of some problems when given)."""
    qs = Candidate.objects.filter(generator=STEAD).exclude(selected_by="").select_related("problem")
    if stead is not None:
        qs = qs.filter(model_version=stead)
    if problem_ids is not None:
        qs = qs.filter(problem_id__in=list(problem_ids))
    return [PapPair(c.problem.text, c.prompt, c.text) for c in qs.order_by("id")]
