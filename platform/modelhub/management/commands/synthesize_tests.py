"""``synthesize_tests --dataset NAME [--per-problem 2]``."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.arguments import positive_int
from jobs import tasks
from jobs.foreground import run_job_here
from modelhub.kinds.paraqd import ParaQDError, datasets_by_name, paraqd_synthesize_start


class Command(BaseCommand):
    help = (
        "ParaQD test operators (paper 4.2): for each problem of the dataset, one pair from a positive "
        "test operator (fa active->passive; fb when a denoiser exists) and one from a negative one (fc "
        "TF-IDF replacement, fd random deletion; fe when a paraphraser is configured), chosen at random "
        "among those that apply, queued for double annotation. Safe to rerun: problems that have test "
        'pairs are skipped. Prints JSON {"dataset", "problems", "candidates_created", "items_created", ...}.'
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", required=True, metavar="NAME", help="dataset name")
        parser.add_argument("--per-problem", type=positive_int, default=2,
                            help="pairs per problem, half positive and half negative (default 2)")
        parser.add_argument("--seed", type=int, default=3407, help="random seed (default 3407)")

    def handle(self, *args, dataset: str, per_problem: int, seed: int, **options) -> None:
        try:
            (target,) = datasets_by_name([dataset])
            job = paraqd_synthesize_start(dataset=target, per_problem=per_problem, seed=seed, enqueue=False)
        except ParaQDError as exc:
            raise CommandError(str(exc)) from exc
        job = run_job_here(job, tasks.PARAQD_SYNTHESIZE)
        self.stdout.write(json.dumps({**job.result, "job": job.pk}))
