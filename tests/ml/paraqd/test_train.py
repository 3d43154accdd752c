"""train_paraqd on the tiny encoder: it completes, separates valid from invalid pairs on its own
training data, saves a model that scores the same after loading, and honours a time budget."""
import json
import os
import time

import numpy as np
import pytest
import torch

from ml.paraqd import DISAGREEMENT_SOURCE, ParaQDTrainConfig, Triplet, TripletBatcher, train_paraqd
from ml.paraqd.model import load_encoder, load_model, save_model, score_pairs
from ml.paraqd.train import _features

from .conftest import synthetic_triplets


def eval_pairs_of(triplets):
    return [(t.anchor, t.positive, 1) for t in triplets] + [(t.anchor, t.negative, 0) for t in triplets]


def mean_scores(model, triplets):
    anchors = [t.anchor for t in triplets]
    positives = score_pairs(model, anchors, [t.positive for t in triplets])
    negatives = score_pairs(model, anchors, [t.negative for t in triplets])
    return float(positives.mean()), float(negatives.mean())


def tiny_config(encoder, **changes):
    # The paper's cosine distance, with margin 1.5 so the loss stays active until valid pairs are
    # close *and* invalid ones far (at 0.5 a random encoder meets it by pushing negatives alone).
    # lr 1e-3 for the tiny random encoder; one thread: the test machine's cores are shared.
    # select_on_auc off: these tests follow the plain loop (the selection has its own tests below).
    base = dict(encoder=encoder, epochs=6, lr=1e-3, batch_size=8, margin=1.5, device="cpu", num_threads=1,
                select_on_auc=False)
    return ParaQDTrainConfig.tiny(**{**base, **changes})


@pytest.fixture(scope="module")
def trained(tiny_encoder_dir, triplets, tmp_path_factory):
    before = mean_scores(load_encoder(tiny_encoder_dir, "cpu"), triplets)
    config = tiny_config(tiny_encoder_dir, eval_before_training=True)
    calls = []
    threads = torch.get_num_threads()
    result = train_paraqd(config, triplets, tmp_path_factory.mktemp("paraqd") / "model",
                          progress=lambda fraction, note: calls.append((fraction, note)),
                          eval_pairs=eval_pairs_of(triplets))
    assert torch.get_num_threads() == threads  # num_threads is restored
    return result, config, before, calls


def test_training_completes_and_separates_its_own_training_data(trained, triplets):
    result, config, (pos_before, neg_before), _ = trained
    assert not result.stopped_early and result.stop_reason == ""
    assert result.steps == result.planned_steps == 6 * 10  # 80 triplets / batch 8, 6 epochs
    assert result.triplets_seen == 6 * 80 and result.epochs_completed == 6
    assert result.device == "cpu" and result.seconds > 0
    model, _ = load_model(result.output_dir, "cpu")
    pos_after, neg_after = mean_scores(model, triplets)
    assert pos_after > pos_before, (pos_before, pos_after)
    assert neg_after < neg_before - 0.3, (neg_before, neg_after)
    assert pos_after - neg_after > pos_before - neg_before + 0.5
    # The loss went down and was recorded once per step.
    assert len(result.loss_history) == result.steps
    assert np.mean(result.loss_history[-10:]) < np.mean(result.loss_history[:10])


def test_evaluation_history_and_progress(trained):
    result, _, (pos_before, neg_before), calls = trained
    assert [e["epoch"] for e in result.eval_history] == [0, 1, 2, 3, 4, 5, 6]
    assert result.eval_history[0]["mu_pos"] == pytest.approx(pos_before, abs=1e-5)
    assert result.eval_history[0]["mu_neg"] == pytest.approx(neg_before, abs=1e-5)
    assert result.eval_history[-1]["separation"] > result.eval_history[0]["separation"]
    fractions = [f for f, _ in calls]
    assert fractions == sorted(fractions) and fractions[0] == 0.0 and fractions[-1] == 1.0
    assert sum("loss" in note for _, note in calls) == result.steps  # progress_every=1 in tiny()
    assert all(isinstance(note, str) and note for _, note in calls)


def test_saved_model_round_trip_gives_identical_scores(trained, triplets, tmp_path):
    result, config, _, _ = trained
    model, metadata = load_model(result.output_dir, "cpu")
    # The metrics computed in-process before saving are reproduced by the loaded model.
    final = result.eval_history[-1]
    pos_after, neg_after = mean_scores(model, triplets)
    assert pos_after == pytest.approx(final["mu_pos"], abs=1e-5)
    assert neg_after == pytest.approx(final["mu_neg"], abs=1e-5)
    # Save again, load again: the same scores.
    anchors = [t.anchor for t in triplets]
    others = [t.negative for t in triplets]
    again, _ = load_model(save_model(model, tmp_path / "copy", config=config), "cpu")
    np.testing.assert_array_equal(score_pairs(model, anchors, others), score_pairs(again, anchors, others))
    # paraqd.json records the config, the last evaluation and the run.
    assert metadata["config"]["margin"] == 1.5 and metadata["config"]["loss"] == "triplet"
    assert metadata["metrics"]["separation"] == pytest.approx(final["separation"])
    assert metadata["training"]["steps"] == result.steps and metadata["training"]["stopped_early"] is False
    assert len(metadata["training"]["loss_curve"]) == result.steps  # 60 <= 100 points: kept whole
    with open(os.path.join(result.output_dir, "paraqd.json")) as f:
        json.load(f)  # strict JSON


def test_time_budget_stops_cleanly_and_says_so(tiny_encoder_dir, triplets, tmp_path):
    config = tiny_config(tiny_encoder_dir, epochs=50, time_budget_s=2.0)
    started = time.perf_counter()
    result = train_paraqd(config, triplets, tmp_path / "budget", progress=lambda f, note: time.sleep(0.2),
                          eval_pairs=eval_pairs_of(triplets[:8]))
    assert time.perf_counter() - started < 30
    assert result.stopped_early and "time budget" in result.stop_reason
    assert result.steps < result.planned_steps == 500
    assert result.eval_history and result.eval_history[-1]["epoch"] < 1  # evaluated where it stopped
    metadata = load_model(result.output_dir, "cpu")[1]
    assert metadata["training"]["stopped_early"] is True
    assert "time budget" in metadata["training"]["stop_reason"]


def test_mnrl_and_hard_examples_train(tiny_encoder_dir, triplets, tmp_path):
    hard = [Triplet(t.anchor, t.positive, t.negative, source=DISAGREEMENT_SOURCE) for t in triplets[:8]]
    config = tiny_config(tiny_encoder_dir, loss="mnrl", epochs=1, hard_example_weight=3.0)
    result = train_paraqd(config, triplets[:24] + hard, tmp_path / "mnrl")
    assert result.steps == 4 and all(np.isfinite(result.loss_history))
    assert load_model(result.output_dir, "cpu")[1]["config"]["hard_example_weight"] == 3.0


def test_batches_are_padded_to_their_longest_text_only(tiny_encoder_dir):
    model = load_encoder(tiny_encoder_dir, "cpu", max_seq_length=32)
    short = [Triplet("a b", "a b c", "a")]
    long = [Triplet("word " * 60, "word " * 50, "word " * 40)]
    short_batch = next(TripletBatcher(short, batch_size=1).epoch(0))
    long_batch = next(TripletBatcher(long, batch_size=1).epoch(0))
    short_ids = _features(model, short_batch.texts, "cpu")["input_ids"]  # (3, L)
    long_ids = _features(model, long_batch.texts, "cpu")["input_ids"]  # (3, 32): truncated
    assert short_ids.shape == (3, 5)  # [CLS] a b c [SEP]: padded to the longest of this batch
    assert long_ids.shape == (3, 32)


def test_empty_training_set_is_refused(tiny_encoder_dir, tmp_path):
    with pytest.raises(ValueError, match="at least one triplet"):
        train_paraqd(tiny_config(tiny_encoder_dir), [], tmp_path / "x")


def test_synthetic_data_shape():
    triplets = synthetic_triplets(n_anchors=3)
    assert len(triplets) == 6 and len({t.anchor for t in triplets}) == 3


def test_same_seed_same_run(tiny_encoder_dir, triplets, tmp_path):
    config = tiny_config(tiny_encoder_dir, epochs=1)
    first = train_paraqd(config, triplets[:24], tmp_path / "a").loss_history
    assert train_paraqd(config, triplets[:24], tmp_path / "b").loss_history == first
    assert train_paraqd(config.replace(seed=1), triplets[:24], tmp_path / "c").loss_history != first


# --- model selection on validation ROC AUC ------------------------------------------------------


def test_selection_keeps_the_best_epoch_and_flags_a_model_that_ranks_worse_than_its_base(
        tiny_encoder_dir, triplets, tmp_path):
    # Validation labels that contradict the training triplets: training can only rank them worse.
    inverted = [(t.anchor, t.positive, 0) for t in triplets] + [(t.anchor, t.negative, 1) for t in triplets]
    config = tiny_config(tiny_encoder_dir, select_on_auc=True, early_stopping_patience=None, epochs=4)
    result = train_paraqd(config, triplets, tmp_path / "worse", eval_pairs=inverted)
    assert result.eval_history[0]["epoch"] == 0 and result.base_validation_auc == result.eval_history[0]["auc"]
    trained_aucs = {e["epoch"]: e["auc"] for e in result.eval_history[1:]}
    assert result.best_validation_auc == max(trained_aucs.values())
    assert trained_aucs[result.best_epoch] == result.best_validation_auc
    assert result.ranks_worse_than_base and result.summary()["ranks_worse_than_base"] is True
    # The saved weights are the best epoch's: scoring the validation pairs again gives its AUC.
    from ml.metrics.classification import roc_auc

    model, metadata = load_model(result.output_dir, "cpu")
    scores = score_pairs(model, [q for q, _, _ in inverted], [p for _, p, _ in inverted])
    assert roc_auc(scores, [y for *_, y in inverted]) == pytest.approx(result.best_validation_auc, abs=1e-6)
    assert metadata["metrics"]["epoch"] == result.best_epoch


def test_selection_stops_early_when_validation_auc_stops_improving(tiny_encoder_dir, triplets, tmp_path):
    inverted = [(t.anchor, t.positive, 0) for t in triplets] + [(t.anchor, t.negative, 1) for t in triplets]
    config = tiny_config(tiny_encoder_dir, select_on_auc=True, early_stopping_patience=1, epochs=6)
    result = train_paraqd(config, triplets, tmp_path / "early", eval_pairs=inverted)
    assert result.stopped_early and result.stop_reason.startswith("early stopping")
    assert result.epochs_completed < 6


def test_an_improving_model_is_not_flagged(trained_model_for_selection):
    result = trained_model_for_selection
    assert result.best_validation_auc >= result.base_validation_auc
    assert not result.ranks_worse_than_base


@pytest.fixture(scope="module")
def trained_model_for_selection(tiny_encoder_dir, triplets, tmp_path_factory):
    config = tiny_config(tiny_encoder_dir, select_on_auc=True, early_stopping_patience=None, epochs=4)
    return train_paraqd(config, triplets, tmp_path_factory.mktemp("select") / "model",
                        eval_pairs=eval_pairs_of(triplets))


def test_freezing_lower_layers_keeps_them_unchanged(tiny_encoder_dir, triplets, tmp_path):
    config = tiny_config(tiny_encoder_dir, freeze_layers=1, epochs=1)
    result = train_paraqd(config, triplets, tmp_path / "frozen")
    before = load_encoder(tiny_encoder_dir, "cpu")[0].auto_model
    after = load_model(result.output_dir, "cpu")[0][0].auto_model
    for (name, a), (_, b) in zip(before.encoder.layer[0].named_parameters(), after.encoder.layer[0].named_parameters()):
        assert torch.equal(a, b), name
    assert any(not torch.equal(a, b) for a, b in zip(before.encoder.layer[-1].parameters(),
                                                      after.encoder.layer[-1].parameters()))
