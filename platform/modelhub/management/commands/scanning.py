"""``scanning --dataset NAME [--dataset NAME2 …] --eval-dataset NAME [--preset tiny|paper] [--base …] --json``."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from jobs import tasks
from jobs.foreground import run_job_here
from modelhub.kinds.scanning import ScanningError, scanning_start

from ._scanning_args import add_training_arguments


class Command(BaseCommand):
    help = (
        "The whole SCANNING pipeline (paper 000) as one job in this process: train STEAD -> inference noise -> "
        "generate -> score -> QF-PCF -> PAMMR -> train PAP -> generate on the evaluation dataset with STEAD, PAP, "
        "the rule-based generators and the baselines (copy, EDA). Both versions are activated; the evaluation "
        "candidates are stored, selected and queued for annotation. Prints per-generator mean S, D, N, PQI."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        add_training_arguments(parser)
        parser.add_argument("--eval-dataset", required=True, metavar="NAME",
                            help="held-out dataset to generate on and report (never trained on)")
        parser.add_argument("--json", action="store_true", help="print the result as JSON (default: a table)")

    def handle(self, *args, dataset, eval_dataset, preset, base, max_problems, **options) -> None:
        try:
            job = scanning_start(dataset_names=dataset, eval_dataset=eval_dataset, preset=preset, base=base,
                                 max_problems=max_problems, enqueue=False)
        except ScanningError as exc:
            raise CommandError(str(exc)) from exc
        job = run_job_here(job, tasks.SCANNING_RUN)
        result = {**job.result, "job": job.pk}
        if options["json"]:
            self.stdout.write(json.dumps(result))
            return
        self.stdout.write(f"STEAD v{result['stead']['version']}, PAP v{result['pap']['version']}; "
                          f"eval {result['eval_dataset']} (σ: {result['scorer']})")
        self.stdout.write(f"{'generator':<34}{'n':>6}{'S':>8}{'D':>8}{'N':>8}{'PQI':>8}")
        for name, row in sorted(result["by_generator"].items(), key=lambda kv: -(kv[1].get("PQI") or 0)):
            cells = "".join(f"{row.get(k) if row.get(k) is not None else float('nan'):>8.3f}" for k in ("S", "D", "N", "PQI"))
            self.stdout.write(f"{name:<34}{row['n']:>6}{cells}")
