"""Benchmark: the instruct LLM as PAP's teacher (distillation), against STEAD as the paper's teacher.

    PARALAB_TORCH_THREADS=2 python benchmarks/pap_teacher.py \\
        --llm var/models/qwen2.5-coder-1.5b-instruct.gguf --teacher-problems 100 --samples 2 \\
        --pap-minutes 8 --aqua 30 --svamp 15 --work var/pap-teacher --dump var/pap-teacher/outputs.jsonl
    python benchmarks/neural_labels.py make --dump var/pap-teacher/outputs.jsonl --batch var/pap-teacher/batch
    python benchmarks/neural_labels.py read --dump var/pap-teacher/outputs.jsonl --batch var/pap-teacher/batch \\
        --out docs/results/pap-teacher.md

What differs from ``benchmarks/scanning.py``'s PAP is only the teacher. There, STEAD rewrites the
first training problems and QF-PCF + PAMMR pick PAP's pairs from its outputs. Here the instruct LLM
(``make llm``) rewrites the same training corpus (``scanning.training_corpus``, same seed and order),
as the platform runs it: number constraints while decoding, then the number/name guard and the
content check. QF-PCF + PAMMR (``ml.pap.build_parallel_corpus``) then pick at most ``k`` of its
rewrites per problem, exactly as they pick STEAD's. PAP starts from the same base, trains under the
same preset for the same minutes, and decodes the same evaluation problems (the first AQuA test and
SVAMP problems, never trained on). Its outputs are dumped for ``neural_labels.py``, which labels
them blind. The teacher's rewrites are kept in ``--work`` and reused by a second run.

Prompts: in the paper a pair's prompt words name the change its target makes (``replace``: words
changed, 1 - BLEU >= 0.3; ``shuffle``: order changed, WPD >= 0.1; PCF checks exactly that). An LLM
rewrite has no noise kind, so each rewrite is given the prompt words its own scores earn (both,
one, or none: "paraphrase :"), and PAP decodes with the (at most two) prompts most of its pairs
carry.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "benchmarks")]

import scanning  # noqa: E402  (the corpus, evaluation sets, scorer and log of the STEAD/PAP benchmark)


def teacher_rewrites(problems: list[str], args, cache: Path) -> dict[str, list[str]]:
    """The LLM's kept rewrites of each problem, read from ``cache`` where an earlier run wrote them."""
    from ml.generation import GenerationResources, NotApplicable
    from ml.generation.llm import InstructLLMConfig, InstructLLMGenerator
    import random

    done: dict[str, list[str]] = {}
    if cache.exists():
        for line in cache.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                done[row["problem"]] = row["rewrites"]
    resources = GenerationResources(llm_dir=str(args.llm.parent), llm_file=args.llm.name)
    generator = InstructLLMGenerator(config=InstructLLMConfig(samples=args.samples, threads=args.threads))
    rng = random.Random(args.seed)
    cache.parent.mkdir(parents=True, exist_ok=True)
    with open(cache, "a", encoding="utf-8") as out:
        for index, problem in enumerate(problems):
            if problem in done:
                continue
            started = time.perf_counter()
            try:
                texts = list(dict.fromkeys(c.text for c in generator.generate(problem, rng, resources)))
                reason = ""
            except NotApplicable as exc:
                texts, reason = [], exc.reason
            seconds = time.perf_counter() - started
            done[problem] = texts
            out.write(json.dumps({"problem": problem, "rewrites": texts, "refused": reason,
                                  "seconds": round(seconds, 2)}) + "\n")
            out.flush()
            scanning.log(f"teacher {index + 1}/{len(problems)}: {len(texts)} kept in {seconds:.1f} s"
                         + (f" ({reason})" if reason else ""))
    return {p: done[p] for p in problems}


def earned_prompt(scores: dict) -> str:
    """The prompt words a rewrite's own change earns under PCF's conditions (paper's order)."""
    from ml.selection.qf_pcf import PCF_CONDITIONS

    words = [w for w in ("replace", "shuffle") if scores.get(PCF_CONDITIONS[w][0], 0.0) >= PCF_CONDITIONS[w][1]]
    return " ".join(words)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--llm", type=Path, required=True, help="the instruct LLM's GGUF file (make llm)")
    parser.add_argument("--teacher-problems", type=int, default=100, help="training problems the LLM rewrites")
    parser.add_argument("--samples", type=int, default=2, help="LLM rewrites drawn per problem")
    parser.add_argument("--threads", type=int, default=1, help="llama.cpp's CPU threads (one measured fastest here)")
    parser.add_argument("--train-problems", type=int, default=1000, help="size of scanning.py's corpus draw")
    parser.add_argument("--base", default="smollm2")
    parser.add_argument("--pap-minutes", type=float, default=8.0)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--micro-batch", type=int, default=8)
    parser.add_argument("--max-new-tokens", type=int, default=128)
    parser.add_argument("--aqua", type=int, default=30)
    parser.add_argument("--svamp", type=int, default=15)
    parser.add_argument("--seed", type=int, default=3407)
    parser.add_argument("--work", type=Path, default=REPO / "var" / "pap-teacher")
    parser.add_argument("--dump", type=Path, required=True, help="PAP's outputs for neural_labels.py")
    args = parser.parse_args()

    threads = os.environ.get("PARALAB_TORCH_THREADS")
    import torch

    if threads:
        torch.set_num_threads(int(threads))
    from ml.pap import build_parallel_corpus, pap_generate, train_pap
    from ml.pap.pipeline import score_outputs
    from ml.seq2seq import load_text_model
    from ml.similarity import DEFAULT_SENTENCE_ENCODER
    from ml.stead import preset as get_preset
    from ml.stead.model import NeuralOutput

    started = time.time()
    preset = get_preset("paper", max_problems=args.train_problems, batch_size=args.batch_size,
                        micro_batch=args.micro_batch, max_new_tokens=args.max_new_tokens, require_numbers=True,
)
    problems = scanning.training_corpus(args.train_problems, args.seed)[: args.teacher_problems]
    t0 = time.time()
    rewrites = teacher_rewrites(problems, args, args.work / "teacher.jsonl")
    teacher_s = time.time() - t0
    scorer = scanning.Scorer(DEFAULT_SENTENCE_ENCODER)
    outputs = []
    for problem in problems:
        texts = rewrites[problem]
        scores = score_outputs(problem, [NeuralOutput(t, "", problem) for t in texts], scorer.cosines)
        outputs.append([NeuralOutput(t, earned_prompt(s), problem) for t, s in zip(texts, scores)])
    pairs, corpus = build_parallel_corpus(problems, outputs, scorer.cosines, k=preset.selected_per_problem)
    prompts = Counter(p.prompt for p in pairs)
    corpus["prompts"] = dict(prompts)
    preset = preset.with_overrides(pap_prompts=tuple(p for p, _ in prompts.most_common(2)))
    scanning.log(f"PAP corpus from the LLM: {corpus}; decoding with {preset.pap_prompts}")
    pap = train_pap(pairs, preset=preset, base=args.base, out_dir=args.work / "pap", device="cpu",
                    max_seconds=args.pap_minutes * 60, corpus_counts=corpus)
    model = load_text_model(pap.model_dir, device="cpu")
    dumped, results = [], {}
    for set_name, eval_problems in scanning.eval_sets(args.aqua, args.svamp).items():
        t0 = time.time()
        outs = pap_generate(model, eval_problems, preset=preset)
        seconds = (time.time() - t0) / len(eval_problems)
        dumped += [{"set": set_name, "problem": p, "generator": "pap_llm_teacher", "text": o.text,
                    "s_per_problem": seconds} for p, x in zip(eval_problems, outs) for o in x]
        row = {**scanning.summarise(eval_problems, [[o.text for o in x] for x in outs], scorer),
               "s_per_problem": seconds}
        # scanning.py's report shape, which neural_labels.py --report reads (PQI, N, training)
        results[set_name] = {"problems": len(eval_problems), "generators": {"PAP_LLM_TEACHER": row}}
        scanning.log(f"{set_name}: PQI {scanning.fmt(row['PQI'])}, {row['candidates']} outputs, "
                     f"{seconds:.1f} s a problem")
    args.dump.parent.mkdir(parents=True, exist_ok=True)
    args.dump.write_text("".join(json.dumps(row) + "\n" for row in dumped), encoding="utf-8")
    report = {"args": {k: str(v) for k, v in vars(args).items()}, "teacher_seconds": teacher_s,
              "teacher_rewrites": sum(len(v) for v in rewrites.values()),
              "teacher_problems_with_rewrite": sum(1 for v in rewrites.values() if v),
              "corpus": corpus, "pap": pap.summary, "results": results, "elapsed_s": time.time() - started}
    (args.work / "report.json").write_text(json.dumps(report, indent=2, default=str), encoding="utf-8")
    scanning.log(f"done in {(time.time() - started) / 60:.1f} min; {len(dumped)} outputs -> {args.dump}")


if __name__ == "__main__":
    main()
