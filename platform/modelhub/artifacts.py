"""The life of a version's folder, for every model kind: where a training run writes
(``MODEL_DIR/<kind>/.job-<job id>`` so a redelivered job resumes, else a fresh ``.partial-*``), the
version row registered only once training succeeded, the folder renamed to
``MODEL_DIR/<kind>/v<id>-<stamp>``, activation last, and everything removed on any failure so the
active version is untouched. Also the device the models run on and the base sentence encoder.
Kind modules call these; only :mod:`modelhub.services` writes ``ModelVersion`` rows.
"""
from __future__ import annotations

import logging
import shutil
import time
import uuid
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.errors import UserError
from ml.encoders import resolve_encoder_path, select_device

from .models import ModelVersion
from .services import modelversion_activate, modelversion_create

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from jobs.models import Job

logger = logging.getLogger("paralab.modelhub")


class ArtifactError(UserError):
    """A model folder or encoder the settings name cannot be used; the message is for the user."""


def model_device() -> str:
    """``PARALAB_DEVICE`` with ``auto`` resolved (cuda when torch sees a GPU, else cpu); a named
    device as it is set. The one place the platform resolves its device."""
    return settings.PARALAB_DEVICE if settings.PARALAB_DEVICE != "auto" else _auto_device()


@lru_cache(maxsize=1)
def _auto_device() -> str:
    return select_device("auto")


def base_encoder_path(encoder: str | None = None) -> str:
    """The configured base sentence encoder (``PARALAB_SENTENCE_ENCODER``) as a loadable path or hub
    id; ArtifactError when it names a directory that does not exist."""
    name = encoder or settings.PARALAB_SENTENCE_ENCODER
    try:
        return resolve_encoder_path(name)
    except (FileNotFoundError, ValueError) as exc:
        raise ArtifactError(f"sentence encoder {name!r}: {exc}") from exc


def model_root(kind: str) -> Path:
    root = Path(settings.MODEL_DIR) / kind
    root.mkdir(parents=True, exist_ok=True)
    return root


def work_dir(kind: str, job: Job | None = None) -> Path:
    """Where a training run writes: stable per job (a redelivered job resumes from its
    checkpoints), else a fresh ``.partial-*`` folder."""
    if job is not None:
        return model_root(kind) / f".job-{job.pk}"
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    return model_root(kind) / f".partial-{stamp}-{uuid.uuid4().hex[:8]}"


def remove_abandoned_partials(kind: str) -> None:
    """Delete ``.partial-*`` folders older than the longest a task may run: their worker was
    killed (a failure raised in Python removes its own folder)."""
    cutoff = time.time() - settings.PARALAB_TASK_HARD_LIMIT_S - 600
    for folder in model_root(kind).glob(".partial-*"):
        try:
            if folder.stat().st_mtime < cutoff:
                shutil.rmtree(folder, ignore_errors=True)
                logger.info("removed abandoned partial model folder %s", folder)
        except FileNotFoundError:
            pass


def version_of_job(kind: str, job: Job | None) -> ModelVersion | None:
    """The version of ``kind`` this job already registered (a rerun after a lost worker)."""
    if job is None:
        return None
    done = ModelVersion.objects.filter(job=job, kind=kind).first()
    if done is not None and done.artifact_path and Path(done.artifact_path).is_dir():
        return done
    return None


def version_already_trained(kind: str, job: Job | None, *, activate: bool = False, progress=None,
                            label: str | None = None) -> ModelVersion | None:
    """The version this job already registered (a redelivered job whose worker was lost after
    registering it: finish, don't train again), activated when asked; None when there is none."""
    done = version_of_job(kind, job)
    if done is None:
        return None
    if progress:
        progress(1.0, f"{label or kind} version {done.pk} was already trained by this job")
    return modelversion_activate(version=done) if activate else done


def version_register(
    *,
    kind: str,
    folder: Path,
    base_model: str,
    name: str,
    training_data: Mapping[str, Any],
    params: Mapping[str, Any],
    metrics: Mapping[str, Any],
    activate: bool = False,
    user: AbstractBaseUser | None = None,
    job: Job | None = None,
    then: Callable[[ModelVersion], None] | None = None,
) -> ModelVersion:
    """Register the trained model in ``folder`` as a new version of ``kind``, all or nothing: the
    row is created, the folder renamed to ``MODEL_DIR/<kind>/v<id>-<stamp>`` and (``activate``) the
    version activated in one transaction; ``then(version)`` runs inside it (a calibration). On any
    failure the row and the renamed folder are gone and the active version is untouched; the caller
    removes its work folder (``discard_work``), which a redelivered job may resume from."""
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    final: Path | None = None
    try:
        with transaction.atomic():
            version = modelversion_create(
                kind=kind, base_model=base_model, artifact_path="", training_data=dict(training_data),
                params=dict(params), metrics=dict(metrics), job=job, created_by=user, name=name[:128],
            )
            final = model_root(kind) / f"v{version.pk}-{stamp}"
            if final.exists():  # ids restart with a fresh database (test runs) and stamps are to the second
                final = final.with_name(f"{final.name}-{uuid.uuid4().hex[:6]}")
            Path(folder).rename(final)
            version.artifact_path = str(final)
            version.save(update_fields=["artifact_path"])
            if then is not None:
                then(version)
            if activate:
                version = modelversion_activate(version=version)
    except BaseException:
        if final is not None:  # renamed, then the transaction failed: the row is gone, so is the folder
            shutil.rmtree(final, ignore_errors=True)
        raise
    return version


def discard_work(folder: Path, failure: BaseException | None = None, *, resumable: bool = True) -> None:
    """Remove a run's work folder: after success, after a failure, but not after an interrupt of a
    ``resumable`` run (a redelivered job resumes from its checkpoints)."""
    if resumable and isinstance(failure, (KeyboardInterrupt, SystemExit)):
        return
    shutil.rmtree(folder, ignore_errors=True)
