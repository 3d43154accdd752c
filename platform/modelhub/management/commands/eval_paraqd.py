"""``eval_paraqd --dataset NAME [--model active|pretrained|ID|PATH] [--threshold 0.5] --json``."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from jobs import tasks
from jobs.foreground import run_job_here
from modelhub.kinds.paraqd import DEFAULT_THRESHOLD, ParaQDError, datasets_by_name, paraqd_evaluate_start


def _fmt(value) -> str:
    return "n/a" if value is None else f"{value:.3f}"


class Command(BaseCommand):
    help = (
        "Score a dataset's gold-labelled pairs with a ParaQD model and print precision, recall and F1 "
        "(macro and weighted; f1 = scikit-learn's averaged F1, f1_hm = harmonic mean of the averaged P "
        "and R, the paper's) and the separation mu_pos - mu_neg. A pair is predicted valid when its "
        "cosine is above --threshold. With --json: "
        '{"n", "macro": {"p","r","f1","f1_hm"}, "weighted": {...}, "mu_pos", "mu_neg", "separation", ...}. '
        "Results for a model version are also stored on it (GET /api/v1/models/)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", required=True, metavar="NAME", help="dataset with gold-labelled pairs")
        parser.add_argument("--model", default="active",
                            help="active (default), pretrained (the untrained base encoder), a version id, or a "
                                 "model directory")
        parser.add_argument("--threshold", type=float, default=None,
                            help="cosine above which a pair counts as valid (default: the version's calibrated "
                                 f"threshold, see `calibrate`; {DEFAULT_THRESHOLD} without one)")
        parser.add_argument("--json", dest="as_json", action="store_true", help="print the metrics as one JSON object")
        parser.add_argument("--scores", action="store_true",
                            help="also output the raw scores of valid and invalid pairs (for plots)")

    def handle(self, *args, dataset: str, model: str, threshold: float, as_json: bool, scores: bool, **options):
        try:
            (target,) = datasets_by_name([dataset])
            job = paraqd_evaluate_start(
                dataset=target, model=model, threshold=threshold, include_scores=scores, enqueue=False
            )
        except ParaQDError as exc:
            raise CommandError(str(exc)) from exc
        result = run_job_here(job, tasks.PARAQD_EVALUATE).result
        if as_json:
            self.stdout.write(json.dumps(result))
            return
        lines = [
            f"dataset {result['dataset']}, model {result['model']['scorer_version']}, n = {result['n']}, "
            f"threshold {result['threshold']}",
            f"{'':10}{'P':>8}{'R':>8}{'F1':>8}{'F1(hm)':>8}",
        ]
        for average in ("macro", "weighted"):
            m = result[average]
            lines.append(f"{average:10}{m['p']:8.3f}{m['r']:8.3f}{m['f1']:8.3f}{m['f1_hm']:8.3f}")
        lines.append(f"mu_pos {_fmt(result['mu_pos'])}  mu_neg {_fmt(result['mu_neg'])}  "
                     f"separation {_fmt(result['separation'])}")
        lines.append(f"ROC AUC {_fmt(result.get('auc'))}  PR AUC {_fmt(result.get('pr_auc'))}  "
                     f"(threshold from {result.get('threshold_source')})")
        self.stdout.write("\n".join(lines))
