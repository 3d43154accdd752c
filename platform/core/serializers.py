"""Serializer behaviour shared by the REST API."""
from __future__ import annotations

from typing import Any

from django.utils.datastructures import MultiValueDict
from rest_framework import serializers


class BlankFormFieldsRefused(serializers.Serializer):
    """A form-encoded body (``application/x-www-form-urlencoded`` or multipart) that sends a field
    empty is refused with 400 unless the field takes blank text, as a JSON body would be.

    DRF reads ``queue_order=`` in a form body as "no queue_order" for a field that is not
    required, so ``PATCH datasets/{id}/`` with it answered 200 and changed nothing; the schema
    says the field is one of its choices (found by the fuzzing test, tests/platform/test_api_fuzz.py).
    """

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, MultiValueDict):
            errors = {}
            for name, field in self.fields.items():
                many = isinstance(field, (serializers.ManyRelatedField, serializers.ListField))
                # An empty value of a nullable field is its null in a form, as DRF reads it.
                if field.read_only or many or field.allow_null or name not in data or data.get(name) != "":
                    continue
                try:
                    field.run_validation("")  # the field's own answer to "": a blank-able one takes it
                except serializers.ValidationError as exc:
                    errors[name] = exc.detail
            if errors:
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)
