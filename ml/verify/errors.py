"""The two ways evaluating a model-written program can be refused.

>>> error = UnsafeExpression("attribute access is not allowed")
>>> isinstance(error, EvaluationError), error.reason
(True, 'attribute access is not allowed')
"""
from __future__ import annotations

__all__ = ["EvaluationError", "UnsafeExpression"]


class EvaluationError(ValueError):
    """The program could not be evaluated (a syntax error, a division by zero, equations that do
    not determine the answer). ``reason`` is a short sentence a page can show as it is."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class UnsafeExpression(EvaluationError):
    """The program uses something the evaluator refuses on principle (a name, an attribute, an
    import, a call outside the whitelist) or exceeds a bound (length, nesting, a power's size)."""
