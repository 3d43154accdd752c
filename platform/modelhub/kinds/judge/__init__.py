"""The numeracy-aware judge as a model kind (``judge``): a small calibrated classifier over the
encoder's cosine and the checks it misses (numbers, units, names, token alignment, length, foreign
words, fluency under a causal LM; ``ml.judge``). Trained in minutes on ParaQD's operator pairs
plus gold labels (``train_judge``; most of it is the fluency LM reading each text once),
calibrated like ParaQD (``calibrate --model judge``), and activated to make the platform's
decisions (``modelhub.judging``). Not retrained by beat: refitting is a ``train_judge`` run,
and recalibration follows new gold labels (beat's ``calibrate-check``)."""
from __future__ import annotations

from ..base import NotRetrainedFromLabels, TrainRequest
from .refit import judge_refit
from .service import judge_evaluate_pairs, judge_train
from .storage import judge_score_candidates, judge_store_verdicts, judge_verdicts


class JudgeKind(NotRetrainedFromLabels):
    name = "judge"
    label = "Numeracy-aware judge"
    queue = "cpu"
    is_judge = True
    decision_column = "probability"
    refits_from_gold = True

    def train(self, request: TrainRequest):
        return judge_train(dataset_names=request.dataset_names, max_problems=request.max_problems,
                           activate=request.activate, user=request.user, job=request.job,
                           progress=request.progress, exclude_candidate_ids=request.exclude_candidate_ids,
                           **request.options)

    def raw_scores(self, *, version, questions: list[str], paraphrases: list[str]) -> list[float]:
        """The classifier's uncalibrated output (what ``calibrate`` fits on)."""
        return [r["raw"] for r in judge_evaluate_pairs(version=version, questions=questions, paraphrases=paraphrases)]

    def decision_scores(self, *, version, questions: list[str], paraphrases: list[str]):
        """The classifier's raw output and the calibrated probability the judge decides on."""
        results = judge_evaluate_pairs(version=version, questions=questions, paraphrases=paraphrases)
        return [float(r["raw"]) for r in results], [float(r["probability"]) for r in results]

    def refit_from_gold(self, *, version, user) -> dict:
        return judge_refit(version=version, user=user)

    def verdicts(self, *, version, questions: list[str], paraphrases: list[str], threshold: float):
        """The calibrated probability with every check's explanation (``judge_evaluate_pairs``)."""
        return judge_verdicts(version=version, questions=questions, paraphrases=paraphrases)

    def store_verdicts(self, *, version, candidate_ids: list[int], verdicts) -> None:
        judge_store_verdicts(candidate_ids=candidate_ids, version=version, verdicts=verdicts)

    def score_candidates(self, *, version, candidate_ids: list[int]) -> int:
        return judge_score_candidates(candidate_ids=candidate_ids, version=version)
