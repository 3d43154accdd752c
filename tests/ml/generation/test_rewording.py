"""The rewording lexicon: everyday words swapped only where the swap is safe, every mention alike,
never a number, name, label or arithmetic term."""
from __future__ import annotations

import random

import pytest

from ml.generation import GenerationResources, generate, get_generator, is_default
from ml.generation.base import NotApplicable
from ml.generation.rewording import LEXICON, reword


@pytest.mark.parametrize(("text", "expected"), [
    ("Maya buys 3 pens each day at the store.", "Maya purchases 3 pens every day at the shop."),
    ("She was able to finish the test in 40 minutes. Find the time left.",
     "She could complete the exam in 40 minutes. Determine the time left."),
    # every mention alike, inflected like the original
    ("The kids bought 4 tickets. Then the kids bought 2 more.",
     "The children purchased 4 tickets. Then the children purchased 2 more."),
    # "in order to" and a total at the end of a clause
    ("He sold 5 cakes in order to buy a book. How many cakes did he bake in all?",
     "He sold 5 cakes to purchase a book. How many cakes did he bake altogether?"),
    # a comparison keeps its degree; sharing adverbs where something is shared
    ("The largest box holds 9 balls, shared equally.", "The biggest box holds 9 balls, shared evenly."),
    # an adverb phrase only at a clause's edge
    ("Initially, Ann had 12 marbles.", "At first, Ann had 12 marbles."),
    # fixed phrases of word problems
    ("How long will it take 4 pipes to fill the tank?", "How much time will it take 4 pipes to fill the tank?"),
    ("If x is equal to 5 and y and z are equal to 3, what is x?", "If x equals 5 and y and z equal 3, what is x?"),
    ("A card is drawn at random. In the beginning, there were 52 cards.",
     "A card is taken randomly. At first, there were 52 cards."),
    ("Because of the rain, 4 games were moved. Find out how many remain.",
     "Due to the rain, 4 games were moved. Determine how many remain."),
    # a verb with its object or its "to"-infinitive; everyday nouns at every mention
    ("Tom plans to attend the fair and earns $20 there.", "Tom intends to go to the fair and makes $20 there."),
    ("Each student usually completes nearly 5 tests a week.", "Each pupil normally finishes almost 5 exams a week."),
    ("Finally, the teacher distributes 24 gifts among 6 kids.",
     "In the end, the instructor hands out 24 presents among 6 children."),
    # work, trains and interest: the words of rate problems, each only in its own sense
    ("A and B can do a piece of work in 10 days. B alone can do it in 15 days.",
     "A and B can complete a piece of work in 10 days. B alone can complete it in 15 days."),
    ("A train running at 54 km/hr crosses a pole in 9 seconds.", "A train traveling at 54 km/hr passes a pole in 9 seconds."),
    ("Rs. 800 grows at 5% per annum. In what time will it double?",
     "Rs. 800 grows at 5% per year. In how much time will it double?"),
    # exam words, each only in the sense a word problem gives it
    ("A train leaves Delhi at 6 am and covers 300 km in 5 hours.",
     "A train departs from Delhi at 6 am and travels 300 km in 5 hours."),
    ("Rs. 5600 is divided among A, B and C.", "Rs. 5600 is shared among A, B and C."),
    ("Pipe A can empty the cistern in 6 hours.", "Pipe A can drain the tank in 6 hours."),
    ("A coin is tossed 3 times.", "A coin is flipped 3 times."),
    ("He picks a card from a pack of 52 cards.", "He selects a card from a pack of 52 cards."),
    ("Each letter represents a digit.", "Each letter stands for a digit."),
    ("A shopkeeper sells an article at a profit of 20%.", "A shopkeeper sells an item at a profit of 20%."),
    ("The committee consists of 5 men. Two successive discounts are given.",
     "The committee is made up of 5 men. Two consecutive discounts are given."),
    ("5 labourers can finish the job in 10 days.", "5 workers can complete the job in 10 days."),
    ("What is the greatest number that divides 43 and 91?", "What is the largest number that divides 43 and 91?"),
    ("In how many ways can 3 people be selected from 10? He passed the examination.",
     "In how many ways can 3 people be chosen from 10? He passed the exam."),
    ("How many apples are there altogether?", "How many apples are there in total?"),
    # a phrase's output is not turned back by a word swap, nor a word swap's by a phrase
    ("They arrived simultaneously. At the same time, Bob left.", "They arrived at the same time. Simultaneously, Bob left."),
])
def test_safe_swaps_are_written_in(text, expected):
    assert reword(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # "needs to" is not "requires to"; the verb after it still changes
    ("John needs to buy 5 apples.", "John needs to purchase 5 apples."),
    ("He initially had 300 acres.", None),                   # "He at first had" reads badly
    ("In store A there are 5 shirts.", None),                # a label names one thing
    ("When 10 is divided by 3 the remainder is 1.", None),   # a division's remainder is not "the rest"
    ("Every 3 days he runs 5 km.", None),                    # "each 3 days" is not English
    ("He took a round trip by bus.", None),                  # a compound names a thing of its own
    ("She went to a different bakery.", None),               # "a distinct bakery" says something else
    ("A and B are equally efficient workers.", None),        # "evenly" only says how a thing is shared
    ("Will starts out with 40 marbles.", None),              # a phrasal verb: "begins out" is not English
    ("The wall was built in 8 days.", None),
    ("Half of them have the initial A, and the rest the initial C.", None),  # "initial" is a letter here                 # "build" only with its object
    ("Amy plans a party for 20 people.", None),              # "intends a party" is not English
    ("How long is the train if it is 300 m?", None),         # "how long" asks a length here
    ("The train is due to arrive at 5.", None),              # "due to" is not "because of"
    ("A train 300 m long crosses a bridge in 20 seconds.", None),  # a bridge's length counts: not "passes"
    ("A man runs 5 km and did his homework.", None),          # a person runs; homework is not "a work"
    # an inverted question: "work" is the verb, which the tagger reads as the object of "did"
    ("A machine made 9 shirts. How many minutes did the machine work today?", None),
    ("A number is divided by 5 and leaves a remainder of 3.", None),  # a division, not a sharing out
    ("Draw a line of 5 cm and cover the floor.", None),      # "take a line", "travel the floor"
    ("He picked 5 apples.", None),                           # only balls, cards and the like are "selected"
    ("What is the greatest common divisor of 12 and 18?", None),  # a term of its own
    ("He chose to walk.", None),                             # "selected to walk" is not English
    # "examination" as looking at a thing, not a test: "without exam the color"
    ("He picks out one pair without examination the color.", "He picks out one pair without examination the color."),
    ("The man leaves a tip of $5.", None),                   # a vehicle departs; a man leaves a tip
    # one mention cannot change ("the kids' tickets"), so no mention does
    ("Tom bought 4 kids' tickets. The kids bought 2 more.", "Tom purchased 4 kids' tickets. The kids purchased 2 more."),
])
def test_unsafe_contexts_are_left_alone(text, expected):
    assert reword(text) == (expected or text)


def test_a_pair_whose_target_is_already_there_is_not_swapped():
    text = "He bought 3 pens and purchased 2 books. The rest of the money and the remainder were saved."
    assert reword(text) == text


def test_no_lexicon_word_is_refused_and_numbers_are_kept():
    with pytest.raises(NotApplicable):
        get_generator("rewording").generate("What is 25% of 80?", random.Random(0), GenerationResources())
    out = get_generator("rewording").generate("A store sells 12 large boxes for $30.", random.Random(0),
                                              GenerationResources())
    assert out[0].text == "A shop sells 12 big boxes for $30."


def test_lexicon_never_swaps_an_arithmetic_or_domain_word():
    protected = {"price", "cost", "profit", "interest", "rate", "area", "speed", "ratio", "total", "average",
                 "remainder", "sum", "difference", "product", "percent", "left", "more", "less"}
    assert not {s.lemma for s in LEXICON} & protected
    assert not {s.target for s in LEXICON} & protected


def test_compositions_run_and_are_in_the_default_set():
    text = "Sara buys 5 pens each day. How many pens does she buy in a week?"
    candidates, refusals = generate(["rewording+question_as_task", "number_format+rewording"], text, 0,
                                    GenerationResources())
    texts = {c.generator: c.text for c in candidates}
    assert texts["rewording+question_as_task"] == "Sara purchases 5 pens every day. Find how many pens she purchases in a week."
    assert texts["number_format+rewording"] == "Sara purchases five pens every day. How many pens does she purchase in a week?"
    # in the default set after two blind rounds on fresh problems (ml/generation/registry.py)
    assert is_default("rewording") and is_default("rewording+question_as_task")
