"""The text-to-text machinery of STEAD and PAP on tiny models: a lossless BPE tokenizer, diverse
beam search (groups differ, group 0 is plain beam search, no penalty gives identical groups) for an
encoder-decoder and a decoder-only model, training that lowers the loss, and a killed run that
resumes from its checkpoint."""
from __future__ import annotations

import random

import pytest
import torch

from ml.seq2seq import (
    TextModel,
    TrainConfig,
    build_text_model,
    diverse_beam_search,
    load_text_model,
    train_bpe_tokenizer,
    train_text_model,
)
from ml.seq2seq.train import length_buckets

TEXTS = [f"Tom has {n} apples and buys {n + 3} more pears. How many fruits does he have?" for n in range(30)] + [
    f"A train covers {n}0 km in {n % 5 + 1} hours. What is its speed?" for n in range(1, 30)]


@pytest.fixture(scope="module", autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def tiny_bart() -> TextModel:
    return build_text_model("scratch", corpus=TEXTS, size="tiny", vocab_size=400, seed=1)


def tiny_gpt2() -> TextModel:
    from transformers import GPT2Config, GPT2LMHeadModel

    tokenizer = train_bpe_tokenizer(TEXTS, vocab_size=400)
    torch.manual_seed(2)
    config = GPT2Config(vocab_size=len(tokenizer), n_embd=64, n_layer=2, n_head=2, n_positions=256,
                        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                        pad_token_id=tokenizer.pad_token_id)
    return TextModel(GPT2LMHeadModel(config), tokenizer, architecture="gpt2-test", base="test", decoder_only=True)


def test_tokenizer_is_cased_and_lossless():
    tokenizer = train_bpe_tokenizer(TEXTS, vocab_size=400)
    for text in ("Tom paid $4.50 for NOUN1 and 2 ½ kg of Äpfel.", "  spaced\tout  "):
        ids = tokenizer(text)["input_ids"]
        assert ids[0] == tokenizer.bos_token_id and ids[-1] == tokenizer.eos_token_id
        assert tokenizer.decode(ids, skip_special_tokens=True) == text


@pytest.mark.parametrize("factory", [tiny_bart, tiny_gpt2], ids=["encoder-decoder", "decoder-only"])
def test_diverse_beam_search_groups(factory):
    model = factory()
    sources = ["paraphrase: Tom has 5 apples.", "paraphrase: A train covers 300 km."]
    inputs = model._encode_sources(sources, 64)
    common = dict(max_new_tokens=8, decoder_only=model.decoder_only, eos_token_id=model.tokenizer.eos_token_id,
                  pad_token_id=model.tokenizer.pad_token_id)
    diverse = diverse_beam_search(model.network, inputs, num_beams=6, num_beam_groups=3, diversity_penalty=10.0,
                                  **common)
    plain = diverse_beam_search(model.network, inputs, num_beams=2, num_beam_groups=1, **common)
    flat = diverse_beam_search(model.network, inputs, num_beams=6, num_beam_groups=3, diversity_penalty=0.0,
                               **common)
    for index in range(len(sources)):
        groups = [diverse[index][g * 2:(g + 1) * 2] for g in range(3)]
        assert groups[0] == plain[index]  # group 0 is plain beam search with B/G beams
        firsts = [group[0][0] for group in groups if group[0]]
        assert len(set(firsts)) == len(firsts)  # penalty 10: no group starts where an earlier one did
        flat_groups = [flat[index][g * 2:(g + 1) * 2] for g in range(3)]
        assert flat_groups[0] == flat_groups[1] == flat_groups[2]  # no penalty: the same search three times


def test_training_lowers_the_loss_and_a_saved_model_decodes_the_same(tmp_path):
    model = tiny_bart()
    pairs = [(f"paraphrase: {t}", t) for t in TEXTS]
    config = TrainConfig(learning_rate=1e-3, epochs=10, batch_size=16, micro_batch=8, max_source_tokens=48,
                         max_target_tokens=48, checkpoint_every=0)
    result = train_text_model(model, lambda epoch: pairs, config, checkpoint_dir=tmp_path / "ckpt")
    assert result.epochs_completed == 10 and result.steps == 10 * 4
    assert result.loss_history[-1] < 0.6 * result.loss_history[0]
    saved = model.save(tmp_path / "model")
    again = load_text_model(saved)
    source = ["paraphrase: " + TEXTS[3]]
    assert again.generate(source, num_beams=2, num_beam_groups=1, max_new_tokens=20) == \
        model.generate(source, num_beams=2, num_beam_groups=1, max_new_tokens=20)


def test_a_stopped_run_resumes_from_its_checkpoint(tmp_path):
    pairs = [(f"paraphrase: {t}", t) for t in TEXTS]
    config = TrainConfig(learning_rate=1e-3, epochs=3, batch_size=16, micro_batch=8, max_source_tokens=48,
                         max_target_tokens=48, checkpoint_every=2)
    seen = []

    def examples(epoch):
        seen.append(epoch)
        return pairs

    stopped = tiny_bart()
    calls = {"n": 0}

    def stop_after_five_steps():
        calls["n"] += 1
        return calls["n"] >= 5

    first = train_text_model(stopped, examples, config, checkpoint_dir=tmp_path, should_stop=stop_after_five_steps)
    assert first.stopped_early and first.steps == 5 and first.stop_reason == "asked to stop"
    resumed_model = tiny_bart()  # a new worker: fresh weights, the checkpoint on disk
    second = train_text_model(resumed_model, examples, config, checkpoint_dir=tmp_path)
    assert second.resumed_from_step == 5
    assert second.steps == 3 * 4 and second.epochs_completed == 3 and not second.stopped_early
    assert len(second.loss_history) == second.steps
    # the resumed weights continue from the checkpoint, not from scratch: same as an uninterrupted run
    straight = tiny_bart()
    third = train_text_model(straight, examples, config, checkpoint_dir=tmp_path / "straight")
    for (name, a), (_, b) in zip(resumed_model.network.state_dict().items(), straight.network.state_dict().items()):
        assert torch.allclose(a, b, atol=1e-4), name
    assert third.steps == second.steps


def test_length_buckets_cover_every_example_once_and_are_seeded():
    pairs = [("x" * random.Random(i).randint(1, 50), "y") for i in range(100)]
    batches = length_buckets(pairs, 8, seed=3, pool=4)
    assert sorted(i for b in batches for i in b) == list(range(100))
    assert batches == length_buckets(pairs, 8, seed=3, pool=4)
    assert batches != length_buckets(pairs, 8, seed=4, pool=4)
    spread = [max(len(pairs[i][0]) for i in b) - min(len(pairs[i][0]) for i in b) for b in batches]
    assert sum(spread) / len(spread) < 20  # similar lengths together


@pytest.mark.slow
@pytest.mark.parametrize("base", ["minilm", "smollm2"])
def test_offline_pretrained_bases_train_one_step_and_generate(base, tmp_path):
    model = build_text_model(base)
    pairs = [(f"paraphrase: {t}", t) for t in TEXTS[:8]]
    config = TrainConfig(epochs=1, batch_size=8, micro_batch=4, max_source_tokens=48, max_target_tokens=48)
    result = train_text_model(model, lambda epoch: pairs, config, checkpoint_dir=tmp_path)
    assert result.steps == 1 and result.final_loss is not None
    outputs = model.generate(["paraphrase: Tom has 5 apples."], num_beams=2, num_beam_groups=2, max_new_tokens=12)
    assert outputs[0] and all(isinstance(t, str) and t for t in outputs[0])
