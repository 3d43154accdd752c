"""The one base of the errors a user can act on, and where it is turned into an answer.

Every service raises a subclass of :class:`UserError` (``GenerationError``, ``ParaQDError``,
``CalibrationError``, ``RetrainBusy``...) for bad input or a request that cannot be done now; its
message is written for people. It is mapped to an HTTP answer once (:func:`api_exception_handler`,
DRF's ``EXCEPTION_HANDLER``: ``{"detail": message}`` with the class's ``status_code``) and to a
failed job once (``jobs.services.job_run``: the message becomes the job's error). Anything else is
a bug: logged with its traceback.
"""
from __future__ import annotations

from typing import Any

from rest_framework.response import Response
from rest_framework.views import exception_handler


class UserError(ValueError):
    """A request the user can fix (or retry later); the message is for people.

    A ``ValueError`` so code that validates input with ``except ValueError`` keeps working."""

    status_code = 400


class Conflict(UserError):
    """The request is valid but cannot be done in the current state (a retrain already running)."""

    status_code = 409


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, plus a :class:`UserError` answered as ``{"detail": message}`` with its status."""
    if isinstance(exc, UserError):
        return Response({"detail": str(exc)}, status=exc.status_code)
    return exception_handler(exc, context)
