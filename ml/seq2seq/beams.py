"""Diverse beam search (Vijayakumar et al. 2016), which transformers 5 no longer runs itself
(``num_beam_groups > 1`` resolves to a hub repository with remote code, unreachable here).

The B beams are split into G groups of B/G beams decoded in turn. Group g decodes with the
library's plain beam search, and a logits processor subtracts λ × (how many times each token was
chosen at the same step by the groups before it) from the log-probabilities: the Hamming
diversity term of the paper. One approximation, stated: the earlier groups' choices at step t are
read from their *returned* beams (the ones that survived to the end), not from every beam alive at
step t, because the groups run one after another rather than interleaved. Group 0 has no penalty,
so it is exactly plain beam search with B/G beams.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["HammingDiversityLogitsProcessor", "OutputNoRepeatNGramLogitsProcessor", "diverse_beam_search"]


class HammingDiversityLogitsProcessor:
    """Penalise tokens earlier groups chose at the same decoding step. A logits processor in
    transformers' sense (``__call__(input_ids, scores) -> scores``), written without subclassing
    ``transformers.LogitsProcessor`` so that importing ``ml`` does not import transformers/torch.

    previous: per input of the batch, the token sequences (generated part only) of the earlier
        groups; offset: how many positions of ``input_ids`` precede the generated part (1 for an
        encoder-decoder's start token, the padded prompt length for a decoder-only model);
        beams: beams per input in this group's search.
    """

    def __init__(self, previous: Sequence[Sequence[Sequence[int]]], penalty: float, *, offset: int, beams: int):
        self.previous = previous
        self.penalty = float(penalty)
        self.offset = int(offset)
        self.beams = int(beams)
        self._steps: dict[int, tuple[list[int], list[int], list[float]]] = {}
        for index, sequences in enumerate(previous):
            longest = max((len(seq) for seq in sequences), default=0)
            for step in range(longest):
                counts = Counter(seq[step] for seq in sequences if len(seq) > step)
                rows, tokens, amounts = self._steps.setdefault(step, ([], [], []))
                for token, count in counts.items():
                    for beam in range(self.beams):
                        rows.append(index * self.beams + beam)
                        tokens.append(token)
                        amounts.append(-self.penalty * count)

    def __call__(self, input_ids, scores):
        import torch

        entry = self._steps.get(input_ids.shape[1] - self.offset)
        if self.penalty == 0 or entry is None:
            return scores
        rows, tokens, amounts = entry
        index = (torch.tensor(rows, device=scores.device), torch.tensor(tokens, device=scores.device))
        return scores.index_put(index, torch.tensor(amounts, device=scores.device, dtype=scores.dtype),
                                accumulate=True)


class OutputNoRepeatNGramLogitsProcessor:
    """Forbid a token that would repeat an n-gram of the *generated* part. transformers'
    ``no_repeat_ngram_size`` also reads a decoder-only model's prompt, so it would forbid copying
    the problem's own phrases; this one starts at ``offset``. It stops the loops an undertrained
    decoder falls into ("$ $ $ $ …", "what is the remainder if … what is the remainder if …").

    size: n (>= 2); offset: positions of ``input_ids`` before the generated part; exempt: tokens
    never forbidden (the numeric ones, so that a number the problem states twice, "$12 … $12", can
    be written twice and the number-copying constraint is never left without a continuation).
    """

    def __init__(self, size: int, *, offset: int, exempt: Iterable[int] = ()):
        if size < 2:
            raise ValueError("size must be >= 2")
        self.size = int(size)
        self.offset = int(offset)
        self.exempt = frozenset(int(t) for t in exempt)

    def banned(self, generated: Sequence[int]) -> set[int]:
        """The tokens that would end an n-gram ``generated`` already holds.

        >>> sorted(OutputNoRepeatNGramLogitsProcessor(3, offset=0).banned([5, 6, 7, 5, 6]))
        [7]
        >>> sorted(OutputNoRepeatNGramLogitsProcessor(2, offset=0).banned([4, 4]))
        [4]
        >>> sorted(OutputNoRepeatNGramLogitsProcessor(2, offset=0, exempt=[4]).banned([4, 4]))
        []
        """
        n = self.size
        if len(generated) < n - 1:
            return set()
        head = tuple(generated[len(generated) - n + 1:])
        return {generated[i + n - 1] for i in range(len(generated) - n + 1)
                if tuple(generated[i:i + n - 1]) == head} - self.exempt

    def __call__(self, input_ids, scores):
        generated = input_ids[:, self.offset:].tolist()
        for row, tokens in enumerate(generated):
            banned = self.banned(tokens)
            if banned:
                scores[row, list(banned)] = float("-inf")
        return scores


def diverse_beam_search(
    network: Any,
    inputs: dict[str, Any],
    *,
    num_beams: int = 6,
    num_beam_groups: int = 3,
    diversity_penalty: float = 10.0,
    max_new_tokens: int = 96,
    decoder_only: bool = False,
    eos_token_id: int | None = None,
    pad_token_id: int | None = None,
    constraint: Any = None,
    no_repeat_ngram: int = 0,
    no_repeat_exempt: Iterable[int] = (),
    drop_unfinished: bool = False,
    **generate_options: Any,
) -> list[list[list[int]]]:
    """Per input of the batch, the generated token ids of every returned beam, group by group
    (``num_beams`` sequences: ``num_beams / num_beam_groups`` per group), without the decoder
    start token or the prompt, cut at the first end-of-sequence token. ``generate_options`` go to
    every group's ``generate`` (e.g. ``forced_bos_token_id``, ``no_repeat_ngram_size``).
    ``constraint(offset, beams)``, when given, builds one more logits processor (or a list of them)
    for every group (e.g. :class:`ml.seq2seq.constraints.NumberCopyLogitsProcessor`).
    ``no_repeat_ngram`` (n >= 2; 0: off): no n-gram of the generated part is written twice, tokens
    in ``no_repeat_exempt`` aside
    (:class:`OutputNoRepeatNGramLogitsProcessor`). ``drop_unfinished``: leave out the beams that
    reached ``max_new_tokens`` without an end of sequence (they still steer the later groups)."""
    import torch
    from transformers import LogitsProcessorList

    if num_beams % num_beam_groups:
        raise ValueError("num_beams must be a multiple of num_beam_groups")
    per_group = num_beams // num_beam_groups
    network.eval()  # decoding never runs dropout
    batch = inputs["input_ids"].shape[0]
    offset = inputs["input_ids"].shape[1] if decoder_only else 1
    previous: list[list[list[int]]] = [[] for _ in range(batch)]
    returned: list[list[list[int]]] = [[] for _ in range(batch)]
    options: dict[str, Any] = {"num_beams": per_group, "num_return_sequences": per_group, "do_sample": False,
                               "max_new_tokens": max_new_tokens, "early_stopping": True, **generate_options}
    if eos_token_id is not None:
        options["eos_token_id"] = eos_token_id
    if pad_token_id is not None:
        options["pad_token_id"] = pad_token_id
    for group in range(num_beam_groups):
        processors = LogitsProcessorList()
        if group and diversity_penalty:
            processors.append(HammingDiversityLogitsProcessor(previous, diversity_penalty, offset=offset,
                                                              beams=per_group))
        if no_repeat_ngram:
            processors.append(OutputNoRepeatNGramLogitsProcessor(no_repeat_ngram, offset=offset,
                                                                 exempt=no_repeat_exempt))
        if constraint is not None:
            built = constraint(offset, per_group)
            processors.extend(built if isinstance(built, (list, tuple)) else [built])
        with torch.no_grad():
            out = network.generate(**inputs, logits_processor=processors, **options)
        generated = out[:, offset:] if decoder_only else out[:, 1:]
        for index in range(batch):
            for beam in range(per_group):
                ids = generated[index * per_group + beam].tolist()
                finished = eos_token_id is not None and eos_token_id in ids
                if finished:
                    ids = ids[: ids.index(eos_token_id)]
                if pad_token_id is not None:
                    while ids and ids[-1] == pad_token_id:
                        ids.pop()
                previous[index].append(ids)
                if finished or not drop_unfinished:
                    returned[index].append(ids)
    return returned
