"""Sequence-to-sequence text models: the hub models the operators use (translation,
paraphrasing; :mod:`.hub`) and the machinery STEAD and PAP (SCANNING, paper 000) train and decode
with: a byte-level BPE tokenizer trained on the corpus (:mod:`.tokenizer`), one
:class:`TextModel` over three offline bases and any hub/directory model (:mod:`.models`; uncased
output restored from the source by :mod:`.restore`), diverse
beam search (:mod:`.beams`) and a resumable training loop with the paper's optimiser (:mod:`.train`).
"""
from .beams import HammingDiversityLogitsProcessor, OutputNoRepeatNGramLogitsProcessor, diverse_beam_search
from .decode import DecodeConfig
from .hub import BacktranslationConfig, Backtranslator, ModelUnavailable, Seq2SeqConfig, Seq2SeqGenerator, load_seq2seq
from .models import OFFLINE_BASES, TextModel, build_text_model, load_text_model
from .restore import restore_from_source
from .tokenizer import train_bpe_tokenizer
from .train import TrainConfig, TrainResult, train_text_model

__all__ = [
    "BacktranslationConfig",
    "DecodeConfig",
    "Backtranslator",
    "HammingDiversityLogitsProcessor",
    "ModelUnavailable",
    "OFFLINE_BASES",
    "OutputNoRepeatNGramLogitsProcessor",
    "Seq2SeqConfig",
    "Seq2SeqGenerator",
    "TextModel",
    "TrainConfig",
    "TrainResult",
    "build_text_model",
    "diverse_beam_search",
    "load_seq2seq",
    "load_text_model",
    "restore_from_source",
    "train_bpe_tokenizer",
    "train_text_model",
]
