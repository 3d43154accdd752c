"""``pqi_by_generator`` aggregates in SQL: checked against the same summary computed in Python
from ``latest_scores`` (each candidate's newest complete score), with several generators, several
scorer versions, candidates scored twice, incomplete score rows, missing metrics and gold labels."""
from __future__ import annotations

import random
import statistics

from django.test import TestCase

from paraphrases.models import METRIC_KEYS
from paraphrases.selectors import latest_scores, pqi_by_generator

from ..corpus.factories import make_candidate, make_dataset, make_gold, make_problems, make_score


def reference(dataset, generator=None) -> dict:
    scores = latest_scores(dataset=dataset, generator=generator)
    by_generator: dict[str, list[dict]] = {}
    for candidate_id, row in scores.items():
        by_generator.setdefault(row["generator"], []).append({**row, "candidate_id": candidate_id})
    from annotation.models import GoldLabel

    gold = {g.candidate_id: g.valid for g in GoldLabel.objects.filter(candidate_id__in=list(scores))}
    out = {}
    for name, rows in sorted(by_generator.items()):
        summary = {"n": len(rows)}
        for key in METRIC_KEYS:
            values = [r[key] for r in rows if r.get(key) is not None]
            summary[key] = round(statistics.fmean(values), 4) if values else None
        pqis = [r["PQI"] for r in rows]
        summary["PQI_sd"] = round(statistics.pstdev(pqis), 4) if len(pqis) > 1 else 0.0
        labelled = [gold[r["candidate_id"]] for r in rows if r["candidate_id"] in gold]
        summary["labelled"] = len(labelled)
        summary["human_valid_share"] = round(sum(labelled) / len(labelled), 4) if labelled else None
        out[name] = summary
    return {"dataset": dataset.name, "by_generator": out, "scorers": sorted({r["scorer"] for r in scores.values()})}


class PqiSummaryTests(TestCase):
    def test_the_sql_summary_equals_the_python_one(self):
        rng = random.Random(5)
        dataset = make_dataset("pqi-sql")
        other = make_dataset("pqi-other")
        for target in (dataset, other):
            for problem in make_problems(target, 12, prefix=target.name):
                for j, generator in enumerate(("reorder", "synonym", "eda")):
                    candidate = make_candidate(problem, f"{generator} {j} of {problem.text}", generator=generator)
                    versions = ["metrics:1"] if rng.random() < 0.6 else ["metrics:1", "metrics:2"]
                    for version in versions:
                        s, d = rng.uniform(0.7, 1), rng.uniform(0.05, 0.6)
                        make_score(candidate, version, similarity=s, diversity=d, numeracy=rng.choice([1.0, 0.5]),
                                   pqi=rng.uniform(0.3, 0.9), bleu_diversity=d,
                                   wpd=None if rng.random() < 0.2 else d / 2)
                    if rng.random() < 0.3:
                        make_score(candidate, "paraqd:v1", paraqd=rng.uniform(-1, 1))  # no PQI: not counted
                    if rng.random() < 0.25:
                        make_gold(candidate, valid=rng.random() < 0.5)
        expected = reference(dataset)
        got = pqi_by_generator(dataset=dataset)
        self.assertEqual(sorted(got["by_generator"]), ["eda", "reorder", "synonym"])
        self.assertEqual(got["scorers"], expected["scorers"])
        self.assertEqual(got["scorers"], ["metrics:1", "metrics:2"])
        for name, summary in expected["by_generator"].items():
            mine = got["by_generator"][name]
            self.assertEqual({k: mine[k] for k in ("n", "labelled", "human_valid_share")},
                             {k: summary[k] for k in ("n", "labelled", "human_valid_share")}, name)
            for key in (*METRIC_KEYS, "PQI_sd"):
                self.assertAlmostEqual(mine[key], summary[key], places=3, msg=f"{name} {key}")
        self.assertEqual(pqi_by_generator(dataset=dataset, generator="eda")["by_generator"].keys(), {"eda"})
