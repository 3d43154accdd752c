"""Annotation guidelines: a dataset's Markdown, rendered to safe HTML for the labelling screen.

Staff write the guidelines, but they are still shown to every annotator, so the rendering trusts
nothing: the source is HTML-escaped before Markdown sees it (raw HTML shows as text), and the
result goes through an allow-list sanitiser (links keep only http, https and mailto).
"""
from __future__ import annotations

import html

import markdown
import nh3
from django.utils.safestring import SafeString, mark_safe

_TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "strong", "em", "code", "pre",
    "blockquote", "a", "table", "thead", "tbody", "tr", "th", "td",
}
_ATTRIBUTES = {"a": {"href", "title"}, "th": {"align"}, "td": {"align"}}


def render_guidelines(text: str | None) -> SafeString:
    """The guidelines ``text`` (Markdown) as sanitised HTML; empty for empty guidelines.

    >>> str(render_guidelines("**Numbers** must stay. <script>x()</script>"))
    '<p><strong>Numbers</strong> must stay. &lt;script&gt;x()&lt;/script&gt;</p>'
    """
    if not text or not text.strip():
        return mark_safe("")
    escaped = html.escape(text, quote=False)
    # "> quote" lines would be escaped to "&gt; quote": keep Markdown blockquotes working.
    escaped = "\n".join(
        ">" + line[4:] if line.lstrip().startswith("&gt;") and line.startswith("&gt;") else line
        for line in escaped.split("\n")
    )
    rendered = markdown.markdown(escaped, extensions=["tables", "sane_lists"], output_format="html")
    cleaned = nh3.clean(
        rendered, tags=_TAGS, attributes=_ATTRIBUTES, url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )
    return mark_safe(cleaned)  # noqa: S308 - escaped, rendered, then sanitised by an allow-list
