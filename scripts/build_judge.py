"""Build the judge that ships with the platform (``platform/modelhub/kinds/judge/shipped/``).

Reproducible from public data in ``../shared/data`` and the packaged models only (MiniLM-L6
sentence encoder, SmolLM2-135M fluency LM, spaCy English, WordNet):

    .venv/bin/python scripts/build_judge.py            # ~15 min on a 2-core CPU

What it does (no Django; ``ml`` only):
1. Featurises two validation sets of AQuA dev problems with the judge's features (numeracy checks,
   fluency under SmolLM2 and the English checks of ``ml.judge.english``):
   - ``labels/aqua_dev_candidates_val.csv``: the platform's own candidates, labelled blind by the
     labelling guidelines (the distribution the handout sees);
   - ``paraqd/aqua_val.csv``: ParaQD's operator outputs on the same problems (numbers, units and
     names changed or kept).
2. Chooses the regularisation C and the weight of the operator pairs by the mean of the two sets'
   ROC AUCs, 5-fold cross-validation grouped by problem (no problem in both parts): the judge must
   see the platform's English failures and the operators' number and meaning changes alike.
3. Fits the monotone judge on both sets with the chosen values; calibrates it (Platt) on the
   out-of-fold scores of the labelled candidates; the decision threshold maximises weighted F1(hm)
   there, and the handout floor maximises F-beta (``--floor-beta``, 0.5: precision first).
4. Reads (never fits on) ``paraqd/AQUA_test.csv``, the ParaQD paper's AquaRAT test set, and reports
   it beside the cross-validated figures in the model card.
"""
from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import pickle
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ENCODER = "packaged:all-MiniLM-L6-v2"
FLUENCY_LM = "smollm2"


def labelled_candidates(data: Path) -> list[tuple[str, str, int]]:
    rows = csv.DictReader(open(data / "labels" / "aqua_dev_candidates_val.csv", newline=""))
    return [(r["question"], r["augmented"], int(r["final_label"])) for r in rows]


def generators_of(data: Path) -> list[str]:
    rows = csv.DictReader(open(data / "labels" / "aqua_dev_candidates_val.csv", newline=""))
    return [r["generator"] for r in rows]


def check_aucs(features, labels, generators) -> dict[str, dict[str, float]]:
    """Each feature alone, oriented by its sign (higher = more valid), on the labelled candidates:
    ROC AUC on all of them and without the EDA baseline (which paraphrase never runs)."""
    from ml.judge.features import ALL_FEATURE_NAMES, FEATURE_SIGNS
    from ml.metrics.classification import roc_auc

    keep = [i for i, g in enumerate(generators) if g != "eda"]
    out = {}
    for name in ALL_FEATURE_NAMES:
        values = [FEATURE_SIGNS[name] * f.values[name] for f in features]
        out[name] = {"all": round(roc_auc(values, labels), 3),
                     "without_eda": round(roc_auc([values[i] for i in keep], [labels[i] for i in keep]), 3)}
    return out


def operator_pairs(data: Path) -> list[tuple[str, str, int]]:
    pairs = []
    for r in csv.DictReader(open(data / "paraqd" / "aqua_val.csv", newline="")):
        q = r["question"]
        for key, label in [(f"positive{i}", 1) for i in range(1, 5)] + [(f"neg_{i}", 0) for i in range(1, 7)]:
            text = (r.get(key) or "").strip()
            if text and text != q.strip():
                pairs.append((q, text, label))
    return pairs


def test_pairs(data: Path) -> list[tuple[str, str, int]]:
    rows = csv.DictReader(open(data / "paraqd" / "AQUA_test.csv", newline=""))
    return [(r["question"], r["augmented"], int(r["final_label"])) for r in rows]


def featurise(pairs, cache: Path | None, name: str):
    """The judge's features of ``pairs`` (cached in ``cache``/``name``.pkl when given)."""
    if cache is not None and (cache / f"{name}.pkl").is_file():
        stored = pickle.loads((cache / f"{name}.pkl").read_bytes())
        if stored["pairs"] == pairs:
            return stored["features"]
    from ml.judge import batch_features, sentence_transformer_tokens, sentence_transformer_words
    from ml.noise.fluency import CausalLMFluency
    from ml.paraqd.model import get_scorer, resolve_encoder_path

    scorer = get_scorer(resolve_encoder_path(ENCODER), "cpu")
    lm = CausalLMFluency(None, "cpu", batch_size=16)
    started = time.monotonic()
    q, c = [p[0] for p in pairs], [p[1] for p in pairs]
    cos = [float(v) for v in scorer.score(q, c)]
    features = batch_features(q, c, cosines=cos, token_embedder=sentence_transformer_tokens(scorer.model),
                              fluency_scorer=lm, word_embedder=sentence_transformer_words(scorer.model), english=True)
    print(f"{name}: {len(pairs)} pairs featurised in {time.monotonic() - started:.0f} s", flush=True)
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        (cache / f"{name}.pkl").write_bytes(pickle.dumps({"pairs": pairs, "features": features}))
    return features


def joint_oof(judge_factory, lab, ops, *, operator_weight: float, folds: int = 5, seed: int = 3407):
    """Out-of-fold raw scores of both validation sets. Both are pairs of the same AQuA dev problems,
    so the folds split the problems (every pair of a problem in one fold): each fold's pairs are
    scored by a judge fitted on the other folds' labelled candidates and, with ``operator_weight``,
    their operator pairs. ``lab``/``ops``: (features, labels, problems)."""
    problems = sorted({*lab[2], *ops[2]})
    order = np.random.RandomState(seed).permutation(len(problems))
    fold = {problems[i]: n % folds for n, i in enumerate(order)}
    out_lab, out_ops = np.zeros(len(lab[1])), np.zeros(len(ops[1]))
    for k in range(folds):
        f, y, w = [], [], []
        for (feats, labels, groups), weight in ((lab, 1.0), (ops, operator_weight)):
            if weight <= 0:
                continue
            keep = [i for i, g in enumerate(groups) if fold[g] != k]
            f += [feats[i] for i in keep]
            y += [labels[i] for i in keep]
            w += [weight] * len(keep)
        judge = judge_factory().fit(f, y, sample_weight=w)
        for (feats, _, groups), out in ((lab, out_lab), (ops, out_ops)):
            held = [i for i, g in enumerate(groups) if fold[g] == k]
            if held:
                out[held] = judge.raw([feats[i] for i in held])
    return out_lab, out_ops


def precision_floor(probabilities, labels, *, beta: float) -> float:
    """The probability above which candidates are handed out: the cut maximising F-beta of the
    valid class (beta < 1 weighs precision above recall: a doubtful variant handed out costs a
    teacher more than a good one held back)."""
    best, best_f = 0.5, -1.0
    distinct = sorted(set(probabilities))
    for cut in [distinct[0] - 1e-9] + [(a + b) / 2 for a, b in zip(distinct, distinct[1:])]:
        accepted = [y for p, y in zip(probabilities, labels) if p > cut]
        tp = sum(accepted)
        if not tp:
            continue
        precision, recall = tp / len(accepted), tp / sum(labels)
        f = (1 + beta ** 2) * precision * recall / (beta ** 2 * precision + recall)
        if f > best_f:
            best, best_f = cut, f
    return float(best)


def model_card(meta: dict, *, n_labels: int, n_ops: int) -> str:
    """The model card (Markdown) of the shipped judge from what the build measured."""
    cv, test = meta["labelled_candidates_grouped_cv"], meta["aqua_test"]

    def row(name, m):
        share = "–" if m.get("valid_share_of_accepted") is None else f"{100 * m['valid_share_of_accepted']:.1f} %"
        return (f"| {name} | {m['n']} | {m['roc_auc']:.3f} | {m['pr_auc']:.3f} | {m['weighted_f1_hm']:.3f} | "
                f"{m['weighted_f1']:.3f} | {m['accepted']} | {share} | {m.get('separation', float('nan')):.3f} |")

    weights = ", ".join(f"{k} {v:+.2f}" for k, v in meta["weights"].items() if abs(v) > 1e-4)
    lines = [
        "# Model card: the shipped judge", "",
        f"Built {meta['built']} by `{meta['command']}` (a 2-core CPU, about 15 minutes). Files: `judge.json` "
        "(weights, standardisation, calibration), `card.json` (everything below, machine-readable).", "",
        "## What it is",
        "A monotone logistic regression (each check's weight keeps its sign) over the numeracy checks "
        "(`ml.judge.features`: encoder cosine and token alignment, numbers, units, names, length, foreign words), "
        f"fluency under `{meta['fluency_lm']}` (SmolLM2-135M, packaged) and the English checks "
        "(`ml.judge.english`: where the changed words read badly, whether a swapped word fits the problem, quantity "
        "words lost, broken joins, run-on sentences, stacked passives and pronoun agents, new names, the question's "
        f"words), with a Platt calibration. Encoder: `{meta['encoder']}`. It answers: is this the same problem, in "
        "English a student reads without confusion?", "",
        "## Data (all public, in `../shared/data`)",
        f"- Fitted on `labels/aqua_dev_candidates_val.csv`: {n_labels} platform candidates for 130 AQuA dev problems, "
        "labelled blind by the labelling guidelines (validation data; the other half of those problems is held "
        "out by the project and never seen here).",
        f"- With weight {meta['operator_weight']} beside them: `paraqd/aqua_val.csv`, ParaQD's operator outputs on "
        f"the same AQuA dev problems ({n_ops} pairs).",
        f"- C = {meta['regularisation']} and the operator weight were chosen by the mean ROC AUC of both sets in "
        "5-fold cross-validation grouped by problem (grid in `card.json`).",
        "- Calibration (Platt) and the decision threshold (best weighted F1(hm)) were fitted on the out-of-fold "
        "scores of the labelled candidates; the "
        f"handout floor maximises F{meta['floor_beta']:g} of the valid class there (precision weighs more than recall).",
        "- `paraqd/AQUA_test.csv` (the ParaQD paper's AquaRAT test set) is only read, never fitted on.", "",
        "## Metrics",
        "| set | n | ROC AUC | PR AUC | weighted F1(hm) | weighted F1 | accepted | valid share of accepted "
        "| separation of the probability |",
        "|---|---|---|---|---|---|---|---|---|",
        row(f"labelled candidates, grouped CV, at the threshold {meta['threshold']:.3f}", cv["threshold"]),
    ]
    if "floor" in cv:
        lines.append(row(f"labelled candidates, grouped CV, at the handout floor {meta['handout_floor']:.3f}", cv["floor"]))
    lines.append(row("AQUA_test (people's labels), at the threshold", test["threshold"]))
    if "floor" in test:
        lines.append(row("AQUA_test, at the handout floor", test["floor"]))
    lines += [
        "", "The paper's ParaQD (MiniLM-L12) on AQUA_test: weighted F1(hm) 0.687, separation 0.780 (of its cosine). "
        "This judge never saw AQUA_test labels, so its AQUA_test row is the one comparable with the paper; the "
        "previous operator-trained judge ranked AQUA_test better (ROC AUC 0.885) but the platform's own "
        "candidates at chance (0.51).", "",
        f"Weights (standardised features): {weights}.", "",
        "Each check alone on the labelled candidates (ROC AUC, oriented so that higher means valid; all / "
        "without the EDA baseline, which `paraphrase` never runs):", "",
        "| check | all | without EDA |", "|---|---|---|",
        *[f"| {k} | {v['all']:.3f} | {v['without_eda']:.3f} |" for k, v in meta["check_aucs"].items()], "",
        "## Limits",
        "- Fitted on AQuA dev problems and the platform's rule-based rewrites: rewrites of other kinds (neural, "
        "LLM) and other problem styles are outside what it was fitted on (blind-labelled, it ranks the instruct "
        "LLM's rewrites at ROC AUC 0.46 and STEAD's and PAP's at 0.79 and 0.72: `docs/results/llm-labels.md`, "
        "`docs/results/neural-labels.md`); the loop (`refit_judge`, `benchmarks/loop.py`) adapts it from "
        "annotators' gold labels.",
        "- The labels are one blind pass by a language model following the guidelines (82 % agreement with people "
        "on AQUA_test pairs mixed in); people may be stricter or looser.",
        "- English only; SmolLM2-135M's fluency is a weak grammar signal for long problems.", "",
    ]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"), help="the shared corpora folder")
    parser.add_argument("--out", default=str(ROOT / "platform" / "modelhub" / "kinds" / "judge" / "shipped"))
    parser.add_argument("--cache", default=str(ROOT / "var" / "judge-build"), help="feature cache ('' for none)")
    parser.add_argument("--floor-beta", type=float, default=0.5,
                        help="the handout floor maximises F-beta of the valid class on the labelled candidates' "
                             "out-of-fold probabilities (default 0.5: precision weighs twice recall)")
    args = parser.parse_args(argv)

    import nltk

    nltk.data.path.insert(0, str(ROOT / "var" / "nltk_data"))
    from ml.judge import NumeracyJudge, fit_calibration
    from ml.metrics.classification import paraqd_eval, pr_auc, roc_auc

    data, cache = Path(args.data), (Path(args.cache) if args.cache else None)
    lab_pairs, op_pairs, t_pairs = labelled_candidates(data), operator_pairs(data), test_pairs(data)
    lab_f = featurise(lab_pairs, cache, "labels")
    op_f = featurise(op_pairs, cache, "aqua_val_operators")
    y = [p[2] for p in lab_pairs]
    lab = (lab_f, y, [p[0] for p in lab_pairs])
    ops = (op_f, [p[2] for p in op_pairs], [p[0] for p in op_pairs])

    grid = []
    for c in (1.0, 10.0):
        for weight in (0.0, 0.1, 0.3, 1.0):
            def factory(c=c):
                return NumeracyJudge(regularisation=c, fluency_lm=FLUENCY_LM, english=True)
            oof_lab, oof_ops = joint_oof(factory, lab, ops, operator_weight=weight)
            auc_lab, auc_ops = roc_auc(oof_lab.tolist(), y), roc_auc(oof_ops.tolist(), ops[1])
            grid.append({"C": c, "operator_weight": weight, "labels_cv_auc": round(auc_lab, 4),
                         "operators_cv_auc": round(auc_ops, 4), "mean_cv_auc": round((auc_lab + auc_ops) / 2, 4),
                         "oof": oof_lab})
            print(f"C={c:<5} operator weight {weight:<4} grouped-CV ROC AUC: labelled candidates {auc_lab:.4f}, "
                  f"operator pairs {auc_ops:.4f}", flush=True)
    # Both validation sets count: the platform's rewrites (English) and number/meaning changes (operators).
    best = max(grid, key=lambda g: (g["mean_cv_auc"], -g["operator_weight"]))
    oof = best["oof"]
    calibration = fit_calibration(oof.tolist(), y, method="platt")
    probs = calibration.probability(oof.tolist())
    floor = precision_floor(probs, y, beta=args.floor_beta)
    judge = NumeracyJudge(regularisation=best["C"], fluency_lm=FLUENCY_LM, english=True)
    use_ops = best["operator_weight"] > 0
    f_all = lab_f + (op_f if use_ops else [])
    l_all = y + (list(ops[1]) if use_ops else [])
    w_all = [1.0] * len(lab_f) + ([best["operator_weight"]] * len(op_f) if use_ops else [])
    judge.fit(f_all, l_all, sample_weight=w_all,
              info={"datasets": ["labels/aqua_dev_candidates_val.csv"] +
                    (["paraqd/aqua_val.csv (operator pairs)"] if use_ops else []),
                    "operator_weight": best["operator_weight"]})
    judge.calibration = calibration

    def summary(probabilities, labels, threshold):
        m = paraqd_eval(probabilities, labels, threshold)
        accepted = [yy for p, yy in zip(probabilities, labels) if p > threshold]
        return {"n": len(labels), "roc_auc": round(roc_auc(probabilities, labels), 4),
                "pr_auc": round(pr_auc(probabilities, labels), 4),
                "weighted_f1_hm": round(m["weighted_f1_hm"], 4), "weighted_f1": round(m["weighted_f1"], 4),
                "accepted": len(accepted),
                "valid_share_of_accepted": round(sum(accepted) / len(accepted), 4) if accepted else None,
                # Of the calibrated probability: reported, not targeted (bounded by the ranking).
                "separation": round(float(np.mean([p for p, yy in zip(probabilities, labels) if yy]) -
                                          np.mean([p for p, yy in zip(probabilities, labels) if not yy])), 4)}

    cv = {"threshold": summary(probs, y, calibration.threshold), "floor": summary(probs, y, floor)}
    t_f = featurise(t_pairs, cache, "aqua_test")
    t_y = [p[2] for p in t_pairs]
    t_probs = judge.probability(t_f)
    test = {"threshold": summary(t_probs, t_y, calibration.threshold), "floor": summary(t_probs, t_y, floor)}

    out = Path(args.out)
    judge.save(out)
    meta = {
        "built": dt.date.today().isoformat(), "encoder": ENCODER, "fluency_lm": FLUENCY_LM,
        "regularisation": best["C"], "operator_weight": best["operator_weight"],
        "threshold": calibration.threshold, "handout_floor": floor, "floor_beta": args.floor_beta,
        "grid": [{k: v for k, v in g.items() if k != "oof"} for g in grid],
        "labelled_candidates_grouped_cv": cv, "aqua_test": test,
        "weights": dict(zip(judge.feature_names, [round(w, 4) for w in judge.weights])),
        "check_aucs": check_aucs(lab_f, y, generators_of(data)),
        "command": "python scripts/build_judge.py",
    }
    (out / "card.json").write_text(json.dumps(meta, indent=1) + "\n")
    (out / "MODEL_CARD.md").write_text(model_card(meta, n_labels=len(lab_pairs), n_ops=len(op_pairs)))
    print(json.dumps({k: meta[k] for k in ("threshold", "handout_floor", "labelled_candidates_grouped_cv",
                                            "aqua_test", "weights")}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
