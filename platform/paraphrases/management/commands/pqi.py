"""``pqi --dataset NAME [--generator G] --json``."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from corpus.selectors import UnknownDataset, datasets_by_name
from paraphrases.selectors import pqi_by_generator


class Command(BaseCommand):
    help = (
        "Mean S, D, N, PQI, 1−BLEU and WPD of the dataset's stored generated candidates, per generator "
        "(each candidate's newest score). Prints JSON "
        '{"by_generator": {name: {"n", "S", "D", "N", "PQI", "bleu_div", "wpd", "PQI_sd", "labelled", '
        '"human_valid_share"}}, "scorers": [...]}.'
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", required=True, metavar="NAME", help="dataset name")
        parser.add_argument("--generator", default="", help="only this generator")
        parser.add_argument("--json", action="store_true", help="print JSON (the only output format; accepted for scripts)")

    def handle(self, *args, dataset: str, generator: str, **options) -> None:
        try:
            (target,) = datasets_by_name([dataset])
        except UnknownDataset as exc:
            raise CommandError(str(exc)) from exc
        result = pqi_by_generator(dataset=target, generator=generator or None)
        if generator and not result["by_generator"]:
            raise CommandError(f"--generator: dataset {dataset!r} has no scored candidates of generator {generator!r}")
        self.stdout.write(json.dumps(result))
