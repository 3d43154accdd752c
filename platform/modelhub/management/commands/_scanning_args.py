"""Arguments shared by ``train_stead``, ``train_pap`` and ``scanning``."""
from __future__ import annotations

import argparse
import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.arguments import positive_int
from jobs import tasks
from jobs.foreground import run_job_here
from modelhub.kinds.seq2seq import ScanningError, scanning_train_start


def positive_float(value: str) -> float:
    try:
        number = float(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"must be a number, got {value!r}") from exc
    if not number > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {value!r}")
    return number


def add_training_arguments(parser: CommandParser) -> None:
    parser.add_argument("--dataset", action="append", required=True, metavar="NAME",
                        help="dataset to train on (repeat for several)")
    parser.add_argument("--preset", choices=("tiny", "paper"),
                        help="tiny (minutes on a CPU) or paper (the paper's recipe); default PARALAB_SCANNING_PRESET")
    parser.add_argument("--base", help="scratch, minilm, smollm2, a hub id or a directory "
                                       "(default: PARALAB_SEQ2SEQ_BASE)")
    parser.add_argument("--max-problems", type=positive_int, help="train on at most N problems (seeded sample)")


class TrainGeneratorCommand(BaseCommand):
    """``train_stead`` / ``train_pap``: subclasses set ``kind`` and ``help``."""

    kind = ""

    def add_arguments(self, parser: CommandParser) -> None:
        add_training_arguments(parser)
        parser.add_argument("--activate", action="store_true", help="make the new version the active one")
        parser.add_argument("--max-seconds", type=positive_float,
                            help="stop training after this many seconds (the model is still saved)")

    def handle(self, *args, dataset, preset, base, max_problems, activate, max_seconds, **options) -> None:
        try:
            job = scanning_train_start(kind=self.kind, dataset_names=dataset, preset=preset, base=base,
                                       max_problems=max_problems, activate=activate, max_seconds=max_seconds,
                                       enqueue=False)
        except ScanningError as exc:
            raise CommandError(str(exc)) from exc
        job = run_job_here(job, tasks.SCANNING_TRAIN)
        self.stdout.write(json.dumps({**job.result, "job": job.pk}))
