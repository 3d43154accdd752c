"""PAP, SCANNING's prompt-controlled paraphraser (paper 000): parallel corpus from STEAD's
selected outputs, training (also from annotators' labels) and generation per prompt. Pure."""
from .data import PapPair, apply_gold_labels, pap_examples, pap_source, select_parallel_corpus
from .model import pap_generate
from .pipeline import build_parallel_corpus, score_outputs
from .train import train_pap

__all__ = [
    "PapPair",
    "build_parallel_corpus",
    "score_outputs",
    "apply_gold_labels",
    "pap_examples",
    "pap_generate",
    "pap_source",
    "select_parallel_corpus",
    "train_pap",
]
