"""Benchmark: the judges on the paper's AquaRAT test set, calibrated on validation questions only.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/paralab_bench PARALAB_TORCH_THREADS=1 \\
        python benchmarks/judge.py --judge-problems 600 --epochs 3

One run, through the platform's code paths (``modelhub.calibration``, ``modelhub.kinds``):

1. imports ``AQUA_test.csv`` as split ``test`` (evaluation only, never fitted on), and splits the
   paper's ``aqua_val.csv`` (operator outputs on AQuA dev questions) by question into two halves
   imported as split ``dev``: ``fit`` (what ParaQD and the judge learn from) and ``cal`` (what every
   threshold and calibration is fitted on, and the validation AUC is measured on); GSM8K train
   problems give the judge's self-supervised operator pairs;
2. the untrained encoder registered as a version (``pretrained_judge``) and calibrated on ``cal``;
3. ParaQD trained with the repository's best recipe (aqua_val outputs only, Euclidean margin 5,
   lr 1e-4, ``--epochs``) on ``fit``, calibrated on ``cal``; its validation AUC against the base's;
4. the numeracy-aware judge trained on GSM8K operator pairs + the ``fit`` pairs, calibrated on ``cal``
   (monotone unless ``--judge-unconstrained``; fluency under ``--judge-fluency``, default none);
   ``--judge-variants`` adds other training mixes, the same judge refitted the other way (and
   without fluency when it had it), and leave-operator-out validation on aqua_val's columns;
   ``--judge-llm SPEC`` adds an instruct LLM's zero-shot verdict (``ml.judge.llm_check``), weighed
   beside the classifier on the ``fit`` half's pairs; the LLM alone and the judge without it are
   reported beside it, each calibrated on ``cal``;
5. each on AQUA_test: ROC/PR AUC; weighted and macro P/R/F1 (both definitions) at the calibrated
   threshold and at 0.5; μ+, μ− and separation of the raw score and of the calibrated probability
   mapped to [−1, 1]; written to ``docs/results/judge.md`` (``--out``), earlier runs kept below.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import random
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "platform"), str(REPO)]
from benchmarks.paraqd import DATA, ensure_database, hardware, manage  # noqa: E402

OUT = REPO / "docs" / "results" / "judge.md"
PAPER_PARAQD = {"weighted_f1_hm": 0.687, "separation": 0.780}


def split_aqua_val(tmp: Path, seed: int) -> tuple[Path, Path]:
    with (DATA / "paraqd" / "aqua_val.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    header, body = rows[0], rows[1:]
    random.Random(seed).shuffle(body)
    half = len(body) // 2
    paths = []
    for name, part in (("fit", body[:half]), ("cal", body[half:])):
        path = tmp / f"{name}.csv"
        with path.open("w", newline="", encoding="utf-8") as handle:
            csv.writer(handle).writerows([header, *part])
        paths.append(path)
    return paths[0], paths[1]


def evaluate(scores: list[float], labels: list[int], *, calibration: dict, raw_is_cosine: bool) -> dict:
    """The must-reach metrics of one judge on the test pairs."""
    from ml.judge import Calibration
    from ml.metrics import nest_paraqd_metrics, paraqd_eval
    from ml.metrics.classification import pr_auc, roc_auc

    cal = Calibration.from_dict(calibration)
    probs = cal.probability(scores)
    mapped = [2 * p - 1 for p in probs]
    if raw_is_cosine:
        decided = nest_paraqd_metrics(paraqd_eval(scores, labels, calibration["cosine_threshold"]))
        at_half = nest_paraqd_metrics(paraqd_eval(scores, labels, 0.5))
    else:
        decided = nest_paraqd_metrics(paraqd_eval(probs, labels, cal.threshold))
        at_half = nest_paraqd_metrics(paraqd_eval(probs, labels, 0.5))
    raw = nest_paraqd_metrics(paraqd_eval(scores, labels, 0.5))
    prob = nest_paraqd_metrics(paraqd_eval(mapped, labels, 2 * cal.threshold - 1))
    return {"auc": roc_auc(scores, labels), "pr_auc": pr_auc(scores, labels), "calibrated": decided,
            "at_half": at_half, "threshold": cal.threshold, "cosine_threshold": calibration.get("cosine_threshold"),
            "raw": {"mu_pos": raw["mu_pos"], "mu_neg": raw["mu_neg"], "separation": raw["separation"]},
            "probability": {"mu_pos": prob["mu_pos"], "mu_neg": prob["mu_neg"], "separation": prob["separation"]}}


def fmt(value) -> str:
    return "–" if value is None else f"{value:.3f}"


def table(results: dict[str, dict]) -> list[str]:
    lines = [
        "| judge | ROC AUC | PR AUC | threshold | wF1(hm) cal. | wF1 cal. | wP/wR cal. | mF1(hm) cal. | mF1 cal. "
        "| wF1(hm) @0.5 | mF1(hm) @0.5 | μ+/μ− raw | sep. raw | μ+/μ− prob. | sep. prob. |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in results.items():
        c, h = r["calibrated"], r["at_half"]
        thr = fmt(r["threshold"]) + (f" (cos {r['cosine_threshold']:.3f})" if r.get("cosine_threshold") is not None else "")
        lines.append(
            f"| {name} | {fmt(r['auc'])} | {fmt(r['pr_auc'])} | {thr} | {fmt(c['weighted']['f1_hm'])} | "
            f"{fmt(c['weighted']['f1'])} | {fmt(c['weighted']['p'])}/{fmt(c['weighted']['r'])} | "
            f"{fmt(c['macro']['f1_hm'])} | {fmt(c['macro']['f1'])} | {fmt(h['weighted']['f1_hm'])} | "
            f"{fmt(h['macro']['f1_hm'])} | {fmt(r['raw']['mu_pos'])}/{fmt(r['raw']['mu_neg'])} | "
            f"{fmt(r['raw']['separation'])} | {fmt(r['probability']['mu_pos'])}/{fmt(r['probability']['mu_neg'])} | "
            f"{fmt(r['probability']['separation'])} |")
    return lines


def parse_value(text: str):
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return {"true": True, "false": False, "none": None}.get(text.lower(), text)


def judge_variant_table(judge, names, cal_pairs, test_pairs, args) -> list[dict]:
    """The judge's classifier fitted on other training mixes (same features), each calibrated on
    the cal half; selection is by cal AUC, the test AUC is reported beside it."""
    from corpus.models import Dataset
    from ml.judge import NumeracyJudge
    from ml.metrics.classification import roc_auc
    from modelhub.calibration import fit_version_calibration, validation_pairs
    from modelhub.kinds.judge.service import encoder_of, judge_training_pairs, pair_features

    encoder = encoder_of(judge)
    lm = (judge.params or {}).get("fluency_lm")
    operator_pairs, _ = judge_training_pairs(dataset_names=[names["gsm8k"]], max_problems=args.judge_problems)
    fit_pairs = [(p.question, p.paraphrase, int(p.valid))
                 for p in validation_pairs(datasets=[Dataset.objects.get(name=names["fit"])])]

    def feats(pairs):
        return pair_features(encoder_path=encoder, questions=[p[0] for p in pairs], paraphrases=[p[1] for p in pairs],
                             fluency_lm=lm)

    f_ops, f_fit = feats(operator_pairs), feats(fit_pairs)
    f_cal = feats([(p.question, p.paraphrase, int(p.valid)) for p in cal_pairs])
    f_test = feats([(p[1], p[2], int(p[3])) for p in test_pairs])
    y_ops, y_fit = [p[2] for p in operator_pairs], [p[2] for p in fit_pairs]
    y_cal, y_test = [int(p.valid) for p in cal_pairs], [int(p[3]) for p in test_pairs]
    balance = len(f_ops) / max(1, len(f_fit))
    monotone = bool((judge.params or {}).get("monotone", True))
    mixes = {
        "operator pairs + aqua_val fit half (the default)": (f_ops + f_fit, y_ops + y_fit, None),
        "operator pairs only": (f_ops, y_ops, None),
        "aqua_val fit half only": (f_fit, y_fit, None),
        "both, the fit half weighted to the operator pairs' total": (
            f_ops + f_fit, y_ops + y_fit, [1.0] * len(f_ops) + [balance] * len(f_fit)),
        "cosine alone (the untrained encoder, calibrated)": None,
    }
    rows = []
    for name, mix in mixes.items():
        if mix is None:
            cal_scores = [f.values["cosine"] for f in f_cal]
            test_scores = [f.values["cosine"] for f in f_test]
        else:
            model = NumeracyJudge(fluency_lm=lm, monotone=monotone).fit(mix[0], mix[1], sample_weight=mix[2])
            cal_scores, test_scores = model.raw(f_cal), model.raw(f_test)
        rows.append({"name": name, "cal_auc": roc_auc(cal_scores, y_cal), "test_auc": roc_auc(test_scores, y_test)})
        print("judge mix", rows[-1], flush=True)
    others = {f"the default mix, {'unconstrained' if monotone else 'monotone'}": {"fluency_lm": lm, "monotone": not monotone}}
    if lm:
        others["the default mix without the fluency feature"] = {"fluency_lm": None, "monotone": monotone}
    for name, options in others.items():
        # The default judge refitted another way: same pairs and features, calibrated on the cal half.
        model = NumeracyJudge(**options).fit(f_ops + f_fit, y_ops + y_fit)
        cal_scores, test_scores = model.raw(f_cal), model.raw(f_test)
        record = fit_version_calibration(cal_scores, y_cal, kind="judge", method=args.method)
        rows.append({"name": name, "cal_auc": record["auc"], "test_auc": roc_auc(test_scores, y_test),
                     "full": evaluate(test_scores, y_test, calibration=record, raw_is_cosine=False),
                     "weights": dict(zip(model.feature_names, model.weights))})
        print("judge mix", {k: v for k, v in rows[-1].items() if k != "full"}, flush=True)
    return rows


def llm_rows(judge, cal_pairs, test_pairs, args, notes: list[str]) -> dict[str, dict]:
    """With an LLM check: the LLM's verdict alone and the judge's classifier without it, each
    calibrated on the cal half (the LLM has read these pairs already: its scores are cached)."""
    from dataclasses import replace

    from modelhub.calibration import fit_version_calibration
    from modelhub.kinds.judge.service import encoder_of, load_judge, pair_features

    spec, lm = judge.params["llm"], judge.params.get("fluency_lm")
    model = load_judge(judge)

    def feats(questions, paraphrases):
        return pair_features(encoder_path=encoder_of(judge), questions=questions, paraphrases=paraphrases,
                             fluency_lm=lm, llm=spec)

    f_cal = feats([p.question for p in cal_pairs], [p.paraphrase for p in cal_pairs])
    f_test = feats([p[1] for p in test_pairs], [p[2] for p in test_pairs])
    y_cal, y_test = [int(p.valid) for p in cal_pairs], [int(p[3]) for p in test_pairs]
    classifier = replace(model, llm=None, llm_stack=None)
    scorers = {f"LLM check alone ({model.llm}, zero-shot)": lambda fs: [f.llm for f in fs],
               "numeracy-aware judge without the LLM check": classifier.raw}
    rows = {}
    for name, score in scorers.items():
        record = fit_version_calibration(score(f_cal), y_cal, kind="judge", method=args.method)
        rows[name] = evaluate(score(f_test), y_test, calibration=record, raw_is_cosine=False)
        notes.append(f"{name}: validation ROC AUC {record['auc']:.3f}")
    stack = model.llm_stack
    notes.append(f"LLM check {model.llm} weighed on {stack['pairs']} fit-half pairs: standardised weights classifier "
                 f"{stack['weights'][0]:+.2f}, LLM {stack['weights'][1]:+.2f}"
                 + (f"; out-of-fold AUC there {stack['cv_auc']:.3f} vs the classifier's {stack['classifier_auc']:.3f}"
                    if "cv_auc" in stack else ""))
    return rows


def leave_operator_out(args, lm: str | None) -> list[dict]:
    """Validation on operators a judge has not seen: aqua_val's columns are operators (positive1..4,
    neg_1..6). For each held-out pair of one positive and one negative column, a judge fitted on the
    fit half's other columns ranks the cal half's pairs of the two held-out columns; mean and
    worst ROC AUC over the pairs. ``positive2`` (the problem itself) is left out like every copy.
    Uses aqua_val only (AQuA dev questions)."""
    import numpy as np

    from ml.judge import NumeracyJudge
    from ml.metrics.classification import roc_auc
    from modelhub.kinds.judge.service import pair_features
    from modelhub.kinds.paraqd import base_encoder_path

    with (DATA / "paraqd" / "aqua_val.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    header, body = rows[0], rows[1:]
    random.Random(args.seed).shuffle(body)  # the same halves as split_aqua_val
    half = len(body) // 2
    pairs = []
    for index, row in enumerate(body):
        for column, text in zip(header[1:], row[1:]):
            if text.strip() and column != "positive2" and text.split() != row[0].split():
                pairs.append((row[0], text, int(column.startswith("positive")), column, index < half))
    feats = pair_features(encoder_path=base_encoder_path(), questions=[p[0] for p in pairs],
                          paraphrases=[p[1] for p in pairs], fluency_lm=lm)
    y = np.asarray([p[2] for p in pairs])
    columns = np.asarray([p[3] for p in pairs])
    fit = np.asarray([p[4] for p in pairs])
    positives = sorted({c for c in columns if c.startswith("positive")})
    negatives = sorted({c for c in columns if not c.startswith("positive")})
    scorers = {
        "cosine alone": None,
        "judge, monotone": {"monotone": True, "fluency_lm": lm},
        "judge, unconstrained": {"monotone": False, "fluency_lm": lm},
    }
    out = []
    for name, options in scorers.items():
        aucs = []
        for pos in positives:
            for neg in negatives:
                train = fit & (columns != pos) & (columns != neg)
                test = ~fit & ((columns == pos) | (columns == neg))
                held = [feats[i] for i in np.flatnonzero(test)]
                if options is None:
                    scores = [f.values["cosine"] for f in held]
                else:
                    model = NumeracyJudge(**options).fit([feats[i] for i in np.flatnonzero(train)], y[train].tolist())
                    scores = model.raw(held)
                aucs.append(roc_auc(scores, y[test].tolist()))
        out.append({"name": name, "mean": float(np.mean(aucs)), "min": float(np.min(aucs)), "n": len(aucs)})
        print("leave-operator-out", out[-1], flush=True)
    return out


def variant_lines(variants: list[dict], mixes: list[dict], lodo: list[dict] | None = None) -> list[str]:
    lines: list[str] = []
    if variants:
        lines += ["", "ParaQD settings tried (trained on the fit half; chosen by cal-half AUC; test AUC reported, "
                      "never used to choose):", "",
                  "| setting | epochs kept | cal-half ROC AUC | AQUA_test ROC AUC | minutes |", "|---|---|---|---|---|"]
        for v in variants:
            settings = ", ".join(f"{k} {val}" for k, val in v["settings"].items())
            lines.append(f"| {v['name']} ({settings}) | {v['best_epoch']} | {v['cal_auc']:.3f} | {v['test_auc']:.3f} | "
                         f"{v['minutes']:.1f} |")
    if mixes:
        lines += ["", "Numeracy-aware judge, training mixes (same features; chosen by cal-half AUC):", "",
                  "| training mix | cal-half ROC AUC | AQUA_test ROC AUC |", "|---|---|---|"]
        lines += [f"| {m['name']} | {m['cal_auc']:.3f} | {m['test_auc']:.3f} |" for m in mixes]
        lines += [""] + [f"- {m['name']}: weights " + ", ".join(f"{k} {v:+.2f}" for k, v in m["weights"].items())
                         for m in mixes if m.get("weights")]
    if lodo:
        lines += ["", "Leave-operator-out validation on aqua_val (AQuA dev questions only): fitted on the fit half "
                      "without one positive and one negative operator column, ranked on the cal half's pairs of "
                      f"those two columns; mean and worst ROC AUC over the {lodo[0]['n']} held-out pairs:", "",
                  "| scorer | mean ROC AUC | worst |", "|---|---|---|"]
        lines += [f"| {r['name']} | {r['mean']:.3f} | {r['min']:.3f} |" for r in lodo]
    return [*lines, ""] if lines else lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--judge-problems", type=int, default=600, help="GSM8K train problems for operator pairs")
    parser.add_argument("--epochs", type=int, default=3, help="ParaQD epochs (best recipe: 3)")
    parser.add_argument("--skip-paraqd", action="store_true", help="no trained ParaQD (untrained encoder and judge only)")
    parser.add_argument("--method", default="platt", choices=["platt", "isotonic"])
    parser.add_argument("--paraqd-variants", default="",
                        help="extra ParaQD settings to try, ';'-separated name=key:value,key:value "
                             "(e.g. 'gentle=lr:2e-5,distance:cosine;frozen=freeze_layers:4'); selected on the cal half")
    parser.add_argument("--judge-variants", action="store_true",
                        help="also fit the judge's classifier on other training mixes, selected on the cal half")
    parser.add_argument("--judge-fluency", default="none",
                        help="LM of the judge's fluency feature: none, auto (SmolLM2 when installed), or an LM id/dir")
    parser.add_argument("--judge-unconstrained", action="store_true",
                        help="the judge as plain logistic regression (default: each check's weight keeps its sign)")
    parser.add_argument("--judge-llm", default="none",
                        help="instruct LLM of the judge's LLM check (none, smollm2, or a .gguf file / model directory), "
                             "weighed on the fit half's pairs")
    parser.add_argument("--seed", type=int, default=3407)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL"):
        sys.exit("set DATABASE_URL (the benchmark is meant for PostgreSQL)")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paralab.settings")
    ensure_database(os.environ["DATABASE_URL"])
    manage("migrate", "--noinput")
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d%H%M%S")
    names = {k: f"judge-{k}-{stamp}" for k in ("test", "fit", "cal", "gsm8k")}
    started = time.perf_counter()
    manage("import_pairs", str(DATA / "paraqd" / "AQUA_test.csv"), "--dataset", names["test"], "--split", "test")
    with tempfile.TemporaryDirectory() as tmp:
        fit, cal = split_aqua_val(Path(tmp), args.seed)
        for key, path in (("fit", fit), ("cal", cal)):
            manage("import_pairs", str(path), "--dataset", names[key], "--format", "paraqd-wide", "--split", "dev")
    manage("import_problems", str(DATA / "gsm8k" / "train.jsonl"), "--dataset", names["gsm8k"], "--format", "gsm8k",
           "--split", "train")
    print(f"imported in {time.perf_counter() - started:.0f} s", flush=True)

    import django

    django.setup()
    from corpus.models import Dataset
    from modelhub.calibration import raw_scores, validation_pairs, version_calibrate
    from modelhub.calibration_jobs import pretrained_judge
    from modelhub.kinds.judge.service import judge_train
    from modelhub.kinds.paraqd import gold_pairs, paraqd_train

    def progress(fraction: float, note: str | None = None) -> None:
        if note:
            print(f"[{time.strftime('%H:%M:%S')}] {fraction:6.1%} {note}", flush=True)

    test_pairs = gold_pairs(dataset=Dataset.objects.get(name=names["test"]))
    questions, paraphrases = [p[1] for p in test_pairs], [p[2] for p in test_pairs]
    labels = [int(p[3]) for p in test_pairs]
    cal_pairs = validation_pairs(datasets=[Dataset.objects.get(name=names["cal"])])
    cal_y = [int(p.valid) for p in cal_pairs]

    results: dict[str, dict] = {}
    notes: list[str] = []
    base = pretrained_judge(activate=False)
    base_cal = version_calibrate(version=base, dataset_names=[names["cal"]], method=args.method)
    from django.conf import settings

    encoder_name = Path(settings.PARALAB_SENTENCE_ENCODER.removeprefix("packaged:").rstrip("/")).name
    results[f"untrained encoder ({encoder_name})"] = evaluate(
        raw_scores(version=base, questions=questions, paraphrases=paraphrases), labels,
        calibration=base_cal, raw_is_cosine=True)
    notes.append(f"untrained encoder: validation ROC AUC {base_cal['auc']:.3f} on {base_cal['n']} cal pairs")

    if not args.skip_paraqd:
        t0 = time.perf_counter()
        version = paraqd_train(
            dataset_names=[names["fit"]], preset="paper", epochs=args.epochs, operators=[],
            include_imported_pairs=True, progress=progress, seed=args.seed,
            config_overrides={"distance": "euclidean", "margin": 5.0, "lr": 1e-4},
        )
        train_s = time.perf_counter() - t0
        trained_cal = version_calibrate(version=version, dataset_names=[names["cal"]], method=args.method)
        results[f"ParaQD trained (best recipe, {args.epochs} epochs)"] = evaluate(
            raw_scores(version=version, questions=questions, paraphrases=paraphrases), labels,
            calibration=trained_cal, raw_is_cosine=True)
        notes.append(f"trained ParaQD v{version.pk}: {train_s / 60:.1f} min; validation ROC AUC "
                     f"{trained_cal['auc']:.3f} vs the base's {base_cal['auc']:.3f} "
                     f"({'ranks worse than its base' if trained_cal['auc'] < base_cal['auc'] else 'not worse'})")

    variants: list[dict] = []
    for spec in [v for v in args.paraqd_variants.split(";") if v.strip()]:
        name, _, settings_text = spec.partition("=")
        overrides = {"distance": "euclidean", "margin": 5.0, "lr": 1e-4}
        for item in [i for i in settings_text.split(",") if i.strip()]:
            key, _, value = item.partition(":")
            overrides[key.strip()] = parse_value(value.strip())
        if "distance" in overrides and overrides["distance"] == "cosine" and "margin" not in settings_text:
            overrides["margin"] = 0.5
        epochs = int(overrides.pop("epochs", args.epochs))
        t0 = time.perf_counter()
        version = paraqd_train(dataset_names=[names["fit"]], preset="paper", epochs=epochs, operators=[],
                               include_imported_pairs=True, progress=progress, seed=args.seed, config_overrides=overrides)
        cal_record = version_calibrate(version=version, dataset_names=[names["cal"]], method=args.method)
        test_scores = raw_scores(version=version, questions=questions, paraphrases=paraphrases)
        from ml.metrics.classification import roc_auc

        training = version.metrics["training"]
        variants.append({"name": name.strip(), "settings": {**overrides, "epochs": epochs},
                         "minutes": (time.perf_counter() - t0) / 60, "cal_auc": cal_record["auc"],
                         "test_auc": roc_auc(test_scores, labels), "best_epoch": training.get("best_epoch"),
                         "held_out_auc": (training.get("base_validation_auc"), training.get("best_validation_auc"))})
        print("variant", variants[-1], flush=True)

    t0 = time.perf_counter()
    judge = judge_train(dataset_names=[names["gsm8k"], names["fit"]], max_problems=args.judge_problems,
                        progress=progress, calibrate=False, fluency_lm=args.judge_fluency,
                        monotone=not args.judge_unconstrained, llm=args.judge_llm, llm_datasets=[names["fit"]])
    judge_s = time.perf_counter() - t0
    judge_cal = version_calibrate(version=judge, dataset_names=[names["cal"]], method=args.method)
    results["numeracy-aware judge" + (" with the LLM check" if judge.params.get("llm") else "")] = evaluate(
        raw_scores(version=judge, questions=questions, paraphrases=paraphrases), labels,
        calibration=judge_cal, raw_is_cosine=False)
    weights = judge.metrics["training"]["weights"]
    notes.append(f"numeracy-aware judge v{judge.pk} (fluency LM: {judge.params.get('fluency_lm') or 'none'}; "
                 f"LLM check: {judge.params.get('llm') or 'none'}): "
                 f"{judge.training_data.get('pairs')} training pairs, "
                 f"{judge_s:.0f} s; validation ROC AUC {judge_cal['auc']:.3f}; weights "
                 + ", ".join(f"{k} {v:+.2f}" for k, v in weights.items()))

    if judge.params.get("llm"):
        results.update(llm_rows(judge, cal_pairs, test_pairs, args, notes))
    rejected = judge.metrics["training"].get("llm_rejected")
    if rejected:
        notes.append(f"LLM check {rejected['model']} left out by judge_train: out-of-fold AUC {rejected['cv_auc']:.3f} "
                     f"on {rejected['pairs']} fit-half pairs is not above the classifier's {rejected['classifier_auc']:.3f}")

    judge_mixes = judge_variant_table(judge, names, cal_pairs, test_pairs, args) if args.judge_variants else []
    for mix in judge_mixes:
        if "full" in mix:
            results[f"numeracy-aware judge: {mix['name'].removeprefix('the default mix').strip(' ,')}"] = mix.pop("full")
    lodo = leave_operator_out(args, judge.params.get("fluency_lm")) if args.judge_variants else []

    best = max(results.values(), key=lambda r: r["auc"])
    met = {"AUC ≥ 0.90": best["auc"] >= 0.90,
           "weighted F1(hm) ≥ 0.80 at the calibrated threshold": best["calibrated"]["weighted"]["f1_hm"] >= 0.80,
           "separation ≥ 0.78 of the calibrated score": best["probability"]["separation"] >= 0.78}
    lines = [
        f"## Run {datetime.now(timezone.utc).isoformat(timespec='seconds')}",
        "",
        f"Command: `DATABASE_URL=… PARALAB_TORCH_THREADS={os.environ.get('PARALAB_TORCH_THREADS', '')} "
        + (f"PARALAB_SENTENCE_ENCODER={os.environ['PARALAB_SENTENCE_ENCODER']} "
           if os.environ.get("PARALAB_SENTENCE_ENCODER") else "")
        + "python "
        f"benchmarks/judge.py --judge-problems {args.judge_problems} --epochs {args.epochs} --method {args.method}"
        + (" --skip-paraqd" if args.skip_paraqd else "")
        + (f" --paraqd-variants '{args.paraqd_variants}'" if args.paraqd_variants else "")
        + (" --judge-variants" if args.judge_variants else "")
        + (f" --judge-fluency {args.judge_fluency}" if args.judge_fluency != "none" else "")
        + (" --judge-unconstrained" if args.judge_unconstrained else "")
        + (f" --judge-llm {args.judge_llm}" if args.judge_llm != "none" else "") + "`",
        "",
        f"Hardware: {hardware()}. Sentence encoder (PARALAB_SENTENCE_ENCODER): {encoder_name}. "
        f"Test: AQUA_test ({len(labels)} pairs, {sum(labels)} valid), never fitted on. "
        f"Calibration and validation AUC: the `cal` half of aqua_val ({len(cal_y)} pairs, {sum(cal_y)} valid; "
        "copies of the problem, the f2 column, left out); "
        "ParaQD and the judge learn from the `fit` half (and the judge from GSM8K train operator pairs).",
        "",
        *table(results),
        "",
        "cal. = at the threshold fitted on the cal half (weighted F1(hm) maximised); @0.5 = at 0.5 on the cosine "
        "(ParaQD) or on the calibrated probability (judge); prob. = the calibrated probability mapped to [−1, 1] "
        "(2p − 1), its separation read at the calibrated threshold. wF1 = scikit-learn's weighted F1, "
        "wF1(hm) = harmonic mean of weighted P and R (the paper's).",
        "",
        *[f"- {n}" for n in notes],
        *variant_lines(variants, judge_mixes, lodo),
        "- Targets (best judge by AUC): " + "; ".join(f"{k}: {'met' if v else 'not met'}" for k, v in met.items()),
        f"- Paper, ParaQD MiniLM-L12 on AQUA_test: weighted F1(hm) {PAPER_PARAQD['weighted_f1_hm']}, "
        f"separation {PAPER_PARAQD['separation']}.",
        "",
        "<details><summary>raw results</summary>",
        "",
        "```json",
        json.dumps(results, indent=1, default=float),
        "```",
        "</details>",
        "",
    ]
    previous = args.out.read_text() if args.out.exists() else ""
    header = "# Judges on AQUA_test: calibrated ParaQD and the numeracy-aware judge\n\n"
    body = previous.removeprefix(header) if previous.startswith(header) else previous
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(header + "\n".join(lines) + "\n" + body)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
