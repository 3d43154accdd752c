"""STEAD, SCANNING's denoiser (paper 000): training examples, training and inference.

Pure: no Django. The platform's ``modelhub.kinds.stead`` stores versions and runs jobs.
"""
from .config import PRESETS, ScanningPreset, preset
from .data import STEAD_PASSIVE_PROMPT, STEAD_PROMPT, passive_targets, stead_examples, stead_source
from .model import NeuralOutput, prompt_words_of, stead_generate, stead_inputs
from .train import TrainedGenerator, train_stead

__all__ = [
    "NeuralOutput",
    "PRESETS",
    "STEAD_PASSIVE_PROMPT",
    "STEAD_PROMPT",
    "ScanningPreset",
    "TrainedGenerator",
    "passive_targets",
    "preset",
    "prompt_words_of",
    "stead_examples",
    "stead_generate",
    "stead_inputs",
    "stead_source",
    "train_stead",
]
