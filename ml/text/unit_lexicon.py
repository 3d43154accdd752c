"""The lexicon of the units that occur in word problems: each unit's category, canonical full
form (singular and plural), other spellings and abbreviations, and how to write one.
:mod:`ml.text.units` finds them in text.

>>> UNITS["kilometre_per_hour"].abbreviations[:2], UNITS["foot"].full(plural=True)
(('km/h', 'kmph'), 'feet')
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "CATEGORIES",
    "NEEDS_NUMBER",
    "UNITS",
    "Unit",
    "render_unit",
    "same_category_units",
]


CURRENCY, LENGTH, TIME, WEIGHT, SPEED = "currency", "length", "time", "weight", "speed"
AREA, VOLUME, TEMPERATURE = "area", "volume", "temperature"
CATEGORIES = (CURRENCY, LENGTH, TIME, WEIGHT, SPEED, AREA, VOLUME, TEMPERATURE)


@dataclass(frozen=True)
class Unit:
    """One unit. ``abbreviations[0]`` is the one used when a unit is written abbreviated;
    ``prefix_symbols`` are abbreviations written before the number ("$20", "Rs. 500")."""

    key: str
    category: str
    singular: str
    plural: str
    abbreviations: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()  # other full spellings, singular or plural
    prefix_symbols: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.category not in CATEGORIES:
            raise ValueError(f"unknown unit category {self.category!r} for {self.key}")

    def full(self, plural: bool) -> str:
        return self.plural if plural else self.singular


def _u(key, category, singular, plural, abbreviations=(), variants=(), prefix_symbols=()):
    return Unit(key, category, singular, plural, tuple(abbreviations), tuple(variants), tuple(prefix_symbols))


# Length units that also build speeds, areas and volumes: key -> (singular, plural, abbreviations, variants)
_LENGTHS = {
    "kilometre": ("kilometre", "kilometres", ("km", "kms"), ("kilometer", "kilometers")),
    "metre": ("metre", "metres", ("m", "mtr", "mtrs"), ("meter", "meters")),
    "centimetre": ("centimetre", "centimetres", ("cm", "cms"), ("centimeter", "centimeters")),
    "millimetre": ("millimetre", "millimetres", ("mm",), ("millimeter", "millimeters")),
    "decimetre": ("decimetre", "decimetres", ("dm",), ("decimeter", "decimeters")),
    "mile": ("mile", "miles", ("mi",), ()),
    "foot": ("foot", "feet", ("ft",), ()),
    "inch": ("inch", "inches", ("in",), ()),
    "yard": ("yard", "yards", ("yd", "yds"), ()),
}
_TIMES = {
    "second": ("second", "seconds", ("sec", "secs", "s"), ()),
    "minute": ("minute", "minutes", ("min", "mins"), ()),
    "hour": ("hour", "hours", ("hr", "hrs", "h"), ()),
}


def _build_units() -> dict[str, Unit]:
    units = [
        # Currency
        _u("dollar", CURRENCY, "dollar", "dollars", ("$", "USD", "US$"), (), ("$", "US$", "USD")),
        _u("cent", CURRENCY, "cent", "cents", ("\u00a2",)),
        _u("rupee", CURRENCY, "rupee", "rupees", ("Rs", "Rs.", "\u20b9", "INR", "Re", "Re."), (),
           ("Rs", "Rs.", "\u20b9", "INR", "Re", "Re.")),
        _u("paisa", CURRENCY, "paisa", "paise", (), ("paisas",)),
        _u("euro", CURRENCY, "euro", "euros", ("\u20ac", "EUR"), (), ("\u20ac", "EUR")),
        # Full-word "pound(s)" is the weight; written out, the currency is "pound(s) sterling".
        _u("pound_sterling", CURRENCY, "pound sterling", "pounds sterling", ("\u00a3", "GBP"), (), ("\u00a3", "GBP")),
        _u("penny", CURRENCY, "penny", "pence", (), ("pennies",)),
        _u("yen", CURRENCY, "yen", "yen", ("\u00a5", "JPY"), (), ("\u00a5", "JPY")),
        # Time (second, minute, hour come from _TIMES)
        _u("millisecond", TIME, "millisecond", "milliseconds", ("ms",)),
        _u("day", TIME, "day", "days"),
        _u("week", TIME, "week", "weeks", ("wk", "wks")),
        _u("month", TIME, "month", "months"),
        _u("year", TIME, "year", "years", ("yr", "yrs")),
        _u("decade", TIME, "decade", "decades"),
        _u("century", TIME, "century", "centuries"),
        # Weight
        _u("kilogram", WEIGHT, "kilogram", "kilograms", ("kg", "kgs"), ("kilogramme", "kilogrammes", "kilo", "kilos")),
        _u("gram", WEIGHT, "gram", "grams", ("g", "gm", "gms", "gr"), ("gramme", "grammes")),
        _u("milligram", WEIGHT, "milligram", "milligrams", ("mg",), ("milligramme", "milligrammes")),
        _u("tonne", WEIGHT, "tonne", "tonnes", (), ("ton", "tons", "metric ton", "metric tons")),
        _u("quintal", WEIGHT, "quintal", "quintals", ("qtl",)),
        _u("pound", WEIGHT, "pound", "pounds", ("lb", "lbs")),
        _u("ounce", WEIGHT, "ounce", "ounces", ("oz",)),
        # Speed (length-per-time units are generated below)
        _u("knot", SPEED, "knot", "knots"),
        # Area and volume (square/cubic units are generated below)
        _u("hectare", AREA, "hectare", "hectares", ("ha",)),
        _u("acre", AREA, "acre", "acres"),
        _u("litre", VOLUME, "litre", "litres", ("l", "L", "lt", "ltr", "ltrs"), ("liter", "liters")),
        _u("millilitre", VOLUME, "millilitre", "millilitres", ("ml", "mL"), ("milliliter", "milliliters")),
        _u("gallon", VOLUME, "gallon", "gallons", ("gal",)),
        # Temperature
        _u("degree_celsius", TEMPERATURE, "degree Celsius", "degrees Celsius",
           ("\u00b0C", "\u00baC", "\u00b0 C", "deg C", "degC"), ("degree centigrade", "degrees centigrade")),
        _u("degree_fahrenheit", TEMPERATURE, "degree Fahrenheit", "degrees Fahrenheit",
           ("\u00b0F", "\u00baF", "\u00b0 F", "deg F", "degF")),
        _u("kelvin", TEMPERATURE, "kelvin", "kelvins"),
    ]
    for key, (sg, pl, abbrs, variants) in _LENGTHS.items():
        units.append(_u(key, LENGTH, sg, pl, abbrs, variants))
    for key, (sg, pl, abbrs, variants) in _TIMES.items():
        units.append(_u(key, TIME, sg, pl, abbrs, variants))

    # Speeds: the usual length x time grid, with the conventional abbreviations first.
    named_speed_abbreviations = {
        ("kilometre", "hour"): ("km/h", "kmph", "kmh", "kph", "kmhr", "kmphr"),
        ("metre", "second"): ("m/s", "mps"),
        ("mile", "hour"): ("mph",),
        ("foot", "second"): ("ft/s", "fps"),
    }
    for lkey in ("kilometre", "metre", "centimetre", "mile", "foot"):
        lsg, lpl, labbrs, lvariants = _LENGTHS[lkey]
        lfull = (lsg, lpl, *lvariants)
        for tkey, (tsg, _tpl, tabbrs, _) in _TIMES.items():
            abbrs = list(named_speed_abbreviations.get((lkey, tkey), ()))
            for la in labbrs[:1]:
                for ta in (*tabbrs, tsg):
                    abbrs += [f"{la}/{ta}", f"{la} per {ta}"]
            for lf in lfull:
                for ta in tabbrs:
                    abbrs += [f"{lf}/{ta}", f"{lf} per {ta}"]
            variants = [f"{lf} per {tsg}" for lf in lfull]
            if tkey == "hour":
                variants += [f"{lf} an hour" for lf in lfull]
            units.append(_u(f"{lkey}_per_{tkey}", SPEED, f"{lsg} per {tsg}", f"{lpl} per {tsg}",
                            dict.fromkeys(abbrs), variants))

    # Square and cubic units of length.
    for lkey in ("kilometre", "metre", "centimetre", "millimetre", "foot", "inch", "yard", "mile"):
        lsg, lpl, labbrs, lvariants = _LENGTHS[lkey]
        la = labbrs[0]
        for category, word, short, power in ((AREA, "square", "sq", "2"), (VOLUME, "cubic", "cu", "3")):
            if category == VOLUME and lkey in ("kilometre", "mile"):
                continue
            sup = "\u00b2" if power == "2" else "\u00b3"
            abbrs = [f"{la}{sup}", f"{la}^{power}", f"{la}{power}", f"{short} {la}", f"{short}. {la}", f"{short}.{la}",
                     f"{short}{la}"]
            if (category, lkey) == (VOLUME, "centimetre"):
                abbrs.insert(0, "cc")
            variants = [f"{word} {v}" for v in lvariants] + [f"{short} {v}" for v in (lsg, lpl, *lvariants)]
            units.append(_u(f"{word}_{lkey}", category, f"{word} {lsg}", f"{word} {lpl}", abbrs, variants))
    return {u.key: u for u in units}


UNITS: dict[str, Unit] = _build_units()

# Abbreviations that are also words, letters or names: a unit only next to a number or after
# "per" / "/". Matched case-sensitively as written.
NEEDS_NUMBER = {
    "m", "g", "s", "h", "l", "L", "in", "min", "sec", "ms", "mi", "cc", "ha", "gal", "gr", "lt", "dm",
    "rs", "Re", "Re.", "wk", "mins", "hr", "yd",
    "m2", "m3", "cm2", "cm3", "mm2", "mm3", "km2", "ft2", "ft3", "in2", "in3", "yd2", "yd3", "mi2",
    "sqm", "cum", "cuin", "sqin", "cumm", "cuft", "cuyd", "sqft", "sqyd", "sqmi", "sqkm", "sqcm", "sqmm", "cucm",
}


def same_category_units(unit_key: str) -> list[str]:
    """Keys of the other units of ``unit_key``'s category.

    >>> "minute" in same_category_units("hour") and "kilogram" not in same_category_units("hour")
    True
    """
    return _same_category(unit_key)


@lru_cache(maxsize=None)
def _same_category(unit_key: str) -> list[str]:
    if unit_key not in UNITS:
        raise KeyError(f"unknown unit {unit_key!r}")
    category = UNITS[unit_key].category
    return [k for k, u in UNITS.items() if u.category == category and k != unit_key]


def render_unit(unit_key: str, *, plural: bool, abbreviated: bool, standalone: bool = False) -> str:
    """How to write a unit: its first abbreviation when ``abbreviated`` (prefix symbols and,
    when ``standalone`` (no number beside it), abbreviations that need a number are skipped),
    else its full form.

    >>> render_unit("hour", plural=True, abbreviated=True), render_unit("foot", plural=True, abbreviated=False)
    ('hr', 'feet')
    """
    unit = UNITS[unit_key]
    if abbreviated:
        for a in unit.abbreviations:
            if a in unit.prefix_symbols:
                continue
            if standalone and (a in NEEDS_NUMBER or a.replace(" ", "").replace(".", "") in NEEDS_NUMBER):
                continue
            return a
    return unit.full(plural)
