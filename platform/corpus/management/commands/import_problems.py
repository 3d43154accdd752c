"""``import_problems PATH --dataset NAME [--format …] [--split train|dev|test]``."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandParser

from corpus.importers import PROBLEM_FORMATS, SPLITS
from corpus.services import dataset_import

from ._importing import import_into


class Command(BaseCommand):
    help = (
        "Import word problems from a corpus file into a dataset (created if missing), all or nothing. "
        "Problems whose normalised text is already in the dataset, or earlier in the file, are counted "
        'as duplicates and skipped. Prints one JSON line: {"dataset", "created", "duplicates"}. '
        "On a bad file it names the file, line and field at fault, exits non-zero and writes nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", metavar="PATH", help="the file to import")
        parser.add_argument("--dataset", required=True, metavar="NAME", help="dataset name (created if missing)")
        parser.add_argument(
            "--format",
            dest="fmt",
            default="auto",
            choices=PROBLEM_FORMATS,
            help=(
                "aqua (AQuA-RAT JSON lines), gsm8k (GSM8K JSON lines), svamp (SVAMP JSON array), mawps "
                "(MAWPS/ASDiv CSV with masked numbers), jsonl (objects with 'text', e.g. an export), csv "
                "(a 'text' column); default auto: detected from the extension and the first record"
            ),
        )
        parser.add_argument("--split", default="", choices=SPLITS, help="the split of every imported problem")

    def handle(self, *args, path: str, dataset: str, fmt: str, split: str, **options) -> None:
        result = import_into(dataset_name=dataset, importer=dataset_import, path=path, fmt=fmt, split=split)
        if options["verbosity"] >= 2:
            self.stderr.write(f"format: {result['format']}")
        summary = {key: result[key] for key in ("dataset", "created", "duplicates")}
        self.stdout.write(json.dumps(summary))
