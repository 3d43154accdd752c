from django.apps import AppConfig
from django.db.backends.signals import connection_created

from jobs.app import celery_app_use
from paralab.celery import app, log_execution_mode


def _sqlite_wal(sender, connection, **kwargs) -> None:
    """SQLite in write-ahead-log mode: pages keep reading while a background job writes (the
    embedded default runs jobs on a thread of the server, jobs/background.py)."""
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA journal_mode=WAL")


class ParalabConfig(AppConfig):
    name = "paralab"
    verbose_name = "paralab"

    def ready(self) -> None:
        connection_created.connect(_sqlite_wal, dispatch_uid="paralab-sqlite-wal")
        celery_app_use(app)  # jobs sends through the project's Celery app, which it does not import
        log_execution_mode()
