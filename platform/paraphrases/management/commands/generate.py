"""``generate --dataset NAME [--generators G1,G2] [--select pammr|dips|tree|mwp|qf_pcf|none] [--per-problem K] [--no-queue] --json``."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.arguments import positive_int
from core.errors import UserError
from corpus.selectors import datasets_by_name
from jobs import tasks
from jobs.foreground import run_job_here
from paraphrases.generation import DEFAULT_PER_PROBLEM, DEFAULT_SEED, generation_start


class Command(BaseCommand):
    help = (
        "Runs paraphrase generators over the dataset's problems, scores every candidate against its "
        "problem (σ from the active ParaQD version, or the pretrained encoder when none is active; ν, δ, "
        "PQI, 1−BLEU, WPD), selects K per problem and queues the selected for annotation. Default "
        "generators: every registered rule-based generator that can run here (baselines such as copy and "
        'eda only when named). Safe to rerun. Prints JSON {"job", "problems", "candidates", "selected", '
        '"by_generator": {name: {"n", "S", "D", "N", "PQI", ...}}, ...}.'
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", required=True, metavar="NAME", help="dataset name")
        parser.add_argument("--generators", default="", metavar="G1,G2",
                            help="comma-separated generator names (default: every rule-based one that can run)")
        parser.add_argument("--select", default="pammr", help="pammr (default), dips, tree, mwp, qf_pcf or none")
        parser.add_argument("--per-problem", type=positive_int, default=DEFAULT_PER_PROBLEM,
                            help=f"candidates selected per problem (default {DEFAULT_PER_PROBLEM})")
        parser.add_argument("--no-queue", action="store_true", help="score and select, but queue nothing for annotation")
        parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"random seed (default {DEFAULT_SEED})")
        parser.add_argument("--json", action="store_true", help="print JSON (the only output format; accepted for scripts)")

    def handle(self, *args, dataset: str, generators: str, select: str, per_problem: int, no_queue: bool,
               seed: int, **options) -> None:
        try:
            (target,) = datasets_by_name([dataset])
            job = generation_start(dataset=target, generators=generators or None, select=select,
                                   per_problem=per_problem, queue=not no_queue, seed=seed, enqueue=False)
        except UserError as exc:
            raise CommandError(str(exc)) from exc
        job = run_job_here(job, tasks.GENERATE)
        self.stdout.write(json.dumps({**job.result, "job": job.pk}))
