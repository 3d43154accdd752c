"""Set-up shared by the retraining tests: a small algebra dataset whose candidates annotators
agreed on (human gold labels), a few pending candidates, and helpers to run a retrain job."""
from __future__ import annotations

from annotation.models import GoldLabel
from jobs.models import Job
from modelhub.services import model_retrain_start

from ..corpus.factories import make_candidate, make_gold
from ..paraphrases.helpers import ParaQDSettingsMixin, make_algebra


def make_human_golds(problems, *, source: str = GoldLabel.Source.AGREEMENT) -> list[GoldLabel]:
    """Per problem one valid and one invalid paraphrase that annotators agreed on."""
    golds = []
    for problem in problems:
        valid = make_candidate(problem, problem.text.replace("How many", "Tell me how many"), generator="stead")
        invalid = make_candidate(problem, problem.text.split(".")[0] + ".", generator="stead")
        golds.append(make_gold(valid, valid=True, source=source))
        golds.append(make_gold(invalid, valid=False, source=source))
    return golds


class RetrainSetUpMixin(ParaQDSettingsMixin):
    """Four problems, eight gold labels from annotators, two pending candidates; tiny preset, CPU."""

    def setUp(self):
        super().setUp()
        override = self.settings(
            PARALAB_RETRAIN_PRESET="tiny", PARALAB_RETRAIN_MAX_PROBLEMS=None, PARALAB_RETRAIN_TOLERANCE=0.0,
            PARALAB_RETRAIN_HOLDOUT_PERCENT=20, PARALAB_RETRAIN_MIN_NEW=5,
            # eight gold labels hold out two: these tests are about the comparison, so the gate may
            # decide on them (test_pap_retrain holds the "not enough gold to decide" rule)
            PARALAB_GATE_MIN_HELDOUT=1,
        )
        override.enable()
        self.addCleanup(override.disable)
        self.dataset, self.problems = make_algebra()
        self.golds = make_human_golds(self.problems)
        self.pending = [
            make_candidate(self.problems[0], "John got 5 apples on Monday and ate 2. How many are left?", generator="stead"),
            make_candidate(self.problems[1], "A train goes 300 km in 5 hours. How fast is it in km/h?", generator="stead"),
        ]

    def run_retrain(self, **kwargs) -> Job:
        """Start a retrain through the service; its on-commit send runs the task eagerly."""
        kwargs.setdefault("kind", "paraqd")
        kwargs.setdefault("force", True)
        with self.captureOnCommitCallbacks(execute=True):
            job = model_retrain_start(**kwargs)
        job.refresh_from_db()
        return job
