"""``train_judge --dataset NAME… [--max-problems N] [--activate] [--json]``."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import UserError
from modelhub.kinds.judge.service import judge_train


class Command(BaseCommand):
    help = (
        "Train the numeracy-aware judge (a calibrated classifier over the encoder's cosine, numbers, units, "
        "names, token alignment, length, foreign words and, with --fluency-lm, fluency; each check's weight keeps "
        "its sign unless --unconstrained) on the datasets' operator pairs, imported train/dev pairs and gold "
        "labels; calibrate it on the validation pairs; with --activate it makes the platform's "
        'valid/invalid decisions. Seconds to minutes on a CPU. Prints JSON {"version", "status", "path", ...}.'
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", action="append", required=True, metavar="NAME",
                            help="a dataset to train on (repeatable)")
        parser.add_argument("--max-problems", type=int, default=None, help="at most this many problems")
        parser.add_argument("--fluency-lm", default=None, metavar="SPEC",
                            help="LM of the fluency feature: auto (SmolLM2 when installed), none, or a causal LM "
                                 "id/directory (default: PARALAB_JUDGE_FLUENCY_LM)")
        parser.add_argument("--llm", default=None, metavar="SPEC",
                            help="instruct LLM whose zero-shot 'same problem?' verdict the judge weighs, fitted on the "
                                 "datasets' validation pairs: none, smollm2, or a .gguf file / model directory "
                                 "(default: PARALAB_JUDGE_LLM)")
        parser.add_argument("--english", action="store_true",
                            help="also weigh the English checks (wrong-sense words, quantity words lost, broken joins, "
                                 "run-on sentences, stacked passives, new names, the question's words; needs a fluency "
                                 "LM: auto when --fluency-lm is not given), as the shipped judge does")
        parser.add_argument("--unconstrained", action="store_true",
                            help="plain logistic regression (default: each check's weight keeps its sign)")
        parser.add_argument("--activate", action="store_true", help="make it the judge that decides")
        parser.add_argument("--json", dest="as_json", action="store_true", help="print the result as one JSON object")

    def handle(self, *args, dataset: list[str], max_problems: int | None, activate: bool, as_json: bool,
               fluency_lm: str | None, unconstrained: bool, llm: str | None, english: bool, **options):
        names = [n for item in dataset for n in item.split(",") if n.strip()]
        if max_problems is not None and max_problems < 1:
            raise CommandError("--max-problems must be at least 1")
        try:
            version = judge_train(dataset_names=names, max_problems=max_problems, activate=activate,
                                  fluency_lm=fluency_lm or ("auto" if english else None), monotone=not unconstrained,
                                  llm=llm, english=english)
        except UserError as exc:
            raise CommandError(str(exc)) from exc
        calibration = (version.metrics or {}).get("calibration") or {}
        payload = {"version": version.pk, "status": version.status, "path": version.artifact_path,
                   "fluency_lm": (version.params or {}).get("fluency_lm"), "llm": (version.params or {}).get("llm"),
                   "pairs": version.training_data.get("pairs"), "threshold": calibration.get("threshold"),
                   "auc": calibration.get("auc"), "calibrated_on": calibration.get("n")}
        rejected = (version.metrics or {}).get("training", {}).get("llm_rejected")
        if rejected:
            payload["llm_rejected"] = rejected
            if not as_json:
                self.stdout.write(f"LLM check {rejected['model']} left out: out-of-fold AUC {rejected['cv_auc']:.3f} is not "
                                  f"above the classifier's {rejected['classifier_auc']:.3f} on {rejected['pairs']} pairs")
        self.stdout.write(json.dumps(payload) if as_json else
                          f"judge v{version.pk} ({version.status}) from {payload['pairs']} pairs at {version.artifact_path}; "
                          f"threshold {payload['threshold']}, validation AUC {payload['auc']}")
