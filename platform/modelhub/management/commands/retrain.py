"""``retrain --model paraqd|pap [--force]``: the retraining that beat runs periodically, run now."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from jobs import tasks
from jobs.foreground import run_job_here
from modelhub.kinds.registry import kind_names
from modelhub.services import RetrainBusy, RetrainError, RetrainNotDue, RetrainUnavailable, model_retrain_start


class Command(BaseCommand):
    help = (
        "Retrain a model from the annotators' labels, as Celery beat does every PARALAB_RETRAIN_INTERVAL_S "
        "seconds: without --force only when at least PARALAB_RETRAIN_MIN_NEW new gold labels and human-model "
        "disagreements arrived since the last version. A ParaQD candidate is trained (preset "
        "PARALAB_RETRAIN_PRESET) without a held-out gold split, evaluated on it against the active version, "
        "and promoted only if it does not regress. Runs as a job in this process; prints JSON "
        '{"started", "job", "version", "status", "promoted", "gate", ...}, or {"started": false, "reason"} '
        "when it is not due or a retrain is already running."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--model", required=True, choices=kind_names(),
                            help="which model to retrain (paraqd or pap; stead is not retrained from labels)")
        parser.add_argument("--force", action="store_true",
                            help="retrain even if too few new labels arrived since the last version")

    def handle(self, *args, model: str, force: bool, **options) -> None:
        try:
            job = model_retrain_start(kind=model, force=force, enqueue=False)
        except RetrainUnavailable as exc:
            raise CommandError(f"--model {model}: {exc}") from exc
        except RetrainNotDue as exc:
            self._print({"started": False, "reason": str(exc), "trigger": exc.trigger})
            return
        except RetrainBusy as exc:
            self._print({"started": False, "reason": str(exc), "job": exc.job.pk})
            return
        except RetrainError as exc:
            raise CommandError(str(exc)) from exc
        job = run_job_here(job, tasks.RETRAIN)
        self._print({"started": True, "job": job.pk, **job.result})

    def _print(self, payload: dict) -> None:
        self.stdout.write(json.dumps(payload))
