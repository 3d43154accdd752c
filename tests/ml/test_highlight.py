"""Highlight spans for the labelling screen: numbers, units and entities, sorted and disjoint."""
import doctest

import ml.text.highlight
from ml.text.highlight import highlight_spans


def _view(text, **kwargs):
    return [(text[s["start"]:s["end"]], s["kind"], s["label"]) for s in highlight_spans(text, **kwargs)]


def test_numbers_and_units_with_their_labels():
    text = "A train at 20kmph covers 750m in 2 hrs; Rs. 500 is 25% of two thirds of it."
    assert _view(text, entities=False) == [
        ("20", "number", "integer"), ("kmph", "unit", "speed"), ("750", "number", "integer"),
        ("m", "unit", "length"), ("2", "number", "integer"), ("hrs", "unit", "time"),
        ("Rs.", "unit", "currency"), ("500", "number", "integer"), ("25%", "number", "percent"),
        ("two thirds", "number", "fraction"),
    ]


def test_spans_have_the_agreed_shape_and_positions():
    text = "Save 1 1/2 kg and $3.50."
    spans = highlight_spans(text, entities=False)
    assert all(set(s) == {"start", "end", "kind", "label"} for s in spans)
    assert [text[s["start"]:s["end"]] for s in spans] == ["1 1/2", "kg", "$", "3.50"]
    assert [s["label"] for s in spans if s["kind"] == "number"] == ["mixed", "decimal"]


def test_empty_and_plain_text_have_no_spans():
    assert highlight_spans("") == []
    assert highlight_spans("How many apples are left?", entities=False) == []


def test_entities_come_from_spacy(spacy_model):
    text = "Alex drove 300 km from New York to Boston."
    assert _view(text, spacy_model=spacy_model) == [
        ("Alex", "entity", "PERSON"), ("300", "number", "integer"), ("km", "unit", "length"),
        ("New York", "entity", "GPE"), ("Boston", "entity", "GPE"),
    ]
    assert all(kind != "entity" for _, kind, _ in _view(text, entities=False))


def test_overlaps_resolve_to_numbers_then_units_then_entities(monkeypatch):
    text = "Mr. Five Miles walked 5 miles."
    ml.text.highlight._cached_spans.cache_clear()
    # An entity that swallows a number word and a unit, and one that overlaps the digits.
    monkeypatch.setattr(ml.text.highlight, "_entity_spans",
                        lambda t, model: [(4, 14, "entity", "PERSON"), (0, 3, "entity", "PERSON"),
                                          (20, 24, "entity", "ORG")])
    try:
        spans = highlight_spans(text, spacy_model="fake")
    finally:
        ml.text.highlight._cached_spans.cache_clear()
    view = [(text[s["start"]:s["end"]], s["kind"]) for s in spans]
    assert view == [("Mr.", "entity"), ("Five", "number"), ("Miles", "unit"), ("5", "number"), ("miles", "unit")]
    starts = [s["start"] for s in spans]
    assert starts == sorted(starts)
    assert all(a["end"] <= b["start"] for a, b in zip(spans, spans[1:]))


def test_missing_spacy_pipeline_leaves_numbers_and_units():
    text = "Alex paid $20."
    assert _view(text, spacy_model="no_such_pipeline_installed") == [
        ("$", "unit", "currency"), ("20", "number", "integer")]


def test_results_are_cached_but_callers_get_fresh_dicts():
    text = "It costs 7 dollars."
    ml.text.highlight._cached_spans.cache_clear()
    first = highlight_spans(text, entities=False)
    first[0]["kind"] = "changed"
    second = highlight_spans(text, entities=False)
    assert second[0]["kind"] == "number"
    assert ml.text.highlight._cached_spans.cache_info().hits == 1


def test_docstring_example():
    failures, tried = doctest.testmod(ml.text.highlight, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0
