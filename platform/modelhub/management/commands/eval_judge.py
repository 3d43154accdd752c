"""``eval_judge --dataset NAME [--model active|ID] [--json]``."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import UserError
from modelhub.evaluation import judge_evaluate, judge_resolve
from modelhub.kinds.paraqd import datasets_by_name


def _fmt(value) -> str:
    return "n/a" if value is None else f"{value:.3f}"


class Command(BaseCommand):
    help = (
        "Evaluate a judge of any kind (a ParaQD or numeracy-aware judge version; default: the one that decides) "
        "on the dataset's gold-labelled pairs as the platform decides: a pair is accepted when the version's "
        "decision score (ParaQD: cosine; judge: calibrated probability) is above its calibrated threshold "
        "(0.5 without a calibration). Nothing is written. With --json prints "
        '{"dataset", "model": {"id", "kind"}, "column", "n", "auc", "pr_auc", "threshold", "threshold_source", '
        '"macro": {"p","r","f1","f1_hm"}, "weighted": {"p","r","f1","f1_hm"}, "accepted", '
        '"valid_share_of_accepted"}: auc/pr_auc of the raw score (ROC AUC, average precision); f1 = '
        "scikit-learn's averaged F1, f1_hm = harmonic mean of the averaged P and R (the paper's); accepted = "
        "pairs predicted valid; valid_share_of_accepted = gold-valid share of them (null when none accepted); "
        "threshold_source = calibration or default."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", required=True, metavar="NAME", help="dataset with gold-labelled pairs")
        parser.add_argument("--model", default="active", metavar="active|ID",
                            help="active (default: the judge that decides) or the id of a paraqd or judge version")
        parser.add_argument("--json", dest="as_json", action="store_true", help="print the metrics as one JSON object")

    def handle(self, *args, dataset: str, model: str, as_json: bool, **options) -> None:
        try:
            (target,) = datasets_by_name([dataset])
            version = judge_resolve(model=model)
            result = judge_evaluate(dataset=target, version=version)
        except UserError as exc:
            raise CommandError(str(exc)) from exc
        if as_json:
            self.stdout.write(json.dumps(result))
            return
        lines = [
            f"dataset {result['dataset']}, {result['model']['kind']} v{result['model']['id']}, n = {result['n']}, "
            f"{result['column']} > {result['threshold']:.4f} ({result['threshold_source']})",
            f"{'':10}{'P':>8}{'R':>8}{'F1':>8}{'F1(hm)':>8}",
        ]
        for average in ("macro", "weighted"):
            m = result[average]
            lines.append(f"{average:10}{m['p']:8.3f}{m['r']:8.3f}{m['f1']:8.3f}{m['f1_hm']:8.3f}")
        lines.append(f"ROC AUC {_fmt(result['auc'])}  PR AUC {_fmt(result['pr_auc'])}")
        lines.append(f"accepted {result['accepted']} of {result['n']}, "
                     f"{_fmt(result['valid_share_of_accepted'])} of them gold-valid")
        self.stdout.write("\n".join(lines))
