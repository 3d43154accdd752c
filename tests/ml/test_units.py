import pytest

from ml.text.units import (
    CATEGORIES,
    UNITS,
    expand_abbreviation,
    find_units,
    render_unit,
    same_category_units,
    unit_signature,
)


def _one(text):
    mentions = find_units(text)
    assert len(mentions) == 1, mentions
    return mentions[0]


@pytest.mark.parametrize("abbreviation", ["km/h", "kmph", "km/hr", "kmh", "kph", "km per hour", "Kmph", "KMPH"])
def test_kilometre_per_hour_abbreviations(abbreviation):
    mention = _one(f"The car moves at 20 {abbreviation}.")
    assert mention.unit_key == "kilometre_per_hour"
    assert mention.category == "speed" and mention.is_abbreviation
    assert expand_abbreviation(mention) == "kilometres per hour"
    assert expand_abbreviation(mention, plural=False) == "kilometre per hour"


@pytest.mark.parametrize(("text", "key", "expanded"), [
    ("1 km", "kilometre", "kilometre"),
    ("3 kms", "kilometre", "kilometres"),
    ("2.5 hrs", "hour", "hours"),
    ("1 hr", "hour", "hour"),
    ("Rs 5 per hr", "hour", "hour"),
    ("5 mins", "minute", "minutes"),
    ("30 secs", "second", "seconds"),
    ("4 kg", "kilogram", "kilograms"),
    ("250 g", "gram", "grams"),
    ("250 gm", "gram", "grams"),
    ("3 lbs", "pound", "pounds"),
    ("10 cm", "centimetre", "centimetres"),
    ("6 mm", "millimetre", "millimetres"),
    ("5 ft", "foot", "feet"),
    ("1 ft", "foot", "foot"),
    ("3 yd", "yard", "yards"),
    ("9 m/s", "metre_per_second", "metres per second"),
    ("60 mph", "mile_per_hour", "miles per hour"),
    ("5 sq ft", "square_foot", "square feet"),
    ("2 L", "litre", "litres"),
    ("20 \u00b0C", "degree_celsius", "degrees Celsius"),
])
def test_abbreviations_expand_with_number_agreement(text, key, expanded):
    mention = find_units(text)[-1]
    assert mention.unit_key == key
    assert expand_abbreviation(mention) == expanded


def test_units_glued_to_numbers():
    mentions = find_units("A car at 20kmph passes a 750m bridge in 1.5hrs.")
    assert [(m.text, m.unit_key, m.number.text) for m in mentions] == [
        ("kmph", "kilometre_per_hour", "20"), ("m", "metre", "750"), ("hrs", "hour", "1.5")]


def test_currency_symbols_before_numbers():
    mentions = find_units("He paid $20, Rs. 500, Rs.30 and \u20ac4 for 50\u00a2 of sweets.")
    assert [(m.text, m.unit_key, m.prefix, m.number.text) for m in mentions] == [
        ("$", "dollar", True, "20"), ("Rs.", "rupee", True, "500"), ("Rs.", "rupee", True, "30"),
        ("\u20ac", "euro", True, "4"), ("\u00a2", "cent", False, "50")]
    assert expand_abbreviation(mentions[1]) == "rupees"


def test_in_is_an_inch_only_after_a_number_and_not_as_a_preposition():
    assert [m.text for m in find_units("A 5 in long nail, a 3in screw.")] == ["in", "in"]
    assert find_units("There are 5 in the box and 3 in total.") == []
    assert find_units("Speed in m/s?")[0].unit_key == "metre_per_second"


def test_ambiguous_words_need_a_quantity():
    assert find_units("The second train left on foot, 20 per cent faster.") == []
    assert [m.unit_key for m in find_units("It took 30 seconds, a minute and 2 m.")] == ["second", "minute", "metre"]
    assert find_units("I am 5 and M is big.") == []


def test_full_forms_are_not_abbreviations():
    mentions = find_units("It flies at 900 kilometers per hour for 3 hours.")
    assert [(m.text, m.unit_key, m.is_abbreviation) for m in mentions] == [
        ("kilometers per hour", "kilometre_per_hour", False), ("hours", "hour", False)]


def test_paper_categories_exist_with_several_units():
    for category in ("currency", "length", "time", "weight", "speed"):
        assert len([u for u in UNITS.values() if u.category == category]) >= 4
    assert set(u.category for u in UNITS.values()) <= set(CATEGORIES)


def test_same_category_units_never_cross_categories():
    for key, unit in UNITS.items():
        others = same_category_units(key)
        assert others and key not in others
        assert {UNITS[o].category for o in others} == {unit.category}
    with pytest.raises(KeyError):
        same_category_units("furlong")


def test_every_surface_form_is_found_as_its_unit():
    # Full words of pound sterling are "pound(s) sterling"; bare "pounds" is the weight.
    for unit in UNITS.values():
        for abbreviation in unit.abbreviations:
            text = f"It costs {abbreviation} 5 now." if abbreviation in unit.prefix_symbols else f"It is 5 {abbreviation} long."
            assert [(m.text, m.unit_key) for m in find_units(text)][:1] == [(abbreviation, unit.key)], text
        for form in (unit.singular, unit.plural, *unit.variants):
            assert [(m.text, m.unit_key) for m in find_units(f"It is 5 {form} long.")][:1] == [(form, unit.key)]


def test_rendered_units_read_back_as_the_same_unit():
    for key in UNITS:
        for abbreviated in (True, False):
            surface = render_unit(key, plural=True, abbreviated=abbreviated)
            assert find_units(f"It is 5 {surface} long.")[0].unit_key == key


def test_unit_signature_counts_units_however_written():
    assert unit_signature("20 kmph for 2 hrs and 3 hours") == {"kilometre_per_hour": 1, "hour": 2}
    assert unit_signature("20 kilometres per hour") == unit_signature("20 km/h")
