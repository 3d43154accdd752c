"""Paper 002's candidate selection (Algorithm 1), without a neural solver.

The paper scores each candidate C_j of a problem P by similarity(C_j, P) times the relative
increase of a solver's loss, (L(C_j) - L(P)) / L(P), and keeps the argmax: the candidate most
like the original that the solver finds hardest. We have no trained solver, so (METHODS.md):

- hard filter: every number of the problem's equation survives in the candidate (values
  compared with :func:`ml.text.number_mentions.number_signature`, so "5" = "five"). An equation
  value counts when the source states it, or states 100 times it (the signature reads "5%"
  as 5 where an equation may write 0.05); equation constants that the problem never states
  (1, 100, 60 minutes in an hour) cannot survive a paraphrase and are not required. Without
  an equation, every number of the source must survive. Values are compared as sets, not
  counts: "3 red and 3 blue pens" may become "3 pens of each colour, red and blue";
- similarity: the ParaQD cosine ``scores["paraqd"]`` must be strictly greater than
  ``threshold`` (0.5, ParaQD's decision threshold: a valid paraphrase);
- "hardest valid" in place of the loss increase: among the survivors the *lowest* ParaQD score
  comes first, i.e. the valid paraphrase farthest from the original; ties by input order.

>>> cands = [SelectionCandidate(t, {"paraqd": s}) for t, s in [
...     ("Ann had 5 pens and bought 3.", 0.95),
...     ("Having 5 pens, Ann bought three more.", 0.7),
...     ("Ann had some pens and bought 3.", 0.8),
...     ("Ann bought 3 pens; she had 5.", 0.4)]]
>>> mwp_select("Ann had 5 pens and bought 3 more.", cands, k=2)
[1, 0]
"""
from __future__ import annotations

from collections.abc import Collection, Sequence
from fractions import Fraction

from ..text.number_mentions import number_signature
from .base import SelectionCandidate, check_k, score_of

__all__ = ["DEFAULT_MWP_THRESHOLD", "keeps_numbers", "mwp_select"]

DEFAULT_MWP_THRESHOLD = 0.5


def keeps_numbers(candidate_text: str, required: Collection[Fraction]) -> bool:
    """Whether every value of ``required`` is stated in ``candidate_text`` (digits or words).

    >>> keeps_numbers("She paid twelve dollars for 2 books.", [Fraction(12), Fraction(2)])
    True
    """
    stated = number_signature(candidate_text)
    return all(Fraction(v) in stated for v in required)


def mwp_select(
    source: str,
    candidates: Sequence[SelectionCandidate],
    *,
    k: int = 1,
    threshold: float = DEFAULT_MWP_THRESHOLD,
    equation_numbers: Collection[Fraction] | None = None,
) -> list[int]:
    """Indices of up to ``k`` candidates that keep the equation's numbers and score above
    ``threshold``, lowest ParaQD score first (see the module docstring)."""
    check_k(k)
    source_numbers = set(number_signature(source))
    if equation_numbers is None:
        required = source_numbers
    else:
        required = set()
        for value in map(Fraction, equation_numbers):
            if value in source_numbers:
                required.add(value)
            elif value * 100 in source_numbers:
                required.add(value * 100)
    valid = [
        i
        for i, c in enumerate(candidates)
        if score_of(c, "paraqd") > threshold and keeps_numbers(c.text, required)
    ]
    valid.sort(key=lambda i: (score_of(candidates[i], "paraqd"), i))
    return valid[:k]
