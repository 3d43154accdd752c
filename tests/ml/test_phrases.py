import pytest

from ml.text.nlp import parse
from ml.text.phrases import benepar_available, phrase_spans


def test_dependency_backend_finds_np_vp_pp_cc(spacy_model):
    doc = parse("John bought 5 apples from the market and sold 3 of them.", spacy_model)
    result = phrase_spans(doc, backend="dependency")
    assert result.backend == "dependency"
    found = {(p.label, p.text) for p in result}
    assert {("NP", "John"), ("NP", "5 apples"), ("PP", "from the market"), ("CC", "and"),
            ("VP", "bought 5 apples from the market"), ("VP", "sold 3 of them")} <= found
    assert all(doc.text[p.start:p.end] == p.text for p in result)
    assert all(doc[p.token_start:p.token_end].text == p.text for p in result)


def test_vp_leaves_out_the_subject_of_a_question(spacy_model):
    result = phrase_spans(parse("How many hours did it take him in total?", spacy_model), backend="dependency")
    assert [p.text for p in result.with_label("VP")] == ["take him in total"]


def test_auto_uses_the_dependency_parse_when_benepar_has_no_model(spacy_model):
    # benepar_en3 cannot be downloaded here; "auto" must say which backend ran.
    result = phrase_spans(parse("A train covers 300 km in 5 hours.", spacy_model))
    assert result.backend == ("benepar" if benepar_available() else "dependency")
    assert ("PP", "in 5 hours") in {(p.label, p.text) for p in result}


def test_unknown_backend_is_refused(spacy_model):
    with pytest.raises(ValueError):
        phrase_spans(parse("A train.", spacy_model), backend="magic")


def test_benepar_model_lookup_never_downloads(tmp_path):
    assert benepar_available(str(tmp_path / "missing_model_dir")) is False
    assert benepar_available("no_such_benepar_model") is False
