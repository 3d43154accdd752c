"""What the instruct LLM is asked when it rewords a word problem: one fixed system prompt, a few
worked examples (written for this project), and one rewording instruction per request.

The system prompt and the examples are the same for every request, whatever the instruction, so
llama.cpp evaluates that prefix once and reuses its KV cache; only the last user turn (the
instruction and the problem) is new. The instructions ask for the kinds of rewording a teacher
writes (depth 2 of the labelling guidelines): the story retold in new words, sentences merged or
split, the question asked first in plain English, another person or thing as the subject. The
probes measured that a bare "rewrite" instruction mostly gives the original back or solves it;
examples that keep every number and never answer are what moved the share of genuine rewordings.

>>> [style.name for style in STYLES]
['retell', 'restructure', 'question_first', 'new_subject']
>>> rewrite_messages("Tom has 3 apples. How many?", STYLES[0])[-1]["content"].startswith("Instruction:")
True
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["REWRITE_EXAMPLES", "REWRITE_SYSTEM", "STYLES", "Style", "rewrite_messages", "style_named"]


@dataclass(frozen=True)
class Style:
    """One way of rewording: ``name`` (stored with the candidate) and the instruction sent."""

    name: str
    instruction: str


STYLES: tuple[Style, ...] = (
    Style("retell", "Retell the problem in your own words, as another teacher would write it: new verbs, new "
                    "phrasing, the same facts."),
    Style("restructure", "Reword the problem with a different sentence structure: merge short sentences or split "
                         "a long one, and change how each fact is phrased."),
    Style("question_first", "Reword the problem so that it opens with what is asked, in natural English, and then "
                            "gives the facts in new words. Do not start with 'Given that'."),
    Style("new_subject", "Reword the problem so that the sentences have a different grammatical subject (another "
                         "person or thing of the problem comes first), in new words."),
)

REWRITE_SYSTEM = (
    "You reword math word problems for a teacher who needs a new version of the same problem. "
    "Rules: keep every number exactly as written and with the same unit; keep every person, object and "
    "relation; ask for exactly the same unknown; do not add, drop or change any fact; never solve the "
    "problem, never state or hint at the answer, never add a comment. Write natural English that a "
    "student reads easily. Reply with the reworded problem only.")

# (problem, style name, rewording): written for this project; none is from an evaluation set.
REWRITE_EXAMPLES: tuple[tuple[str, str, str], ...] = (
    ("Maria bakes 24 cookies. She gives 9 of them to her neighbours and puts the rest in 3 equal boxes. "
     "How many cookies are in each box?",
     "retell",
     "After baking 24 cookies, Maria hands 9 to the people next door. She shares out what is left evenly "
     "among 3 boxes. How many cookies end up in each box?"),
    ("A car travels at 60 km per hour for 2 hours and then at 80 km per hour for 3 hours. What is the "
     "total distance it travels?",
     "restructure",
     "For 2 hours a car keeps a speed of 60 km per hour, after which it speeds up to 80 km per hour and "
     "drives for 3 more hours. How far does it go altogether?"),
    ("The price of a jacket is $80. During a sale the price is reduced by 15%. What is the sale price of "
     "the jacket?",
     "question_first",
     "What does a jacket cost in a sale if its usual price of $80 is cut by 15%?"),
    ("A farmer has 12 cows and 3 times as many sheep. How many animals does the farmer have in all?",
     "new_subject",
     "The sheep on a farm outnumber the farmer's 12 cows 3 times over. Counting both, how many animals "
     "does the farmer own?"),
)


def style_named(name: str) -> Style:
    for style in STYLES:
        if style.name == name:
            return style
    raise KeyError(f"unknown rewording style {name!r}; expected one of {', '.join(s.name for s in STYLES)}")


def _user_turn(problem: str, style: Style) -> str:
    return f"Instruction: {style.instruction}\nProblem: {problem.strip()}"


def rewrite_messages(problem: str, style: Style) -> list[dict[str, str]]:
    """The chat messages asking for one rewording of ``problem`` in ``style``: the fixed system
    prompt and examples (a prefix shared by every request), then the instruction and the problem."""
    messages = [{"role": "system", "content": REWRITE_SYSTEM}]
    for example, name, rewording in REWRITE_EXAMPLES:
        messages.append({"role": "user", "content": _user_turn(example, style_named(name))})
        messages.append({"role": "assistant", "content": rewording})
    messages.append({"role": "user", "content": _user_turn(problem, style)})
    return messages
