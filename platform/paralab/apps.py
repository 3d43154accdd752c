from django.apps import AppConfig
from django.db.backends.signals import connection_created

from paralab.celery import log_execution_mode


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
        log_execution_mode()
