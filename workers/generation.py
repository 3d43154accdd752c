"""Generation tasks: the ``generate`` job (generators over a dataset's problems, scored, selected
and queued; every row it writes is keyed by what it is, so a rerun rewrites the same rows) and the
``paraphrase`` job (one pasted problem). Rule-based generation runs on the cpu queue; a neural
generator's job is routed to the gpu queue by its start service."""
from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from celery.signals import worker_init, worker_process_init

from jobs import tasks
from jobs.services import job_run
from ml.generation import warm_up
from modelhub.resources import generation_resources
from paraphrases.generation import generate_run
from paraphrases.handout import llm_warm_up, paraphrase_run
from paraphrases.neural_gate import neural_gate_run

from .common import COMMON, SHORT_LIMITS

logger = logging.getLogger("paralab.generation")


@shared_task(name=tasks.GENERATE, **COMMON, **SHORT_LIMITS)
def generate_job(self, job_id: int) -> None:
    """Run ``generation_run`` with the job's request; the job's result is the ``generate`` JSON."""
    job_run(job_id=job_id, body=generate_run)


@shared_task(name=tasks.PARAPHRASE, **COMMON, **SHORT_LIMITS)
def paraphrase_job(self, job_id: int) -> None:
    """Run ``paraphrase_variants`` for one pasted problem; the job's result is its answer."""
    job_run(job_id=job_id, body=paraphrase_run)


@shared_task(name=tasks.NEURAL_GATE, **COMMON, **SHORT_LIMITS)
def neural_gate_task(self, kind: str) -> None:
    """Measure the handout gate of the active ``kind`` (STEAD/PAP) version (``neural_gate_run``).
    The one task that takes no job id: a STEAD/PAP training job applies it in its own process once
    it activated a version (``modelhub.kinds.seq2seq``), by name, so modelhub names no generation
    service."""
    neural_gate_run(kind=kind)


@worker_process_init.connect
@worker_init.connect
def _warm_up(**kwargs: Any) -> None:
    """Load spaCy and the synonym source once when a worker starts (about 7 s on a 2-core CPU),
    not inside the first task. A failure here is logged and the task will try again."""
    try:
        resources = generation_resources()
        loaded = warm_up(resources)
        llm = llm_warm_up(resources)
        if llm:
            loaded.append(llm)
        logger.info("generation resources loaded: %s", ", ".join(loaded))
    except Exception:  # noqa: BLE001 - a worker must start even when a resource is missing
        logger.exception("warming up the generators failed")
