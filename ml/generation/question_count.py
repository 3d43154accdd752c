"""A "How many/much …?" question set as a task about the count or amount: "How many pens does he
have now?" -> "Find the number of pens he has now."; "How much money is left?" -> "Find the amount
of money that is left."

``question_as_task`` already asks "Find how many pens he has now."; this is the other way a
teacher words the same task, so a problem whose question is a count gets a second question rule to
combine with the structural and lexical steps (a variant counts as worth handing out when it
differs in more than one place).

Only the problem's last sentence changes, and only the question word: the counted noun phrase and
the clause after it stay word for word ("that" is added when the clause's verb follows the noun
directly: "how many apples were eaten" -> "the number of apples that were eaten"). Refused:

- no noun after "how many" ("How many does he have?"), or a noun phrase with a comparative, "of"
  or a pronoun ("how many more pages", "how many of them");
- "how much" before a plural or no noun ("How much does it cost?"), "how many" before a singular;
- a currency counted ("how many dollars": "the number of dollars" is not how a teacher writes it);
- everything ``question_as_task`` refuses (a question it cannot set as a task).

>>> count_as_task("Ram has 12 pens. He buys 3 more. How many pens does he have now?")
'Ram has 12 pens. He buys 3 more. Find the number of pens he has now.'
>>> count_as_task("A jar has 20 l of water. How much water is left after 5 l are used?")
'A jar has 20 l of water. Find the amount of water that is left after 5 l are used.'
>>> count_as_task("Ram has 12 pens. How many more pens does he need?") is None
True
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..text.nlp import DEFAULT_SPACY_MODEL, parse
from .question_form import LastSentenceRule, rewrite_last_sentence
from .question_task import embedded_question, split_question

__all__ = ["CountAsTaskGenerator", "count_as_task"]

# Tags the counted noun phrase may hold ("pens", "different ways", "red marbles", "apple trees").
_NP_TAGS = {"JJ", "NN", "NNS", "HYPH", "VBN"}
_CURRENCIES = frozenset({
    "dollar", "dollars", "cent", "cents", "rupee", "rupees", "rs", "euro", "euros", "pound", "pounds", "penny",
    "pennies", "paise", "yen", "franc", "francs"})
# Words that make "the number of …" wrong or change the question ("how many times as many",
# "how many more", "how many fewer", "how many less", "how many other").
_NOT_COUNTED = frozenset({"more", "fewer", "less", "other", "times", "as", "extra", "additional", "else"})


def _counted(question: str, embedded: str, spacy_model: str) -> str | None:
    """``embedded`` ("how many pens he has now", the question ``question`` with its auxiliary put
    back) as "the number of pens he has now", or None. The counted phrase is read from the
    question's own parse (in the embedded word order the tagger takes "pens" for a verb)."""
    match = re.match(r"how (?P<word>many|much) ", question, re.I)
    if match is None:
        return None
    doc = parse(question, spacy_model)
    if len(doc) < 4 or doc[1].lower_ != match["word"].lower():
        return None
    end = 2
    while end < len(doc) and doc[end].tag_ in _NP_TAGS and doc[end].lower_ not in _NOT_COUNTED:
        end += 1
    if end == 2 or end == len(doc) or doc[end - 1].tag_ not in ("NN", "NNS"):
        return None
    after = doc[end]
    if not (after.tag_.startswith("VB") or after.tag_ == "MD"):
        return None  # "how many more", "how many of them", "how many, if …": not a plain count
    head = doc[end - 1]
    many = match["word"].lower() == "many"
    if (many and head.tag_ != "NNS") or (not many and head.tag_ != "NN"):
        return None
    if any(t.lower_ in _CURRENCIES for t in doc[2:end]):
        return None
    noun = doc[2:end].text
    prefix = f"{match[0]}{noun} "
    if not embedded.lower().startswith(prefix.lower()):
        return None
    clause = embedded[len(prefix):]
    inverted = re.match(r"(?P<verb>is|are|was|were) there\b ?", clause)
    if inverted is not None:  # "how many castles are there in Scotland": "… castles there are in Scotland"
        rest = clause[inverted.end():]
        clause, link = f"there {inverted['verb']}" + (f" {rest}" if rest else ""), ""
    elif embedded.lower() == question.lower():
        link = "that "  # nothing moved: the counted phrase is the clause's subject ("how many apples were eaten")
    else:
        link = ""  # the clause has a subject of its own ("he has now", "the family can …")
    amount = "number" if many else "amount"
    return f"the {amount} of {noun} {link}{clause}"


def count_as_task(text: str, *, spacy_model: str = DEFAULT_SPACY_MODEL) -> str | None:
    """``text`` with its last sentence, a "How many/much <noun> …?" question, set as a task about the
    number or amount ("Find the number of pens he has now."), or None."""
    def rewrite(sentence: str, before: str) -> str | None:
        split = split_question(sentence)
        if split is None:
            return None
        pre, q = split
        if not re.match(r"how (many|much) ", q, re.I):
            return None  # "In how many ways …", "For how many days …": the preposition would be lost
        embedded = embedded_question(q, spacy_model)
        if embedded is None:
            return None
        counted = _counted(q, embedded, spacy_model)
        if counted is None:
            return None
        return f"{pre}{'find' if pre else 'Find'} {counted}."
    return rewrite_last_sentence(text, spacy_model, rewrite)


@dataclass(frozen=True)
class CountAsTaskGenerator(LastSentenceRule):
    """The problem with its "How many/much …?" question set as a task about the number or amount
    ("How many pens does he have?" -> "Find the number of pens he has.")."""

    name: str = "count_as_task"
    description: str = ("A 'How many …?' question set as a task about the number: 'How many pens does he have?' "
                        "becomes 'Find the number of pens he has.'")
    kind: str = "rule"
    refusal: str = "the question is not a 'How many/much <noun> …?' question this rule can set as a task"

    def rewrite(self, text: str, spacy_model: str) -> str | None:
        return count_as_task(text, spacy_model=spacy_model)
