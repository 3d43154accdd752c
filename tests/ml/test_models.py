"""The real model code paths, offline: a tiny MarianMT built on the fly and the packaged MiniLM."""
import random

import pytest

from ml.operators import OperatorNotApplicable, f1_backtranslation, f5_important_phrase_deletion, f9_general_paraphraser
from ml.seq2seq import (
    BacktranslationConfig,
    Backtranslator,
    ModelUnavailable,
    Seq2SeqConfig,
    Seq2SeqGenerator,
    load_seq2seq,
)
from ml.similarity import DEFAULT_SENTENCE_ENCODER, SentenceSimilarity, SimilarityConfig

# MarianTokenizer's advice to install sacremoses (a tokenizer extra) is not about our code.
pytestmark = pytest.mark.filterwarnings("ignore:Recommended. pip install sacremoses")


def test_configs_are_validated():
    with pytest.raises(ValueError):
        Seq2SeqConfig(model="")
    with pytest.raises(ValueError):
        Seq2SeqConfig(model="x", num_beams=0)
    with pytest.raises(ValueError):
        BacktranslationConfig(forward_model="")
    with pytest.raises(ValueError):
        SimilarityConfig(batch_size=0)


def test_a_model_that_is_not_on_disk_is_refused_with_the_reason(spacy_model):
    with pytest.raises(ModelUnavailable, match="cannot be loaded"):
        load_seq2seq("Helsinki-NLP/opus-mt-en-de")
    backtranslator = Backtranslator()  # the production defaults (opus-mt), not installed here
    with pytest.raises(OperatorNotApplicable, match="backtranslation model unavailable"):
        f1_backtranslation("A train covers 300 km.", random.Random(0), backtranslator=backtranslator,
                           spacy_model=spacy_model)
    paraphraser = Seq2SeqGenerator(Seq2SeqConfig(model="no/such-paraphraser"))
    with pytest.raises(OperatorNotApplicable, match="paraphrase model unavailable"):
        f9_general_paraphraser("John bought 5 apples.", random.Random(0), paraphraser=paraphraser)


@pytest.mark.slow
def test_marian_backtranslation_runs_per_sentence(tiny_marian_dir, spacy_model):
    config = BacktranslationConfig(forward_model=tiny_marian_dir, backward_model=tiny_marian_dir, num_beams=2,
                                   max_new_tokens=6)
    backtranslator = Backtranslator(config)
    outputs = backtranslator(["A train covers 300 km in 5 hours.", "What is its speed?"])
    assert len(outputs) == 2 and all(isinstance(o, str) and o for o in outputs)
    # A random tiny model drops the numbers: the default check refuses; without it, f1 joins
    # one output per sentence.
    text = "A train covers 300 km in 5 hours. What is its speed?"
    with pytest.raises(OperatorNotApplicable, match="changed a number"):
        f1_backtranslation(text, random.Random(0), backtranslator=backtranslator, spacy_model=spacy_model)
    result = f1_backtranslation(text, random.Random(0), backtranslator=backtranslator, spacy_model=spacy_model,
                                require_numbers=False)
    assert result.text == " ".join(outputs) and result.valid


@pytest.mark.slow
def test_seq2seq_paraphraser_path_for_f9(tiny_marian_dir):
    paraphraser = Seq2SeqGenerator(Seq2SeqConfig(model=tiny_marian_dir, max_new_tokens=6, num_beams=1, batch_size=1))
    result = f9_general_paraphraser("John bought 5 apples.", random.Random(0), paraphraser=paraphraser)
    assert not result.valid and result.meta["backend"].startswith("Seq2SeqGenerator")


@pytest.mark.slow
def test_minilm_similarity_batches_and_f5_uses_it_by_default(spacy_model):
    similarity = SentenceSimilarity(SimilarityConfig(model=DEFAULT_SENTENCE_ENCODER))
    scores = similarity("John ate 5 apples.", ["John ate 5 apples.", "John ate five apples.", "It rains in Paris."])
    assert scores[0] == pytest.approx(1.0, abs=1e-4)
    assert scores[1] > 0.8 > 0.3 > scores[2]
    assert similarity("x", []) == []
    text = "Alex travelled 100 km from New York at a constant speed of 20 kmph. How many hours did it take him in total?"
    result = f5_important_phrase_deletion(text, random.Random(0), spacy_model=spacy_model)
    assert result.meta["similarity"] < 1.0 and result.text != text
