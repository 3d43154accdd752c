"""Serializer fields shared by the REST API."""
from __future__ import annotations

from rest_framework import serializers
from rest_framework.fields import empty


class StrictBooleanField(serializers.BooleanField):
    """A boolean read from form or query data as from JSON: a missing value is missing.

    DRF reads a boolean absent from form data (multipart, urlencoded, a query string) as an
    unticked checkbox, false: a multipart label without ``valid`` would be stored as "invalid",
    and ``GET candidates/`` without ``selected`` would list only the unselected. Here a required
    one is an error when absent, an optional one keeps its default, and ``"null"`` is no boolean.
    """

    default_empty_html = empty
