"""Adding a model kind is one kind module and one registration (DESIGN.md, "Generation and model
kinds"): a small judge kind that lives only in this test file is registered, retrained from the
annotators' gold labels, gated, promoted and served through the generic loop (the retrain service
and job, ``ModelVersion`` rows validated against the registry, the models API and page,
calibration and evaluation) without a line of the platform naming it and without a migration.

Its "model" is one number: the shortest length ratio (paraphrase words / problem words) of a
gold-valid pair it was trained on; a pair scores its ratio over that line.
"""
from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from django.test import TestCase

from annotation.models import GoldLabel
from jobs.models import Job
from ml.metrics.classification import roc_auc
from modelhub.artifacts import version_register, work_dir
from modelhub.calibration import raw_scores
from modelhub.evaluation import judge_evaluate
from modelhub.kinds.base import KindDefaults, TrainRequest
from modelhub.kinds.registry import get_kind, register, unregister
from modelhub.models import ModelVersion
from modelhub.selectors import human_gold_labels, modelversion_active
from modelhub.services import model_retrain_start, modelversion_create
from paraphrases.models import Candidate

from ..corpus.factories import make_user
from .retrain_helpers import RetrainSetUpMixin

KIND = "lengthratio"


def ratio(question: str, paraphrase: str) -> float:
    return len(paraphrase.split()) / max(1, len(question.split()))


class LengthRatioKind(KindDefaults):
    name = KIND
    label = "Length-ratio judge (test kind)"
    queue = "cpu"
    retrainable = True
    has_reference = False
    is_judge = True
    decision_column = "probability"
    gate_metrics = (("auc", ("auc",), "ROC AUC on the held-out gold"),)

    def train(self, request: TrainRequest) -> ModelVersion:
        ids = request.options.get("candidate_ids")
        golds = GoldLabel.objects.filter(valid=True).select_related("candidate__problem")
        if ids is not None:
            golds = golds.filter(candidate_id__in=list(ids))
        line = min((ratio(g.candidate.problem.text, g.candidate.text) for g in golds), default=1.0)
        folder = work_dir(KIND)
        folder.mkdir(parents=True)
        (folder / "line.json").write_text(json.dumps({"line": line}))
        return version_register(kind=KIND, folder=folder, base_model="none", name="length ratio",
                                training_data={"gold": golds.count()}, params={}, metrics={},
                                activate=request.activate, job=request.job)

    def retrain_candidate(self, *, split, job, progress):
        return self.train(TrainRequest(job=job, options={"candidate_ids": split.train_ids}))

    def _line(self, version: ModelVersion) -> float:
        return json.loads((Path(version.artifact_path) / "line.json").read_text())["line"]

    def raw_scores(self, *, version, questions, paraphrases) -> list[float]:
        line = self._line(version)
        return [ratio(q, p) - line for q, p in zip(questions, paraphrases)]

    def decision_scores(self, *, version, questions, paraphrases):
        raw = self.raw_scores(version=version, questions=questions, paraphrases=paraphrases)
        return raw, [1.0 if r >= 0 else 0.0 for r in raw]

    def heldout_metrics(self, *, version, split) -> dict[str, Any]:
        if version is None:
            return {}
        scores = self.raw_scores(version=version, questions=[p.question for p in split.heldout],
                                 paraphrases=[p.paraphrase for p in split.heldout])
        return {"auc": roc_auc(scores, [int(p.valid) for p in split.heldout])}

    def new_evidence(self, *, since: datetime | None) -> dict[str, int]:
        return {"new_gold_labels": human_gold_labels(since=since).count(), "human_model_disagreements": 0}


class PluginKindTests(RetrainSetUpMixin, TestCase):
    def setUp(self):
        super().setUp()
        register(LengthRatioKind())
        self.addCleanup(unregister, KIND)

    def retrain(self) -> Job:
        with self.captureOnCommitCallbacks(execute=True):
            job = model_retrain_start(kind=KIND, force=True)
        job.refresh_from_db()
        return job

    def test_an_unregistered_kind_has_no_versions(self):
        unregister(KIND)
        with self.assertRaises(ValueError):
            modelversion_create(kind=KIND, base_model="none")

    def test_a_kind_registered_by_the_suite_trains_gates_promotes_and_serves_through_the_generic_loop(self):
        self.assertIs(get_kind(KIND).__class__, LengthRatioKind)
        job = self.retrain()
        self.assertEqual(job.status, Job.Status.SUCCEEDED, job.error)
        self.assertTrue(job.result["promoted"])
        self.assertIn("no active lengthratio version to compare with", job.result["gate"]["reason"])
        first = modelversion_active(kind=KIND)
        self.assertEqual(first.pk, job.result["version"])
        folder = Path(first.artifact_path)
        self.assertEqual(folder.parent, self.model_dir / KIND)  # registered by the one artifact seam
        self.assertTrue((folder / "line.json").is_file())

        # A second retrain is gated against the first on the same held-out gold (same AUC: no regression).
        second = self.retrain()
        self.assertEqual(second.status, Job.Status.SUCCEEDED, second.error)
        self.assertEqual(second.result["gate"]["checks"][0]["metric"], "auc")
        self.assertTrue(second.result["promoted"], second.result["gate"]["reason"])
        self.assertEqual(modelversion_active(kind=KIND).pk, second.result["version"])
        self.assertEqual(ModelVersion.objects.get(pk=first.pk).status, ModelVersion.Status.RETIRED)

        # Served: the models API and page list it, and the generic calibration and evaluation read it.
        staff = make_user("staff", staff=True)
        self.client.force_login(staff)
        listed = self.client.get("/api/v1/models/", {"kind": KIND})
        self.assertEqual(listed.status_code, 200)
        self.assertEqual(listed.json()["active"], {KIND: second.result["version"]})
        self.assertContains(self.client.get("/models/"), "Length-ratio judge (test kind)")
        active = modelversion_active(kind=KIND)
        pairs = list(Candidate.objects.filter(gold__isnull=False).select_related("problem"))
        scores = raw_scores(version=active, questions=[c.problem.text for c in pairs], paraphrases=[c.text for c in pairs])
        self.assertEqual(len(scores), len(pairs))
        evaluation = judge_evaluate(dataset=self.dataset, version=active)
        self.assertEqual(evaluation["n"], len(pairs))
        self.assertEqual(evaluation["auc"], 1.0)  # valid rewrites are longer than the cut-off ones

    def test_retrain_api_refuses_an_unknown_kind_and_accepts_the_registered_one(self):
        staff = make_user("staff", staff=True)
        self.client.force_login(staff)
        self.assertEqual(self.client.post("/api/v1/models/nosuchkind/retrain/").status_code, 404)
        with self.captureOnCommitCallbacks(execute=True):
            response = self.client.post(f"/api/v1/models/{KIND}/retrain/")
        self.assertEqual(response.status_code, 202)
        self.assertEqual(Job.objects.get(pk=response.json()["job"]).status, Job.Status.SUCCEEDED)


class PluginJudgeGatesTheHandoutTests(TestCase):
    """The judging port (``modelhub.judging.deciding_judge``): a judge kind registered by this file
    alone, once promoted, decides what ``paraphrase_variants`` hands out, with no generation module
    naming it."""

    PROBLEM = ("John had 5 apples and bought 7 more at the market on Monday. "
               "How many apples does John have now?")

    def setUp(self):
        register(LengthRatioKind())
        self.addCleanup(unregister, KIND)

    def promote(self, line: float) -> ModelVersion:
        folder = work_dir(KIND)
        folder.mkdir(parents=True)
        (folder / "line.json").write_text(json.dumps({"line": line}))
        return version_register(kind=KIND, folder=folder, base_model="none", name=f"length ratio {line}",
                                training_data={}, params={}, metrics={}, activate=True)

    def test_the_promoted_plugin_judge_decides_what_is_handed_out(self):
        from modelhub.judging import deciding_judge
        from paraphrases.handout import paraphrase_variants

        lenient = self.promote(0.0)  # every rewrite is at least 0 times as long: all pass
        judge = deciding_judge()
        self.assertEqual((judge.kind, judge.version_id, judge.gates), (KIND, lenient.pk, True))
        passed = paraphrase_variants(text=self.PROBLEM, k=3)
        self.assertEqual(passed["judge"]["version"], lenient.pk)
        self.assertTrue(passed["variants"])
        self.assertTrue(all(v["valid_probability"] == 1.0 for v in passed["variants"]))
        self.assertTrue(all(v["reasons"][0]["check"] == LengthRatioKind.label for v in passed["variants"]))

        strict = self.promote(5.0)  # no rewrite is five times as long: the same candidates all fail
        self.assertEqual(deciding_judge().version_id, strict.pk)
        refused = paraphrase_variants(text=self.PROBLEM, k=3)
        self.assertEqual(refused["variants"], [])
        self.assertEqual(refused["judge"]["version"], strict.pk)
        self.assertGreater(refused["rejected"], 0)
        self.assertEqual(set(refused["rejected_reasons"]) - {"not checked"}, {LengthRatioKind.label})
        self.assertIn("rejected", refused["message"])
