"""SCANNING's noise functions on hand-built sentences: quantities survive whole, protected POS are
never templated or deleted, templates are consistent, seeds reproduce, combinations follow Tables
6/7 and their sampling follows the weights, PAN keeps the most fluent candidate."""
import doctest
import importlib
import os
import random
import re
import subprocess
import sys
import zlib
from collections import Counter

import pytest

from ml.text.nlp import parse
from ml.text.number_mentions import number_signature
from ml.text.units import unit_signature
from ml.noise import (
    FUNCTIONS,
    INFERENCE_COMBINATIONS,
    MAX_FLUENCY_CANDIDATES,
    TRAINING_COMBINATIONS,
    KneserNeyFluency,
    NoiseResources,
    apply_combination,
    apply_function,
    apply_inference_noise,
    apply_training_noise,
    corpus_vocabulary,
    detokenize,
    load_fluency,
    noise_resources,
    parse_units,
    prompt_for,
    prompt_words,
    sample_combination,
)
from ml.noise import templatization

TEXT = ("Steve rode his car for 5 miles on the way home. He paid $4.50 for 2 gallons of gas "
        "and bought 3 sandwiches at the station.")
QUANTITIES = ["5 miles", "$4.50", "2 gallons", "3"]  # "sandwiches" is a count noun, not a unit
SYNONYMS = {"car": ("automobile",), "way": ("path", "route"), "gas": ("fuel", "five", "gallon"),
            "bought": ("purchased",), "rode": ("drove",), "station": ("depot",), "home": ("house",),
            "paid": ("spent", "twice"), "miles": ("kilometres",)}


def lookup(word, lemma, upos):
    return SYNONYMS.get(word.lower(), ())


class RecordingFluency:
    """Fake LM: a fixed pseudo-random score per text; records every call."""
    name = "fake"

    def __init__(self):
        self.calls = []

    def score(self, texts):
        self.calls.append(list(texts))
        return [zlib.crc32(t.encode()) / 2**32 for t in texts]


class OpeningWord(RecordingFluency):
    """Fake LM preferring texts that open with ``word``."""

    def __init__(self, word):
        super().__init__()
        self.word = word

    def score(self, texts):
        self.calls.append(list(texts))
        return [1.0 if t.split()[0] == self.word else 0.0 for t in texts]


@pytest.fixture
def resources(spacy_model):
    # "five", "dollars" and "not" are dropped from the insertion vocabulary
    return NoiseResources(synonyms=lookup, vocabulary=("blue", "then", "really", "five", "dollars", "not"),
                          fluency=RecordingFluency())


def numbers(text):
    """Number values of a text, template placeholders ("NOUN1") left out."""
    return number_signature(re.sub(r"\b[A-Z]+\d+\b", "X", text))


def test_quantities_are_one_protected_unit(spacy_model):
    units = parse_units(TEXT)
    assert [u.text for u in units if u.protected] == QUANTITIES
    assert parse_units(TEXT) is units  # cached per text
    units = parse_units("A shop gives a 20 % discount on five apples and twice as many pears.")
    assert [u.text for u in units if u.protected] == ["20 %", "five", "twice"]
    assert detokenize(list(units)) == "A shop gives a 20 % discount on five apples and twice as many pears."


def test_unit_fields(spacy_model):
    units = parse_units(TEXT)
    car = next(u for u in units if u.text == "car")
    assert (car.upos, car.dep, car.is_object, car.sentence, car.key) == ("NOUN", "dobj", True, 0, "car")
    he, his = next(u for u in units if u.text == "He"), next(u for u in units if u.text == "his")
    assert he.key == his.key == "he" and he.sentence == 1 and he.sentence_start


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_every_function_keeps_every_quantity_whole(name, resources):
    outs = set()
    for seed in range(8):
        out = apply_function(name, TEXT, random.Random(seed), resources)
        outs.add(out)
        assert numbers(out) == numbers(TEXT), (seed, out)
        assert unit_signature(out) == unit_signature(TEXT), (seed, out)
        for quantity in ("5 miles", "$4.50", "2 gallons"):
            assert out.count(quantity) == 1, (seed, out)
        for word in ("five", "twice", "dollars", "gallon", "kilometres"):  # never inserted or substituted in
            assert word not in out.lower().split(), (seed, out)
    if name not in ("q5", "i4"):  # the fake lookup has few synonyms; every other function changes the text
        assert outs - {TEXT}, name


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_text_and_units_forms_agree(name, resources):
    on_text = FUNCTIONS[name](TEXT, random.Random(5), resources)
    on_units = FUNCTIONS[name](parse_units(TEXT), random.Random(5), resources)
    assert isinstance(on_units, list) and detokenize(on_units) == on_text


PROTECTED_TEXT = "Tom quickly bought 5 red apples and happily ate 2 big pears. Then he sold them."


@pytest.mark.parametrize("name", ["q4", "q6", "i3", "i5"])
def test_verbs_adjectives_adverbs_are_never_templated_or_deleted(name, resources):
    protected = [t.text for t in parse(PROTECTED_TEXT) if t.pos_ in ("VERB", "ADJ", "ADV")]
    assert {"quickly", "bought", "red", "happily", "ate", "big", "sold"} <= set(protected)
    changed = 0
    for seed in range(10):
        out = apply_function(name, PROTECTED_TEXT, random.Random(seed), resources)
        changed += out != PROTECTED_TEXT
        found = Counter(re.findall(r"\w+", out))
        assert all(found[w] >= n for w, n in Counter(protected).items()), (seed, out)
        assert not re.search(r"\b(VERB|ADJ|ADV|NUM)\d", out), out
    assert changed == 10


def test_training_combinations_respect_the_constraints(resources):
    protected = Counter(t.text for t in parse(PROTECTED_TEXT) if t.pos_ in ("VERB", "ADJ", "ADV"))
    for seed in range(30):
        noised = apply_training_noise(PROTECTED_TEXT, random.Random(seed), resources)
        assert numbers(noised.text) == numbers(PROTECTED_TEXT), noised
        found = Counter(re.findall(r"\w+", noised.text))
        if "q5" not in TRAINING_COMBINATIONS["abcdefghij".index(noised.combination)].steps:
            assert all(found[w] >= n for w, n in protected.items()), noised


def test_templates_are_consistent_across_mentions(resources, monkeypatch):
    monkeypatch.setattr(templatization, "TEMPLATE_RATE", 1.0)  # template every entity
    text = "The farmer has 12 cows. He sells 3 cows to his neighbour. How many cows does the farmer keep?"
    out = apply_function("q4", text, random.Random(0), resources)
    assert out == ("DET1 NOUN1 has 12 NOUN2. PRON1 sells 3 NOUN2 ADP1 PRON1 NOUN3. "
                   "How many NOUN2 does DET1 NOUN1 keep?")


def test_templatization_templates_a_share_of_entities_by_first_mention(resources):
    for seed in range(10):
        out = apply_function("q4", TEXT, random.Random(seed), resources)
        templates = re.findall(r"\b([A-Z]+)(\d+)\b", out)
        assert templates
        for tag in {t for t, _ in templates}:  # numbered 1, 2, ... in order of first mention
            first_seen = list(dict.fromkeys(int(n) for t, n in templates if t == tag))
            assert first_seen == list(range(1, len(first_seen) + 1)), out


def test_object_nodes_are_templated_and_substituted_first(resources):
    text = "Steve rode his car for 5 miles on the way home."
    for seed in range(10):
        templated = apply_function("i3", text, random.Random(seed), resources)
        assert "car" not in templated or "way" not in templated, templated  # an object goes first
        assert "his" in templated and "the" in templated  # 2 of 6 entities: both are objects
        substituted = apply_function("i4", text, random.Random(seed), resources)
        assert "car" not in substituted or "way" not in substituted, substituted


def test_same_seed_same_output_and_seeds_differ(resources):
    for noise in (apply_training_noise, apply_inference_noise):
        first = [noise(TEXT, random.Random(s), resources) for s in range(8)]
        again = [noise(TEXT, random.Random(s), resources) for s in range(8)]
        assert first == again
        assert len({n.text for n in first}) > 4


def test_outputs_do_not_depend_on_hash_seeds(spacy_model):
    code = ("import random; from ml.noise import *; r = NoiseResources(vocabulary=('blue','then'));"
            "print([apply_inference_noise(%r, random.Random(s), r).text for s in range(4)],"
            "[apply_training_noise(%r, random.Random(s), r).text for s in range(4)])" % (TEXT, TEXT))
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")}
    assert len(runs) == 1


def test_pan_keeps_the_most_fluent_candidate(resources):
    for name in ("i1", "i2"):
        for seed in range(4):
            resources.fluency.calls.clear()
            out = apply_function(name, TEXT, random.Random(seed), resources)
            assert len(resources.fluency.calls) == 1
            candidates = resources.fluency.calls[0]
            assert 1 <= len(candidates) <= MAX_FLUENCY_CANDIDATES
            assert out == max(candidates, key=lambda t: resources.fluency.score([t])[0])


def test_sentence_permutation_rotates_at_prepositions(spacy_model):
    text = "Steve rode his car for 5 miles on the way home."
    for word, expected in (("On", "On the way home Steve rode his car for 5 miles."),
                           ("For", "For 5 miles on the way home Steve rode his car.")):
        fluency = OpeningWord(word)
        assert apply_function("i1", text, random.Random(0), NoiseResources(fluency=fluency)) == expected
    assert sorted(fluency.calls[0]) == ["For 5 miles on the way home Steve rode his car.",
                                        "On the way home Steve rode his car for 5 miles."]


def test_sentence_permutation_without_a_preposition_keeps_phrases(spacy_model):
    fluency = RecordingFluency()
    resources = NoiseResources(fluency=fluency)
    apply_function("i1", "Tom quickly bought 5 red apples.", random.Random(0), resources)
    candidates = fluency.calls[0]
    assert "Red apples Tom quickly bought 5." not in candidates  # "5 | red apples" is no cut point
    assert "5 red apples Tom quickly bought." in candidates


def test_phrase_shuffling_uses_the_four_regularities(resources):
    resources.fluency = RecordingFluency()
    seen = set()
    for seed in range(6):
        resources.fluency.calls.clear()
        apply_function("i2", TEXT, random.Random(seed), resources)
        seen.update(resources.fluency.calls[0])
    first = "Steve rode his car for 5 miles on the way home."
    # (ii) the verb phrases around "and" swapped
    assert f"{first} He bought 3 sandwiches at the station and paid $4.50 for 2 gallons of gas." in seen
    # (i) a PP fronted in its sentence
    assert f"{first} At the station he paid $4.50 for 2 gallons of gas and bought 3 sandwiches." in seen
    assert all(numbers(t) == numbers(TEXT) for t in seen)
    assert resources.describe()["constituency"] in ("benepar", "dependency")


def test_tables_6_and_7_as_in_the_paper():
    training = {c.name: (c.title, set(c.steps), c.prompt) for c in TRAINING_COMBINATIONS}
    assert list(training) == list("abcdefghij")
    assert {p for _, _, p in training.values()} == {"paraphrase:"}
    assert training["a"][:2] == ("Random Deletion + Random Shuffling + Templatization", {"q6", "q2", "q4"})
    assert training["b"][1] == {"q4"} and training["c"][1] == {"q6", "q4", "q7"}
    assert training["d"][1] == {"q6", "q7"} and training["e"][1] == {"q6", "q2", "q1", "q5", "q4", "q7"}
    assert training["f"][1] == {"q6", "q2", "q5", "q7"} and training["g"][1] == {"q6", "q5", "q4", "q7"}
    assert training["h"][1] == {"q6", "q1", "q5", "q7"} and training["i"][1] == {"q3", "q5"}
    assert training["j"] == ("Complete Shuffling + Random Deletion + Word Insertion", {"q3", "q6", "q7"}, "paraphrase:")
    inference = {c.name: (set(c.steps), c.prompt) for c in INFERENCE_COMBINATIONS}
    rs = "paraphrase replace shuffle :"
    assert inference == {
        "a": ({"i1", "i3"}, rs), "b": ({"i2", "i4"}, rs), "c": ({"i2", "i3"}, rs), "d": ({"i1|i2", "i4"}, rs),
        "e": ({"i4", "i3"}, "paraphrase replace :"), "f": ({"i1", "i4"}, rs),
        "g": ({"i5", "i3", "i6"}, "paraphrase fix replace :"), "h": ({"i2", "i1", "i4"}, rs),
        "i": ({"i5", "i6"}, "paraphrase fix :"), "j": ({"i1|i2", "i4", "i3"}, rs),
    }
    assert INFERENCE_COMBINATIONS[3].title == "Sentence Permutation/Phrase Shuffle + Synonym Substitution"
    assert not any("q3" in c.steps for c in INFERENCE_COMBINATIONS)  # no complete shuffling at inference


def test_prompts_are_what_qf_pcf_reads():
    from ml.selection.base import prompt_words as selection_words
    from ml.selection.qf_pcf import PCF_CONDITIONS

    assert prompt_for(["shuffle", "replace"]) == "paraphrase replace shuffle :"
    assert prompt_for(["passive", "fix", "replace", "fix"]) == "paraphrase fix replace passive :"
    for combination in INFERENCE_COMBINATIONS:
        words = prompt_words(combination.prompt)
        assert words and set(words) <= set(PCF_CONDITIONS)
        assert tuple(w for w in selection_words(combination.prompt) if w != "paraphrase") == words
    assert prompt_words("paraphrase:") == ()


def test_either_or_step_picks_both_functions(resources):
    combination = INFERENCE_COMBINATIONS[3]  # d: Sentence Permutation/Phrase Shuffle + Synonym Substitution
    picked = Counter()
    for seed in range(30):
        fresh = NoiseResources(synonyms=lookup, fluency=RecordingFluency())
        apply_combination(TEXT, combination, random.Random(seed), fresh)
        picked["i2" if "constituency" in fresh.used else "i1"] += 1  # only phrase shuffling parses phrases
    assert set(picked) == {"i1", "i2"}


def _chi_square(counts, expected):
    return sum((counts.get(k, 0) - e) ** 2 / e for k, e in expected.items())


def test_sampling_follows_the_categorical_weights():
    rng = random.Random(7)
    weights = {"a": 1, "b": 3, "c": 0, "d": 6}
    draws = Counter(sample_combination(TRAINING_COMBINATIONS, rng, weights).name for _ in range(2000))
    assert set(draws) == {"a", "b", "d"}
    # chi-square with 2 degrees of freedom: 13.8 is the 0.001 tail
    assert _chi_square(draws, {"a": 200, "b": 600, "d": 1200}) < 13.8
    uniform = Counter(sample_combination(INFERENCE_COMBINATIONS, rng).name for _ in range(2000))
    assert len(uniform) == 10 and _chi_square(uniform, {n: 200 for n in "abcdefghij"}) < 27.9  # 9 dof
    skewed = Counter(sample_combination(INFERENCE_COMBINATIONS, rng, {"a": 1, "i": 1}).name for _ in range(2000))
    assert set(skewed) == {"a", "i"} and abs(skewed["a"] - 1000) < 110
    with pytest.raises(ValueError):
        sample_combination(TRAINING_COMBINATIONS, rng, {"a": 0})
    with pytest.raises(ValueError):
        sample_combination(TRAINING_COMBINATIONS, rng, {"z": 1})


def test_noise_uses_the_weights_and_named_combinations(resources):
    for seed in range(5):
        assert apply_training_noise(TEXT, random.Random(seed), resources, weights={"b": 1}).combination == "b"
        noised = apply_inference_noise(TEXT, random.Random(seed), resources, combination="g")
        assert (noised.combination, noised.prompt) == ("g", "paraphrase fix replace :")
    with pytest.raises(ValueError):
        apply_inference_noise(TEXT, random.Random(0), resources, combination="k")


def test_kneser_ney_prefers_a_sentence_to_its_scrambled_words():
    corpus = ["Tom has 5 apples and buys 3 more.", "Mary has 4 pens and gives 2 away.",
              "A train covers 300 km in 5 hours."] * 3
    lm = load_fluency("kneser-ney", corpus)
    assert isinstance(lm, KneserNeyFluency) and lm.name == "kneser-ney-3gram"
    normal, scrambled = lm.score(["Tom has 4 pens and buys 2 more.", "more buys and pens 4 has Tom 2."])
    assert normal > scrambled > 0


def test_corpus_vocabulary_leaves_out_numbers_units_names_and_stop_words():
    vocabulary = corpus_vocabulary(["Mary paid five dollars for 3 pens and did not buy more.",
                                    "Mary walked 2 miles twice."])
    assert vocabulary == ("and", "buy", "did", "for", "paid", "pens", "walked")


def test_resources_without_synonyms_leave_words_and_say_so(spacy_model):
    plain = noise_resources([TEXT], fluency=None)
    assert apply_function("q5", TEXT, random.Random(0), plain) == TEXT
    assert apply_function("i4", TEXT, random.Random(0), plain) == TEXT
    description = plain.describe()
    assert description["synonyms"] == "none" and description["fluency"].startswith("none")
    assert "station" in plain.vocabulary and "steve" not in plain.vocabulary


def test_ml_noise_imports_without_django_or_torch():
    code = ("import sys, ml.noise; bad = [m for m in ('django', 'torch', 'transformers') if m in sys.modules];"
            "print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("module", ["ml.noise", "ml.noise.units", "ml.noise.functions", "ml.noise.combinations",
                                    "ml.noise.fluency"])
def test_docstring_examples(module, spacy_model):
    failures, _ = doctest.testmod(importlib.import_module(module))
    assert failures == 0


@pytest.mark.slow
def test_smollm2_fluency_ranks_a_sentence_above_its_scrambled_words():
    from ml.noise import CausalLMFluency

    lm = CausalLMFluency()
    texts = ["Steve rode his car for 5 miles on the way home.", "home way the on miles 5 for car his rode Steve.",
             "He paid $4.50 for 2 gallons of gas."]
    normal, scrambled, other = lm.score(texts)
    assert normal > 5 * scrambled
    # Padding does not change a score (read alone, past the cache of texts already scored).
    assert lm._score(texts[:1])[0] == pytest.approx(normal, rel=1e-4)
    assert lm._score([texts[2]])[0] == pytest.approx(other, rel=1e-4)
    # A text read before is not read again, and the answer is the same.
    calls = []
    real = lm._score
    lm._score = lambda batch: calls.append(list(batch)) or real(batch)
    assert lm.score([texts[2], "Ann has 3 cats.", texts[2]]) == [other, pytest.approx(lm._cache["Ann has 3 cats."]), other]
    assert calls == [["Ann has 3 cats."]]
    assert load_fluency("auto").name == lm.name
