"""The prompts of solving: the solve prompt with three worked examples, and the masked-number
(backward) check, which hides one number of a problem and asks for it back given the answer.

The examples are original, written for this module, and each program is one the evaluator
accepts (a test evaluates them): a straight-line one, one with percentages, one where equations
over unknowns are the natural way to write it. The instruction asks for a program rather than an
explanation because a small model's prose arithmetic is where it errs, and a program is what the
safe evaluator can check.

>>> [m["role"] for m in solve_messages("Tom has 3 apples and buys 4 more. How many does he have?")]
['system', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user']
>>> import random
>>> masked = mask_number("A pen costs $3 and a book costs $12.", random.Random(0))
>>> masked.text_with_blank, masked.hidden_value
('A pen costs $3 and a book costs $___.', 12.0)
"""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from ml.text.number_mentions import numeral_value
from ml.text.numbers import find_numbers

from .answers import format_answer

__all__ = ["BLANK", "MASKED_EXAMPLES", "MASKED_SYSTEM", "SOLVE_EXAMPLES", "SOLVE_SYSTEM", "MaskedProblem",
           "mask_number", "masked_messages", "solve_messages"]

SOLVE_SYSTEM = (
    "Solve the math word problem. Do not explain. Write a short program: one line per step, "
    "`name = arithmetic expression` using only numbers from the problem and names defined on earlier "
    "lines; the last line is `answer = ...`. When it is easier, write equations over unknown names "
    "instead (for example `x + y = 10`), one per line, and end with `answer = x`."
)

# (problem, program, answer): original examples, checked by the evaluator in the tests.
SOLVE_EXAMPLES: tuple[tuple[str, str, float], ...] = (
    (
        "A baker makes 24 muffins in each batch. She bakes 5 batches and keeps 18 muffins for "
        "herself. She sells the rest. How many muffins does she sell?",
        "muffins = 24 * 5\nanswer = muffins - 18",
        102.0,
    ),
    (
        "A jacket costs $80. It is on sale for 25% off, and a 5% sales tax is added to the sale "
        "price. How much does the jacket cost with tax?",
        "sale_price = 80 * (1 - 25 / 100)\ntax = sale_price * 5 / 100\nanswer = sale_price + tax",
        63.0,
    ),
    (
        "Adult tickets to a school play cost $5 and child tickets cost $3. A family bought 9 tickets "
        "and paid $35 in all. How many adult tickets did they buy?",
        "adults + children = 9\n5 * adults + 3 * children = 35\nanswer = adults",
        4.0,
    ),
)

BLANK = "___"

MASKED_SYSTEM = (
    "In the math word problem one number has been replaced by ___. You are told the problem's "
    "answer. Find the missing number. Do not explain. Write a short program: one line per step, "
    "`name = arithmetic expression` or an equation that uses the unknown `hidden` for the missing "
    "number (for example `hidden - 7 = 30`); the last line is `answer = hidden`."
)

# (problem with a blank, the problem's answer, program, the hidden number).
MASKED_EXAMPLES: tuple[tuple[str, float, str, float], ...] = (
    (
        "Mia has ___ stickers. She gives 7 to her brother and then buys 12 more. How many stickers "
        "does she have now?",
        30.0,
        "hidden - 7 + 12 = 30\nanswer = hidden",
        25.0,
    ),
    (
        "A shirt that costs $20 is sold at ___% off. What is its sale price?",
        15.0,
        "20 * (1 - hidden / 100) = 15\nanswer = hidden",
        25.0,
    ),
)


def solve_messages(problem: str) -> list[dict]:
    """Chat messages asking for a solving program: the instruction, three worked examples, the
    problem. Plain dicts in the OpenAI shape, for any chat runtime."""
    messages = [{"role": "system", "content": SOLVE_SYSTEM}]
    for example, program, _ in SOLVE_EXAMPLES:
        messages += [{"role": "user", "content": example}, {"role": "assistant", "content": program}]
    messages.append({"role": "user", "content": problem.strip()})
    return messages


def _masked_user(masked_text: str, answer: float | str) -> str:
    shown = format_answer(answer) if isinstance(answer, (int, float)) else str(answer).strip()
    return f"{masked_text.strip()}\nThe answer to the problem is {shown}. What is the missing number ___?"


def masked_messages(masked_text: str, answer: float | str) -> list[dict]:
    """Chat messages asking for the hidden number of ``masked_text`` given the problem's answer.

    >>> masked_messages("Sam has ___ coins and finds 2.", 9)[-1]["content"].splitlines()[-1]
    'The answer to the problem is 9. What is the missing number ___?'
    """
    messages = [{"role": "system", "content": MASKED_SYSTEM}]
    for example, example_answer, program, _ in MASKED_EXAMPLES:
        messages += [{"role": "user", "content": _masked_user(example, example_answer)},
                     {"role": "assistant", "content": program}]
    messages.append({"role": "user", "content": _masked_user(masked_text, answer)})
    return messages


@dataclass(frozen=True)
class MaskedProblem:
    """A problem with one number replaced by :data:`BLANK`; ``hidden_span`` is the (start, end)
    of the replaced digits in the original text, ``hidden_value`` their value as written
    (25 for "25%": the percent sign stays in the text)."""

    text_with_blank: str
    hidden_value: float
    hidden_span: tuple[int, int]


def mask_number(problem: str, rng: random.Random) -> MaskedProblem:
    """Hide one number (digits) of ``problem``, chosen with ``rng`` among those whose value occurs
    once, so the blank cannot be copied from elsewhere in the text. Raises ``ValueError`` when the
    problem has no number to hide."""
    mentions = find_numbers(problem)
    if not mentions:
        raise ValueError("the problem has no number to hide")
    values = [numeral_value(m.text) for m in mentions]
    counts = Counter(values)
    unique = [i for i, value in enumerate(values) if counts[value] == 1]
    index = rng.choice(unique or list(range(len(mentions))))
    mention = mentions[index]
    end = mention.end
    if mention.kind == "percent":
        end = mention.start + len(mention.text.rstrip("%").rstrip())
    text = problem[:mention.start] + BLANK + problem[end:]
    return MaskedProblem(text, float(values[index]), (mention.start, end))
