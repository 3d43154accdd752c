"""The judge that ships with the code decides from the first migrate, gates what is handed out,
and learns from annotators' gold labels.

These tests run the real shipped judge (packaged MiniLM, SmolLM2 fluency, spaCy): no stand-ins.
The suite makes its databases with the shipped judge switched off (tests/conftest.py); each test
here switches it on and migrates, as an installation does."""
from __future__ import annotations

import json
from io import StringIO
from unittest import mock

from django.core.management import CommandError, call_command
from django.test import TestCase, override_settings

from annotation.models import GoldLabel
from corpus.exporters import dataset_export_rows
from corpus.models import Problem
from modelhub.calibration import ValidationPair
from modelhub.judging import calibration_of, decision, decision_version, handout_floor
from modelhub.kinds.judge.refit import RefitError, judge_refit
from modelhub.kinds.judge.storage import judge_score_candidates
from modelhub.kinds.judge.shipped import judge_install_shipped
from modelhub.models import ModelVersion
from paraphrases.handout import paraphrase_variants

from ..corpus.factories import make_candidate, make_dataset, make_gold, make_problem, make_score

PROBLEM = ("A sum of money invested at simple interest amounts to $600 in 2 years and to $700 in 4 years. "
           "Find the rate of interest.")
CLEAN = ("Find the rate of interest, given that a sum of money invested at simple interest amounts to $600 in "
         "2 years and to $700 in 4 years.")
BROKEN = ("A sum of money invested at simple sake amounts to $600 in 2 years and to $700 in 4 years. "
          "Find the rate of sake.")


class ShippedJudgeOn:
    """PARALAB_SHIPPED_JUDGE on (the default of an installation) and ``migrate`` run, as on a fresh install."""

    def setUp(self):
        super().setUp()
        override = override_settings(PARALAB_SHIPPED_JUDGE=True)
        override.enable()
        self.addCleanup(override.disable)
        self.assertIsNone(decision_version())  # the suite's databases start without it
        call_command("migrate", verbosity=0)


class ShippedJudgeTests(ShippedJudgeOn, TestCase):
    def test_a_fresh_database_has_an_active_calibrated_judge(self):
        version = decision_version()
        self.assertIsNotNone(version)
        self.assertEqual(version.kind, "judge")
        self.assertTrue(version.params["shipped"])
        self.assertTrue(version.params["english"])
        record = calibration_of(version)
        self.assertIsNotNone(record)
        self.assertTrue(decision().calibrated)
        self.assertEqual(decision().column, "probability")
        self.assertGreater(handout_floor(version), 0.0)
        self.assertLess(handout_floor(version), 1.0)

    def test_installing_again_registers_nothing_new(self):
        before = ModelVersion.objects.filter(kind="judge").count()
        self.assertEqual(judge_install_shipped().pk, decision_version().pk)
        call_command("migrate", verbosity=0)
        self.assertEqual(ModelVersion.objects.filter(kind="judge").count(), before)

    def test_its_files_are_a_copy_and_a_new_build_replaces_an_earlier_shipped_judge_only(self):
        from pathlib import Path

        from modelhub.kinds.judge.shipped import SHIPPED_DIR

        first = decision_version()
        folder = Path(first.artifact_path)
        self.assertNotEqual(folder.resolve(), SHIPPED_DIR.resolve())
        self.assertEqual((folder / "judge.json").read_bytes(), (SHIPPED_DIR / "judge.json").read_bytes())
        # As if the deciding version had been installed from an earlier build: the new build takes over.
        ModelVersion.objects.filter(pk=first.pk).update(params={**first.params, "shipped": "an-earlier-build"})
        second = judge_install_shipped()
        self.assertNotEqual(second.pk, first.pk)
        self.assertEqual(decision_version().pk, second.pk)
        # A judge refitted on gold (no "shipped" mark) keeps deciding when another build arrives.
        ModelVersion.objects.filter(pk=second.pk).update(params={k: v for k, v in second.params.items()
                                                                 if k != "shipped"})
        third = judge_install_shipped()
        self.assertEqual(decision_version().pk, second.pk)
        self.assertEqual(ModelVersion.objects.get(pk=third.pk).status, ModelVersion.Status.CANDIDATE)

    def test_the_variants_export_refuses_a_hand_made_broken_candidate(self):
        dataset = make_dataset("shipped-export")
        problem = make_problem(dataset, PROBLEM)
        clean, broken = make_candidate(problem, CLEAN, generator="synonym"), make_candidate(problem, BROKEN,
                                                                                          generator="synonym")
        for candidate in (clean, broken):  # the paper's scores say both keep every number
            make_score(candidate, "paraqd:pretrained", similarity=0.99, diversity=0.2, numeracy=1.0, pqi=0.7,
                       paraqd=0.98)
        judge_score_candidates(candidate_ids=[clean.pk, broken.pk], version=decision_version())
        exported = {row["variant_text"] for row in dataset_export_rows(dataset=dataset, what="variants")}
        self.assertNotIn(BROKEN, exported)
        self.assertIn(CLEAN, exported)


class HandoutTests(ShippedJudgeOn, TestCase):
    def test_variants_carry_the_judges_probability_and_reasons(self):
        result = paraphrase_variants(text=PROBLEM, k=3, generators=["reorder", "synonym"])
        self.assertEqual(result["judge"]["version"], decision_version().pk)
        floor = result["judge"]["floor"]
        self.assertEqual(result["passed"] + result["rejected"], result["candidates"])
        for variant in result["variants"]:
            self.assertGreater(variant["valid_probability"], floor)
            self.assertTrue(any(c["check"] == "numbers" for c in variant["reasons"]))

    def test_fewer_than_k_with_the_reason_when_the_judge_rejects_the_rest(self):
        from ml.generation import GeneratedCandidate

        made = [GeneratedCandidate(text=CLEAN, generator="synonym", prompt=""),
                GeneratedCandidate(text=BROKEN, generator="synonym", prompt=""),
                GeneratedCandidate(text=CLEAN.replace("$700", "$900"), generator="synonym", prompt="")]
        with mock.patch("paraphrases.handout.generate", return_value=(made, {})):
            result = paraphrase_variants(text=PROBLEM, k=3, generators=["synonym"])
        texts = [v["text"] for v in result["variants"]]
        self.assertEqual(texts, [CLEAN])
        self.assertEqual(result["rejected"], 2)
        self.assertRegex(result["message"], r"^1 variant passed the check; 2 candidates were rejected: ")
        self.assertEqual(sum(result["rejected_reasons"].values()), 2)
        # Each rejection is counted under the check that counts most against it: the changed number
        # under "numbers", the wrong-sense "sake" under one of the English checks.
        self.assertIn("numbers", result["rejected_reasons"])
        self.assertTrue(set(result["rejected_reasons"]) - {"numbers"} <= {"fluency", "word choice", "quantity words",
                                                                          "similarity", "question"})

    def test_no_candidate_at_all_is_said_not_answered_with_an_empty_message(self):
        refusals = {"reorder": "no fact reads after 'given that' within 3 clauses",
                    "rewording": "no word of the rewording lexicon in a context where its swap is safe",
                    "reorder+rewording": "no fact reads after 'given that' within 3 clauses"}
        with mock.patch("paraphrases.handout.generate", return_value=([], refusals)):
            result = paraphrase_variants(text=PROBLEM, k=3)
        self.assertEqual((result["variants"], result["candidates"]), ([], 0))
        self.assertEqual(result["message"], "No generator could rewrite this problem: none of the 2 generators "
                                            "found a part it can change safely (each one's reason is under refused)")
        self.assertEqual(result["refused"], refusals)

    def test_a_reworded_variant_is_handed_out_before_one_with_only_numbers_written_out(self):
        from ml.generation import GeneratedCandidate

        numbers_only = PROBLEM.replace("$600", "600 dollars").replace("$700", "700 dollars")
        made = [GeneratedCandidate(text=numbers_only, generator="number_format", prompt=""),
                GeneratedCandidate(text=CLEAN, generator="reorder", prompt="")]
        with mock.patch("paraphrases.handout.generate", return_value=(made, {})):
            result = paraphrase_variants(text=PROBLEM, k=2, generators=["reorder"])
        self.assertEqual([v["text"] for v in result["variants"]], [CLEAN, numbers_only])
        first, second = result["variants"]
        self.assertGreater(first["useful_probability"], 0.3)
        self.assertLess(second["useful_probability"], 0.1)
        with mock.patch("paraphrases.handout.generate", return_value=(made, {})):
            one = paraphrase_variants(text=PROBLEM, k=1, generators=["reorder"])
        self.assertEqual([v["text"] for v in one["variants"]], [CLEAN])


def gold_pairs(n_problems: int, *, offset: int = 0) -> list[ValidationPair]:
    """Per problem a valid rewording and an invalid rewrite (a number changed), as human gold."""
    pairs = []
    for i in range(offset, offset + n_problems):
        q = f"Tom has {i + 3} apples and buys {i + 5} more at the market. How many apples does Tom have now?"
        good = f"At the market Tom buys {i + 5} more apples; he had {i + 3}. How many apples does Tom have now?"
        bad = f"Tom has {i + 3} apples and buys some more at the market. How many apples does Tom have now?"
        pairs += [ValidationPair(2 * i, q, good, True, "human"), ValidationPair(2 * i + 1, q, bad, False, "human")]
    return pairs


class JudgeLimitTests(ShippedJudgeOn, TestCase):
    def test_paraphrase_reads_at_most_the_limit_round_robin_over_generators(self):
        from ml.generation import GeneratedCandidate

        made = [GeneratedCandidate(text=CLEAN, generator="reorder", prompt="")]
        made += [GeneratedCandidate(text=CLEAN.replace("interest,", f"interest (case {i}),"), generator="synonym",
                                    prompt="") for i in range(5)]
        with override_settings(PARALAB_JUDGE_MAX_CANDIDATES=3, PARALAB_JUDGE_ROUNDS=1), \
                mock.patch("paraphrases.handout.generate", return_value=(made, {})):
            result = paraphrase_variants(text=PROBLEM, k=3, generators=["reorder", "synonym"])
        self.assertEqual(result["rejected_reasons"].get("not checked"), 3)
        self.assertIn(CLEAN, [v["text"] for v in result["variants"]])  # the lone reorder output was read

    def test_when_the_first_round_all_fails_the_judge_reads_the_next_candidates(self):
        from ml.generation import GeneratedCandidate

        # the broken rewrites are the most reworded, so they are read first; the plain clean one after
        broken = [BROKEN, BROKEN.replace("A sum of money", "Some money"),
                  BROKEN.replace("Find the rate of sake.", "Determine the rate of sake.")]
        made = [GeneratedCandidate(text=text, generator="synonym", prompt="") for text in broken]
        made.append(GeneratedCandidate(text=PROBLEM.replace("Find the rate", "Determine the rate"),
                                       generator="rewording", prompt=""))
        with mock.patch("paraphrases.handout.generate", return_value=(made, {})):
            with override_settings(PARALAB_JUDGE_MAX_CANDIDATES=1, PARALAB_JUDGE_ROUNDS=1):
                once = paraphrase_variants(text=PROBLEM, k=3, generators=["rewording", "synonym"])
            with override_settings(PARALAB_JUDGE_MAX_CANDIDATES=1, PARALAB_JUDGE_ROUNDS=2):
                twice = paraphrase_variants(text=PROBLEM, k=3, generators=["rewording", "synonym"])
        self.assertEqual(once["variants"], [])
        self.assertEqual(once["rejected_reasons"].get("not checked"), 3)
        self.assertEqual([v["generator"] for v in twice["variants"]], ["rewording"])
        self.assertEqual(twice["rejected_reasons"].get("not checked"), 2)


class RefitTests(ShippedJudgeOn, TestCase):
    def test_too_little_held_out_gold_keeps_the_active_judge(self):
        active = decision_version()
        result = judge_refit(pairs=gold_pairs(6), min_heldout=50)
        self.assertFalse(result["promoted"])
        self.assertIn("not enough gold to decide", result["reason"])
        self.assertEqual(decision_version().pk, active.pk)
        self.assertEqual(ModelVersion.objects.get(pk=result["version"]).status, ModelVersion.Status.CANDIDATE)

    def test_a_refit_that_ranks_held_out_gold_worse_is_not_promoted(self):
        from ml.judge import NumeracyJudge

        active = decision_version()
        real_update = NumeracyJudge.update

        class Backwards:
            """A refit that ranks every pair the wrong way round (what the gate must catch)."""

            def __init__(self, judge):
                self.judge = judge

            def raw(self, features):
                return [1.0 - r for r in self.judge.raw(features)]

            def save(self, directory):
                return self.judge.save(directory)

        with mock.patch.object(NumeracyJudge, "update", lambda judge, *a, **k: Backwards(real_update(judge, *a, **k))):
            result = judge_refit(pairs=gold_pairs(40), holdout_percent=30, min_heldout=10)
        self.assertLess(result["auc_refit"], result["auc_base"])
        self.assertFalse(result["promoted"])
        self.assertIn("ranks the held-out gold worse", result["reason"])
        self.assertEqual(decision_version().pk, active.pk)

    def test_a_refit_on_gold_changes_the_decisions_and_is_promoted_when_no_worse(self):
        active = decision_version()
        pairs = gold_pairs(40)
        result = judge_refit(pairs=pairs, holdout_percent=30, min_heldout=10)
        self.assertGreaterEqual(result["auc_refit"], result["auc_base"])
        self.assertTrue(result["promoted"])
        refit = decision_version()
        self.assertNotEqual(refit.pk, active.pk)
        self.assertEqual(refit.params["refit_of"], active.pk)
        from modelhub.kinds.judge.service import load_judge

        self.assertNotEqual(load_judge(refit).weights, load_judge(active).weights)

    def test_beat_refits_once_enough_new_gold_arrived(self):
        from modelhub.calibration_jobs import recalibrate_check

        dataset = make_dataset("beat-gold")
        for i in range(2):
            problem = make_problem(dataset, f"Ann has {i + 2} pens and buys {i + 4} more. How many pens does Ann have?",
                                   split=Problem.Split.DEV)
            make_gold(make_candidate(problem, f"Ann buys {i + 4} more pens; she had {i + 2}. How many pens does Ann have?",
                                     generator="reorder"), valid=True, source=GoldLabel.Source.AGREEMENT)
            make_gold(make_candidate(problem, "Ann has some pens and buys more. How many pens does Ann have?",
                                     generator="reorder"), valid=False, source=GoldLabel.Source.AGREEMENT)
        with override_settings(PARALAB_JUDGE_REFIT_EVERY=0):
            self.assertNotIn("refit", recalibrate_check())
        with override_settings(PARALAB_JUDGE_REFIT_EVERY=4):
            done = recalibrate_check()
        self.assertIn("refit", done)
        refit = done["refit"]
        # Four gold labels: either too few of both classes on the learning side, or too little held out.
        self.assertTrue("skipped" in refit or "not enough gold to decide" in refit["reason"], refit)

    def test_refit_without_gold_of_both_classes_is_refused(self):
        with self.assertRaisesRegex(RefitError, "valid and invalid"):
            judge_refit(pairs=[p for p in gold_pairs(5) if p.valid])
        with self.assertRaises(CommandError):
            call_command("refit_judge", "--json", stdout=StringIO())


class WithoutShippedJudgeTests(TestCase):
    def test_the_setting_off_installs_nothing(self):
        call_command("migrate", verbosity=0)
        self.assertIsNone(judge_install_shipped())
        self.assertIsNone(decision_version())


class ImportedGoldIsNotHumanGoldTests(ShippedJudgeOn, TestCase):
    def test_refit_reads_human_gold_only(self):
        dataset = make_dataset("imported")
        problem = make_problem(dataset, PROBLEM, split=Problem.Split.DEV)
        make_gold(make_candidate(problem, CLEAN, generator="import:x"), valid=True, source=GoldLabel.Source.IMPORT)
        make_gold(make_candidate(problem, BROKEN, generator="import:x"), valid=False, source=GoldLabel.Source.IMPORT)
        with self.assertRaisesRegex(RefitError, "0 gold labels"):
            judge_refit()
        self.assertTrue(json.dumps(decision_version().params))
