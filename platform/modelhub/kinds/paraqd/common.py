"""ParaQD's shared pieces: constants other apps import, the error users see, the device and
dataset lookups, and the throttled progress of long phases."""
from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings

from core.errors import UserError
from corpus.models import Dataset
from corpus.selectors import UnknownDataset
from corpus.selectors import datasets_by_name as corpus_datasets_by_name
from jobs.progress import Progress, scaled_progress
from modelhub.artifacts import ArtifactError
from modelhub.artifacts import base_encoder_path as artifact_encoder_path
from modelhub.artifacts import model_device

KIND = "paraqd"
PRETRAINED_SCORER = "paraqd:pretrained"
SYNTHESIZED_TEST_PURPOSE = "synthesized_test"
PRESETS = ("tiny", "paper")
DEFAULT_PRESET = "tiny"  # minutes on a CPU; "paper" is the paper's recipe
DEFAULT_THRESHOLD = 0.5
SCORE_BATCH = 512


class ParaQDError(UserError):
    """A request the user can fix (unknown dataset, no active model, no gold labels...)."""


# A job's log is rewritten whole on every note: long runs note at most this often.
NOTE_INTERVAL_S = 20.0


def scaled(progress: Progress | None, start: float, end: float) -> Progress | None:
    """``progress`` remapped to ``start..end`` with notes at most every ``NOTE_INTERVAL_S`` seconds."""
    return scaled_progress(progress, start, end, note_interval_s=NOTE_INTERVAL_S)


def paraqd_device() -> str:
    return settings.PARALAB_DEVICE


def generation_device() -> str:
    """``PARALAB_DEVICE`` resolved (``auto`` -> cuda when a GPU is visible) for the seq2seq models."""
    return model_device()


def datasets_by_name(names: Iterable[str]) -> list[Dataset]:
    """The datasets called ``names`` (in that order, without repeats); ParaQDError naming any missing."""
    try:
        return corpus_datasets_by_name(names)
    except UnknownDataset as exc:
        raise ParaQDError(str(exc)) from exc


def base_encoder_path(encoder: str | None = None) -> str:
    """The configured base sentence encoder (``PARALAB_SENTENCE_ENCODER``) as a loadable path or
    hub id; ParaQDError when it names a directory that does not exist."""
    try:
        return artifact_encoder_path(encoder)
    except ArtifactError as exc:
        raise ParaQDError(str(exc)) from exc
