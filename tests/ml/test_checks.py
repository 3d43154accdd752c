"""The one numbers/units/names check every page and endpoint shows for a pair (ml/checks.py)."""
from __future__ import annotations

import pytest

from ml.checks import pair_checks, quantity_values, unit_identities


@pytest.mark.parametrize("original, paraphrase, missing, new", [
    ("A train covers 100 km in 2 hours.", "A train covers 100 miles in 2 hours.", ["kilometre"], ["mile"]),
    ("A rod is 20 cm long.", "A rod is 20 m long.", ["centimetre"], ["metre"]),
    ("Tom paid $5 for a pen.", "Tom paid €5 for a pen.", ["dollar"], ["euro"]),
])
def test_a_changed_unit_fails_even_when_the_numbers_stay(original, paraphrase, missing, new):
    checks = pair_checks(original, paraphrase, names=False)
    assert checks["numbers"]["ok"] is True
    assert checks["units"]["ok"] is False
    assert (checks["units"]["only_original"], checks["units"]["only_paraphrase"]) == (missing, new)
    assert checks["units"]["message"].startswith("\u26a0 Units:")
    assert "only in the original" in checks["units"]["message"]


@pytest.mark.parametrize("original, paraphrase", [
    ("He walked 5 km.", "He walked 5 kilometres."),
    ("He walked 5 kms.", "He walked five kilometers."),
    ("It costs $4.50.", "It costs 4.50 dollars."),
    ("She drives at 20 km per hour.", "She drives at 20 kmph."),
    ("She drives at 20 km/hr for 3 hrs.", "For 3 hours she drives at 20 kilometres an hour."),
])
def test_equivalent_spellings_are_the_same_unit(original, paraphrase):
    checks = pair_checks(original, paraphrase, names=False)
    assert checks["units"]["ok"] is True, checks["units"]
    assert checks["numbers"]["ok"] is True, checks["numbers"]
    assert checks["units"]["message"].startswith("\u2713 Units")


def test_a_multiplier_word_counts_with_its_numeral():
    checks = pair_checks("Ann bought 2 dozen eggs for $3.", "Ann bought 24 eggs for 3 dollars.", names=False)
    assert checks["numbers"]["ok"] and checks["units"]["ok"]
    assert quantity_values("2 dozen eggs and 3 hundred pens") == [("2 dozen", 24), ("3 hundred", 300)]
    wrong = pair_checks("Ann bought 2 dozen eggs.", "Ann bought 2 eggs.", names=False)["numbers"]
    assert (wrong["ok"], wrong["only_original"], wrong["only_paraphrase"]) == (False, ["24"], ["2"])


def test_a_number_said_once_less_is_a_change():
    checks = pair_checks("3 boys and 3 girls.", "3 boys and girls.", names=False)["numbers"]
    assert checks["ok"] is False and checks["only_original"] == ["3"]


def test_compound_speeds_split_into_their_parts():
    assert [k for _, k in unit_identities("20 km per hour")] == ["kilometre", "hour"]


def _people(text, *names_at):
    return [{"start": i, "end": i + len(n), "kind": "entity", "label": "PERSON"} for n, i in names_at]


def test_names_may_be_renamed_consistently_but_not_lost():
    a = "Tom gave Ann 3 apples. How many does Tom have?"
    spans_a = _people(a, ("Tom", 0), ("Ann", 9), ("Tom", a.rindex("Tom")))
    lost = pair_checks(a, "He gave her 3 apples. How many does he have?", original_spans=spans_a,
                       paraphrase_spans=[])["names"]
    assert lost["ok"] is False and lost["only_original"] == ["Ann", "Tom"]
    renamed = "Ravi gave Ann 3 apples. How many does Ravi have?"
    spans_b = _people(renamed, ("Ravi", 0), ("Ann", 10), ("Ravi", renamed.rindex("Ravi")))
    ok = pair_checks(a, renamed, original_spans=spans_a, paraphrase_spans=spans_b)["names"]
    assert ok["ok"] is True and "renamed consistently (Tom \u2192 Ravi)" in ok["message"]
    half = "Ravi gave Ann 3 apples. How many does Tom have?"  # renamed at one mention only
    spans_c = _people(half, ("Ravi", 0), ("Ann", 10), ("Tom", half.rindex("Tom")))
    inconsistent = pair_checks(a, half, original_spans=spans_a, paraphrase_spans=spans_c)["names"]
    assert inconsistent["ok"] is False and inconsistent["only_paraphrase"] == ["Ravi"]


def test_a_mention_the_tagger_missed_is_still_counted():
    a = "Maya bought 12 apples. She gave 4 to Tom. How many does Maya have?"
    b = "Given that Maya bought 12 apples and she gave 4 to Tom, how many does Maya have?"
    # the tagger found one "Maya" in the original and labelled the paraphrase's an organisation
    spans_a = _people(a, ("Tom", a.index("Tom")), ("Maya", a.rindex("Maya")))
    spans_b = [dict(s, label="ORG") for s in _people(b, ("Maya", b.index("Maya")), ("Tom", b.index("Tom")))]
    names = pair_checks(a, b, original_spans=spans_a, paraphrase_spans=spans_b)["names"]
    assert names["ok"] is True and names["message"] == "\u2713 Names: all 2 kept"


def test_a_pair_with_no_units_says_nothing_about_units():
    checks = pair_checks("Tom has 3 apples.", "Tom owns 3 apples.", names=False)
    assert checks["units"] == {"ok": True, "original": [], "paraphrase": [], "only_original": [],
                               "only_paraphrase": [], "message": ""}
