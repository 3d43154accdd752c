"""``manage.py neural_gate stead|pap [--datasets NAME ...] [--json]``: measure the active version's
handout gate (``paraphrases.neural_gate``) and say whether it joins the default generators."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from paraphrases.candidates import NEURAL_KINDS
from paraphrases.neural_gate import neural_gate_run


class Command(BaseCommand):
    help = "Measure whether the active STEAD/PAP version is good enough to run by default (its handout gate)."

    def add_arguments(self, parser):
        parser.add_argument("kind", choices=NEURAL_KINDS)
        parser.add_argument("--datasets", nargs="*", default=None,
                            help="dataset names to take the problems from (default: the version's training datasets)")
        parser.add_argument("--json", action="store_true", help="print the gate as JSON")

    def handle(self, *args, kind: str, datasets, **options):
        gate = neural_gate_run(kind=kind, dataset_names=datasets or None)
        if gate is None:
            raise CommandError(f"no {kind} version is active: train one first (train_{kind} --activate)")
        if options["json"]:
            self.stdout.write(_dumps(gate))
            return
        verdict = "joins the default generators" if gate["passed"] else "stays out of the default generators"
        self.stdout.write(f"{kind}: the judge passed {gate['judged_valid']} of {gate['candidates']} candidates on "
                          f"{gate['problems']} problems ({100 * gate['judged_valid_share']:.0f} %, needs "
                          f"{100 * gate['min_share']:.0f} %): {verdict}")


def _dumps(value) -> str:
    return json.dumps(value, indent=2)
