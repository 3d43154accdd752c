"""A byte-level BPE tokenizer trained on the platform's own corpus (the ``scratch`` base).

Cased and lossless: every byte is representable, nothing is normalised, and decoding the
encoding gives the text back (``"$4.50"``, ``"NOUN1"``, accents). Written with the
``tokenizers`` library; the special tokens follow BART's: ``<s> <pad> </s> <unk> <mask>``.

>>> tok = train_bpe_tokenizer(["Tom has $4.50 and 3 apples."] * 20, vocab_size=300)
>>> tok.decode(tok("Tom has $4.50.")["input_ids"], skip_special_tokens=True)
'Tom has $4.50.'
"""
from __future__ import annotations

from collections.abc import Iterable

__all__ = ["SPECIAL_TOKENS", "train_bpe_tokenizer"]

SPECIAL_TOKENS = ("<s>", "<pad>", "</s>", "<unk>", "<mask>")


def train_bpe_tokenizer(texts: Iterable[str], *, vocab_size: int = 8000, min_frequency: int = 2):
    """A ``PreTrainedTokenizerFast`` (byte-level BPE, ``<s> … </s>`` added around every text)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, min_frequency=min_frequency, special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False,
    )
    tokenizer.train_from_iterator(list(texts), trainer=trainer)
    bos, eos = tokenizer.token_to_id("<s>"), tokenizer.token_to_id("</s>")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> $B </s>", special_tokens=[("<s>", bos), ("</s>", eos)],
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, bos_token="<s>", eos_token="</s>", pad_token="<pad>", unk_token="<unk>",
        mask_token="<mask>", clean_up_tokenization_spaces=False,
    )
