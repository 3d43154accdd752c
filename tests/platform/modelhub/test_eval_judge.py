"""``eval_judge``: a judge of any kind on a dataset's gold-labelled pairs, deciding as the platform
does (the deciding version by default, another by id), with clear errors that write nothing."""
from __future__ import annotations

import contextlib
import json
from io import StringIO
from unittest import mock

from django.core.management import CommandError, call_command, execute_from_command_line
from django.test import TestCase

from corpus.models import Dataset, Problem
from ml.metrics import paraqd_eval
from ml.metrics.classification import pr_auc, roc_auc
from modelhub.calibration import version_calibrate
from modelhub.calibration_jobs import pretrained_judge
from modelhub.evaluation import EvaluationError, judge_evaluate
from modelhub.judging import decision_version, version_threshold
from modelhub.kinds.judge.service import judge_evaluate_pairs
from modelhub.kinds.paraqd import gold_pairs, paraqd_cosines, paraqd_resolve_model
from modelhub.models import ModelVersion

from ..corpus.importing import TempFilesMixin
from ..paraphrases.helpers import PROBLEMS, ParaQDSettingsMixin, make_algebra, make_gold_pairs
from .test_calibration import MORE

CONTRACT_KEYS = {"n", "auc", "pr_auc", "threshold", "macro", "weighted", "accepted", "valid_share_of_accepted",
                 "dataset", "model", "threshold_source"}
AVERAGE_KEYS = {"p", "r", "f1", "f1_hm"}
# A tiny imported test set (problems of its own): three valid and two invalid pairs.
TINY = ["Ann picks 14 plums and eats 3 plums. How many plums are left?",
        "A rope is 9 metres long and is cut into 3 equal parts. How long is each part?"]
TINY_CSV = (
    "question,paraphrase,label\n"
    f'"{TINY[0]}","{TINY[0].replace("How many", "Tell me how many")}",1\n'
    f'"{TINY[0]}","Ann picks 14 plums.",0\n'
    f'"{TINY[1]}","{TINY[1].replace("is cut", "gets cut")}",1\n'
    f'"{TINY[1]}","A rope is long.",0\n'
    f'"{TINY[1]}","{TINY[1].replace("How long", "What length")}",1\n'
)


def eval_judge(*args: str) -> dict:
    out = StringIO()
    call_command("eval_judge", *args, "--json", stdout=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 1, lines
    return json.loads(lines[0])


class EvalJudgeTests(ParaQDSettingsMixin, TempFilesMixin, TestCase):
    def setUp(self):
        super().setUp()
        self.dataset, _ = make_algebra("val", texts=PROBLEMS + MORE, split=Problem.Split.DEV)
        make_gold_pairs(self.dataset)
        call_command("import_pairs", str(self.write("tiny.csv", TINY_CSV)), "--dataset", "tiny", "--split", "test",
                     stdout=StringIO())
        self.tiny = Dataset.objects.get(name="tiny")

    def assert_shape(self, result: dict) -> None:
        self.assertLessEqual(CONTRACT_KEYS, set(result))
        self.assertEqual(set(result["macro"]), AVERAGE_KEYS)
        self.assertEqual(set(result["weighted"]), AVERAGE_KEYS)
        self.assertEqual(set(result["model"]), {"id", "kind"})

    def test_the_deciding_paraqd_version_on_its_calibrated_cosine_threshold(self):
        version = pretrained_judge()
        record = version_calibrate(version=version, dataset_names=["val"])
        before = ModelVersion.objects.get(pk=version.pk).metrics
        result = eval_judge("--dataset", "val")
        self.assert_shape(result)
        self.assertEqual((result["dataset"], result["model"]), ("val", {"id": version.pk, "kind": "paraqd"}))
        self.assertEqual((result["column"], result["threshold_source"]), ("paraqd", "calibration"))
        self.assertEqual(result["threshold"], record["cosine_threshold"])
        # The same numbers from the cosines scored here, decided by hand.
        pairs = gold_pairs(dataset=self.dataset)
        labels = [int(p[3]) for p in pairs]
        cosines = paraqd_cosines(model=paraqd_resolve_model(model=version), questions=[p[1] for p in pairs],
                                 paraphrases=[p[2] for p in pairs])
        accepted = [y for c, y in zip(cosines, labels) if c > result["threshold"]]
        self.assertEqual(result["n"], len(pairs))
        self.assertEqual(result["accepted"], len(accepted))
        self.assertGreater(result["accepted"], 0)
        self.assertAlmostEqual(result["valid_share_of_accepted"], sum(accepted) / len(accepted))
        flat = paraqd_eval(cosines, labels, result["threshold"])
        self.assertAlmostEqual(result["weighted"]["f1_hm"], flat["weighted_f1_hm"])
        self.assertAlmostEqual(result["macro"]["p"], flat["macro_p"])
        self.assertAlmostEqual(result["auc"], roc_auc(cosines, labels))
        self.assertAlmostEqual(result["pr_auc"], pr_auc(cosines, labels))
        # Evaluating writes nothing.
        self.assertEqual(ModelVersion.objects.get(pk=version.pk).metrics, before)

    def test_accepted_and_the_valid_share_on_a_tiny_set_follow_the_threshold(self):
        version = pretrained_judge()
        result = eval_judge("--dataset", "tiny")
        self.assertEqual((result["threshold"], result["threshold_source"]), (0.5, "default"))
        pairs = gold_pairs(dataset=self.tiny)
        self.assertEqual([p[3] for p in pairs], [True, False, True, False, True])
        cosines = paraqd_cosines(model=paraqd_resolve_model(model=version), questions=[p[1] for p in pairs],
                                 paraphrases=[p[2] for p in pairs])
        self.assertEqual(len(set(cosines)), 5)
        # A calibration whose cosine threshold lies between the 2nd and 3rd highest cosines: exactly
        # the two best-scored pairs are accepted, whatever the tiny encoder's scores are.
        ranked = sorted(zip(cosines, [p[3] for p in pairs]), reverse=True)
        cut = (ranked[1][0] + ranked[2][0]) / 2
        ModelVersion.objects.filter(pk=version.pk).update(
            metrics={"calibration": {"threshold": 0.5, "cosine_threshold": cut}})
        result = eval_judge("--dataset", "tiny")
        self.assertEqual((result["n"], result["threshold"], result["threshold_source"]), (5, cut, "calibration"))
        self.assertEqual(result["accepted"], 2)
        self.assertEqual(result["valid_share_of_accepted"], (ranked[0][1] + ranked[1][1]) / 2)
        # Nothing accepted: no share to report.
        ModelVersion.objects.filter(pk=version.pk).update(
            metrics={"calibration": {"threshold": 0.5, "cosine_threshold": ranked[0][0] + 1e-6}})
        result = eval_judge("--dataset", "tiny")
        self.assertEqual((result["accepted"], result["valid_share_of_accepted"]), (0, None))
        self.assertEqual(result["macro"]["r"], 0.5)  # all predicted invalid: recall 1 on invalid, 0 on valid

    def test_the_numeracy_aware_judge_decides_on_its_probability_and_another_version_by_id(self):
        paraqd = pretrained_judge()
        version_calibrate(version=paraqd, dataset_names=["val"])
        out = StringIO()
        call_command("train_judge", "--dataset", "val", "--activate", "--json", stdout=out)
        judge = ModelVersion.objects.get(pk=json.loads(out.getvalue())["version"])
        self.assertEqual(decision_version(), judge)
        result = eval_judge("--dataset", "tiny")
        self.assert_shape(result)
        self.assertEqual((result["model"], result["column"]), ({"id": judge.pk, "kind": "judge"}, "probability"))
        self.assertEqual((result["threshold"], result["threshold_source"]), (version_threshold(judge), "calibration"))
        pairs = gold_pairs(dataset=self.tiny)
        scored = judge_evaluate_pairs(version=judge, questions=[p[1] for p in pairs], paraphrases=[p[2] for p in pairs])
        accepted = [p[3] for p, s in zip(pairs, scored) if s["probability"] > result["threshold"]]
        self.assertEqual(result["accepted"], len(accepted))
        self.assertEqual(result["valid_share_of_accepted"], sum(accepted) / len(accepted) if accepted else None)
        self.assertAlmostEqual(result["auc"], roc_auc([s["raw"] for s in scored], [p[3] for p in pairs]))
        # A recalibrated threshold where the calibrated probability and the raw output disagree: the
        # judge decides on the probability.
        probabilities, raw = [s["probability"] for s in scored], [s["raw"] for s in scored]
        values = sorted(set(probabilities + raw))
        cut = next((t for t in ((a + b) / 2 for a, b in zip(values, values[1:]))
                    if sum(p > t for p in probabilities) != sum(r > t for r in raw)), None)
        self.assertIsNotNone(cut, (probabilities, raw))
        metrics = judge.metrics
        metrics["calibration"]["threshold"] = cut
        ModelVersion.objects.filter(pk=judge.pk).update(metrics=metrics)
        result = eval_judge("--dataset", "tiny")
        accepted = [p[3] for p, q in zip(pairs, probabilities) if q > cut]
        self.assertEqual((result["threshold"], result["accepted"]), (cut, len(accepted)))
        self.assertEqual(result["valid_share_of_accepted"], sum(accepted) / len(accepted) if accepted else None)
        # --model ID evaluates that version, not the one that decides.
        other = eval_judge("--dataset", "tiny", "--model", str(paraqd.pk))
        self.assertEqual((other["model"], other["column"]), ({"id": paraqd.pk, "kind": "paraqd"}, "paraqd"))
        self.assertEqual(other["threshold"], version_threshold(paraqd))
        self.assertEqual(eval_judge("--dataset", "tiny", "--model", "active")["model"]["id"], judge.pk)

    def test_bad_input_is_one_clear_error_and_writes_nothing(self):
        stead = ModelVersion.objects.create(kind="stead", base_model="tiny")
        with self.assertRaisesMessage(CommandError, "no judge decides yet"):
            eval_judge("--dataset", "val")
        paraqd = pretrained_judge()
        before = (ModelVersion.objects.count(), ModelVersion.objects.get(pk=paraqd.pk).metrics)
        make_algebra("bare", texts=["Ola has 2 kites. How many kites does Ola have?"])
        cases = [
            (("--dataset", "nope"), "no dataset named 'nope'"),
            (("--dataset", "bare"), "dataset 'bare' has no gold-labelled pairs"),
            (("--dataset", "val", "--model", str(stead.pk)), f"version {stead.pk} is a stead model, not a judge"),
            (("--dataset", "val", "--model", "999999"), "no model version with id 999999"),
            (("--dataset", "val", "--model", "pretrained"), "expected active or a model version id"),
        ]
        for args, message in cases:
            with self.subTest(args=args), self.assertRaisesMessage(CommandError, message):
                eval_judge(*args)
        # A judge version whose model file is gone.
        lost = ModelVersion.objects.create(kind="judge", base_model="tiny", artifact_path=str(self.model_dir / "gone"))
        with self.assertRaisesMessage(CommandError, "has no model file"):
            eval_judge("--dataset", "val", "--model", str(lost.pk))
        with self.assertRaises(EvaluationError):
            judge_evaluate(dataset=self.dataset, version=stead)
        self.assertEqual((ModelVersion.objects.count() - 1, ModelVersion.objects.get(pk=paraqd.pk).metrics), before)

    def test_help_describes_the_json_and_the_text_output_reads(self):
        out = StringIO()
        with (contextlib.redirect_stdout(out), self.assertRaises(SystemExit),
              mock.patch("django.core.management.base.connections.close_all")):
            execute_from_command_line(["manage.py", "eval_judge", "--help"])
        text = " ".join(out.getvalue().split())
        for key in ("valid_share_of_accepted", '"accepted"', '"pr_auc"', "f1_hm", "threshold_source"):
            self.assertIn(key, text)
        pretrained_judge()
        out = StringIO()
        call_command("eval_judge", "--dataset", "tiny", stdout=out)
        self.assertIn("accepted", out.getvalue())
        self.assertIn("weighted", out.getvalue())
