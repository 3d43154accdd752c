"""People in a problem: given names by gender (written for this project), and the person mentions
of a text (spaCy's PERSON entities plus the known given names the small tagger misses).

Used by entity substitution (a name is replaced by one of the same gender when pronouns refer to
it) and by problem reordering (a moved pronoun is replaced by its person).

>>> name_gender("Maya"), name_gender("Tom"), name_gender("Sam"), name_gender("Zorblax")
('female', 'male', None, None)
>>> [(m.text, m.gender) for m in person_mentions("Maya had 5 apples. She gave 2 to Tom.")]
[('Maya', 'female'), ('Tom', 'male')]
>>> person_genders("Beverly had 10 dimes in his bank. His sister Maria borrowed 2 of his dimes.")
{'Beverly': 'male', 'Maria': 'female'}
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Literal

from ..text.nlp import DEFAULT_SPACY_MODEL, named_entities, parse

__all__ = [
    "FEMALE_NAMES",
    "MALE_NAMES",
    "PRONOUN_GENDER",
    "PersonMention",
    "SURNAMES",
    "TITLES",
    "UNISEX_NAMES",
    "antecedent",
    "name_gender",
    "person_genders",
    "person_mentions",
]

Gender = Literal["female", "male"]

FEMALE_NAMES = (
    "Maya", "Priya", "Sarah", "Emma", "Lucy", "Aisha", "Fatima", "Mei", "Sofia", "Chloe", "Hannah", "Zara",
    "Nadia", "Maria", "Julia", "Olga", "Anita", "Jessica", "Sally", "Katie", "Rachel", "Beverly", "Jenny",
    "Emily", "Olivia", "Ava", "Isabella", "Mia", "Amelia", "Harper", "Ella", "Lily", "Nora", "Zoe", "Leah",
    "Anna", "Sara", "Laura", "Linda", "Susan", "Karen", "Nancy", "Lisa", "Betty", "Helen", "Sandra",
    "Donna", "Carol", "Ruth", "Sharon", "Michelle", "Kimberly", "Deborah", "Amy", "Angela", "Melissa",
    "Rebecca", "Kathy", "Wendy", "Tina", "Nina", "Rosa", "Carmen", "Lucia", "Elena", "Ines", "Yuki",
    "Hana", "Sakura", "Ling", "Xiu", "Ananya", "Kavya", "Lakshmi", "Meera", "Deepa", "Sunita", "Amina",
    "Layla", "Yasmin", "Noura", "Ama", "Abena", "Chiamaka", "Ngozi", "Wanjiru", "Ingrid", "Astrid",
    "Freya", "Greta", "Heidi", "Tanya", "Irina", "Natasha", "Alice", "Clara", "Jane", "Mary", "Kate",
    "Molly", "Paula", "Diana", "Fiona", "Gina", "Joan", "Megan", "Nicole", "Tara", "Vera", "Sue",
)
MALE_NAMES = (
    "Tom", "John", "Ahmed", "Carlos", "Liam", "Ravi", "Kenji", "Diego", "Kwame", "Noah", "Yusuf", "Arjun",
    "Mateo", "Rahul", "Ivan", "Peter", "Ali", "Ben", "Daniel", "William", "Fred", "Tim", "Shawn", "James",
    "Robert", "Michael", "David", "Richard", "Joseph", "Thomas", "Charles", "Christopher", "Matthew",
    "Anthony", "Mark", "Donald", "Steven", "Paul", "Andrew", "Joshua", "Kevin", "Brian", "George", "Edward",
    "Ronald", "Timothy", "Jason", "Jeffrey", "Ryan", "Jacob", "Gary", "Eric", "Jonathan", "Stephen",
    "Larry", "Justin", "Scott", "Brandon", "Frank", "Gregory", "Raymond", "Samuel", "Patrick", "Jack",
    "Dennis", "Jerry", "Tyler", "Aaron", "Henry", "Adam", "Nathan", "Zachary", "Kyle", "Walter", "Harold",
    "Carl", "Arthur", "Lucas", "Oliver", "Ethan", "Mason", "Logan", "Leo", "Hugo", "Pablo", "Javier",
    "Miguel", "Luis", "Jorge", "Hiroshi", "Takeshi", "Wei", "Chen", "Jun", "Vikram", "Sanjay", "Amit",
    "Rohan", "Karan", "Omar", "Hassan", "Tariq", "Kofi", "Chidi", "Emeka", "Juma", "Lars", "Sven", "Erik",
    "Hans", "Dmitri", "Boris", "Alan", "Steve", "Mike", "Bob", "Jim", "Joe", "Max", "Sam", "Dan", "Ken",
    "Roy", "Ted", "Luke", "Adrian", "Victor", "Felix", "Oscar", "Edd", "Matt",
)
# Names given to any gender: replaced by any name when no pronoun tells the gender.
UNISEX_NAMES = ("Alex", "Jordan", "Taylor", "Casey", "Jamie", "Robin", "Riley", "Morgan", "Kim", "Chris",
                "Pat", "Avery", "Quinn", "Charlie", "Sasha", "Jesse")
SURNAMES = (
    "Sharma", "Lee", "Brown", "Garcia", "Smith", "Patel", "Nguyen", "Kim", "Okafor", "Silva", "Tanaka",
    "Müller", "Rossi", "Kowalski", "Haddad", "Mensah", "Johnson", "Lopez", "Singh", "Chen", "Ivanov",
    "Dubois", "Novak", "Hansen", "Murphy", "Khan", "Wilson", "Taylor", "Clark", "Lewis",
)
TITLES = ("Mr.", "Mrs.", "Ms.", "Dr.", "Prof.", "Miss", "Mr", "Mrs", "Ms", "Dr", "Prof", "Sir", "Madam")

# Names that are also ordinary English words: found only when spaCy itself calls them people.
_AMBIGUOUS = {"Mark", "Sue", "Will", "Bill", "May", "June", "April", "Grace", "Hope", "Rose", "Pat", "Max",
              "Jack", "Frank", "Joy", "Faith", "Summer", "Robin", "Victor", "Sandy", "Jun", "Ken", "Chen", "Wei",
              "Ling", "Kim", "Tina"}

_UNISEX = set(UNISEX_NAMES)
# "Sam" is in MALE_NAMES for replacements but tells no gender (Samantha, Samuel).
_GENDER: dict[str, Gender] = {}
for _name in FEMALE_NAMES:
    _GENDER[_name] = "female"
for _name in MALE_NAMES:
    _GENDER.setdefault(_name, "male")
for _name in ("Sam", "Jun"):
    _GENDER.pop(_name, None)
    _UNISEX.add(_name)

PRONOUN_GENDER: dict[str, Gender] = {
    "he": "male", "him": "male", "his": "male", "himself": "male",
    "she": "female", "her": "female", "hers": "female", "herself": "female",
}
_TITLE_GENDER: dict[str, Gender] = {"mr": "male", "mrs": "female", "ms": "female", "miss": "female",
                                    "sir": "male", "madam": "female"}
_TITLE_WORD = re.compile(r"^(mr|mrs|ms|dr|prof|miss|sir|madam)\.?$", re.IGNORECASE)


def name_gender(name: str) -> Gender | None:
    """The gender a given name (or a titled name, "Mrs. Lee") usually has, or None."""
    parts = name.split()
    if not parts:
        return None
    title = _TITLE_WORD.match(parts[0])
    if title:
        return _TITLE_GENDER.get(title.group(1).lower())
    first = parts[0]
    if first in _UNISEX:
        return None
    return _GENDER.get(first)


@dataclass(frozen=True)
class PersonMention:
    """A person named in a text: ``text == source[start:end]``; ``gender`` from the name or title."""

    start: int
    end: int
    text: str
    gender: Gender | None


_LIST_SEPARATOR = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+")


def person_mentions(text: str, spacy_model: str = DEFAULT_SPACY_MODEL) -> list[PersonMention]:
    """Every person mention of ``text`` in order: spaCy's PERSON entities, known given names it
    missed or mistook ("Maya had 5 apples": no entity in the small pipeline; "Beverly" tagged
    ORG), and every other occurrence of a name already found (the tagger finds "Maya" in one
    sentence, not in the next)."""
    found: dict[tuple[int, int], str] = {}
    for entity in named_entities(text, labels=("PERSON",), model=spacy_model):
        # "Jack and Jill" read as one entity is two people: each part is a mention of its own.
        offset = entity.start
        for part in _LIST_SEPARATOR.split(entity.text):
            start = text.index(part, offset)
            offset = start + len(part)
            if part.strip():
                found[(start, start + len(part))] = part
    doc = parse(text, spacy_model)
    known = set(_GENDER) | _UNISEX
    for token in doc:
        if token.text not in known or token.text in _AMBIGUOUS or token.pos_ != "PROPN":
            continue
        # A known name the tagger put in a one-word ORG/GPE is still a name; inside a longer
        # entity ("Beverly Hills") it is not.
        if token.ent_type_ not in ("", "PERSON") and not (token.ent_iob_ == "B" and (
                token.i + 1 >= len(doc) or doc[token.i + 1].ent_iob_ != "I")):
            continue
        found.setdefault((token.idx, token.idx + len(token.text)), token.text)
    names = set(found.values())
    for name in names:
        for match in re.finditer(rf"(?<![\w.]){re.escape(name)}(?!\w)", text):
            found.setdefault((match.start(), match.end()), name)
    # "Lee" after "Mrs. Lee" is the same person, with the title's gender.
    surname_gender = {n.split()[-1]: name_gender(n) for n in names if len(n.split()) > 1}
    mentions = []
    last_end = -1
    for (start, end), name in sorted(found.items(), key=lambda item: (item[0][0], -item[0][1])):
        if start < last_end:
            continue  # "John Smith" found whole and "John" on its own: keep the whole name
        gender = name_gender(name) or surname_gender.get(name)
        mentions.append(PersonMention(start, end, name, gender))
        last_end = end
    return mentions


def antecedent(
    gender: Gender, mentions: list[PersonMention], genders: dict[str, Gender | None]
) -> PersonMention | None:
    """The most recent of ``mentions`` (in text order) that a pronoun of ``gender`` can refer to:
    a person whose gender (``genders``, by name) is the same or unknown."""
    return next((m for m in reversed(mentions) if genders.get(m.text, m.gender) in (gender, None)), None)


def person_genders(text: str, spacy_model: str = DEFAULT_SPACY_MODEL) -> dict[str, Gender | None]:
    """Each person's gender as the text uses it: every he/his/she/her votes for the person it
    refers to (the most recent person of a compatible name; none compatible: the first person
    named, usually the problem's protagonist), and the majority wins; without a clear majority,
    the name's usual gender ("Beverly had 10 dimes in his bank" -> male)."""
    mentions = person_mentions(text, spacy_model)
    lexicon = {m.text: m.gender for m in mentions}
    votes: dict[str, Counter[str]] = {name: Counter() for name in lexicon}
    if mentions:
        for token in parse(text, spacy_model):
            pronoun = PRONOUN_GENDER.get(token.lower_) if token.pos_ == "PRON" else None
            if pronoun is None:
                continue
            before = [m for m in mentions if m.end <= token.idx]
            if not before:
                continue
            person = antecedent(pronoun, before, lexicon) or mentions[0]
            votes[person.text][pronoun] += 1
    genders: dict[str, Gender | None] = {}
    for name, gender in lexicon.items():
        ranked = votes[name].most_common()
        if ranked and (len(ranked) == 1 or ranked[0][1] > ranked[1][1]):
            genders[name] = ranked[0][0]  # type: ignore[assignment]
        else:
            genders[name] = gender
    return genders
