"""Requests that meet a lost database connection fail cleanly, and the next one reconnects.

A PostgreSQL failover, a restart or an administrator's ``pg_terminate_backend`` kills the
connection a worker process holds. Django would answer that request with a bare 500 and keep the
broken connection for the next request of the same process (a test client, or a server between
``CONN_MAX_AGE`` checks). This middleware answers 503 with ``Retry-After`` (JSON for the API,
a short page otherwise) and closes the process's connections, so the next request opens a
fresh one. Nothing half-written survives: the failed request's transaction died with its backend.
"""
from __future__ import annotations

import logging

from django.db import connections
from django.db.utils import InterfaceError, OperationalError
from django.http import HttpResponse, JsonResponse

logger = logging.getLogger("paralab.db")

RETRY_AFTER_S = 2
MESSAGE = "The database connection was lost; nothing from this request was saved. Try again."
# Standalone: the usual base template reads the session user, i.e. the database that just failed.
PAGE = ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Try again</title></head>"
        f"<body><main><h1>Try again in a moment</h1><p>{MESSAGE}</p></main></body></html>")


class DatabaseUnavailableMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, (OperationalError, InterfaceError)):
            return None
        logger.warning("database unavailable during %s %s: %s", request.method, request.path,
                       str(exception).strip().splitlines()[0] if str(exception).strip() else type(exception).__name__)
        for conn in connections.all(initialized_only=True):
            try:
                conn.close()
            except Exception:  # noqa: BLE001 - closing a dead connection may itself fail
                conn.connection = None
        if request.path.startswith("/api/"):
            response = JsonResponse({"detail": MESSAGE, "code": "database_unavailable"}, status=503)
        else:
            response = HttpResponse(PAGE, status=503)
        response["Retry-After"] = str(RETRY_AFTER_S)
        return response
