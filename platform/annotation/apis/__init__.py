"""Annotation endpoints of the REST API (CONTRACT.md): the annotator's queue and labels, and the
staff reads of progress, agreement and disagreements, and adjudication.

Annotators work on the datasets they are members of (``Dataset.annotators``; staff too, when
they are members). A dataset outside that scope is not found (404), like a missing one. An item
they hold no assignment on cannot be labelled or skipped (403) and is not shown (404). They never
see a model score or another annotator's label. Staff endpoints answer 403 to annotators.

The endpoints live by resource: ``items`` (the annotator's items and labels) and ``review`` (the
staff reads of a dataset and adjudication), with what they share in ``common``. Every public name
is importable from here as before.
"""
from __future__ import annotations

from .common import GENERATOR_PARAMETER, LABEL_PARAMETER
from .items import (
    IDEMPOTENCY_KEY,
    AnnotationItemApi,
    AnnotationNextApi,
    HistorySerializer,
    ItemSkipApi,
    LabelInputSerializer,
    LabelSubmitApi,
    LabelUndoApi,
    OwnLabelListApi,
    OwnLabelSerializer,
    UndoInputSerializer,
    item_out,
    label_out,
    logger,
)
from .review import (
    AdjudicateInputSerializer,
    DatasetAgreementApi,
    DatasetProgressApi,
    DisagreementListApi,
    DisagreementQuerySerializer,
    ItemAdjudicateApi,
)

__all__ = (
    "GENERATOR_PARAMETER",
    "IDEMPOTENCY_KEY",
    "LABEL_PARAMETER",
    "AdjudicateInputSerializer",
    "AnnotationItemApi",
    "AnnotationNextApi",
    "DatasetAgreementApi",
    "DatasetProgressApi",
    "DisagreementListApi",
    "DisagreementQuerySerializer",
    "HistorySerializer",
    "ItemSkipApi",
    "ItemAdjudicateApi",
    "LabelInputSerializer",
    "LabelSubmitApi",
    "LabelUndoApi",
    "OwnLabelListApi",
    "OwnLabelSerializer",
    "UndoInputSerializer",
    "item_out",
    "label_out",
    "logger",
)
