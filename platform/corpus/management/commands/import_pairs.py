"""``import_pairs PATH --dataset NAME [--format paraqd] [--split train|dev|test]``."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandParser

from corpus.importers import PAIR_FORMATS, SPLITS
from corpus.services import pairs_import

from ._importing import import_into


class Command(BaseCommand):
    help = (
        "Import question/paraphrase pairs (ParaQD CSV: question, augmented or paraphrase, final_label or "
        "label with 1/0, true/false or valid/invalid; an empty label means no gold label) into a dataset "
        "(created if missing), all or nothing: the questions become problems, the paraphrases candidates "
        "(generator import:paraqd) and the labels imported gold labels. Prints one JSON line: "
        '{"dataset", "problems_created", "candidates_created", "gold_labels", "duplicates"}. '
        "On a bad file it names the file, line and field at fault, exits non-zero and writes nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", metavar="PATH", help="the CSV file of pairs")
        parser.add_argument("--dataset", required=True, metavar="NAME", help="dataset name (created if missing)")
        parser.add_argument("--format", dest="fmt", default="paraqd", choices=PAIR_FORMATS, help="default: paraqd")
        parser.add_argument("--split", default="", choices=SPLITS, help="the split of newly created problems")

    def handle(self, *args, path: str, dataset: str, fmt: str, split: str, **options) -> None:
        result = import_into(dataset_name=dataset, importer=pairs_import, path=path, fmt=fmt, split=split)
        summary = {
            key: result[key]
            for key in ("dataset", "problems_created", "candidates_created", "gold_labels", "duplicates")
        }
        self.stdout.write(json.dumps(summary))
