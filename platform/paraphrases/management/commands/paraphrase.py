"""``paraphrase "PROBLEM TEXT" [--k 3] [--generators G1,G2] --json``."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.arguments import positive_int
from core.errors import UserError
from paraphrases.generation import DEFAULT_SELECTOR
from paraphrases.handout import paraphrase_variants


class Command(BaseCommand):
    help = (
        "Variants of one word problem, best first: the generators' candidates scored against it and "
        'selected (PAMMR by default); nothing is stored. Prints JSON {"variants": [{"text", "generator", '
        '"S", "D", "N", "PQI", ...}], ...}.'
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("text", help="the problem text (quote it)")
        parser.add_argument("--k", type=positive_int, default=3, help="how many variants (default 3)")
        parser.add_argument("--generators", default="", metavar="G1,G2",
                            help="comma-separated generator names (default: every rule-based one that can run, topped "
                                 "up with the instruct LLM when it is configured and PARALAB_LLM_FALLBACK is on)")
        parser.add_argument("--select", default=DEFAULT_SELECTOR, help="pammr (default), dips, tree, mwp, qf_pcf, none")
        parser.add_argument("--json", action="store_true", help="print JSON (the only output format; accepted for scripts)")

    def handle(self, *args, text: str, k: int, generators: str, select: str, **options) -> None:
        try:
            result = paraphrase_variants(text=text, k=k, generators=generators or None, select=select)
        except UserError as exc:
            raise CommandError(str(exc)) from exc
        for variant in result["variants"]:
            variant.pop("spans", None)
        result["problem"].pop("spans", None)
        self.stdout.write(json.dumps(result))
