"""``manage.py demo``: the embedded default, ready to explore (README command 1).

Migrates the database, runs the demo steps (paralab.demo: users, the "demo" dataset, its
problems, reviewed pairs both annotators labelled, synthesized test pairs queued for them; each
idempotent), prints the URL and the logins, then serves the site with the
development server. With ``--no-server`` it stops after printing and its last stdout line is
JSON: ``{"dataset": "demo", "users": [{"username", "password", "role"}, ...]}``.
"""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand

from corpus.page_selectors import dataset_counts
from paralab.demo import DEMO_DATASET, DEMO_USERS, demo_annotation_summary, demo_prepare


def _port(value: str) -> int:
    if not value.isdigit() or not 1 <= int(value) <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port number from 1 to 65535, got {value!r}")
    return int(value)


class Command(BaseCommand):
    help = (
        "Set up the demo (migrate; staff user admin, annotators annotator1 and annotator2; dataset "
        "'demo' with its problems, reviewed pairs both annotators labelled and synthesized test pairs "
        "queued for them), print the URL and the logins, and start the development server. "
        "Safe to run again: nothing is duplicated. The passwords are demo-only."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--no-server",
            action="store_true",
            help="Set up and exit without serving; the last stdout line is JSON with the dataset and the logins.",
        )
        parser.add_argument("--port", type=_port, default=8000, help="Port to serve on (default 8000).")
        parser.add_argument("--host", default="127.0.0.1", help="Address to serve on (default 127.0.0.1).")

    def handle(self, *args, no_server: bool, port: int, host: str, verbosity: int, **options):
        self._make_data_dirs()
        call_command("migrate", interactive=False, verbosity=max(0, verbosity - 1), stdout=self.stdout)

        # Step notes go to stderr: with --no-server the last stdout line must stay the JSON.
        ctx = demo_prepare(log=(lambda line: self.stderr.write(f"demo {line}")) if verbosity else (lambda line: None))

        addr = f"[{host}]" if ":" in host and not host.startswith("[") else host  # IPv6
        # Listening on every address: the URL to open is this machine's own.
        url = f"http://{'127.0.0.1' if host in {'0.0.0.0', '::', '[::]'} else addr}:{port}/"
        serve = f"python manage.py runserver {addr}:{port}" if no_server else None
        self.stdout.write(self._banner(ctx, url, serve_with=serve))

        if no_server:
            self.stdout.write(
                json.dumps(
                    {
                        "dataset": DEMO_DATASET,
                        "users": [{"username": u.username, "password": u.password, "role": u.role} for u in DEMO_USERS],
                    }
                )
            )
            return

        # The demo is for people trying the site: a missing page shows the site's own 404, not
        # Django's debug page listing every URL (set DEBUG=1 in the environment to keep it).
        if "DEBUG" not in os.environ:
            settings.DEBUG = False
        if self._static_needs_collecting():
            call_command("collectstatic", interactive=False, verbosity=0)
        # Set-up ran its jobs inline (each step needs the one before); while serving, jobs run on
        # a background thread so no page waits for one (jobs/background.py), unless set otherwise.
        if not os.environ.get("PARALAB_JOB_RUNNER"):
            settings.PARALAB_JOB_RUNNER = "thread"
        call_command("runserver", f"{addr}:{port}", use_reloader=False)

    # --- helpers --------------------------------------------------------------------------------

    @staticmethod
    def _make_data_dirs() -> None:
        """SQLite does not create the folder its file lives in; a fresh checkout has no var/."""
        db = settings.DATABASES["default"]
        if db["ENGINE"].endswith("sqlite3") and str(db["NAME"]) != ":memory:":
            Path(db["NAME"]).parent.mkdir(parents=True, exist_ok=True)

    @staticmethod
    def _static_needs_collecting() -> bool:
        """WhiteNoise serves straight from the source folders while it uses the finders (DEBUG);
        otherwise it serves STATIC_ROOT, which collectstatic fills (it skips unchanged files)."""
        return not getattr(settings, "WHITENOISE_USE_FINDERS", settings.DEBUG)

    @staticmethod
    def _banner(ctx, url: str, *, serve_with: str | None) -> str:
        dataset = ctx.require_dataset()
        counts = dataset_counts(dataset=dataset)
        splits = ", ".join(f"{n} {split or 'no split'}" for split, n in counts.per_split if n)
        annotation = demo_annotation_summary(ctx)
        annotators = " and ".join(u.username for u in DEMO_USERS if not u.is_staff)
        width = max(len(u.username) for u in DEMO_USERS)
        logins = "\n".join(
            f"    {u.role:<9}  {u.username:<{width}}  {u.password}" for u in DEMO_USERS
        )
        where = f"  URL:      {url}" + (f"  (serve it with: {serve_with})" if serve_with else "")
        return (
            "\n"
            "paralab demo is ready\n"
            f"{where}\n"
            f"  dataset:  {DEMO_DATASET!r}: {counts.problems} problems ({splits})\n"
            f"  annotate: {annotation['test_pairs_unlabelled']} synthesized test pairs and "
            f"{annotation['generated_unlabelled']} generated variants waiting for {annotators} on {url}annotate/\n"
            f"  generate: {annotation['generated']} scored candidates of the rule-based generators on "
            f"{url}datasets/{dataset.pk}/candidates/; paste a problem on {url}paraphrase/\n"
            f"  staff:    {annotation['reviewed']} reviewed pairs labelled by both: agreement and "
            f"{annotation['agreement_gold']} gold labels on {url}dashboard/, {annotation['split']} split pairs "
            f"to adjudicate;\n"
            "            the dashboard's retrain button trains ParaQD in-process (a few minutes on a CPU)\n"
            "  logins:\n"
            f"{logins}\n"
            "  These passwords are published: demo only, never on a server others can reach.\n"
        )
