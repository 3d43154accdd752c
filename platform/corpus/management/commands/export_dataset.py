"""``export_dataset --dataset NAME --what problems|paraphrases|labels --format jsonl|csv [--output PATH]``.

Same content as ``GET /api/v1/datasets/{id}/export/``. Without ``--output`` the export itself goes to
stdout; with it, the file is written atomically and a JSON summary is printed.
"""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from corpus.exporters import FORMATS, WHATS, dataset_export_to_file, export_stream
from corpus.models import Dataset


class Command(BaseCommand):
    help = "Export a dataset's problems, paraphrases or labels as JSON lines or CSV (streamed)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--dataset", required=True, help="dataset name")
        parser.add_argument("--what", required=True, choices=WHATS, help="which rows to export")
        parser.add_argument("--format", dest="fmt", default="jsonl", choices=FORMATS, help="jsonl (default) or csv")
        parser.add_argument(
            "--output", help="file to write (atomically); a JSON summary goes to stdout. Default: the export on stdout"
        )

    def handle(self, *args, dataset: str, what: str, fmt: str, output: str | None, **options) -> None:
        ds = Dataset.objects.filter(name=dataset).first()
        if ds is None:
            raise CommandError(f"--dataset: no dataset named {dataset!r}")
        if output:
            try:
                result = dataset_export_to_file(dataset=ds, what=what, fmt=fmt, path=output)
            except OSError as exc:
                raise CommandError(f"--output {output}: {exc.strerror or exc}") from exc
            self.stdout.write(json.dumps(result))
            return
        for chunk in export_stream(dataset=ds, what=what, fmt=fmt):
            self.stdout.write(chunk, ending="")
        self.stdout.flush()
