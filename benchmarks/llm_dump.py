"""Benchmark step: the instruct LLM's rewrites of fresh problems, for blind labelling.

    python benchmarks/llm_dump.py --problem-set aqua-train --offset 2100 --problems 20 \\
        --llm var/models/qwen2.5-coder-1.5b-instruct.gguf --out var/llm/outputs.jsonl
    python benchmarks/neural_labels.py make --dump var/llm/outputs.jsonl --batch var/llm/batch
    python benchmarks/neural_labels.py read --dump var/llm/outputs.jsonl --batch var/llm/batch \\
        --out docs/results/llm-labels.md

The generator runs as the platform runs it (number constraints while decoding, the number/name
guard after), with its content check (``ml.generation.llm.content_refusal``) switched off, so that
the labels measure the check too: ``neural_labels.py read`` reports the valid share among the
rewrites the check keeps and among those it refuses. Each row: set, problem, generator, text and
seconds per problem (every sample and the model's load once included). Needs ``make llm``.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"
sys.path[:0] = [str(REPO)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--problem-set", choices=("aqua-train", "gsm8k-train", "aqua-test"), default="aqua-train")
    parser.add_argument("--offset", type=int, default=0)
    parser.add_argument("--problems", type=int, default=20)
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--llm", type=Path, required=True, help="the GGUF file (make llm)")
    parser.add_argument("--threads", type=int, default=0, help="llama.cpp's CPU threads (0: every core)")
    parser.add_argument("--seed", type=int, default=3407)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    from ml.generation import GenerationResources, NotApplicable
    from ml.generation.llm import InstructLLMConfig, InstructLLMGenerator

    name, file = args.problem_set.split("-")[0], "test.json" if args.problem_set == "aqua-test" else "train.jsonl"
    lines = (DATA / name / file).read_text(encoding="utf-8").splitlines()
    problems = list(dict.fromkeys(json.loads(line)["question"] for line in lines if line.strip()))
    problems = problems[args.offset:args.offset + args.problems]
    resources = GenerationResources(llm_dir=str(args.llm.parent), llm_file=args.llm.name)
    generator = InstructLLMGenerator(config=InstructLLMConfig(samples=args.samples, check_content=False,
                                                                   threads=args.threads))
    rng = random.Random(args.seed)
    rows, refused = [], 0
    for problem in problems:
        started = time.perf_counter()
        try:
            texts = [c.text for c in generator.generate(problem, rng, resources)]
        except NotApplicable as exc:
            texts = []
            refused += 1
            print(f"refused: {exc.reason}", file=sys.stderr)
        seconds = time.perf_counter() - started
        rows += [{"set": args.problem_set, "problem": problem, "generator": "instruct_llm", "text": t,
                  "s_per_problem": seconds, "samples": args.samples} for t in texts]
        print(f"{len(texts)} rewrites in {seconds:.1f} s", file=sys.stderr, flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    print(f"{len(rows)} rewrites of {len(problems)} problems ({refused} with none kept) -> {args.out}")


if __name__ == "__main__":
    main()
