"""The instruct LLM as a generator that rewords, and solving as what decides.

Per problem: the LLM solves the original once (a short program, evaluated by the safe evaluator
of :mod:`ml.verify`, never executed); then, for each sampled rewording instruction
(:mod:`ml.generation.llm_prompts`), it writes a rewrite, which is refused with a reason before any
solving when it states the answer, drops or changes a number, unit or name, drops or adds a
question, adds a comment, or is not really reworded (sentence BLEU against the problem over
:data:`MAX_BLEU`: a copy or a template is what the rules already give); what is left is solved
the same way and compared with the original's answer (and the dataset's gold answer where there
is one). When the two disagree, both are solved again (self-consistency, up to
``solve_samples``) before the rewrite is refused as solving to another answer; when neither can
be solved the rewrite is kept as undecided and the judge decides.

The model runs in process on llama.cpp (``ml.llm``, a prebuilt wheel), loaded once per process
and kept warm. ``GenerationResources.llm_dir``/``llm_file`` name the GGUF file (``make install``
places Qwen2.5-Coder-1.5B-Instruct; the tests use the packaged SmolLM2-135M).

>>> rewrite_refusal("Tom has 3 apples and buys 2 more. How many apples does he have?",
...                 "Tom has 3 apples and buys 2 more, so he has 5 apples. How many apples does he have?",
...                 answer=5.0)
'it states the answer (5)'
"""
from __future__ import annotations

import logging
import os
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..llm import LLMConfig, LLMUnavailable, llm_unavailable_reason, load_llm
from ..text.nlp import DEFAULT_SPACY_MODEL, parse
from ..text.number_mentions import number_signature
from ..text.units import unit_signature
from ..verify import (AnswerCheck, SolveResult, compare, evaluate_solution, format_answer, gold_value, same_answer,
                      solve_messages)
from ..verify.solving import majority_answer
from .base import (
    GeneratedCandidate,
    GenerationResources,
    GeneratorUnavailable,
    NotApplicable,
    content_refusal,
)
from .llm_prompts import STYLES, Style, rewrite_messages

__all__ = ["InstructLLMConfig", "InstructLLMGenerator", "MAX_BLEU", "RewordOutcome", "reword_score",
           "clean_rewrite", "quantity_refusal", "rewrite_refusal", "llm_path", "llm_unavailable"]

logger = logging.getLogger(__name__)

#: A rewrite whose sentence BLEU against the problem (sacrebleu, 0..1) is over this is "not really
#: reworded": most of its 4-grams are the problem's. Template rewrites of the rules ("Given that
#: ..., how many ...?", a moved phrase) score 0.5-0.8 on AQuA; rewordings a person writes, under 0.4.
MAX_BLEU = 0.55
_LEAD = re.compile(r"^\s*(?:reworded problem|rewritten problem|reworded|rewritten|problem|rewrite)\s*:\s*",
                   re.IGNORECASE)
_QUESTION_WORD = re.compile(r"\b(?:how|what|which|who|whom|whose|when|where|why|find|calculate|determine|"
                            r"compute|work out|figure out)\b", re.IGNORECASE)
_STATES_ANSWER = re.compile(r"\b(?:the answer is|answer\s*[:=]|the result is|therefore|thus|so the)\b|=",
                            re.IGNORECASE)


def reword_score(original: str, rewrite: str) -> float:
    """How reworded ``rewrite`` is: 1 - sentence BLEU against the problem (sacrebleu, 0..1).

    >>> reword_score("Tom has 3 apples.", "Tom has 3 apples.")
    0.0
    """
    import sacrebleu  # heavy to import: only where a rewrite is measured (``import ml`` stays cheap)

    return max(0.0, round(1.0 - sacrebleu.sentence_bleu(rewrite, [original]).score / 100.0, 4))


def clean_rewrite(output: str) -> str:
    """The rewrite alone: the first paragraph, without a "Reworded problem:" lead or quotes."""
    paragraphs = [p.strip() for p in (output or "").strip().split("\n\n") if p.strip()]
    first = _LEAD.sub("", paragraphs[0]) if paragraphs else ""
    return " ".join(first.split()).strip('"\u201c\u201d ')


def _asks(text: str) -> bool:
    return "?" in text or bool(_QUESTION_WORD.search(text.split(".")[-1] if "." in text else text))


def rewrite_refusal(original: str, rewrite: str, *, answer: float | None = None, spacy_model: str | None = None,
                    max_bleu: float = MAX_BLEU) -> str | None:
    """Why ``rewrite`` is refused before it is solved, or None. In order: empty or the problem
    itself; it states the answer (``answer``: the original's solved or gold answer, written in the
    rewrite but not in the problem; or an "the answer is" / "=" the problem does not have); a
    number, unit or name dropped, changed or added; the question dropped; more questions, added
    sentences or a comment (:func:`content_refusal` without its noun rule: rewording changes
    nouns, and solving catches dropped facts); not really reworded (BLEU over ``max_bleu``)."""
    rewrite = rewrite.strip()
    if not rewrite or rewrite == original.strip():
        return "the LLM returned the problem unchanged"
    given = set(number_signature(original))
    added = [v for v in number_signature(rewrite) if v not in given]
    if answer is not None and any(same_answer(v, answer) for v in added):
        return f"it states the answer ({format_answer(answer)})"
    if _STATES_ANSWER.search(rewrite) and not _STATES_ANSWER.search(original):
        return "it works out or states the answer"
    refusal = quantity_refusal(original, rewrite, spacy_model=spacy_model or DEFAULT_SPACY_MODEL)
    if refusal is not None:
        return refusal
    if _asks(original) and not _asks(rewrite):
        return "it drops the question"
    refusal = content_refusal(original, rewrite, spacy_model=spacy_model, check_nouns=False)
    if refusal is not None:
        return refusal
    bleu = 1.0 - reword_score(original, rewrite)
    if bleu > max_bleu:
        return f"it is not really reworded (BLEU {bleu:.2f} against the problem)"
    return None


def _names(text: str, spacy_model: str) -> set[str]:
    """The people's names of ``text``: capitalised tokens of spaCy's PERSON entities that are not
    ordinary words starting a sentence ("Find Mohan's share" holds the name Mohan, not Find)."""
    names = set()
    for ent in parse(text, spacy_model).ents:
        if ent.label_ != "PERSON":
            continue
        for token in ent:
            if token.is_alpha and token.text[0].isupper() and not (token.is_sent_start and token.is_stop) \
                    and token.lower_ not in _COMMON_STARTS:
                names.add(token.text)
    return names


_COMMON_STARTS = {"find", "what", "how", "if", "given", "suppose", "calculate", "determine"}


def quantity_refusal(original: str, rewrite: str, *, spacy_model: str = DEFAULT_SPACY_MODEL) -> str | None:
    """Why ``rewrite`` does not state the problem's quantities, or None: a number of the problem
    missing or a number it does not have (by value: "five" is 5, "$4.50" is 4.5), a unit missing or
    one it does not have, a person's name missing. A rewording may say a number or a unit twice,
    expand an abbreviation or drop a pronoun's referent's title: what the rules' guard counts as
    lost (exact counts, every named entity) it does not refuse, and solving checks the rest.

    >>> quantity_refusal("Tom has 3 apples and 2 pears.", "Tom has 3 apples and some pears.")
    'it drops the number 2'
    """
    given, stated = set(number_signature(original)), set(number_signature(rewrite))
    if given - stated:
        return f"it drops the number {format_answer(float(min(given - stated)))}"
    if stated - given:
        return f"it adds the number {format_answer(float(min(stated - given)))}"
    units, written = set(unit_signature(original)), set(unit_signature(rewrite))
    if units - written:
        return f"it drops the unit {sorted(units - written)[0]!r}"
    if written - units:
        return f"it adds the unit {sorted(written - units)[0]!r}"
    missing = sorted(name for name in _names(original, spacy_model) if name not in rewrite)
    if missing:
        return f"it drops the name {missing[0]}"
    return None


@dataclass(frozen=True)
class InstructLLMConfig:
    """samples: rewrites asked per problem (the styles taken in turn); temperature, top_p: their
    sampling; max_new_tokens: a rewrite's cap (also bounded by 2x the problem's words + 40);
    solve_samples: most solves of one text when the answers disagree (self-consistency; the
    first at temperature 0); solve_temperature: of the later solves; solve_max_tokens: cap of a
    solving program; max_bleu: :data:`MAX_BLEU`; threads, n_ctx: llama.cpp's (one thread measured
    fastest on a 2-core machine with other work running)."""

    samples: int = 4
    temperature: float = 0.8
    top_p: float = 0.95
    max_new_tokens: int = 200
    solve_samples: int = 3
    solve_temperature: float = 0.7
    solve_max_tokens: int = 160
    max_bleu: float = MAX_BLEU
    threads: int = 1
    n_ctx: int = 4096
    gpu_layers: int = 0

    def __post_init__(self) -> None:
        if self.samples < 1 or self.solve_samples < 1 or self.max_new_tokens < 8 or self.solve_max_tokens < 8:
            raise ValueError("samples and solve_samples must be >= 1, token caps >= 8")
        if self.temperature < 0 or self.solve_temperature < 0 or not 0 < self.top_p <= 1:
            raise ValueError("temperatures must be >= 0 and top_p in (0, 1]")
        if not 0 < self.max_bleu <= 1:
            raise ValueError("max_bleu must be in (0, 1]")
        if self.threads < 1:
            raise ValueError("threads must be >= 1")


def llm_path(resources: GenerationResources) -> str | None:
    if not resources.llm_dir or not resources.llm_file:
        return None
    return os.path.join(os.path.expanduser(resources.llm_dir), resources.llm_file)


def llm_unavailable(resources: GenerationResources) -> str | None:
    """Why the instruct LLM cannot run with ``resources`` (None: its GGUF file looks loadable)."""
    path = llm_path(resources)
    if path is None:
        return "no instruct LLM configured (make install places one; PARALAB_LLM=0 turns it off)"
    return llm_unavailable_reason(path)


@dataclass
class RewordOutcome:
    """What one problem's rewording gave: the verified candidates (``meta["verification"]``: the
    same-answer check), the refusals (reason per refused rewrite), the original's solving, and
    the seconds to the first kept candidate."""

    candidates: list[GeneratedCandidate] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    original: SolveResult | None = None
    first_seconds: float | None = None
    seconds: float = 0.0
    stopped: str | None = None


class _Solver:
    """Solves one text with the LLM, keeping every sample so more can be drawn later."""

    def __init__(self, text: str, chat: Callable[..., str], config: InstructLLMConfig, seed: int) -> None:
        self.text, self.chat, self.config, self.seed = text, chat, config, seed
        self.answers: list[float | None] = []
        self.programs: list[str] = []

    def draw(self, until: int) -> SolveResult:
        messages = solve_messages(self.text)
        while len(self.answers) < min(until, self.config.solve_samples):
            i = len(self.answers)
            text = self.chat(messages, seed=self.seed + i, temperature=0.0 if i == 0 else self.config.solve_temperature,
                             max_tokens=self.config.solve_max_tokens)
            solution = evaluate_solution(text)
            # A word problem's answer is a magnitude: "change = 14 - 20" and "20 - 14" are one answer.
            self.answers.append(None if solution.value is None else abs(solution.value))
            self.programs.append(solution.program)
        return self.result()

    def result(self) -> SolveResult:
        majority, agreement = majority_answer(self.answers)
        return SolveResult(list(self.answers), majority, agreement, list(self.programs))


def _verification(check: AnswerCheck, original: SolveResult, rewrite: SolveResult) -> dict[str, Any]:
    signals = {k: (None if v != v else float(v)) for k, v in check.signals.items()}  # NaN -> None (JSON)
    return {"passed": check.passed, "detail": check.detail, "signals": signals,
            "original_answer": original.majority, "rewrite_answer": rewrite.majority,
            "original_answers": original.answers, "rewrite_answers": rewrite.answers}


@dataclass(frozen=True)
class InstructLLMGenerator:
    """Reworded rewrites of the instruct LLM, each refused with its reason or kept only when it
    solves to the original's answer (undecided ones are kept for the judge to decide)."""

    name: str = "instruct_llm"
    description: str = ("Instruct LLM rewording (GGUF on llama.cpp): several rewording instructions, each rewrite "
                        "re-solved and kept only with the original's answer")
    kind: str = "neural"
    config: InstructLLMConfig = InstructLLMConfig()
    accepts_gold: bool = True  # ``generate(..., gold=)``: a problem's known answer checks its rewrites too

    def unavailable_reason(self, resources: GenerationResources) -> str | None:
        return llm_unavailable(resources)

    def chat_callable(self, resources: GenerationResources) -> Callable[..., str]:
        path = llm_path(resources)
        reason = self.unavailable_reason(resources)
        if reason is not None or path is None:
            raise GeneratorUnavailable(reason or "no instruct LLM configured", generator=self.name)
        config = self.config
        gpu = -1 if resources.device.startswith("cuda") else config.gpu_layers
        try:
            llm = load_llm(LLMConfig(path=path, threads=config.threads, n_ctx=config.n_ctx, gpu_layers=gpu))
        except LLMUnavailable as exc:
            raise GeneratorUnavailable(exc.reason, generator=self.name) from exc

        def chat(messages, *, seed: int, temperature: float, max_tokens: int, top_p: float = 1.0) -> str:
            return llm.chat(messages, temperature=temperature, top_p=top_p, max_tokens=max_tokens,
                            seed=seed % (2 ** 31)).text

        return chat

    def warm_up(self, resources: GenerationResources) -> float:
        """Load the model and evaluate the rewriting and solving prompts' fixed prefixes once (their
        KV cache is then reused), so the first problem is as fast as the next; seconds taken."""
        started = time.monotonic()
        chat = self.chat_callable(resources)
        chat(rewrite_messages("A box holds 3 pens. How many pens are in 2 boxes?", STYLES[0]), seed=0,
             temperature=0.0, max_tokens=1)
        chat(solve_messages("A box holds 3 pens. How many pens are in 2 boxes?"), seed=0, temperature=0.0,
             max_tokens=1)
        return round(time.monotonic() - started, 3)

    def generate(self, text: str, rng: random.Random, resources: GenerationResources, *,
                 gold: str | None = None) -> list[GeneratedCandidate]:
        outcome = self.reword(text, rng, resources, gold=gold)
        if not outcome.candidates:
            raise NotApplicable("; ".join(dict.fromkeys(outcome.refusals)) or "no rewrite", operator=self.name)
        return outcome.candidates

    def reword(self, text: str, rng: random.Random, resources: GenerationResources, *, gold: str | float | None = None,
               on_candidate: Callable[[GeneratedCandidate], None] | None = None,
               deadline: float | None = None) -> RewordOutcome:
        """Rewrite ``text`` ``config.samples`` times and verify each rewrite by solving; each kept
        candidate is passed to ``on_candidate`` as soon as it is verified. ``deadline``: a
        ``time.monotonic()`` after which no new rewrite is started (``stopped`` says so)."""
        started = time.monotonic()
        chat = self.chat_callable(resources)
        config = self.config
        seed = rng.randrange(2 ** 31)
        outcome = RewordOutcome()
        original = _Solver(text, chat, config, seed)
        outcome.original = original.draw(1)
        words = len(text.split())
        budget = min(config.max_new_tokens, 2 * words + 40)
        styles = [STYLES[(i + rng.randrange(len(STYLES))) % len(STYLES)] if i >= len(STYLES) else STYLES[i]
                  for i in range(config.samples)]
        seen: set[str] = set()
        for i, style in enumerate(styles):
            if deadline is not None and time.monotonic() > deadline:
                outcome.stopped = f"stopped after {i} of {len(styles)} rewrites: the time budget ran out"
                break
            raw = chat(rewrite_messages(text, style), seed=seed + 101 * (i + 1), temperature=config.temperature,
                       top_p=config.top_p, max_tokens=budget)
            rewrite = clean_rewrite(raw)
            if rewrite in seen:
                outcome.refusals.append("the LLM wrote the same rewrite twice")
                continue
            seen.add(rewrite)
            known = outcome.original.majority if gold is None else _gold_number(gold, outcome.original.majority)
            refusal = rewrite_refusal(text, rewrite, answer=known, spacy_model=resources.spacy_model,
                                      max_bleu=config.max_bleu)
            if refusal is not None:
                outcome.refusals.append(refusal)
                continue
            candidate, refusal = self._verified(text, rewrite, style, original, chat, seed + 1000 * (i + 1), gold)
            if candidate is None:
                outcome.refusals.append(refusal)
                continue
            outcome.candidates.append(candidate)
            if outcome.first_seconds is None:
                outcome.first_seconds = round(time.monotonic() - started, 3)
            if on_candidate is not None:
                on_candidate(candidate)
        outcome.original = original.result()
        outcome.seconds = round(time.monotonic() - started, 3)
        return outcome

    def _verified(self, text: str, rewrite: str, style: Style, original: _Solver, chat, seed: int,
                  gold: str | float | None) -> tuple[GeneratedCandidate | None, str]:
        solver = _Solver(rewrite, chat, self.config, seed)
        check = compare(original.draw(1), solver.draw(1), gold)
        if check.passed is not True:  # disagreement or no answer: draw more of both before deciding
            check = compare(original.draw(self.config.solve_samples), solver.draw(self.config.solve_samples), gold)
        if check.passed is False:
            return None, f"it solves to another answer: {check.detail}"
        if check.passed is None and original.result().majority is not None and solver.result().majority is None:
            # The problem can be solved and the rewrite cannot: what is missing is usually a fact.
            return None, (f"the rewrite could not be solved (the problem solves to "
                          f"{format_answer(original.result().majority)})")
        meta = {"style": style.name, "reworded": reword_score(text, rewrite),
                "verification": _verification(check, original.result(), solver.result())}
        return GeneratedCandidate(rewrite, self.name, "", meta), ""


def _gold_number(gold: str | float, fallback: float | None) -> float | None:
    value = gold_value(str(gold)) if not isinstance(gold, (int, float)) else float(gold)
    return fallback if value is None else value
