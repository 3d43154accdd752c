"""Imports into a dataset: problem files and labelled pairs, in the request or as a job.

Imports are all-or-nothing: the whole file is read and validated first (``corpus.importers``),
then every row is written inside one transaction, so a bad line leaves the database untouched.
Duplicates (same normalised text, see ``corpus.text``) are skipped and counted.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from django.conf import settings
from django.db import transaction

from annotation.models import GoldLabel
from jobs import tasks
from jobs.models import Job
from jobs.progress import scaled_progress
from jobs.requests import JobRequest
from jobs.services import JobError, job_create, job_enqueue
from ml.text.numbers import extract_numbers
from paraphrases.models import IMPORTED_PAIR_PREFIX, Candidate

from ..importers import PAIR_FORMATS, PROBLEM_FORMATS, SPLITS, ProblemRecord, read_pairs, read_problems
from ..models import Dataset, Problem
from ..text import text_hash

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

logger = logging.getLogger("paralab.corpus")

# Rows per INSERT: small enough for SQLite's variable limit and for memory, big enough to be fast.
BATCH_SIZE = 1000
# Hashes per `IN (...)` lookup of rows that are already there.
LOOKUP_BATCH_SIZE = 500
# Share of an import's progress spent reading the file; the rest is writing.
READ_SHARE = 0.4

# Imported pairs are candidates whose generator is "import:<format>" (paraphrases.models).
PAIR_GENERATOR_PREFIX = IMPORTED_PAIR_PREFIX

Progress = Callable[..., None]
T = TypeVar("T")


def _batches(items: Sequence[T], size: int) -> Iterable[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _existing_hashes(model: Any, hashes: Iterable[str], **scope: Any) -> set[str]:
    """The hashes among ``hashes`` that already have a ``model`` row within ``scope``."""
    found: set[str] = set()
    for batch in _batches(sorted(set(hashes)), LOOKUP_BATCH_SIZE):
        found.update(model.objects.filter(text_hash__in=batch, **scope).values_list("text_hash", flat=True))
    return found


def _lock_dataset(dataset: Dataset) -> None:
    """Serialise imports into one dataset (duplicate checks then stay true until commit)."""
    Dataset.objects.select_for_update().filter(pk=dataset.pk).values_list("pk", flat=True).get()


# --- problems -----------------------------------------------------------------------------------


def _problem(dataset: Dataset, record: ProblemRecord, digest: str) -> Problem:
    return Problem(
        dataset=dataset,
        text=record.text,
        text_hash=digest,
        source=record.source,
        source_id=record.source_id,
        split=record.split,
        answer=record.answer,
        equation=record.equation,
        numbers=record.numbers,
        metadata=record.metadata,
    )


def dataset_import(
    *,
    dataset: Dataset,
    path: str | Path,
    fmt: str = "auto",
    split: str = "",
    progress: Progress | None = None,
    filename: str | None = None,
) -> dict[str, Any]:
    """Import a problem file into ``dataset``, all or nothing.

    Returns ``{"dataset", "created", "duplicates", "format"}``: duplicates are rows whose
    normalised text is already in the dataset or earlier in the same file. Raises
    ``ImportFormatError`` (nothing written) when any line of the file is bad, or the file is
    over ``PARALAB_MAX_UPLOAD_BYTES``. ``progress(fraction, note=None)`` is called as it goes;
    ``filename`` is how error messages name the file (default: the base name of ``path``).
    """
    parsed = read_problems(
        path,
        fmt,
        split=split,
        max_bytes=settings.PARALAB_MAX_UPLOAD_BYTES,
        progress=scaled_progress(progress, 0.0, READ_SHARE),
        name=filename,
    )
    if progress:
        progress(READ_SHARE, f"read {len(parsed.records)} problems ({parsed.format})")

    # First occurrence in the file wins; later copies are duplicates.
    unique: dict[str, ProblemRecord] = {}
    for record in parsed.records:
        unique.setdefault(text_hash(record.text), record)

    with transaction.atomic():
        _lock_dataset(dataset)
        existing = _existing_hashes(Problem, unique, dataset=dataset)
        rows = [_problem(dataset, record, digest) for digest, record in unique.items() if digest not in existing]
        for done, batch in enumerate(_batches(rows, BATCH_SIZE), start=1):
            Problem.objects.bulk_create(batch)
            if progress:
                progress(READ_SHARE + (1 - READ_SHARE) * min(1.0, done * BATCH_SIZE / len(rows)))

    if progress:
        progress(1.0)
    result = {
        "dataset": dataset.name,
        "created": len(rows),
        "duplicates": len(parsed.records) - len(rows),
        "format": parsed.format,
    }
    logger.info("imported %s into dataset %s: %s", filename or Path(path).name, dataset.name, result)
    return result


# --- labelled pairs -----------------------------------------------------------------------------


def pairs_import(
    *,
    dataset: Dataset,
    path: str | Path,
    fmt: str = "paraqd",
    split: str = "",
    progress: Progress | None = None,
    filename: str | None = None,
) -> dict[str, Any]:
    """Import question/paraphrase pairs: problems, ``Candidate`` rows and imported gold labels.

    Questions already in the dataset are reused. A pair whose paraphrase (normalised) is already
    a candidate of its problem from this importer, in the database or earlier in the file, is a
    duplicate and adds nothing (except the label, when the first copy in the file had none).
    Returns ``{"dataset", "problems_created", "candidates_created",
    "gold_labels", "duplicates", "format"}``; all or nothing like :func:`dataset_import`.
    """
    if split and split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")
    pairs = read_pairs(
        path,
        fmt,
        max_bytes=settings.PARALAB_MAX_UPLOAD_BYTES,
        progress=scaled_progress(progress, 0.0, READ_SHARE),
        name=filename,
    )
    if progress:
        progress(READ_SHARE, f"read {len(pairs)} pairs")
    generator = f"{PAIR_GENERATOR_PREFIX}{fmt}"
    source = filename or Path(path).name

    questions: dict[str, ProblemRecord] = {}
    for pair in pairs:
        questions.setdefault(
            text_hash(pair.question),
            ProblemRecord(
                text=pair.question,
                source=fmt,
                source_id=str(pair.line),
                split=split,
                numbers=extract_numbers(pair.question),
            ),
        )

    with transaction.atomic():
        _lock_dataset(dataset)
        existing = _existing_hashes(Problem, questions, dataset=dataset)
        new_problems = [
            _problem(dataset, record, digest) for digest, record in questions.items() if digest not in existing
        ]
        for batch in _batches(new_problems, BATCH_SIZE):
            Problem.objects.bulk_create(batch)
        problem_ids = _problem_ids(dataset, list(questions))
        if progress:
            progress(READ_SHARE + (1 - READ_SHARE) * 0.3, f"{len(new_problems)} new problems")

        existing_candidates = set(
            Candidate.objects.filter(problem__dataset=dataset, generator=generator).values_list(
                "problem_id", "text_hash"
            )
        )
        new_candidates: dict[tuple[int, str], Candidate] = {}
        labels: dict[tuple[int, str], bool | None] = {}
        for pair in pairs:
            key = (problem_ids[text_hash(pair.question)], text_hash(pair.paraphrase))
            if key in existing_candidates:
                continue
            if key in new_candidates:
                # A later copy of the pair may carry the label the first one lacked.
                if labels[key] is None:
                    labels[key] = pair.valid
                continue
            new_candidates[key] = Candidate(
                problem_id=key[0],
                text=pair.paraphrase,
                text_hash=key[1],
                generator=generator,
                metadata={"source": source, "line": pair.line},
            )
            labels[key] = pair.valid
        candidates = list(new_candidates.values())
        for batch in _batches(candidates, BATCH_SIZE):
            Candidate.objects.bulk_create(batch)
        if progress:
            progress(READ_SHARE + (1 - READ_SHARE) * 0.8, f"{len(candidates)} new candidates")

        note = f"imported from {source}"
        gold = [
            GoldLabel(candidate=candidate, valid=labels[key], source=GoldLabel.Source.IMPORT, note=note)
            for key, candidate in new_candidates.items()
            if labels[key] is not None
        ]
        for batch in _batches(gold, BATCH_SIZE):
            GoldLabel.objects.bulk_create(batch)

    if progress:
        progress(1.0)
    result = {
        "dataset": dataset.name,
        "problems_created": len(new_problems),
        "candidates_created": len(candidates),
        "gold_labels": len(gold),
        "duplicates": len(pairs) - len(candidates),
        "format": fmt,
    }
    logger.info("imported pairs %s into dataset %s: %s", source, dataset.name, result)
    return result


def _problem_ids(dataset: Dataset, hashes: list[str]) -> dict[str, int]:
    ids: dict[str, int] = {}
    for batch in _batches(hashes, LOOKUP_BATCH_SIZE):
        ids.update(Problem.objects.filter(dataset=dataset, text_hash__in=batch).values_list("text_hash", "id"))
    return ids


# --- as a job -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ImportRequest(JobRequest):
    """A file to import into the job's dataset: its path, format and split, whether it is a
    temporary upload the job deletes when done, and the name the user gave it (for messages)."""

    path: str = ""
    format: str = "auto"
    split: str = ""
    uploaded: bool = False
    filename: str | None = None


def dataset_import_start(
    *,
    dataset: Dataset,
    path: str | Path,
    fmt: str = "auto",
    split: str = "",
    user: AbstractBaseUser | AnonymousUser | None = None,
    kind: str = "import_problems",
    uploaded: bool = False,
    filename: str | None = None,
) -> Job:
    """Create an import job for ``path`` and queue it once the current transaction commits.

    ``kind`` is ``import_problems`` (``dataset_import``) or ``import_pairs`` (``pairs_import``).
    ``uploaded=True`` marks ``path`` as a temporary upload the job deletes when it finishes;
    ``filename`` is the name the user gave it, used in error messages.
    Returns the ``jobs.Job``; its result is the import's result dict.
    """
    formats = {Job.Kind.IMPORT_PROBLEMS: PROBLEM_FORMATS, Job.Kind.IMPORT_PAIRS: PAIR_FORMATS}
    if kind not in formats:
        raise ValueError(f"unknown import kind {kind!r}; expected import_problems or import_pairs")
    if fmt not in formats[kind]:
        raise ValueError(f"unknown format {fmt!r} for {kind}; expected one of {', '.join(formats[kind])}")
    if split and split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")
    job = job_create(
        kind=kind,
        params=ImportRequest(path=str(path), format=fmt, split=split, uploaded=uploaded,
                             filename=filename or Path(path).name).to_params(),
        dataset=dataset,
        created_by=user,
    )
    job_enqueue(job=job, task=tasks.IMPORT)
    return job


def import_run(*, job: Job, progress: Callable[..., None] | None = None) -> dict[str, Any]:
    """The import job's body: ``dataset_import`` (problems) or ``pairs_import`` (labelled pairs)
    of the job's file; a bad file fails the job with the reader's message (file, line, field)."""
    request = ImportRequest.from_params(job.params)
    try:
        if job.dataset_id is None:
            raise JobError("the dataset of this import no longer exists")
        if job.kind == Job.Kind.IMPORT_PAIRS:
            return pairs_import(dataset=job.dataset, path=request.path, fmt=request.format or "paraqd",
                                split=request.split, progress=progress, filename=request.filename)
        return dataset_import(dataset=job.dataset, path=request.path, fmt=request.format or "auto",
                              split=request.split, progress=progress, filename=request.filename)
    finally:
        # The job is over either way (it never reruns after succeeding or failing), so an
        # uploaded temporary file is no longer needed. A lost worker skips this, and the
        # redelivered job finds its file still there.
        if request.uploaded:
            Path(request.path).unlink(missing_ok=True)
