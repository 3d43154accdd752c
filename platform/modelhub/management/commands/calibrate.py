"""``calibrate --model paraqd|judge --dataset NAME… [--method platt|isotonic] [--json]``."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import UserError
from jobs import tasks
from jobs.foreground import run_job_here
from jobs.models import Job
from modelhub.calibration import METHODS
from modelhub.calibration_jobs import calibrate_start
from modelhub.judging import judge_kinds


class Command(BaseCommand):
    help = (
        "Fit the active judge's decision threshold and probability calibration on the gold-labelled pairs of "
        "the datasets: imported pairs of train/dev problems (e.g. aqua_val) and the annotators' gold labels, "
        "never a test split or synthesized test pairs. Every decision of the platform (queue order, "
        "disagreements, hard examples, the variants export) then uses that threshold, and eval_paraqd decides "
        "at it unless --threshold is given. With no active ParaQD version, the packaged base encoder is "
        'registered and activated first. Prints JSON {"version", "threshold", "auc", "n", ...}.'
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--model", default="paraqd", choices=judge_kinds(),
                            help="which active judge to calibrate: paraqd (default) or judge (numeracy-aware)")
        parser.add_argument("--dataset", action="append", default=[], metavar="NAME",
                            help="a dataset with validation pairs (repeatable; default: every dataset)")
        parser.add_argument("--method", default="platt", choices=METHODS,
                            help="probability calibration: platt (logistic, default) or isotonic")
        parser.add_argument("--json", dest="as_json", action="store_true", help="print the result as one JSON object")

    def handle(self, *args, model: str, dataset: list[str], method: str, as_json: bool, **options) -> None:
        names = [n for item in dataset for n in item.split(",") if n.strip()]
        try:
            job = calibrate_start(kind=model, dataset_names=names or None, method=method, enqueue=False)
        except UserError as exc:
            raise CommandError(str(exc)) from exc
        job = run_job_here(job, tasks.CALIBRATE)
        if job.status != Job.Status.SUCCEEDED:
            raise CommandError(job.error or "calibration failed")
        result = job.result
        if as_json:
            self.stdout.write(json.dumps({"job": job.pk, **result}))
            return
        self.stdout.write(
            f"{model} v{result['version']}: threshold {result['threshold']:.4f}"
            + (f" (cosine {result['cosine_threshold']:.4f})" if "cosine_threshold" in result else "")
            + f", ROC AUC {result['auc']:.3f}, PR AUC {result['pr_auc']:.3f} on {result['n']} pairs "
              f"({result['n_valid']} valid); {result['method']} calibration"
        )
