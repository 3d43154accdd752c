"""The OpenAPI schema's error responses (drf-spectacular).

Views document what they return on success and the errors particular to them (409, 413...). The
errors every DRF view can answer are added here, so that the schema lists each status code a client
can get and its body (tests/platform/test_api_fuzz.py holds the API to that):

- 400 for an operation with a request body or query parameters (a body that does not parse, a
  field that does not validate);
- 401 and 403 for an operation that needs a login (no or a bad token; the wrong role, or a session
  POST without its CSRF token);
- 404 for an operation with path parameters or query parameters (a missing or foreign row, or a
  page past the end);
- 415 for an operation with a request body (a media type it does not read, or a multipart body
  without a readable boundary);
- 429 for a throttled operation (``POST auth/token/``).

An optional query parameter may be sent empty (``allowEmptyValue``): DRF takes ``?kind=`` as no
``kind`` at all, the way the pages' filter forms send an unset filter (and a bare ``?async`` flag
is a yes).

Every error body is a JSON object: ``{"detail": "..."}``, or for a body that does not validate one
list of messages per field, ``{"name": ["This field is required."]}``.
"""
from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers
from rest_framework.permissions import AllowAny


class ErrorSerializer(serializers.Serializer):
    """An error: ``detail`` says what went wrong, or each field that did not validate lists why."""

    detail = serializers.CharField(required=False, help_text="What went wrong (absent when fields did not validate).")

    class Meta:
        ref_name = "Error"


class CheckSerializer(serializers.Serializer):
    """One part of a pair's check (ml/checks.py)."""

    ok = serializers.BooleanField()
    original = serializers.ListField(child=serializers.CharField(), help_text="what the original says, as written")
    paraphrase = serializers.ListField(child=serializers.CharField(), help_text="what the paraphrase says")
    only_original = serializers.ListField(child=serializers.CharField(), help_text="missing from the paraphrase")
    only_paraphrase = serializers.ListField(child=serializers.CharField(), help_text="new in the paraphrase")
    message = serializers.CharField(allow_blank=True, help_text="the line the pages show; empty when neither has any")


class PairChecksSerializer(serializers.Serializer):
    """A pair's numbers (by value), units (by identity: km → miles fails) and names (kept or renamed
    consistently)."""

    numbers = CheckSerializer()
    units = CheckSerializer()
    names = CheckSerializer()

    class Meta:
        ref_name = "PairChecks"


CHECKS_SCHEMA = PairChecksSerializer()

DEFAULT_ERRORS = {
    "400": "The request body or a query parameter is invalid.",
    "401": "No credentials, or a token that is not valid.",
    "403": "The caller's role may not do this (or a session request lacks its CSRF token).",
    "404": "No such object for this caller, or no such page.",
    "415": "The request body's media type is not one this operation reads.",
    "429": "Too many requests: try again after Retry-After seconds.",
}


class ParalabAutoSchema(AutoSchema):
    def get_operation(self, *args: Any, **kwargs: Any) -> dict | None:
        operation = super().get_operation(*args, **kwargs)
        if operation is None:
            return None
        parameters = operation.get("parameters", [])
        for parameter in parameters:
            if parameter.get("in") == "query" and not parameter.get("required"):
                # DRF reads ``?kind=`` like no ``kind`` at all (the pages' filter forms send blanks).
                parameter.setdefault("allowEmptyValue", True)
        locations = {parameter.get("in") for parameter in parameters}
        codes = set()
        if "requestBody" in operation or self.method in ("POST", "PUT", "PATCH") or "query" in locations:
            codes.add("400")
        if not all(isinstance(permission, AllowAny) for permission in self.view.get_permissions()):
            codes |= {"401", "403"}
        if locations & {"path", "query"}:
            codes.add("404")
        if "requestBody" in operation:
            codes.add("415")
        if self.view.get_throttles():
            codes.add("429")
        responses = operation.setdefault("responses", {})
        missing = [code for code in sorted(codes) if code not in responses]
        if missing:
            error = self.resolve_serializer(ErrorSerializer, "response").ref
            for code in missing:
                responses[code] = {"description": DEFAULT_ERRORS[code],
                                   "content": {"application/json": {"schema": error}}}
        return operation
