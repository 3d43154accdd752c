"""Answer-preserving verification of a reworded word problem, by solving it.

A rewrite is the same problem only if it has the same answer. The model that solves sits behind a
plain callable ``complete(messages, *, seed, temperature) -> str``; what it writes is a short
program that :mod:`ml.verify.evaluator` reads with a whitelist and evaluates within bounds, never
executing it. Pure Python (simpleeval, and SymPy on first use for equations); no django, no LLM
runtime.

>>> from ml.verify import safe_eval_program, same_answer
>>> same_answer(safe_eval_program("answer = 0.1 + 0.2"), "0.3")
True
"""
from .errors import EvaluationError, UnsafeExpression
from .program import ALLOWED_FUNCTIONS, MAX_LINES, MAX_MAGNITUDE, MAX_NESTING, MAX_PROGRAM_CHARS, read_program
from .evaluator import MAX_TEXT_CHARS, Solution, evaluate_solution, extract_program, safe_eval_program
from .equations import MAX_DEGREE, MAX_UNKNOWNS, solve_equations
from .answers import format_answer, gold_value, parse_answer, same_answer
from .prompts import (
    MASKED_SYSTEM,
    SOLVE_EXAMPLES,
    SOLVE_SYSTEM,
    MaskedProblem,
    mask_number,
    masked_messages,
    solve_messages,
)
from .solving import AnswerCheck, Complete, SolveResult, compare, masked_number_check, solve

__all__ = [
    "ALLOWED_FUNCTIONS", "AnswerCheck", "Complete", "EvaluationError", "MASKED_SYSTEM", "MAX_DEGREE", "MAX_LINES",
    "MAX_MAGNITUDE", "MAX_NESTING", "MAX_PROGRAM_CHARS", "MAX_TEXT_CHARS", "MAX_UNKNOWNS", "MaskedProblem",
    "SOLVE_EXAMPLES", "SOLVE_SYSTEM", "Solution", "SolveResult", "UnsafeExpression", "compare",
    "evaluate_solution", "extract_program", "format_answer", "gold_value", "mask_number", "masked_messages",
    "masked_number_check", "parse_answer", "read_program", "safe_eval_program", "same_answer", "solve",
    "solve_equations", "solve_messages",
]
