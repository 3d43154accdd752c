"""STEAD and PAP constrain their numbers by the problem's own numbers, not by their model input:
a noised input can gain a number (a synonym insertion writes "1" for "one"), and a prompt is no
number to keep. ``require_numbers`` reaches the decoder through the preset."""
from __future__ import annotations

import types

from ml.pap.model import pap_generate
from ml.stead import preset as get_preset
from ml.stead.model import stead_generate

PROBLEM = "Dan had $ 3 left after he bought a candy bar. If he had $ 4 at the start, how much did it cost?"


class RecordingModel:
    """Stands in for TextModel: records what generate() is asked and echoes each source."""

    def __init__(self):
        self.calls = []

    def generate(self, sources, config=None, **options):
        self.calls.append((list(sources), {**vars(config), **options} if config is not None else options))
        return [[f"Rewritten {i}: Dan had $ 3 and $ 4."] for i, _ in enumerate(sources)]


def noise_adding_a_number(text, rng):
    return types.SimpleNamespace(text="1 " + text.replace("candy bar", "sweet"), prompt="paraphrase replace:",
                                 combination="q7")


def test_stead_constrains_by_the_problem_not_the_noised_input():
    model = RecordingModel()
    preset = get_preset("tiny", require_numbers=True, inference_noises=1, passive_inference=False)
    stead_generate(model, [PROBLEM], seed=1, preset=preset, inference_noise=noise_adding_a_number)
    (sources, options), = model.calls
    assert sources[0].startswith("paraphrase: 1 Dan")  # the model reads the noised text...
    assert options["number_sources"] == [PROBLEM]  # ...its numbers are the problem's
    assert options["copy_numbers"] is True and options["require_numbers"] is True


def test_pap_constrains_by_the_problem_for_every_prompt():
    model = RecordingModel()
    preset = get_preset("tiny", pap_prompts=("replace shuffle", "fix"))
    pap_generate(model, [PROBLEM, "Ann has 2 cats."], preset=preset)
    (sources, options), = model.calls
    assert len(sources) == 4
    assert options["number_sources"] == [PROBLEM, PROBLEM, "Ann has 2 cats.", "Ann has 2 cats."]
    assert options["require_numbers"] is False  # off unless the preset asks
