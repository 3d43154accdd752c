"""The loop benchmark's replay (``benchmarks/loop.py``) end to end on a tiny set: human labels go
through the platform's queue, label service, refit and promotion gate, and each step measures the
deciding judge on problems that were never labelled."""
from __future__ import annotations

from django.core.management import call_command
from django.test import TestCase, override_settings

from annotation.models import GoldLabel
from benchmarks.loop import is_eval, labels_to_reach, mean_curve, replay, shuffled, svg
from modelhub.models import ModelVersion


def tiny_pairs(n: int) -> list[tuple[str, str, bool]]:
    pairs = []
    for i in range(n):
        q = f"A shop sells {i + 4} pens at {i + 2} dollars each. How much money does the shop get?"
        pairs.append((q, f"Each pen costs {i + 2} dollars and the shop sells {i + 4}. How much money does it get?", True))
        pairs.append((q, f"A shop sells some pens at {i + 2} dollars each. How much money does the shop get?", False))
    return pairs


@override_settings(PARALAB_SHIPPED_JUDGE=True)
class LoopReplayTests(TestCase):
    def setUp(self):
        super().setUp()
        call_command("migrate", verbosity=0)  # the shipped judge decides, as on a fresh install

    def test_replay_labels_in_queue_order_and_measures_each_step(self):
        pairs = tiny_pairs(12)
        points = replay(pairs=pairs, order="uncertainty", batch=4, eval_percent=30, max_labels=8, log=lambda *_: None)
        self.assertEqual([p["labels"] for p in points], [0, 4, 8])
        evaluated = sum(is_eval(q, 30) for q, _, _ in pairs)
        self.assertGreater(evaluated, 0)
        # Every label became gold through the label service; no evaluation problem was labelled.
        gold = GoldLabel.objects.filter(candidate__problem__dataset__name="replay-uncertainty-0")
        self.assertEqual(gold.count(), 8)
        self.assertFalse(any(is_eval(g.candidate.problem.text, 30) for g in gold))
        for p in points:
            self.assertTrue(0.0 <= p["auc"] <= 1.0)
        refits = [p["refit"] for p in points[1:]]
        self.assertTrue(all(r is not None for r in refits))
        # Too little held-out gold on a tiny set: the gate keeps the shipped judge.
        self.assertTrue(all(not r["promoted"] for r in refits))
        self.assertEqual(ModelVersion.objects.get(pk=points[-1]["version"]).params.get("shipped") is not None, True)

    def test_labels_to_reach_and_the_chart(self):
        curve = [{"labels": 0, "auc": 0.7, "valid_share": 0.8}, {"labels": 50, "auc": 0.8, "valid_share": 0.9}]
        self.assertEqual(labels_to_reach(curve, 0.75), 50)
        self.assertIsNone(labels_to_reach(curve, 0.9))
        chart = svg({"uncertainty": curve, "random": curve}, "auc", "AUC")
        self.assertIn("<polyline", chart)
        self.assertEqual(chart.count("<polyline"), 2)

    def test_several_seeds_average_point_by_point(self):
        one = [{"labels": 0, "auc": 0.70, "valid_share": 0.5}, {"labels": 50, "auc": 0.80, "valid_share": None}]
        two = [{"labels": 0, "auc": 0.74, "valid_share": 0.7}, {"labels": 50, "auc": 0.90, "valid_share": 0.9}]
        curve = mean_curve([one, two])
        self.assertEqual([p["labels"] for p in curve], [0, 50])
        self.assertAlmostEqual(curve[0]["auc"], 0.72)
        self.assertAlmostEqual(curve[1]["auc"], 0.85)
        self.assertAlmostEqual(curve[0]["valid_share"], 0.6)
        self.assertAlmostEqual(curve[1]["valid_share"], 0.9)  # a step without a handout does not count as 0
        self.assertEqual((curve[1]["auc_min"], curve[1]["auc_max"]), (0.80, 0.90))

    def test_a_seed_stores_the_pool_in_its_own_order(self):
        pairs = tiny_pairs(12)
        self.assertEqual(shuffled(pairs, 0), pairs)
        self.assertEqual(shuffled(pairs, 3), shuffled(pairs, 3))
        self.assertNotEqual(shuffled(pairs, 3), shuffled(pairs, 4))
        self.assertEqual(sorted(shuffled(pairs, 3)), sorted(pairs))
