"""Validation experiment: how large and how structural the rule-based candidate pool should be.

    PARALAB_TORCH_THREADS=1 python benchmarks/generation_pool.py --paraqd DIR [--problems 100] [VARIANT ...]

Runs only on validation problems (the first N AQuA dev questions and the first N GSM8K train
problems; never AQuA test or SVAMP, which ``benchmarks/generation.py`` reports on) and prints, per
pool variant, the mean PQI of the candidates QF-PCF → PAMMR and QF-PCF alone select (k = 2), with
σ from the trained ParaQD version and from the pretrained encoder. Variants:

- ``small``: 2 synonym draws, 2 outputs per composition, the five two-step compositions;
- ``more``: 3 draws, 4 outputs; ``more2``: 4 draws, 6 outputs;
- ``default``: 4 draws, 6 outputs, plus passive+reorder, pp_permutation+reorder and both
  followed by synonym (the registry's defaults, chosen with this script).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "platform"), str(REPO / "benchmarks")]
os.environ.setdefault("HF_HUB_OFFLINE", "1")

VARIANTS = {"small": (2, 2, False), "more": (3, 4, False), "more2": (4, 6, False), "default": (4, 6, True)}
EXTRA = ("passive+reorder", "pp_permutation+reorder", "passive+reorder+synonym", "pp_permutation+reorder+synonym")


def configure(variant: str) -> list[str]:
    """Register the variant's generators; return the rule-based names to run."""
    from ml.generation import GenerationResources, available_generators, register
    from ml.generation.compose import ComposedGenerator
    from ml.generation.entities import EntitySubstitutionGenerator
    from ml.generation.reorder import ReorderGenerator
    from ml.generation.structural import PassiveGenerator, PrepositionPermutationGenerator
    from ml.generation.synonyms import SynonymConfig, SynonymGenerator

    draws, outputs, extra = VARIANTS[variant]
    syn = SynonymGenerator(config=SynonymConfig(max_candidates=draws))
    register(syn, replace=True)
    r, p, pa, e = ReorderGenerator(), PrepositionPermutationGenerator(), PassiveGenerator(), EntitySubstitutionGenerator()
    for a, b in ((r, syn), (pa, syn), (p, syn), (r, e), (pa, p), (pa, r), (p, r)):
        register(ComposedGenerator(a, b, max_candidates=outputs), replace=True)
    for a in (pa, p):
        register(ComposedGenerator(ComposedGenerator(a, r, max_candidates=outputs), syn, max_candidates=outputs),
                 replace=True)
    names = available_generators(GenerationResources(wordnet_dir=str(REPO / "var" / "nltk_data")))
    return [n for n in names if extra or n not in EXTRA]


def main() -> None:
    import generation as bench  # benchmarks/generation.py
    import torch

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variants", nargs="*", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--paraqd", required=True, help="trained ParaQD version directory")
    parser.add_argument("--problems", type=int, default=100)
    args = parser.parse_args()
    torch.set_num_threads(int(os.environ.get("PARALAB_TORCH_THREADS") or 1))
    from ml.generation import GenerationResources
    from ml.text.nlp import DEFAULT_SPACY_MODEL
    from ml.similarity import DEFAULT_SENTENCE_ENCODER

    data = REPO.parent / "shared" / "data"
    sets = {
        "AQuA dev": [(json.loads(l)["question"].strip(), "") for l in open(data / "aqua" / "dev.json") if l.strip()],
        "GSM8K train": [(json.loads(l)["question"].strip(), "") for l in open(data / "gsm8k" / "train.jsonl")
                        if l.strip()],
    }
    scorers = {"trained": args.paraqd, "pretrained": DEFAULT_SENTENCE_ENCODER}
    resources = GenerationResources(spacy_model=DEFAULT_SPACY_MODEL, embedding_model=DEFAULT_SENTENCE_ENCODER,
                                    wordnet_dir=str(REPO / "var" / "nltk_data"))
    print("| variant | set | pool per problem | PAMMR PQI (trained σ) | PAMMR PQI (pretrained σ) "
          "| QF-PCF PQI (trained σ) | problems QF-PCF keeps | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    for variant in args.variants:
        names = configure(variant)
        for set_name, problems in sets.items():
            problems = problems[:args.problems]
            started = time.perf_counter()
            generated = bench.run_generators(problems, names, resources, 3407)
            rows = bench.score_all(problems, generated, scorers, DEFAULT_SPACY_MODEL)
            pool = defaultdict(list)
            for name in names:
                for row in rows.get(name, []):
                    pool[row["index"]].append(row)
            result = {(sel, lab): bench.selection_summary(bench.select_rows(problems, pool, sel, lab, 2), lab)
                      for sel in ("pammr", "qf_pcf") for lab in scorers}
            size = sum(map(len, pool.values())) / max(1, len(pool))
            print(f"| {variant} | {set_name} | {size:.1f} | {result['pammr', 'trained']['PQI']:.3f} "
                  f"| {result['pammr', 'pretrained']['PQI']:.3f} | {result['qf_pcf', 'trained']['PQI']:.3f} "
                  f"| {result['qf_pcf', 'trained']['problems']} | {time.perf_counter() - started:.0f} |", flush=True)


if __name__ == "__main__":
    main()
