"""SCANNING's noise functions on hand-built sentences: quantities survive whole, protected POS are
never templated or deleted, templates are consistent, seeds reproduce, combinations follow Tables
6/7 and their sampling follows the weights, PAN keeps the most fluent candidate."""
import random
import re
from collections import Counter

import pytest

from ml.noise import (
    INFERENCE_COMBINATIONS,
    TRAINING_COMBINATIONS,
    KneserNeyFluency,
    NoiseResources,
    apply_combination,
    apply_function,
    apply_inference_noise,
    apply_training_noise,
    noise_resources,
    parse_units,
    prompt_for,
    sample_combination,
)
from ml.noise.combinations import FUNCTIONS

TEXT = ("Steve rode his car for 5 miles on the way home. He paid $4.50 for 2 gallons of gas "
        "and bought 3 sandwiches at the station.")
QUANTITIES = ["5 miles", "$4.50", "2 gallons", "3"]  # "sandwiches" is a count noun, not a unit
SYNONYMS = {"car": ("automobile",), "way": ("path", "route"), "gas": ("fuel",), "bought": ("purchased",),
            "rode": ("drove",), "station": ("depot",), "home": ("house",), "paid": ("spent",)}


def lookup(word, lemma, upos):
    return SYNONYMS.get(word.lower(), ())


class Fluency:
    """Fake LM: prefers texts starting with a preposition, then shorter ones."""
    name = "fake"

    def __init__(self):
        self.calls = []

    def score(self, texts):
        self.calls.append(list(texts))
        return [(1.0 if t.split()[0].lower() in ("for", "on", "at", "of") else 0.0) - len(t) / 1000 for t in texts]


@pytest.fixture
def resources():
    return NoiseResources(synonyms=lookup, vocabulary=("blue", "then", "really"), fluency=Fluency())


def test_quantities_are_one_protected_unit():
    units = parse_units(TEXT)
    assert [u.text for u in units if u.protected and u.pos == "NUM"] == QUANTITIES


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_every_function_keeps_every_quantity_whole(name, resources):
    for seed in range(8):
        out = apply_function(name, TEXT, random.Random(seed), resources)
        tokens = out.replace(".", " ").split()
        for quantity in QUANTITIES:
            assert out.count(quantity) == 1 if " " in quantity or "$" in quantity else tokens.count(quantity) == 1, \
                (name, seed, out)


@pytest.mark.parametrize("name", ["q4", "q6", "i3", "i5"])
def test_verbs_adjectives_adverbs_are_never_templated_or_deleted(name, resources):
    text = "Tom quickly bought 5 red apples and happily ate 2 big pears."
    protected = ["quickly", "bought", "red", "happily", "ate", "big"]
    for seed in range(10):
        out = apply_function(name, text, random.Random(seed), resources)
        words = re.findall(r"\w+", out)
        assert all(word in words for word in protected), (seed, out)


def test_templates_are_consistent_across_mentions(resources):
    text = "The farmer has 12 cows. The farmer sells 3 cows to the neighbour. How many cows does the farmer keep?"
    found = False
    for seed in range(20):
        out = apply_function("q4", text, random.Random(seed), resources)
        if "farmer" not in out:  # farmer templated: every mention the same template, nothing else
            found = True
            words = out.replace("?", " ").replace(".", " ").split()
            templates = [w for w in words if w.startswith("NOUN")]
            names = Counter(templates)
            assert max(names.values()) >= 3
    assert found


def test_object_nodes_are_templated_first(resources):
    text = "Steve rode his car for 5 miles on the way home."
    outs = [apply_function("i3", text, random.Random(s), resources) for s in range(10)]
    assert all("car" not in out for out in outs)  # "car", the object, goes first


def test_same_seed_same_output_and_seeds_differ(resources):
    for table in (apply_training_noise, apply_inference_noise):
        first = [table(TEXT, random.Random(s), resources) for s in range(6)]
        again = [table(TEXT, random.Random(s), resources) for s in range(6)]
        assert first == again
        assert len({n.text for n in first}) > 1


def test_sentence_permutation_at_prepositions_keeps_the_most_fluent(resources):
    out = apply_function("i1", "Steve rode his car for 5 miles on the way home.", random.Random(0), resources)
    assert out.split()[0] in ("For", "On")
    assert resources.fluency.calls  # PAN asked the LM


def test_phrase_shuffling_reports_its_backend(resources):
    apply_function("i2", TEXT, random.Random(0), resources)
    assert resources.describe()["constituency"] in ("benepar", "dependency")


def test_tables_6_and_7_as_in_the_paper():
    assert [c.name for c in TRAINING_COMBINATIONS] == list("abcdefghij")
    assert [c.name for c in INFERENCE_COMBINATIONS] == list("abcdefghij")
    assert {c.prompt for c in TRAINING_COMBINATIONS} == {"paraphrase:"}
    prompts = {c.name: c.prompt for c in INFERENCE_COMBINATIONS}
    assert prompts["a"] == "paraphrase replace shuffle :"
    assert prompts["e"] == "paraphrase replace :"
    assert prompts["g"] == "paraphrase fix replace :"
    assert prompts["i"] == "paraphrase fix :"
    steps = {c.name: set(c.steps) for c in TRAINING_COMBINATIONS}
    assert steps["a"] == {"q6", "q2", "q4"} and steps["i"] == {"q3", "q5"} and steps["j"] == {"q3", "q6", "q7"}
    assert not any("q3" in c.steps for c in INFERENCE_COMBINATIONS)  # no complete shuffling at inference
    assert prompt_for(["shuffle", "replace"]) == "paraphrase replace shuffle :"


def test_sampling_follows_the_categorical_weights():
    rng = random.Random(7)
    weights = {"a": 1, "b": 3, "c": 0, "d": 6}
    draws = Counter(sample_combination(TRAINING_COMBINATIONS, rng, weights).name for _ in range(4000))
    assert "c" not in draws and set(draws) == {"a", "b", "d"}
    for name, share in (("a", 0.1), ("b", 0.3), ("d", 0.6)):
        assert abs(draws[name] / 4000 - share) < 0.03
    uniform = Counter(sample_combination(INFERENCE_COMBINATIONS, rng).name for _ in range(4000))
    assert all(abs(n / 4000 - 0.1) < 0.025 for n in uniform.values()) and len(uniform) == 10
    with pytest.raises(ValueError):
        sample_combination(TRAINING_COMBINATIONS, rng, {"a": 0})


def test_a_combination_carries_its_prompt(resources):
    noised = apply_combination(TEXT, INFERENCE_COMBINATIONS[6], random.Random(1), resources)
    assert noised.prompt == "paraphrase fix replace :" and noised.combination == "g"


def test_kneser_ney_prefers_a_sentence_to_its_scrambled_words():
    corpus = ["Tom has 5 apples and buys 3 more.", "Mary has 4 pens and gives 2 away.",
              "A train covers 300 km in 5 hours."] * 3
    lm = KneserNeyFluency.train(corpus)
    normal, scrambled = lm.score(["Tom has 4 pens and buys 2 more.", "more buys and pens 4 has Tom 2."])
    assert normal > scrambled


def test_resources_without_synonyms_leave_words_and_say_so():
    plain = noise_resources([TEXT], fluency=None)
    assert apply_function("q5", TEXT, random.Random(0), plain) == TEXT
    assert plain.describe()["synonyms"] == "none"


@pytest.mark.slow
def test_smollm2_fluency_ranks_a_sentence_above_its_scrambled_words():
    from ml.noise import CausalLMFluency

    lm = CausalLMFluency()
    normal, scrambled = lm.score(["Steve rode his car for 5 miles on the way home.",
                                  "home way the on miles 5 for car his rode Steve."])
    assert normal > 5 * scrambled
