"""Benchmark: can one judge rank both the platform's candidates and human-written paraphrases?

    python benchmarks/judge_combination.py        # seconds once scripts/build_judge.py cached the features

The shipped judge is one monotone logistic regression fitted on the labelled candidates (English
failures) and, with a weight, ParaQD's operator pairs (number and meaning changes); no weight of the
grid ranks both sets well (``docs/results/judge.md``). This compares it with a product of two
experts, P(valid) ∝ P_meaning^α · P_english: a monotone regression over the numeracy checks (and
fluency) fitted on the operator pairs, times one over every check fitted on the labelled candidates.

Every number is from validation data (5-fold cross-validation grouped by problem, the folds of
``scripts/build_judge.py``) except the AQUA_test column, which is only read (a judge fitted on both
validation sets in full). Arms: one monotone regression (the shipped judge's form), a product of two
such experts, and monotone gradient-boosted trees (scikit-learn). Features come from ``scripts/build_judge.py``'s cache (``var/judge-build``),
computed there when missing (about 15 minutes). Results are prepended to ``docs/results/judge.md``.
"""
from __future__ import annotations

import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "scripts")]
from benchmarks.results import prepend_run  # noqa: E402
OUT = REPO / "docs" / "results" / "judge.md"


def main() -> None:
    import build_judge as build
    import nltk

    from ml.judge import NumeracyJudge
    from ml.metrics.classification import roc_auc

    nltk.data.path.insert(0, str(REPO / "var" / "nltk_data"))
    started = time.perf_counter()
    data, cache = REPO.parent / "shared" / "data", REPO / "var" / "judge-build"
    lp, op, tp = build.labelled_candidates(data), build.operator_pairs(data), build.test_pairs(data)
    lf, of, tf = (build.featurise(lp, cache, "labels"), build.featurise(op, cache, "aqua_val_operators"),
                  build.featurise(tp, cache, "aqua_test"))
    ly, oy, ty = [p[2] for p in lp], [p[2] for p in op], [p[2] for p in tp]
    lg, og = [p[0] for p in lp], [p[0] for p in op]
    problems = sorted({*lg, *og})
    order = np.random.RandomState(3407).permutation(len(problems))
    fold = {problems[i]: n % 5 for n, i in enumerate(order)}

    def log_prob(judge, features):
        return np.log(np.clip(np.asarray(judge.raw(features)), 1e-12, 1.0))

    def evaluate(make):
        """(labelled candidates CV AUC, operator pairs CV AUC, AQUA_test AUC of the full fit)."""
        out_l, out_o = np.zeros(len(ly)), np.zeros(len(oy))
        for k in range(5):
            score = make([i for i, g in enumerate(lg) if fold[g] != k], [i for i, g in enumerate(og) if fold[g] != k])
            held_l = [i for i, g in enumerate(lg) if fold[g] == k]
            held_o = [i for i, g in enumerate(og) if fold[g] == k]
            out_l[held_l], out_o[held_o] = score([lf[i] for i in held_l]), score([of[i] for i in held_o])
        score = make(list(range(len(ly))), list(range(len(oy))))
        return roc_auc(out_l.tolist(), ly), roc_auc(out_o.tolist(), oy), roc_auc(score(tf).tolist(), ty)

    def joint(weight):
        def make(tl, to):
            judge = NumeracyJudge(regularisation=10.0, fluency_lm="smollm2", english=True)
            use = to if weight > 0 else []
            judge.fit([lf[i] for i in tl] + [of[i] for i in use], [ly[i] for i in tl] + [oy[i] for i in use],
                      sample_weight=[1.0] * len(tl) + [weight] * len(use))
            return lambda features: log_prob(judge, features)
        return make

    def product(alpha, meaning_english=False):
        def make(tl, to):
            meaning = NumeracyJudge(regularisation=10.0, fluency_lm="smollm2", english=meaning_english)
            meaning.fit([of[i] for i in to], [oy[i] for i in to])
            english = NumeracyJudge(regularisation=10.0, fluency_lm="smollm2", english=True)
            english.fit([lf[i] for i in tl], [ly[i] for i in tl])
            return lambda features: alpha * log_prob(meaning, features) + log_prob(english, features)
        return make

    def boosted(weight, depth):
        """Monotone gradient-boosted trees over every check (each check's sign kept as a monotonic
        constraint): can interactions between the checks do what one linear score cannot?"""
        from sklearn.ensemble import HistGradientBoostingClassifier

        from ml.judge.features import ALL_FEATURE_NAMES, FEATURE_SIGNS

        def vectors(features):
            return np.array([f.vector(ALL_FEATURE_NAMES) for f in features])

        def make(tl, to):
            use = to if weight > 0 else []
            model = HistGradientBoostingClassifier(max_depth=depth, max_iter=300, learning_rate=0.03,
                                                   min_samples_leaf=20, l2_regularization=1.0, random_state=0,
                                                   monotonic_cst=[FEATURE_SIGNS[n] for n in ALL_FEATURE_NAMES])
            model.fit(vectors([lf[i] for i in tl] + [of[i] for i in use]), [ly[i] for i in tl] + [oy[i] for i in use],
                      sample_weight=[1.0] * len(tl) + [weight] * len(use))
            return lambda features: model.predict_proba(vectors(features))[:, 1]
        return make

    arms = [("one regression, operator weight 0 (candidates only)", joint(0.0)),
            ("one regression, operator weight 0.3 (shipped)", joint(0.3)),
            ("one regression, operator weight 1", joint(1.0))]
    arms += [(f"product of experts, α = {a:g} (meaning: numeracy checks and fluency)", product(a))
             for a in (0.25, 0.5, 1.0, 2.0)]
    arms.append(("product of experts, α = 0.5 (meaning: every check)", product(0.5, meaning_english=True)))
    arms += [(f"monotone boosted trees, depth {d}, operator weight {w:g}", boosted(w, d))
             for w in (0.0, 0.3, 1.0) for d in (2, 3)]
    rows = []
    for name, make in arms:
        lab, ops, test = evaluate(make)
        rows.append((name, lab, ops, test))
        print(f"{name}: candidates {lab:.4f}, operators {ops:.4f}, AQUA_test {test:.4f}", flush=True)
    best = max(rows, key=lambda r: (r[1] + r[2]) / 2)
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [f"## One judge for both kinds of failure? (run of {stamp})", "",
             f"Command: `python benchmarks/judge_combination.py` ({time.perf_counter() - started:.0f} s with the "
             "features cached, 2 cores, no GPU). Data: `labels/aqua_dev_candidates_val.csv` (386) and "
             "`paraqd/aqua_val.csv` operator pairs (2,137), 5-fold CV grouped by problem (validation); "
             "`paraqd/AQUA_test.csv` (440) only read, by the judge fitted on both validation sets in full.", "",
             "| judge | labelled candidates, grouped CV | operator pairs, grouped CV | mean (what validation chooses by) "
             "| AQUA_test (never fitted on) |", "|---|---|---|---|---|"]
    for name, lab, ops, test in rows:
        mark = "**" if (name, lab, ops, test) == best else ""
        lines.append(f"| {mark}{name}{mark} | {lab:.3f} | {ops:.3f} | {(lab + ops) / 2:.3f} | {test:.3f} |")
    lines += ["", f"Validation would choose: {best[0]}. Targets (issue): ≥ 0.90 on the labelled candidates and on "
              "AQUA_test; no arm reaches either.", ""]
    text = "\n".join(lines)
    print(text)
    prepend_run(OUT, "# Judges on AQUA_test: calibrated ParaQD and the numeracy-aware judge\n\n", text)


if __name__ == "__main__":
    main()
