"""ParaQD's shared pieces: constants other apps import, the error users see, the device and
dataset lookups, and the throttled progress of long phases."""
from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings

from annotation.models import GoldLabel
from corpus.models import Dataset
from jobs.progress import Progress, scaled_progress
from modelhub.models import ModelVersion

KIND = ModelVersion.Kind.PARAQD
PRETRAINED_SCORER = "paraqd:pretrained"
# Candidates of labelled pairs imported from files (corpus.services.PAIR_GENERATOR_PREFIX).
IMPORTED_PAIR_PREFIX = "import:"
TEST_GENERATOR_PREFIX = "test:"
SYNTHESIZED_TEST_PURPOSE = "synthesized_test"
# Gold labels that come from the platform's own annotators (imported ones are evaluation data).
HUMAN_GOLD_SOURCES = (GoldLabel.Source.AGREEMENT, GoldLabel.Source.ADJUDICATION)
PRESETS = ("tiny", "paper")
DEFAULT_THRESHOLD = 0.5
SCORE_BATCH = 512


class ParaQDError(ValueError):
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
    from ml.paraqd.model import select_device

    return select_device(paraqd_device())


def datasets_by_name(names: Iterable[str]) -> list[Dataset]:
    """The datasets called ``names`` (in that order, without repeats); ParaQDError naming any missing."""
    wanted = list(dict.fromkeys(n.strip() for n in names if n and n.strip()))
    if not wanted:
        raise ParaQDError("--dataset: name at least one dataset")
    found = {d.name: d for d in Dataset.objects.filter(name__in=wanted)}
    missing = [n for n in wanted if n not in found]
    if missing:
        raise ParaQDError(f"--dataset: no dataset named {', '.join(repr(n) for n in missing)}")
    return [found[n] for n in wanted]


def base_encoder_path(encoder: str | None = None) -> str:
    """The configured base sentence encoder (``PARALAB_SENTENCE_ENCODER``) as a loadable path or
    hub id; ParaQDError when it names a directory that does not exist."""
    from ml.paraqd.model import resolve_encoder_path

    name = encoder or settings.PARALAB_SENTENCE_ENCODER
    try:
        return resolve_encoder_path(name)
    except (FileNotFoundError, ValueError) as exc:
        raise ParaQDError(f"sentence encoder {name!r}: {exc}") from exc
