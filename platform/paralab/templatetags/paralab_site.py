"""Template filters of the site: word problems with their numbers highlighted, JSON, percentages."""
from __future__ import annotations

import json

from django import template
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe

from ml.text.numbers import find_numbers

register = template.Library()


@register.filter(is_safe=False)
def highlight_numbers(text) -> SafeString:
    """Escape ``text`` and wrap each number (as ``ml.text.numbers`` finds them) in ``<mark class="num">``.

    Every piece of the text is escaped before it is joined, so the result is safe HTML whatever
    the problem text contains.

    >>> highlight_numbers("<b>3</b> kg")
    '&lt;b&gt;<mark class="num">3</mark>&lt;/b&gt; kg'
    """
    text = "" if text is None else str(text)
    parts: list[str] = []
    last = 0
    for mention in find_numbers(text):
        parts.append(conditional_escape(text[last : mention.start]))
        parts.append(format_html('<mark class="num">{}</mark>', mention.text))
        last = mention.end
    parts.append(conditional_escape(text[last:]))
    return mark_safe("".join(parts))  # noqa: S308 - every part above is escaped


@register.filter
def pretty_json(value) -> str:
    """Indented JSON for <pre> blocks (autoescaped by the template like any other string)."""
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)


@register.filter
def percent(value) -> int:
    """A 0..1 fraction as a whole percentage, clamped: 0.456 → 46."""
    try:
        return max(0, min(100, round(float(value) * 100)))
    except (TypeError, ValueError):
        return 0
