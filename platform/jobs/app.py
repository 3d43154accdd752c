"""The Celery application jobs are sent through: the project's (``paralab.celery``), handed in
when Django starts (``ParalabConfig.ready``). Jobs, the app every other app queues work through,
names no module of the project above it; Celery's own advice for code that is not the project is
to be given the app rather than to import it ("Breaking the chain")."""
from __future__ import annotations

from typing import Any

_app: Any = None


def celery_app_use(app: Any) -> None:
    """Called once by the project when Django starts."""
    global _app
    _app = app


def celery_app() -> Any:
    """The project's Celery app; RuntimeError before the project handed it in (Django not set up)."""
    if _app is None:
        raise RuntimeError("no Celery app yet: the paralab project hands it to jobs when Django starts")
    return _app
