"""The export job service: an export written to a file, or queued as a job and run by a worker."""
from __future__ import annotations

import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from django.conf import settings

from jobs import tasks
from jobs.models import Job
from jobs.requests import JobRequest
from jobs.services import JobError, job_create, job_enqueue

from ..models import Dataset
from .common import ExportError, export_filename, export_validate
from .rows import export_count
from .stream import export_pieces

logger = logging.getLogger("paralab.corpus.export")


def dataset_export_to_file(
    *,
    dataset: Dataset,
    what: str,
    fmt: str,
    path: str | os.PathLike,
    progress: Callable[[float], None] | None = None,
) -> dict[str, Any]:
    """Write an export to ``path`` atomically (a temporary file renamed into place).

    Returns ``{"dataset", "what", "format", "rows", "bytes", "path"}``. ``progress(fraction)`` is
    called after each piece.
    """
    export_validate(what=what, fmt=fmt)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    total = export_count(dataset=dataset, what=what) if progress else 0
    rows = 0
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
            for piece, count in export_pieces(dataset=dataset, what=what, fmt=fmt):
                out.write(piece)
                rows += count
                if progress and total:
                    progress(min(rows / total, 0.99))
        os.chmod(tmp_name, 0o644)  # mkstemp makes it private; the export is an ordinary file
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    if progress:
        progress(1.0)
    return {
        "dataset": dataset.name,
        "what": what,
        "format": fmt,
        "rows": rows,
        "bytes": path.stat().st_size,
        "path": str(path),
    }


@dataclass(frozen=True)
class ExportRequest(JobRequest):
    """What to export from the job's dataset (problems, pairs, gold, variants...) and in which format."""

    what: str = ""
    format: str = ""


def export_job_path(*, job) -> Path:
    """Where an export job writes: ``MEDIA_ROOT/exports/<dataset>-<what>-job<id>.<format>``."""
    request = ExportRequest.from_params(job.params)
    name = export_filename(dataset=job.dataset, what=request.what, fmt=request.format)
    stem, ext = name.rsplit(".", 1)
    return Path(settings.MEDIA_ROOT) / "exports" / f"{stem}-job{job.pk}.{ext}"


def dataset_export_start(*, dataset: Dataset, what: str, fmt: str, user=None):
    """Queue an export as a job (for exports too big for a request); returns the Job.

    The task runs once the surrounding transaction commits; its result holds ``path`` and ``rows``.
    """
    export_validate(what=what, fmt=fmt)
    job = job_create(
        kind=Job.Kind.EXPORT, params=ExportRequest(what=what, format=fmt).to_params(), dataset=dataset,
        created_by=user, queue="cpu",
    )
    job_enqueue(job=job, task=tasks.EXPORT)
    return job


def dataset_export_run(*, job, progress: Callable[[float], None] | None = None) -> dict[str, Any]:
    """The body of an export job: write the file, return the job's result."""
    if job.dataset is None:
        raise JobError("the dataset of this export no longer exists")
    request = ExportRequest.from_params(job.params)
    what, fmt = request.what, request.format
    try:
        export_validate(what=what, fmt=fmt)
    except ExportError as exc:
        raise JobError(str(exc)) from exc
    result = dataset_export_to_file(
        dataset=job.dataset, what=what, fmt=fmt, path=export_job_path(job=job), progress=progress
    )
    logger.info("export job %s wrote %s rows to %s", job.pk, result["rows"], result["path"])
    return result


def export_job_get(*, job_id: int):
    """The export job with that id, or None."""
    return Job.objects.filter(pk=job_id, kind=Job.Kind.EXPORT).select_related("dataset").first()


def export_job_file(*, job) -> Path | None:
    """The file a succeeded export job wrote, if it is still there and inside the exports folder."""
    root = (Path(settings.MEDIA_ROOT) / "exports").resolve()
    raw = (job.result or {}).get("path")
    if not raw:
        return None
    path = Path(raw).resolve()
    if root not in path.parents or not path.is_file():
        return None
    return path
