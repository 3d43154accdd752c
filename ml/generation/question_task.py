"""Questions set as a task: the problem's last sentence asked as "Find …" instead.

Two rules, each changing only the last sentence and only when it is exactly one of its forms, so
the facts, numbers and asked quantity stay word for word:

- ``question_as_task``: a wh-question becomes an embedded one after "Find", its inverted auxiliary
  put back after the subject ("How many lines will it have?" -> "Find how many lines it will
  have."; "did Caitlin get" -> "Caitlin got", by lemminflect). The question word's phrase is at most
  a few words with no verb of its own, the subject a short noun phrase; anything else is refused.
- ``blank_as_task``: an unfinished statement that ends where the answer would go ("The sum
  borrowed was :", "The diameter of the third ball is?") becomes "Find the sum borrowed." Many
  exam problems end this way and no other rule rewrites them.

>>> ask_as_task("Ram has 12 pennies. How many does he have now?")
'Ram has 12 pennies. Find how many he has now.'
>>> blank_as_task("A man invests Rs. 128 and gets Rs. 16. The interest obtained by him is:")
'A man invests Rs. 128 and gets Rs. 16. Find the interest obtained by him.'
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..text.nlp import DEFAULT_SPACY_MODEL, parse
from .question_form import LastSentenceRule, is_what_question, rewrite_last_sentence
from .words import inflect, lexicon_lemmas

__all__ = ["BlankAsTaskGenerator", "QuestionAsTaskGenerator", "ask_as_task", "blank_as_task", "embedded_question",
           "split_question"]

# What may open the sentence before the question: a condition ("If A, ", "When A, ") and a
# connective ("then", "Therefore, "). They stay as they are; "Find" follows them in lower case.
_LEAD = r"(?P<pre>(?:(?:if|when|since) [^?]+?, )?(?:(?:then|therefore|so|hence),? )?)"
_QUESTION = re.compile(
    _LEAD + r"(?P<q>(?:(?:at|by|in|for|to|on|from|with|of) )?(?:how|what|which|whose)\b[^?]*?)\s*\?$", re.I)
_AUX = {"is", "are", "was", "were", "will", "would", "can", "could", "should", "shall", "must", "might", "may",
        "does", "do", "did", "has", "have", "had"}
_DO_TENSE = {"does": "VBZ", "do": "VBP", "did": "VBD"}
# Tags a question word's phrase may hold ("how many", "by what percent", "how far apart",
# "what fraction of the tank"): no verb, no second question word, no clause of its own.
_WH_PHRASE_TAGS = {"WRB", "WDT", "WP", "WP$", "JJ", "JJR", "JJS", "RB", "RBR", "NN", "NNS", "NNP", "NNPS", "CD",
                   "DT", "PRP$", "POS", "HYPH", "NFP", "SYM", "$"}
# Tags a subject between the inverted auxiliary and the verb may hold ("it", "the train",
# "Caitlin", "doors B and C", "the value of the house", "there").
_SUBJECT_TAGS = {"PRP", "NNP", "NNPS", "NN", "NNS", "DT", "PRP$", "JJ", "JJR", "CD", "POS", "CC", "EX", "HYPH"}
_MAX_WH_WORDS, _MAX_SUBJECT_WORDS = 7, 7


def _lower_first(token) -> str:
    """A token that now follows "Find": lower case unless a name or "I"."""
    return token.text if token.tag_ in ("NNP", "NNPS") or token.text == "I" else token.text.lower()


# Nouns the tagger reads as the verb after a compound subject ("a railway train", "a cargo ship"),
# grown from blind labels: moving the auxiliary before them wrote "a railway will train".
_NOUNS_READ_AS_VERBS = frozenset({"train", "trains", "ship", "ships", "boat", "boats", "bus", "buses", "car", "cars",
                                  "truck", "trucks", "plane", "planes"})


def embedded_question(q: str, spacy_model: str) -> str | None:
    """The question ``q`` (no "?") as an embedded question ("how many lines will it have" ->
    "how many lines it will have"), or None when it is not of a form this rule can rewrite."""
    doc = parse(q, spacy_model)
    tokens = list(doc)
    first = 1 if tokens and tokens[0].tag_ == "IN" else 0
    if len(tokens) < 2 or tokens[first].lower_ not in ("how", "what", "which", "whose"):
        return None
    a = next((i for i in range(first + 1, len(tokens)) if tokens[i].tag_.startswith("VB") or tokens[i].tag_ == "MD"),
             None)
    if a is None or a - first > _MAX_WH_WORDS:
        return None
    wh = tokens[first + 1:a]
    if any(t.tag_ not in _WH_PHRASE_TAGS and not (t.tag_ == "IN" and t.lower_ == "of") for t in wh) or any(
            t.tag_ in ("WRB", "WDT", "WP", "WP$") for t in wh if t.lower_ not in ("much", "many")):
        return None
    words = [t.text_with_ws for t in tokens]
    words[0] = _lower_first(tokens[0]) + tokens[0].whitespace_
    verb = tokens[a]
    if verb.lower_ not in _AUX:
        # A main verb right after the question word's phrase: that phrase is the subject ("how many
        # contain neither …", "what percent of them own …"): nothing moves.
        return "".join(words).strip()
    rest = tokens[a + 1:]
    if verb.lemma_ == "be" and any(t.tag_ in ("NN", "NNS", "NNP", "NNPS") for t in wh) and not (
            rest and rest[0].lower_ == "there"):
        # "what percentage of the students are members …", "how many apples were eaten …": after a
        # question word's phrase with a noun, "be" has that phrase as its subject; nothing moves.
        return "".join(words).strip()
    j = 0
    if rest and rest[0].lower_ == "there":  # "how many … are there …", "… will there be …"
        j = 1
    else:
        while j < len(rest) and (rest[j].tag_ in _SUBJECT_TAGS or (rest[j].lower_ == "of" and j > 0)):
            j += 1
    if j == 0:
        # "how much should be added", "which element should necessarily be …": the question word's
        # phrase is the subject ("how many students do not play …"); a late "there" ("will be
        # there") is left alone.
        if any(t.lower_ == "there" for t in rest[:2]):
            return None
        if verb.lower_ in _DO_TENSE and not any(t.tag_ in ("NN", "NNS", "NNP", "NNPS") for t in wh):
            return None  # "how much does replacing the movies cost": a subject the tags do not show stays inverted
        return "".join(words).strip()
    if j > _MAX_SUBJECT_WORDS or rest[j - 1].tag_ in ("DT", "PRP$", "CC", "POS", "HYPH", "JJ", "IN"):
        return None
    if verb.lower_ in _DO_TENSE:
        if j == len(rest) and j >= 2 and rest[-1].tag_ in ("NN", "NNS") and "VERB" in lexicon_lemmas(rest[-1].lower_):
            # The tagger read a question's last word as a noun ("By what percent did the value of
            # the house change?", "How much did the shirts cost?"); after "did" + subject it is the verb.
            k = j - 1
        else:
            k = j  # the verb, after any adverbs ("did Jay originally buy")
            while k < len(rest) and rest[k].tag_ == "RB" and rest[k].lower_ not in ("not", "n't"):
                k += 1
            if k >= len(rest) or rest[k].tag_ not in ("VB", "VBP"):  # "did Marco's strawberries weigh": VBP
                return None
        form = inflect(rest[k].lemma_.lower(), _DO_TENSE[verb.lower_])
        if form is None:
            return None
        words[a] = ""
        words[a + k + 1] = form + rest[k].whitespace_
        return "".join(words).strip()
    subject_last = a + j
    after = rest[j] if j < len(rest) else None
    verb_later = any(t.tag_.startswith("VB") or t.tag_ == "MD" for t in rest[j:])
    there_be = rest[0].lower_ == "there" and verb.lemma_ == "be"
    # The auxiliary goes after the subject when a verb follows it ("will it have", "will they,
    # working together, take") or when it is the main verb "be" with no clause after the subject
    # ("how far apart are doors B and C", "how many values are there such that …").
    moves = (there_be or (after is not None and (after.tag_.startswith("VB") or (after.tag_ in (",", "RB") and verb_later)))
             or (verb.lemma_ == "be" and not verb_later))
    if not moves:
        return None
    if verb.tag_ == "MD" and after is not None and after.tag_ == "VBG":
        return None  # "can all three of them working together, complete …": "they can working" is not English
    if after is not None and after.lower_ in _NOUNS_READ_AS_VERBS:
        return None  # "will a railway train 64 m long pass …": "train" is the subject's noun, not its verb
    words[a] = ""
    last = tokens[subject_last]
    words[subject_last] = f"{last.text} {verb.lower_}{last.whitespace_ or ''}"
    if not last.whitespace_ and after is not None and after.text not in (",", ";"):
        words[subject_last] += " "
    return "".join(words).strip()


# Where a question may start after a comma or semicolon inside the sentence ("Of the possible
# selections, how many …", "He lost 5, how many does he have now?", "x is 85% water; how many …").
# Only "how" and "what": after a comma "which" and "whose" usually open a relative clause.
_INNER_QUESTION = re.compile(r"[,;] (?:then,? )?(?=(?:(?:at|by|in|for|to|on|from|with|of) )?(?:how|what)\b)", re.I)


def split_question(sentence: str) -> tuple[str, str] | None:
    """(what comes before the question, the question without "?"), or None."""
    sentence = sentence.strip()
    if is_what_question(sentence):  # "What is the X?" is question_form's ("Find the X.")
        return None
    match = _QUESTION.match(sentence)
    if match is not None:
        pre, q = match["pre"], match["q"]
    elif (inner := _INNER_QUESTION.search(sentence)) is not None and sentence.endswith("?"):
        pre, q = sentence[:inner.end()], sentence[inner.end():].rstrip(" ?")
    else:
        return None
    if re.search(r"\bor\b|\?", q):
        return None
    return pre, q


def ask_as_task(text: str, *, spacy_model: str = DEFAULT_SPACY_MODEL) -> str | None:
    """``text`` with its last sentence, a wh-question, set as a task ("How many lines will it
    have?" -> "Find how many lines it will have."), or None when it is not a question this rule
    can rewrite."""
    def rewrite(sentence: str, before: str) -> str | None:
        split = split_question(sentence)
        if split is None:
            return None
        pre, q = split
        embedded = embedded_question(q, spacy_model)
        if embedded is None:
            return None
        return f"{pre}{'find' if pre else 'Find'} {embedded}."
    return rewrite_last_sentence(text, spacy_model, rewrite)


_BLANK = re.compile(
    _LEAD + r"(?P<np>(?:the|its|his|her|their) [^?:;=]+?)\s*,?\s+"
    r"(?P<verb>is|are|was|were|will be|would be|should be|must be|shall be|can be)\s*[:?_.…\s]*$", re.I)
# An unfinished statement whose noun phrase is itself a choice or a clause is not a blank to fill.
_NOT_A_BLANK = re.compile(r"\b(following|which|what|how|who|whom|whose|then|if)\b", re.I)


def blank_as_task(text: str, *, spacy_model: str = DEFAULT_SPACY_MODEL) -> str | None:
    """``text`` with its last sentence, an unfinished statement that stops where the answer goes
    ("The sum borrowed was :"), set as a task ("Find the sum borrowed."), or None."""
    def rewrite(sentence: str, before: str) -> str | None:
        match = _BLANK.match(sentence.strip())
        if match is None or _NOT_A_BLANK.search(match["np"]) or len(match["np"].split()) > 25:
            return None
        np, pre = match["np"].rstrip(" ,"), match["pre"]
        np = np[:1].lower() + np[1:]
        return f"{pre}{'find' if pre else 'Find'} {np}."
    return rewrite_last_sentence(text, spacy_model, rewrite)


@dataclass(frozen=True)
class QuestionAsTaskGenerator(LastSentenceRule):
    """The problem with its wh-question set as a task ("How many lines will it have?" -> "Find how
    many lines it will have.")."""

    name: str = "question_as_task"
    description: str = "The question set as a task: 'How many lines will it have?' becomes 'Find how many lines it will have.'"
    kind: str = "rule"
    refusal: str = "the question is not a short 'How many/What/Which … ?' question this rule can set as a task"

    def rewrite(self, text: str, spacy_model: str) -> str | None:
        return ask_as_task(text, spacy_model=spacy_model)


@dataclass(frozen=True)
class BlankAsTaskGenerator(LastSentenceRule):
    """The problem's unfinished last statement set as a task ("The sum borrowed was :" -> "Find
    the sum borrowed.")."""

    name: str = "blank_as_task"
    description: str = "An unfinished last statement set as a task: 'The sum borrowed was :' becomes 'Find the sum borrowed.'"
    kind: str = "rule"
    refusal: str = "the problem does not end in an unfinished 'The … is' statement"

    def rewrite(self, text: str, spacy_model: str) -> str | None:
        return blank_as_task(text, spacy_model=spacy_model)
