"""Word lists shared by the generators and the judge."""
from __future__ import annotations

__all__ = ["DOMAIN_TERMS"]

# The quantity words of word problems: swapping one for a synonym changes what is asked or given.
DOMAIN_TERMS = frozenset({
    "price", "cost", "profit", "loss", "gain", "interest", "principal", "rate", "area", "ratio", "speed", "sum",
    "average", "percent", "percentage", "discount", "tax", "salary", "wage", "volume", "perimeter", "distance",
    "age", "share", "capital", "amount", "total", "difference", "product", "fraction", "mixture", "solution",
    "work", "debt", "income", "commission", "value", "number", "digit", "length", "width", "breadth", "height",
    "weight", "radius", "diameter", "circumference", "side", "angle", "remainder", "quotient", "divisor",
    "multiple", "factor", "probability", "current", "stream", "sale", "expense", "investment", "deposit", "loan",
    "fee", "charge", "bill", "mark", "score", "term", "series", "element", "set", "case", "bar",
})
