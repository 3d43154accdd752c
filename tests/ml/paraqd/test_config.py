"""ParaQDTrainConfig: defaults from the paper, presets, and validation with clear messages."""
import pytest

from ml.paraqd import DEFAULT_ENCODER, ParaQDTrainConfig


def test_defaults_follow_the_paper():
    config = ParaQDTrainConfig()
    assert config.encoder == DEFAULT_ENCODER == "packaged:all-MiniLM-L6-v2"
    assert (config.loss, config.distance, config.margin) == ("triplet", "cosine", 0.5)
    assert (config.lr, config.weight_decay, config.warmup_ratio) == (2e-5, 0.01, 0.1)
    assert (config.epochs, config.batch_size, config.seed, config.device) == (9, 16, 3407, "auto")


def test_margin_default_follows_the_distance():
    assert ParaQDTrainConfig(distance="euclidean").margin == 5.0
    assert ParaQDTrainConfig(distance="euclidean", margin=1.0).margin == 1.0
    # replace() moves a default margin along with the distance, keeps an explicit one.
    assert ParaQDTrainConfig().replace(distance="euclidean").margin == 5.0
    assert ParaQDTrainConfig(margin=0.3).replace(distance="euclidean").margin == 0.3


def test_presets():
    paper = ParaQDTrainConfig.paper()
    assert (paper.epochs, paper.batch_size, paper.margin, paper.max_triplets_per_anchor) == (9, 16, 0.5, 6)
    script = ParaQDTrainConfig.authors_script()
    assert (script.distance, script.margin, script.epochs) == ("euclidean", 5.0, 9)
    tiny = ParaQDTrainConfig.tiny(encoder="/x", lr=1e-3)
    assert (tiny.epochs, tiny.encoder, tiny.lr) == (1, "/x", 1e-3) and tiny.batch_size < 16
    assert ParaQDTrainConfig.tiny().to_dict()["max_seq_length"] == 32


def test_every_field_has_help_text():
    assert all(text for text in ParaQDTrainConfig.help().values())


@pytest.mark.parametrize("changes, message", [
    ({"encoder": " "}, "encoder"),
    ({"loss": "contrastive"}, "loss must be one of"),
    ({"distance": "manhattan"}, "distance must be one of"),
    ({"triplet_pairing": "every"}, "triplet_pairing must be one of"),
    ({"operator_draws": 0}, "operator_draws must be an integer >= 1"),
    ({"margin": 0}, "margin must be > 0"),
    ({"lr": 0}, "lr must be > 0"),
    ({"weight_decay": -0.1}, "weight_decay"),
    ({"warmup_ratio": 1.0}, "warmup_ratio"),
    ({"epochs": 0}, "epochs must be an integer >= 1"),
    ({"batch_size": 2.5}, "batch_size must be an integer >= 1"),
    ({"max_seq_length": 4}, "max_seq_length"),
    ({"device": "tpu"}, "device must be one of"),
    ({"max_triplets_per_anchor": 0}, "max_triplets_per_anchor"),
    ({"time_budget_s": 0}, "time_budget_s"),
    ({"hard_example_weight": 0}, "hard_example_weight"),
    ({"max_grad_norm": -1}, "max_grad_norm"),
    ({"num_threads": 0}, "num_threads"),
])
def test_invalid_values_are_refused_with_the_field_named(changes, message):
    with pytest.raises(ValueError, match=message):
        ParaQDTrainConfig(**changes)
    with pytest.raises(ValueError, match=message):
        ParaQDTrainConfig().replace(**changes)


def test_cuda_index_is_accepted():
    assert ParaQDTrainConfig(device="cuda:1").device == "cuda:1"
