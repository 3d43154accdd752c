"""``train_paraqd --dataset NAME [--dataset NAME2 ...] [--epochs N] [--max-problems N]
[--preset tiny|paper] [--activate]``."""
from __future__ import annotations

import argparse
import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.arguments import positive_int
from jobs import tasks
from jobs.foreground import run_job_here
from modelhub.kinds.paraqd import DEFAULT_PRESET, PRESETS, ParaQDError, paraqd_train_start


def _positive_float(value: str) -> float:
    try:
        number = float(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {value!r}") from exc
    if not number > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {value!r}")
    return number


class Command(BaseCommand):
    help = (
        "Train a ParaQD scorer on the problems of one or more datasets (training operators f1-f10 and "
        "the offline extras, plus the platform's human gold labels; never test-split problems or "
        "imported labelled pairs). The model is written to PARALAB_MODEL_DIR/paraqd/v<id>-<time>/ and "
        "registered as a candidate version (active with --activate). Runs as a job in this process; "
        'prints JSON {"version", "status", "path", "job", "metrics", "training_data"}.'
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", action="append", required=True, metavar="NAME",
                            help="dataset to train on (repeat for several)")
        parser.add_argument("--epochs", type=positive_int, help="epochs (default: the preset's)")
        parser.add_argument("--max-problems", type=positive_int, help="use at most N problems")
        parser.add_argument("--preset", choices=PRESETS, default=DEFAULT_PRESET,
                            help="tiny (1 epoch, smoke runs; default) or paper (9 epochs, batch 16)")
        parser.add_argument("--activate", action="store_true", help="make the new version the active scorer")
        parser.add_argument("--encoder", help="base encoder (default: PARALAB_SENTENCE_ENCODER)")
        parser.add_argument("--time-budget", type=_positive_float, metavar="SECONDS",
                            help="stop training before this many seconds (the model is still saved)")
        parser.add_argument("--distance", choices=["cosine", "euclidean"],
                            help="triplet distance (default: the preset's, cosine)")
        parser.add_argument("--margin", type=_positive_float,
                            help="triplet margin (default: 0.5 for cosine, 5 for euclidean)")
        parser.add_argument("--loss", choices=["triplet", "mnrl"], help="loss (default: triplet)")
        parser.add_argument("--lr", type=_positive_float, help="peak learning rate (default: the paper's 2e-5)")
        parser.add_argument("--pairing", choices=["cycle", "all"], dest="triplet_pairing",
                            help="a question's triplets: 'cycle' max(#pos, #neg) (default, the authors' recipe) "
                                 "or 'all' every positive with every negative (lifts the per-question cap)")
        parser.add_argument("--max-triplets-per-question", type=positive_int, dest="max_triplets_per_anchor",
                            help="triplets per question per epoch (default: the preset's, 6; none with --pairing all)")
        parser.add_argument("--operator-draws", type=positive_int, dest="operator_draws",
                            help="apply each stochastic operator N times per question with different seeds "
                                 "(distinct outputs pooled; default 1)")
        parser.add_argument("--balance-datasets", action="store_true",
                            help="with --max-problems, take problems from the datasets in turn")
        parser.add_argument("--eval-dataset", metavar="NAME",
                            help="score this dataset's gold-labelled pairs after every epoch (a validation set)")
        parser.add_argument("--include-imported-pairs", action="store_true",
                            help="also train on labelled pairs imported as train/dev data (never test or split-less ones)")

    def handle(self, *args, dataset: list[str], epochs, max_problems, preset: str, activate: bool,
               encoder: str | None, time_budget: float | None, **options) -> None:
        overrides = {name: options[name] for name in ("distance", "margin", "loss", "lr",
                                                     "triplet_pairing", "max_triplets_per_anchor",
                                                     "operator_draws")}
        try:
            job = paraqd_train_start(
                dataset_names=dataset, preset=preset, epochs=epochs, max_problems=max_problems,
                activate=activate, encoder=encoder, time_budget_s=time_budget, config_overrides=overrides,
                balance_datasets=options["balance_datasets"], include_imported_pairs=options["include_imported_pairs"],
                eval_dataset_name=options["eval_dataset"],
                enqueue=False,
            )
        except ParaQDError as exc:
            raise CommandError(str(exc)) from exc
        job = run_job_here(job, tasks.PARAQD_TRAIN)
        self.stdout.write(json.dumps({**job.result, "job": job.pk}))
