"""Training data for ParaQD: operators applied to allowed problems only, human gold labels added,
disagreements with the active model marked as hard examples."""
from __future__ import annotations

import re

from django.conf import settings
from django.test import TestCase

from annotation.models import GoldLabel
from corpus.models import Problem
from modelhub.models import ModelVersion
from ml.paraqd import DISAGREEMENT_SOURCE
from paraphrases.models import Score
from modelhub.kinds.paraqd import (
    ParaQDError,
    default_training_operators,
    gold_is_hard,
    paraqd_training_triplets,
    training_problems,
)

from ..corpus.factories import make_candidate, make_gold, make_problem
from .helpers import PROBLEMS, make_algebra

# Operators that need no model: fast, and enough to make positives and negatives.
OPERATORS = ["f2", "f3", "f6", "f8"]
TEST_QUESTION = "Alex walks 7 km in 2 hours. How fast does Alex walk in km per hour?"
IMPORTED_QUESTION = "A pump fills 30 litres in 6 minutes. How many litres does it fill per minute?"


class TrainingTripletTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.dataset, cls.problems = make_algebra()
        cls.test_problem = make_problem(cls.dataset, TEST_QUESTION, split=Problem.Split.TEST)
        # The question of an imported ParaQD pair (AQUA_test-like), in the same dataset.
        cls.imported = make_problem(cls.dataset, IMPORTED_QUESTION, source="paraqd")
        make_gold(make_candidate(cls.imported, "A pump fills litres. How many?", generator="import:paraqd"), valid=False)
        # A copy of the test question in another dataset, imported without its split.
        cls.other, _ = make_algebra("other", texts=[TEST_QUESTION, PROBLEMS[0]])

    def build(self, datasets=None, **kwargs):
        kwargs.setdefault("operators", OPERATORS)
        kwargs.setdefault("resources", {"spacy_model": settings.PARALAB_SPACY_MODEL})
        return paraqd_training_triplets(datasets=datasets or [self.dataset], **kwargs)

    def test_never_test_split_problems_nor_imported_pairs_nor_copies_of_them(self):
        triplets, snapshot = self.build(datasets=[self.dataset, self.other])
        anchors = {t.anchor for t in triplets}
        self.assertEqual(anchors, set(PROBLEMS))
        texts = {text for t in triplets for text in (t.anchor, t.positive, t.negative)}
        self.assertFalse(any("Alex walks" in t or "pump" in t for t in texts))
        self.assertEqual(snapshot["excluded"], {"test_split": 1, "held_out_copies": 2})
        allowed, _ = training_problems(datasets=[self.other])
        self.assertEqual([p.text for p in allowed], [PROBLEMS[0]])
        # Asked for explicitly, pairs imported as train/dev data may be used; an imported pair
        # without a split (an evaluation set imported carelessly) and test-split ones never.
        dev_question = "A tap drips 12 drops in 4 minutes. How many drops per minute?"
        dev_problem = make_problem(self.dataset, dev_question, source="paraqd-wide", split=Problem.Split.DEV)
        make_gold(make_candidate(dev_problem, "A tap drips twelve drops in 4 minutes. How many drops per minute?",
                                 generator="import:paraqd-wide"), valid=True)
        make_gold(make_candidate(dev_problem, "A tap drips drops. How many per minute?",
                                 generator="import:paraqd-wide"), valid=False)
        allowed, _ = training_problems(datasets=[self.dataset], include_imported_pairs=True)
        self.assertIn(dev_question, [p.text for p in allowed])
        self.assertNotIn(IMPORTED_QUESTION, [p.text for p in allowed])
        self.assertNotIn(TEST_QUESTION, [p.text for p in allowed])
        self.assertNotIn(dev_question, [p.text for p in training_problems(datasets=[self.dataset])[0]])
        triplets, snapshot = self.build(include_imported_pairs=True)
        dev = [t for t in triplets if t.anchor == dev_question]
        self.assertIn("A tap drips twelve drops in 4 minutes. How many drops per minute?", {t.positive for t in dev})
        self.assertIn("A tap drips drops. How many per minute?", {t.negative for t in dev})
        self.assertEqual(len(snapshot["gold_label_ids"]), 2)

    def test_triplets_per_anchor_and_snapshot(self):
        triplets, snapshot = self.build()
        for problem in self.problems:
            mine = [t for t in triplets if t.anchor == problem.text]
            self.assertTrue(mine, problem.text)
            positives, negatives = {t.positive for t in mine}, {t.negative for t in mine}
            self.assertIn(problem.text, positives)  # f2, the same sentence
            self.assertEqual(len(mine), max(len(positives), len(negatives)))
            self.assertTrue(all(t.positive != t.negative for t in mine))
            self.assertFalse(negatives & {problem.text})
        self.assertEqual(snapshot["datasets"], [{"id": self.dataset.pk, "name": "algebra"}])
        self.assertEqual(snapshot["triplets"], len(triplets))
        self.assertEqual(snapshot["problems_used"], 4)
        self.assertEqual(snapshot["outputs_per_operator"]["f2"], 4)
        self.assertEqual(set(snapshot["outputs_per_operator"]) | set(snapshot["not_applicable_per_operator"]),
                         set(OPERATORS))
        self.assertEqual(len(snapshot["hash"]), 64)
        again, snapshot_again = self.build()
        self.assertEqual(again, triplets)  # seeded: the same data, the same hash
        self.assertEqual(snapshot_again["hash"], snapshot["hash"])
        _, other_seed = self.build(seed=1)
        self.assertEqual(other_seed["seed"], 1)

    def test_all_pairing_takes_every_positive_with_every_negative(self):
        cycled, _ = self.build()
        paired, snapshot = self.build(pairing="all")
        self.assertEqual(snapshot["pairing"], "all")
        for problem in self.problems:
            mine = [t for t in cycled if t.anchor == problem.text]
            positives, negatives = {t.positive for t in mine}, {t.negative for t in mine}
            every = {(t.positive, t.negative) for t in paired if t.anchor == problem.text}
            # The same texts, now in every combination, each once.
            self.assertEqual(every, {(p, n) for p in positives for n in negatives})
            self.assertEqual(len([t for t in paired if t.anchor == problem.text]), len(positives) * len(negatives))
        with self.assertRaisesMessage(ParaQDError, "pairing"):
            self.build(pairing="some")

    def test_operator_draws_pool_distinct_outputs_of_the_stochastic_operators(self):
        once, snapshot_once = self.build(operators=["f2", "f6", "f8", "number_change"])
        drawn, snapshot = self.build(operators=["f2", "f6", "f8", "number_change"], operator_draws=4)
        self.assertEqual(snapshot["operator_draws"], 4)
        self.assertEqual(snapshot_once["extra_draw_outputs_per_operator"], {})
        # Only the stochastic operators ran again; f2 and f6 give one output a question.
        self.assertEqual(set(snapshot["extra_draw_outputs_per_operator"]), {"f8", "number_change"})
        self.assertEqual(snapshot["outputs_per_operator"], snapshot_once["outputs_per_operator"])
        for problem in self.problems:
            first = {t.negative for t in once if t.anchor == problem.text}
            pooled = [t.negative for t in drawn if t.anchor == problem.text]
            # The first draw is the single-draw data; later draws add new texts, never repeats.
            self.assertLess(first, set(pooled))
            self.assertEqual(len(pooled), len(set(pooled)))
            self.assertNotIn(problem.text, pooled)
        self.assertEqual(sum(snapshot["extra_draw_outputs_per_operator"].values()),
                         len({(t.anchor, t.negative) for t in drawn}) - len({(t.anchor, t.negative) for t in once}))
        again, snapshot_again = self.build(operators=["f2", "f6", "f8", "number_change"], operator_draws=4)
        self.assertEqual((again, snapshot_again["hash"]), (drawn, snapshot["hash"]))  # seeded
        for bad in (0, 1.5, True):
            with self.assertRaisesMessage(ParaQDError, "operator draws must be an integer >= 1"):
                self.build(operator_draws=bad)

    def test_max_problems_and_bad_operator(self):
        triplets, snapshot = self.build(max_problems=2)
        self.assertEqual(len({t.anchor for t in triplets}), 2)
        self.assertEqual(snapshot["problems_used"], 2)
        with self.assertRaisesMessage(ParaQDError, "test operator"):
            self.build(operators=["fa"])
        with self.assertRaisesMessage(ParaQDError, "unknown operator"):
            self.build(operators=["f42"])

    def test_balance_datasets_takes_the_datasets_in_turn(self):
        small, small_problems = make_algebra("small", texts=["Tom has 3 pens and buys 4 more. How many pens now?"])
        big = [self.dataset, small]
        # Without balancing, one problem of the small dataset competes with the big one's several.
        _, plain = self.build(datasets=big, max_problems=2, balance_datasets=False, operators=["f2", "f6"])
        triplets, balanced = self.build(datasets=big, max_problems=2, balance_datasets=True, operators=["f2", "f6"])
        self.assertTrue(balanced["balance_datasets"])
        anchors = {t.anchor for t in triplets}
        self.assertEqual(len(anchors), 2)
        self.assertIn(small_problems[0].text, anchors)  # one from each dataset
        self.assertFalse(plain["balance_datasets"])

    def test_default_operators_leave_out_those_overlapping_the_test_operators(self):
        names = default_training_operators()
        self.assertIn("f5", names)
        self.assertNotIn("passive", names)  # it makes what fa (a test operator) makes
        self.assertNotIn("word_replacement", names)  # it makes what fc makes

    def test_word_replacement_draws_its_words_from_the_problems_trained_on(self):
        from ml.operators import vocabulary_of

        triplets, snapshot = self.build(operators=["f2", "word_replacement"])
        self.assertEqual(snapshot["outputs_per_operator"]["word_replacement"], len(self.problems))
        vocabulary = set(vocabulary_of([p.text for p in self.problems]))
        for t in triplets:
            self.assertNotEqual(t.negative, t.anchor)
            # Every word of the negative is the anchor's own or one of the corpus vocabulary.
            new = set(re.findall(r"[a-z]+", t.negative.lower())) - set(re.findall(r"[a-z]+", t.anchor.lower()))
            self.assertLessEqual(new, vocabulary)
        words = [(set(re.findall(r"[a-z]+", t.negative.lower())), set(re.findall(r"[a-z]+", t.anchor.lower())))
                 for t in triplets]
        self.assertTrue(any(negative - anchor for negative, anchor in words))

    def test_human_gold_labels_join_and_disagreements_are_hard(self):
        p0, p1 = self.problems[0], self.problems[1]
        valid = make_candidate(p0, "How many apples does John have now, if he bought 5 on Monday and ate 2?",
                               generator="pap")
        invalid = make_candidate(p1, "A train covers some km. What is its speed?", generator="pap")
        agreed = make_gold(valid, valid=True, source=GoldLabel.Source.AGREEMENT)
        adjudicated = make_gold(invalid, valid=False, source=GoldLabel.Source.ADJUDICATION)
        # Labels of synthesized test pairs are the platform's test set: never trained on.
        make_gold(make_candidate(p0, "5 apples were bought by John.", generator="test:fa"), valid=True,
                  source=GoldLabel.Source.AGREEMENT)
        active = ModelVersion.objects.create(kind="paraqd", base_model="x", status="active")
        Score.objects.create(candidate=valid, scorer_version=f"paraqd:v{active.pk}", model_version=active, paraqd=0.1)
        Score.objects.create(candidate=invalid, scorer_version=f"paraqd:v{active.pk}", model_version=active,
                             paraqd=0.1)

        triplets, snapshot = self.build(max_problems=2)  # problems with gold labels come first
        self.assertEqual(snapshot["gold_label_ids"], sorted([agreed.pk, adjudicated.pk]))
        self.assertEqual(snapshot["hard_examples"], 1)
        # Paired with every negative, the hard positive makes every one of its triplets hard, and
        # no triplet without it is.
        paired, _ = self.build(max_problems=2, pairing="all")
        hard = [t for t in paired if t.is_hard]
        self.assertTrue(hard)
        self.assertTrue(all(t.positive == valid.text for t in hard))
        self.assertEqual(len(hard), len({t.negative for t in paired if t.anchor == p0.text}))
        with_valid = [t for t in triplets if t.positive == valid.text]
        with_invalid = [t for t in triplets if t.negative == invalid.text]
        self.assertTrue(with_valid and with_invalid)
        # The active model scored the valid one 0.1 (wrong side of 0.5): a hard example.
        self.assertTrue(all(t.is_hard and t.source.startswith(DISAGREEMENT_SOURCE) for t in with_valid))
        # It scored the invalid one 0.1 too: agreement, an ordinary example.
        self.assertTrue(all(not t.is_hard for t in with_invalid))
        self.assertFalse(any("were bought by" in t.positive for t in triplets))
        self.assertEqual(sum(t.is_hard for t in triplets), len(with_valid))

    def test_gold_is_hard(self):
        self.assertTrue(gold_is_hard(gold_valid=True, model_score=0.5))  # not above the threshold
        self.assertFalse(gold_is_hard(gold_valid=True, model_score=0.51))
        self.assertTrue(gold_is_hard(gold_valid=False, model_score=0.9))
        self.assertFalse(gold_is_hard(gold_valid=False, model_score=-0.3))
        self.assertFalse(gold_is_hard(gold_valid=True, model_score=None))  # never scored: no evidence
        self.assertTrue(gold_is_hard(gold_valid=False, model_score=0.3, threshold=0.2))
