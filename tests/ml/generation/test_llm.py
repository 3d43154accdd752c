"""The instruct-LLM generator: decoding under the number constraints, refusing what is no longer
the same problem, and unavailable with its reason when no model is installed. A small stand-in
for llama.cpp's model object drives the generator's own code; the real GGUF runs in the slow
test when `make llm` has installed it."""
from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import pytest

import ml.generation.llm as llm
from ml.generation import GenerationResources, GeneratorUnavailable, InstructLLMGenerator, NotApplicable
from ml.generation.llm import InstructLLMConfig, _number_processor, _Tokenizer

REPO = Path(__file__).resolve().parents[3]
VOCAB = ["", " Maya", " has", " 1", "2", " 5", " apples", "."]


class FakeModel:
    """What the generator reads of ``llama_cpp.Llama``: a vocabulary, tokenize/detokenize, and a
    chat completion that returns a fixed reply (after running the logits processors once)."""

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.seen_scores = None

    def n_vocab(self) -> int:
        return len(VOCAB)

    def detokenize(self, ids):
        return "".join(VOCAB[i] for i in ids).encode()

    def token_eos(self) -> int:
        return 0

    def tokenize(self, text, add_bos=False, special=False):
        return [1] * max(1, len(text.split()))

    def create_chat_completion(self, messages, logits_processor=None, **kwargs):
        if logits_processor is not None:
            self.seen_scores = logits_processor(np.array([1, 2], dtype=np.intc), np.zeros(len(VOCAB), np.float32))
        return {"choices": [{"message": {"content": self.reply}}]}


@pytest.fixture()
def fake(monkeypatch, tmp_path):
    def install(reply: str) -> tuple[FakeModel, GenerationResources]:
        model = FakeModel(reply)
        monkeypatch.setattr(llm, "_load", lambda *args: model)
        monkeypatch.setattr(llm, "_tokenizer", lambda *args: _Tokenizer(model))
        monkeypatch.setattr(llm, "llm_unavailable_reason", lambda *args: None)
        return model, GenerationResources(llm_dir=str(tmp_path), llm_file="model.gguf")
    return install


def test_digits_are_copied_from_the_problem_and_the_rewrite_cannot_end_early():
    tokenizer = _Tokenizer(FakeModel(""))
    process = _number_processor("Maya has 12 apples.", tokenizer, end_ids=[0])
    prompt = np.array([1, 2], dtype=np.intc)
    scores = process(prompt, np.zeros(len(VOCAB), np.float32))
    assert scores[VOCAB.index(" 5")] == -np.inf  # 5 is no number of the problem
    assert scores[VOCAB.index(" 1")] == 0  # 1 starts 12
    assert scores[0] == -np.inf  # 12 is still unwritten: no end
    inside = process(np.array([1, 2, 1, 2, 3], dtype=np.intc), np.zeros(len(VOCAB), np.float32))
    assert inside[VOCAB.index("2")] == 0 and inside[VOCAB.index(" apples")] == -np.inf  # "1" must become "12"
    done = process(np.array([1, 2, 1, 2, 3, 4, 6], dtype=np.intc), np.zeros(len(VOCAB), np.float32))
    assert done[0] == 0  # every number written: the rewrite may end


def test_a_rewrite_that_drops_a_number_is_refused(fake):
    model, resources = fake("Maya has some apples. How many apples does she have?")
    generator = InstructLLMGenerator(config=InstructLLMConfig(samples=2))
    with pytest.raises(NotApplicable) as info:
        generator.generate("Maya has 12 apples. She eats 5. How many apples does she have?", random.Random(0),
                           resources)
    assert "number" in str(info.value).lower()
    assert model.seen_scores is not None and model.seen_scores[VOCAB.index(" 1")] == 0


def test_a_rewrite_that_keeps_the_problem_is_a_candidate(fake):
    _, resources = fake("Rewritten: After eating 5 of her 12 apples, how many apples does Maya have?")
    candidates = InstructLLMGenerator(config=InstructLLMConfig(samples=1)).generate(
        "Maya has 12 apples. She eats 5. How many apples does she have?", random.Random(0), resources)
    assert [c.text for c in candidates] == ["After eating 5 of her 12 apples, how many apples does Maya have?"]
    assert candidates[0].generator == "instruct_llm" and candidates[0].meta["constrained"] is True


PROBLEM = ("A shop sells 12 pens at 3 dollars each and 4 notebooks at 5 dollars each. "
           "How much money does the shop get?")


@pytest.mark.parametrize("reply, reason", [
    ("A shop sells 12 pens at 3 dollars each and 4 notebooks at 5 dollars each. How much do the pens bring in? "
     "How much money does the shop get?", "asks 2 questions"),
    ("A shop sells 12 pens at 3 dollars each and 4 notebooks at 5 dollars each. How much money does the shop get? "
     "Note: add both totals.", "comment"),
    ("Something sells 12 things at 3 dollars each and 4 more at 5 dollars each. What is the total?", "drops"),
])
def test_a_rewrite_that_asks_more_comments_or_drops_facts_is_refused(fake, reply, reason):
    _, resources = fake(reply)
    with pytest.raises(NotApplicable) as info:
        InstructLLMGenerator(config=InstructLLMConfig(samples=1)).generate(PROBLEM, random.Random(0), resources)
    assert reason in str(info.value)
    assert llm.content_refusal(PROBLEM, reply) is not None
    # Without the content check, the same reply passes (it keeps every number).
    kept = InstructLLMGenerator(config=InstructLLMConfig(samples=1, check_content=False)).generate(
        PROBLEM, random.Random(0), resources)
    assert [c.text for c in kept] == [reply]


def test_a_free_rewording_keeps_the_content():
    reply = ("How much money does a shop make when it sells 12 pens for 3 dollars apiece and 4 notebooks for "
             "5 dollars apiece?")
    assert llm.content_refusal(PROBLEM, reply) is None


def test_without_a_model_it_is_skipped_with_its_reason(tmp_path):
    generator = InstructLLMGenerator()
    reason = generator.unavailable_reason(GenerationResources())
    assert reason and "make llm" in reason
    with pytest.raises(GeneratorUnavailable) as info:
        generator.generate("Maya has 12 apples. How many?", random.Random(0), GenerationResources())
    assert "make llm" in info.value.reason
    from ml.generation import generate

    candidates, refusals = generate(["reorder", "instruct_llm"], "Maya has 12 apples. She eats 5. How many are left?",
                                    0)
    assert candidates and "make llm" in refusals["instruct_llm"]


GGUF = REPO / "var" / "models" / "qwen2.5-coder-1.5b-instruct.gguf"


@pytest.mark.slow
@pytest.mark.skipif(not GGUF.is_file() or llm.llm_unavailable_reason(str(GGUF.parent), GGUF.name) is not None,
                    reason="optional: `make llm` installs llama-cpp-python and the GGUF model")
def test_the_installed_model_rewrites_under_the_constraints():
    resources = GenerationResources(llm_dir=str(GGUF.parent), llm_file=GGUF.name)
    text = "A train running at 54 km/hr crosses a pole in 9 seconds. What is the length of the train?"
    candidates = InstructLLMGenerator(config=InstructLLMConfig(samples=2)).generate(text, random.Random(0), resources)
    assert candidates and all("54" in c.text and "9" in c.text for c in candidates)
    assert os.path.basename(candidates[0].meta["model"]) == GGUF.name
