"""What teachers read for a generator: a plain name (``generator_label``), the technical one on
hover (``generator_name`` wraps both), and where a generation job runs (``generation_device``).

The plain names are the one mapping of the site; the API keeps the technical names. A
composition of registered generators (``ml.generation.registry`` names them ``first+second``)
reads as its parts joined with " + ":

>>> generator_label("pp_permutation+reorder")
'Moved phrases + reordered sentences'
>>> generator_label("import:paraqd")
'Imported pair (paraqd file)'
>>> generator_label("something-new")
'something-new'
"""
from __future__ import annotations

import functools

from django import template
from django.conf import settings
from django.utils.html import format_html
from django.utils.safestring import SafeString

from modelhub.artifacts import model_device
from paralab.celery import app
from paraphrases.models import IMPORTED_PAIR_PREFIX, TEST_GENERATOR_PREFIX

register = template.Library()

# One plain name per generator registered in ml.generation.registry (a test checks that every
# registered name, compositions included, reads as plain words).
PLAIN_NAMES = {
    "reorder": "Reordered sentences",
    "pp_permutation": "Moved phrases",
    "passive": "Passive voice",
    "synonym": "Synonyms",
    "entity_substitution": "Changed names",
    "question_form": "Question asked another way",
    "condition_moved": "Condition moved after the question",
    "question_as_task": "Question set as a task",
    "blank_as_task": "Unfinished statement set as a task",
    "number_format": "Units and small numbers written out",
    "rewording": "Everyday words reworded",
    "supposition": "Condition stated as a supposition",
    "count_as_task": "Count asked as the number of …",
    "fill_mask": "Words filled in by a language model",
    "copy": "Unchanged copy (baseline)",
    "eda": "Random word edits (EDA baseline)",
    "instruct_llm": "Rewritten by a language model",
    "stead": "Denoising model (STEAD)",
    "pap": "Trained paraphraser (PAP)",
}


@functools.lru_cache(maxsize=1)
def _prefixes() -> tuple[tuple[str, str], ...]:
    """Candidates that no generator made: imported labelled pairs and ParaQD's test operators."""
    return ((IMPORTED_PAIR_PREFIX, "Imported pair ({} file)"), (TEST_GENERATOR_PREFIX, "ParaQD test operator {}"))


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


@register.filter
def generator_label(name) -> str:
    """The plain name of a generator (or of a composition of generators); an unknown name as it is."""
    name = "" if name is None else str(name)
    parts = name.split("+")
    if name and all(part in PLAIN_NAMES for part in parts):
        words = [PLAIN_NAMES[part] for part in parts]
        return " + ".join([words[0], *(_lower_first(w) for w in words[1:])])
    for prefix, pattern in _prefixes():
        if name.startswith(prefix) and len(name) > len(prefix):
            return pattern.format(name[len(prefix):])
    return name


@register.filter
def generator_name(name) -> SafeString:
    """``<span class="generator-name" title="technical name">Plain name</span>`` (both escaped)."""
    name = "" if name is None else str(name)
    return format_html('<span class="generator-name" title="{}">{}</span>', name, generator_label(name))


def _gpu_queue_exists() -> bool:
    return any(queue.name == "gpu" for queue in (app.conf.task_queues or ()))


@register.simple_tag
def generation_device() -> str:
    """Where a generation job started from this page runs, in words: the GPU worker only when a
    broker is configured and a ``gpu`` queue exists; otherwise this server, on the device it has."""
    if settings.CELERY_BROKER_URL and _gpu_queue_exists():
        return "on a CPU worker, or on the GPU worker when a neural generator is ticked"
    return "here, on the GPU" if model_device() == "cuda" else "here, on the CPU"
