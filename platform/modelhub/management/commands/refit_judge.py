"""``refit_judge [--holdout-percent 25] [--min-heldout 20] [--json]``."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import UserError
from modelhub.kinds.judge.refit import DEFAULT_HOLDOUT_PERCENT, MIN_HELDOUT, judge_refit


class Command(BaseCommand):
    help = (
        "Refit the deciding judge on the annotators' gold labels (seconds): a share of the labelled problems is held "
        "out, a copy of the judge is refitted on the rest (same checks, weights pulled towards the current ones), "
        "registered, calibrated, and promoted only when the held-out gold is large enough and the copy ranks it no "
        'worse. Prints JSON {"version", "base", "promoted", "reason", "train", "heldout", "auc_refit", "auc_base"}.'
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--holdout-percent", type=int, default=DEFAULT_HOLDOUT_PERCENT,
                            help=f"share of labelled problems held out for the promotion gate (default {DEFAULT_HOLDOUT_PERCENT})")
        parser.add_argument("--min-heldout", type=int, default=MIN_HELDOUT,
                            help=f"held-out gold pairs needed to decide (default {MIN_HELDOUT})")
        parser.add_argument("--json", dest="as_json", action="store_true", help="print the result as one JSON object")

    def handle(self, *args, holdout_percent: int, min_heldout: int, as_json: bool, **options) -> None:
        if not 1 <= holdout_percent <= 90:
            raise CommandError(f"--holdout-percent must be from 1 to 90, not {holdout_percent}")
        try:
            result = judge_refit(holdout_percent=holdout_percent, min_heldout=min_heldout)
        except UserError as exc:
            raise CommandError(str(exc)) from exc
        if as_json:
            self.stdout.write(json.dumps(result))
            return
        self.stdout.write(f"judge v{result['version']} refitted from v{result['base']} on {result['train']} gold labels; "
                          f"{'promoted' if result['promoted'] else 'not promoted'}: {result['reason']}")
