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
    In JSON, only ``true`` and ``false`` are (DRF also takes the numbers 0 and 1).
    """

    default_empty_html = empty

    def to_internal_value(self, data):
        # JSON has booleans: 0 and 1 there are numbers, not answers (forms and queries send text).
        if isinstance(data, (int, float)) and not isinstance(data, bool):
            self.fail("invalid", input=data)
        return super().to_internal_value(data)


def async_requested(query) -> bool:
    """``?async`` or ``?async=1|true|yes|on``: answer with a job at once; ``?async=0|false|no|off``
    or no parameter: not asked. Anything else is a 400 naming the parameter."""
    if "async" not in query:
        return False
    value = query["async"].strip().lower()
    if value in ("", "1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise serializers.ValidationError({"async": "Must be a boolean: 1 or 0, true or false."})
