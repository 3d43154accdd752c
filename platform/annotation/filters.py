"""The filters of the label lists: "My labels", the adjudication screen and their API lists.

Each query parameter is read strictly. A value the parameter does not take is a ``FilterError``
naming the parameter and what it allows (the pages and the API answer it with 400), never
ignored: a mistyped filter must not show an unfiltered list that looks filtered. An empty value is
no filter (the pages' forms send "Any" that way).

>>> label_filters_parse({"label": "invalid", "generator": "paraqd:f1"}, parameters=("label", "generator"))
LabelFilters(valid=False, generator='paraqd:f1', annotator=None, disagreement_only=True)
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Mapping

LABEL_VALUES = {"valid": True, "invalid": False}
# Generator names as the platform writes them: stead, pap, reorder, paraqd:f1, import:csv,
# pp_permutation+synonym (Candidate.generator holds at most 64 characters).
GENERATOR_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:+\-]{0,63}")
GENERATOR_RULE = "1 to 64 letters, digits and _ . : + - starting with a letter or digit (e.g. stead, paraqd:f1)"
_BOOLEANS = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}
_ID = re.compile(r"[0-9]{1,18}")
FILTERS = ("label", "generator", "annotator", "disagreement")


class FilterError(ValueError):
    """A query parameter with a value it does not take (→ 400 with ``message``)."""

    def __init__(self, parameter: str, message: str):
        self.parameter = parameter
        self.message = message
        super().__init__(f"{parameter}: {message}")


@dataclass(frozen=True)
class LabelFilters:
    """``valid``: labels saying valid (True) or invalid (False), None for both. ``generator``: the
    candidate's generator. ``annotator``: a user id (items that annotator labelled; with ``valid``,
    labelled so by them). ``disagreement_only``: items whose labels split (the adjudication screen)."""

    valid: bool | None = None
    generator: str | None = None
    annotator: int | None = None
    disagreement_only: bool = True

    def narrows(self) -> bool:
        """Whether anything beyond the defaults is asked for."""
        return self.valid is not None or self.generator is not None or self.annotator is not None


def shown(value: str) -> str:
    """The refused value as the message quotes it: without control characters, at most 40."""
    clean = "".join(ch for ch in value if ch.isprintable())
    return clean if len(clean) <= 40 else clean[:39] + "…"


def _single(query: Mapping, name: str) -> str:
    """The one value of ``name`` (empty when absent); given twice or more is ambiguous."""
    getlist = getattr(query, "getlist", None)
    values = getlist(name) if getlist is not None else ([query[name]] if name in query else [])
    if len(values) > 1:
        raise FilterError(name, f"given {len(values)} times; give it once")
    return str(values[0]).strip() if values else ""


def parse_label(value: str) -> bool | None:
    if value == "":
        return None
    if value not in LABEL_VALUES:
        raise FilterError("label", f'"{shown(value)}" is not a label; allowed: valid, invalid (empty for both)')
    return LABEL_VALUES[value]


def parse_generator(value: str) -> str | None:
    if value == "":
        return None
    if not GENERATOR_NAME.fullmatch(value):
        raise FilterError("generator", f'"{shown(value)}" is not a generator name; a name is {GENERATOR_RULE}')
    return value


def parse_id(name: str, value: str, *, what: str = "a user's id") -> int | None:
    if value == "":
        return None
    if not _ID.fullmatch(value) or int(value) == 0:
        raise FilterError(name, f'"{shown(value)}" is not an id; allowed: a positive whole number ({what})')
    return int(value)


def parse_boolean(name: str, value: str, *, default: bool) -> bool:
    if value == "":
        return default
    try:
        return _BOOLEANS[value.lower()]
    except KeyError:
        raise FilterError(name, f'"{shown(value)}" is not a yes or no; allowed: 1 or 0 (true/false, yes/no, on/off)') from None


def page_number(query: Mapping, *, allow_last: bool = False) -> int | str | None:
    """``?page=``: a positive whole number (``"last"`` too with ``allow_last``, as DRF reads it);
    None when absent or empty. Past the last page is the caller's business (a 404, or the last)."""
    value = _single(query, "page")
    if value == "":
        return None
    if allow_last and value == "last":
        return value
    if not _ID.fullmatch(value) or int(value) == 0:
        allowed = "a positive whole number" + (' or "last"' if allow_last else "")
        raise FilterError("page", f'"{shown(value)}" is not a page number; allowed: {allowed}')
    return int(value)


def label_filters_parse(query: Mapping, *, parameters: Iterable[str]) -> LabelFilters:
    """The filters among ``parameters`` (of ``label``, ``generator``, ``annotator``,
    ``disagreement``) read from ``query`` (a QueryDict or a plain mapping). FilterError for a
    value a parameter does not take. Whether an annotator id names someone who labelled the
    dataset is the caller's check (``annotator_check``)."""
    names = set(parameters)
    unknown = names - set(FILTERS)
    if unknown:  # a programming error, not a request's
        raise ValueError(f"no such filter: {', '.join(sorted(unknown))}")
    return LabelFilters(
        valid=parse_label(_single(query, "label")) if "label" in names else None,
        generator=parse_generator(_single(query, "generator")) if "generator" in names else None,
        annotator=parse_id("annotator", _single(query, "annotator")) if "annotator" in names else None,
        disagreement_only=(parse_boolean("disagreement", _single(query, "disagreement"), default=True)
                           if "disagreement" in names else True),
    )


def annotator_check(filters: LabelFilters, labellers: Mapping[int, str]) -> None:
    """FilterError unless ``filters.annotator`` is None or one of ``labellers`` (id → username:
    the people who labelled the dataset)."""
    if filters.annotator is None or filters.annotator in labellers:
        return
    known = ", ".join(f"{pk} ({name})" for pk, name in list(labellers.items())[:20])
    more = f" and {len(labellers) - 20} more" if len(labellers) > 20 else ""
    allowed = f"the id of someone who labelled it: {known}{more}" if labellers else "none yet: nobody labelled it"
    raise FilterError("annotator", f"no one with id {filters.annotator} labelled this dataset; allowed: {allowed}")
