"""The text-to-text machinery of STEAD and PAP on tiny models: a lossless BPE tokenizer, diverse
beam search (groups differ, group 0 is plain beam search, no penalty gives identical groups) for an
encoder-decoder and a decoder-only model, training that lowers the loss, and a killed run that
resumes from its checkpoint."""
from __future__ import annotations

import json
import random

import pytest
import torch

from ml.seq2seq import (
    HammingDiversityLogitsProcessor,
    ModelUnavailable,
    OutputNoRepeatNGramLogitsProcessor,
    TextModel,
    TrainConfig,
    build_text_model,
    diverse_beam_search,
    load_text_model,
    train_bpe_tokenizer,
    train_text_model,
)
from ml.seq2seq.restore import restore_from_source
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
    model = build_text_model("scratch", corpus=TEXTS, size="tiny", vocab_size=400, seed=1)
    assert model.architecture == "bart-scratch" and model.size == "tiny"
    return model


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
    assert seen == [0, 1, 1, 2]  # stopped in epoch 1; the resumed run rebuilds epochs 1 and 2, not 0
    # the resumed weights continue from the checkpoint, not from scratch: the same weights as an
    # uninterrupted run (CPU, one thread, the random state restored: bit for bit)
    straight = tiny_bart()
    third = train_text_model(straight, lambda epoch: pairs, config, checkpoint_dir=tmp_path / "straight")
    for (name, a), (_, b) in zip(resumed_model.network.state_dict().items(), straight.network.state_dict().items()):
        assert torch.equal(a, b), name
    assert third.steps == second.steps and third.loss_history == second.loss_history


def test_a_run_capped_by_max_steps_continues_under_a_larger_cap(tmp_path):
    pairs = [(f"paraphrase: {t}", t) for t in TEXTS]
    common = dict(learning_rate=1e-3, epochs=2, batch_size=16, micro_batch=8, max_source_tokens=48,
                  max_target_tokens=48, checkpoint_every=0)
    model = tiny_bart()
    first = train_text_model(model, lambda e: pairs, TrainConfig(max_steps=3, **common), checkpoint_dir=tmp_path)
    assert first.stopped_early and first.steps == 3 and first.planned_steps == 3
    before = {k: v.clone() for k, v in model.network.state_dict().items()}
    again = tiny_bart()
    second = train_text_model(again, lambda e: pairs, TrainConfig(**common), checkpoint_dir=tmp_path)
    assert second.resumed_from_step == 3 and second.steps == 8 and second.planned_steps == 8
    assert second.examples_seen == 2 * len(pairs) and not second.stopped_early
    assert any(not torch.equal(before[k], v) for k, v in again.network.state_dict().items())


def test_encoder_decoder_targets_skip_the_start_token_and_decoder_only_trains_on_the_target():
    bart = tiny_bart()
    batch = bart.collate([("a b", "Tom has 5."), ("c", "Ann")], max_source_tokens=16, max_target_tokens=16)
    tok = bart.tokenizer
    assert batch["labels"][0, 0].item() != tok.bos_token_id  # the decoder start token stands there
    assert tok.decode([i for i in batch["labels"][0].tolist() if i >= 0]) == "Tom has 5.</s>"
    assert batch["labels"][1].tolist().count(-100) == batch["labels"].shape[1] - len(tok("Ann")["input_ids"]) + 1

    gpt = tiny_gpt2()
    batch = gpt.collate([("Tom has 5 apples.", "He has 5."), ("x", "y")], max_source_tokens=32, max_target_tokens=8)
    labels, ids = batch["labels"][0].tolist(), batch["input_ids"][0].tolist()
    trained = [i for i, label in enumerate(labels) if label != -100]
    prompt = gpt.tokenizer("Tom has 5 apples." + gpt.separator, add_special_tokens=False)["input_ids"]
    assert trained[0] == len(prompt) and ids[: len(prompt)] == prompt  # loss only after the separator
    assert gpt.tokenizer.decode([ids[i] for i in trained]) == " He has 5.</s>"
    assert batch["attention_mask"][1].sum() < batch["attention_mask"][0].sum()  # padded to the longest row


def test_hamming_processor_subtracts_penalty_per_earlier_choice_at_the_same_step():
    previous = [[[5, 7], [5, 8]], [[9]]]  # input 0: two earlier beams; input 1: one
    processor = HammingDiversityLogitsProcessor(previous, 2.0, offset=3, beams=2)
    scores = torch.zeros(4, 10)
    step0 = processor(torch.zeros(4, 3, dtype=torch.long), scores.clone())
    assert step0[0, 5] == step0[1, 5] == -4.0 and step0[2, 9] == step0[3, 9] == -2.0
    assert step0[0].sum() == -4.0 and step0[2].sum() == -2.0
    step1 = processor(torch.zeros(4, 4, dtype=torch.long), scores.clone())
    assert step1[0, 7] == step1[0, 8] == -2.0 and step1[0, 5] == 0 and step1[2].sum() == 0  # beam [9] ended


def test_generate_returns_distinct_strings_group_by_group_and_saves_a_decoder_only_model(tmp_path):
    model = tiny_gpt2()
    outputs = model.generate(["Tom has 5 apples.", "A train"], num_beams=6, num_beam_groups=3, max_new_tokens=6,
                             batch_size=1)
    assert len(outputs) == 2 and all(len(set(o)) == len(o) > 1 for o in outputs)
    capped = model.generate(["Tom has 5 apples."], num_return_sequences=2, max_new_tokens=6)
    assert capped == [outputs[0][:2]]
    again = load_text_model(model.save(tmp_path / "gpt"))
    assert again.decoder_only and again.architecture == "gpt2-test"
    assert again.generate(["Tom has 5 apples."], max_new_tokens=6) == [outputs[0]]


def test_a_hub_directory_loads_and_a_missing_model_is_unavailable(tmp_path):
    bart = tiny_bart()
    bart.network.save_pretrained(tmp_path / "plain")
    bart.tokenizer.save_pretrained(tmp_path / "plain")
    loaded = build_text_model(str(tmp_path / "plain"))
    assert loaded.architecture == "hub" and not loaded.decoder_only
    assert loaded.parameters_count == bart.parameters_count
    with pytest.raises(ModelUnavailable):
        build_text_model(str(tmp_path / "absent"))
    with pytest.raises(ModelUnavailable):
        build_text_model("no-such-org/no-such-model-here")
    with pytest.raises(ModelUnavailable):
        load_text_model(tmp_path / "plain")  # no paralab_text_model.json


def test_a_model_saved_before_targets_dropped_their_start_token_forces_it(tmp_path):
    saved = tiny_bart().save(tmp_path / "m")
    assert load_text_model(saved).force_target_start is False
    meta = json.loads((saved / "paralab_text_model.json").read_text())
    del meta["strip_target_start"]
    (saved / "paralab_text_model.json").write_text(json.dumps(meta))
    old = load_text_model(saved)
    assert old.force_target_start and not old.strip_target_start
    assert old.generate(["Tom has 5 apples."], max_new_tokens=4)  # decodes with the start token forced


def test_uncased_output_gets_spacing_case_and_accents_from_the_source():
    source = ("Tom paid $4.50 for NOUN1's 3/4 kg (about 25%) of Mary-Jane's Äpfel, didn't he? "
              "It costs 1,200 dollars. How much is left?")
    decoded = ("tom paid $ 4. 50 for noun1 ' s 3 / 4 kg ( about 25 % ) of mary - jane ' s apfel, didn ' t he? "
               "it costs 1, 200 dollars. how much is left?")
    assert restore_from_source(decoded, source) == source
    assert restore_from_source("how much is it? it costs $ 7. 25. 50 apples are left", source) == \
        "How much is it? It costs $7.25. 50 apples are left"  # "It"/"How" are not names; ". 50" not glued


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
    assert model.architecture == {"minilm": "bert2bert-minilm", "smollm2": "smollm2-decoder"}[base]
    again = load_text_model(model.save(tmp_path / "saved"))
    assert again.architecture == model.architecture and again.parameters_count == model.parameters_count
    assert again.generate(["paraphrase: Tom has 5 apples."], num_beams=2, num_beam_groups=2,
                          max_new_tokens=12) == outputs


@pytest.mark.slow
def test_a_second_smollm2_build_starts_from_the_base_not_from_what_the_first_one_became():
    from ml.noise.fluency import CausalLMFluency

    fluency = CausalLMFluency(None, "cpu")  # reads the same dequantized weights
    before = fluency.score(TEXTS[:2])
    first = build_text_model("smollm2")
    with torch.no_grad():  # what an optimizer step does: the first build's own tensors change in place
        for value in first.network.parameters():
            value.add_(0.5)
    first.tokenizer.padding_side = "left" if first.tokenizer.padding_side == "right" else "right"
    second, fresh = build_text_model("smollm2"), build_text_model("smollm2")
    changed = dict(first.network.named_parameters())
    assert all(not torch.equal(value, changed[name]) for name, value in second.network.named_parameters())
    assert all(torch.equal(a, b) for a, b in zip(second.network.parameters(), fresh.network.parameters()))
    assert second.tokenizer.padding_side != first.tokenizer.padding_side
    assert fluency.score(TEXTS[:2]) == before  # nor the fluency LM the judge reads


def test_no_repeat_reads_only_the_generated_part_and_spares_exempt_tokens():
    prompt = [5, 6, 7]  # a decoder-only prompt: its n-grams may be copied
    processor = OutputNoRepeatNGramLogitsProcessor(3, offset=3)
    scores = processor(torch.tensor([prompt + [5, 6]]), torch.zeros(1, 10))
    assert torch.isfinite(scores).all()  # (5, 6, 7) is the prompt's, not the output's
    scores = processor(torch.tensor([prompt + [5, 6, 7, 5, 6]]), torch.zeros(1, 10))
    assert not torch.isfinite(scores[0, 7]) and torch.isfinite(scores[0, [0, 1, 2, 3, 4, 5, 6, 8, 9]]).all()
    loop = torch.tensor([prompt + [4, 4, 4]])
    assert not torch.isfinite(processor(loop, torch.zeros(1, 10))[0, 4])  # "$ $ $" cannot go on
    spared = OutputNoRepeatNGramLogitsProcessor(3, offset=3, exempt=[4])
    assert torch.isfinite(spared(loop, torch.zeros(1, 10))).all()  # a number may be written again
    with pytest.raises(ValueError):
        OutputNoRepeatNGramLogitsProcessor(1, offset=0)


def test_outputs_cut_at_the_length_limit_can_be_left_out():
    sources = ["Tom has 5 apples.", "A train covers 300 km."]
    options = dict(num_beams=2, num_beam_groups=1, max_new_tokens=12)
    gpt = tiny_gpt2()  # untrained: none of its beams writes the end of sequence within 12 tokens
    cut = gpt.generate(sources, **options)
    assert all(cut) and gpt.generate(sources, drop_cut=True, **options) == [[], []]
    bart = tiny_bart()  # its beams end before the limit: nothing to leave out
    assert bart.generate(sources, drop_cut=True, **options) == bart.generate(sources, **options)


@pytest.mark.parametrize("factory", [tiny_bart, tiny_gpt2], ids=["encoder-decoder", "decoder-only"])
def test_no_ngram_written_twice(factory):
    model = factory()
    sources = ["Tom has 5 apples.", "A train covers 300 km."]
    common = dict(num_beams=2, num_beam_groups=1, max_new_tokens=12, decoder_only=model.decoder_only,
                  eos_token_id=model.tokenizer.eos_token_id, pad_token_id=model.tokenizer.pad_token_id)
    inputs = model._encode_sources(sources, 64)
    looping = [ids for beams in diverse_beam_search(model.network, inputs, **common) for ids in beams]
    assert any(len(set(zip(ids, ids[1:]))) < len(ids) - 1 for ids in looping)  # the untrained model repeats
    for beams in diverse_beam_search(model.network, inputs, no_repeat_ngram=2, **common):
        for ids in beams:
            pairs = list(zip(ids, ids[1:]))
            assert len(pairs) == len(set(pairs))  # no bigram twice


def test_one_line_problems_get_one_line_outputs():
    from ml.seq2seq.constraints import line_break_token_ids

    gpt = tiny_gpt2()
    breaks = [i for i in line_break_token_ids(gpt.tokenizer) if not gpt.tokenizer.decode([i]).strip()]
    assert breaks  # the tokens that write nothing but line breaks
    forward = gpt.network.forward

    def favour_line_breaks(*args, **kwargs):  # a decoder that would rather go on on a new line
        out = forward(*args, **kwargs)
        out.logits[..., breaks] += 100.0
        return out

    gpt.network.forward = favour_line_breaks
    options = dict(num_beams=1, num_beam_groups=1, max_new_tokens=6)
    assert gpt.generate(["Tom has 5 apples."], **options) == [[]]  # nothing but line breaks
    kept = gpt.generate(["Tom has 5 apples."], single_line=True, **options)
    assert kept[0] and all(text.strip() for text in kept[0])
    # A problem written on two lines may be paraphrased on several.
    assert gpt.generate(["Tom has 5 apples.\nHow many?"], single_line=True, **options) == [[]]
