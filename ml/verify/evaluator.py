"""A safe, bounded evaluator for the short programs an LLM writes when it solves a word problem.

Model text is never executed: no ``exec``/``eval``, no ``sympify``/``parse_expr`` (both call
``eval``). :mod:`ml.verify.program` checks every line's tree against a whitelist, then a straight
line program runs line by line through ``simpleeval`` with the earlier results as its only names,
whitelisted functions and operators that check every intermediate value; a program with equations
goes to :mod:`ml.verify.equations`, which builds SymPy objects from the checked tree itself.

Bounds, besides those of :mod:`ml.verify.program`: the raw model text is cut at
``MAX_TEXT_CHARS`` (8000) before anything is read; a power is refused before it is computed when
its result would pass ``MAX_MAGNITUDE`` (so ``9**9**9`` and ``10**1000`` cost nothing), on top of
simpleeval's own ``MAX_POWER``; ``inf`` and ``nan`` are refused. With every value under 1e15 and
at most 40 lines, a program evaluates in microseconds; the wall-clock bound of equation solving is
argued in :mod:`ml.verify.equations`.

>>> safe_eval_program("apples = 3 * 4\\nanswer = apples - 2")
10.0
>>> evaluate_solution("```python\\nx + y = 10\\nx - y = 2\\nanswer = x\\n```\\nSo x is 6.").value
6.0
>>> evaluate_solution("import os\\nanswer = 1").error
'imports are not allowed'
"""
from __future__ import annotations

import ast
import math
import operator
import re
from dataclasses import dataclass, field

import simpleeval

from .equations import solve_equations
from .errors import EvaluationError, UnsafeExpression
from .program import (
    KEYWORD_RE,
    MAX_MAGNITUDE,
    MAX_PROGRAM_CHARS,
    NAME_RE,
    ProgramLine,
    expression_names,
    normalize_line,
    read_program,
    split_top_level,
)

__all__ = ["MAX_TEXT_CHARS", "Solution", "check_number", "evaluate_solution", "extract_program",
           "safe_eval_program"]

MAX_TEXT_CHARS = 8000
_LOG_MAX = math.log10(MAX_MAGNITUDE)


@dataclass(frozen=True)
class Solution:
    """What one model answer evaluates to: ``value`` (None when refused or unsolvable), the
    ``(name, value)`` of each step, the ``error`` reason otherwise, and the ``program`` read."""

    value: float | None
    steps: list[tuple[str, float]] = field(default_factory=list)
    error: str | None = None
    program: str = ""


def check_number(value: object) -> int | float:
    """``value`` if it is a real, finite number within ``MAX_MAGNITUDE``; raise otherwise.

    >>> check_number(2.5)
    2.5
    """
    if isinstance(value, complex):
        raise EvaluationError("the result is not a real number")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise EvaluationError("only numbers are allowed")
    if isinstance(value, float) and not math.isfinite(value):
        raise EvaluationError("the result is not a finite number")
    if abs(value) > MAX_MAGNITUDE:
        raise UnsafeExpression("number too large")
    return value


def _power(base: int | float, exponent: int | float) -> int | float:
    check_number(base), check_number(exponent)
    if base < 0 and exponent != int(exponent):
        raise EvaluationError("the result is not a real number")
    # Estimate the size before computing: 9**387420489 would take minutes and gigabytes.
    if base != 0 and abs(base) != 1 and exponent * math.log10(abs(base)) > _LOG_MAX:
        raise UnsafeExpression("power too large")
    try:
        return check_number(simpleeval.safe_power(base, exponent))
    except simpleeval.NumberTooHigh:
        raise UnsafeExpression("power too large") from None


def _checked(function):
    def apply(*args):
        for arg in args:
            check_number(arg)
        try:
            return check_number(function(*args))
        except ZeroDivisionError:
            raise EvaluationError("division by zero") from None
        except OverflowError:
            raise UnsafeExpression("number too large") from None
    return apply


def _round(value, digits=None):
    if digits is None:
        return round(value)
    if digits != int(digits) or abs(digits) > 15:
        raise EvaluationError("round takes a whole number of digits, at most 15")
    return round(value, int(digits))


def _sqrt(value):
    if value < 0:
        raise EvaluationError("the result is not a real number")
    return math.sqrt(value)


def _extremum(function):
    def apply(*values):
        if len(values) < 2:
            raise EvaluationError(f"{function.__name__} needs at least two numbers")
        return function(values)
    return apply


_OPERATORS = {
    ast.Add: _checked(operator.add), ast.Sub: _checked(operator.sub), ast.Mult: _checked(operator.mul),
    ast.Div: _checked(operator.truediv), ast.FloorDiv: _checked(operator.floordiv),
    ast.Mod: _checked(operator.mod), ast.Pow: _power,
    ast.USub: _checked(operator.neg), ast.UAdd: _checked(operator.pos),
}
_FUNCTIONS = {
    "round": _checked(_round), "abs": _checked(abs), "min": _checked(_extremum(min)),
    "max": _checked(_extremum(max)), "sqrt": _checked(_sqrt), "floor": _checked(math.floor),
    "ceil": _checked(math.ceil),
}


class _Undefined(Exception):
    def __init__(self, name: str) -> None:
        self.name = name


def _names_error(name: str) -> UnsafeExpression:
    return UnsafeExpression(f"names other than the problem's quantities are not allowed: {name!r}")


def _evaluate_line(line: ProgramLine, values: dict[str, int | float]) -> int | float:
    for name in sorted(expression_names(line.right)):
        if name not in values:
            raise _Undefined(name)
    evaluator = simpleeval.SimpleEval(operators=_OPERATORS, functions=_FUNCTIONS, names=dict(values))
    try:
        return check_number(evaluator.eval(line.text, previously_parsed=line.right))
    except simpleeval.NameNotDefined as error:
        raise _names_error(error.name) from None
    except simpleeval.FunctionNotDefined as error:
        raise UnsafeExpression(f"function not allowed: {error.func_name!r}") from None
    except simpleeval.NumberTooHigh:
        raise UnsafeExpression("power too large") from None
    except simpleeval.InvalidExpression as error:
        raise UnsafeExpression(str(error)) from None
    except (TypeError, ValueError, ArithmeticError) as error:
        if isinstance(error, EvaluationError):
            raise
        raise EvaluationError(f"could not evaluate line {line.number}") from None


def _straight_line(lines: list[ProgramLine]) -> tuple[float, list[tuple[str, float]]]:
    values: dict[str, int | float] = {}
    steps: list[tuple[str, float]] = []
    answer = last = None
    for line in lines:
        value = _evaluate_line(line, values)
        last = value
        if line.kind == "assign":
            values[line.name] = value
            steps.append((line.name, float(value)))
            if line.name == "answer":
                answer = value
    result = answer if answer is not None else last
    return float(check_number(result)), steps


def _without_formulas(lines: list[ProgramLine]) -> list[ProgramLine]:
    """``lines`` without the formula lines models write before the numbers ("distance = speed *
    time", then "distance = 360 / 4 * 7"): an assignment over names no line defines, whose name
    a later line assigns again."""
    assigned = {line.name for line in lines if line.kind == "assign"}
    kept = []
    for i, line in enumerate(lines):
        later = any(other.kind == "assign" and other.name == line.name for other in lines[i + 1:])
        if line.kind == "assign" and later and not expression_names(line.right) <= assigned:
            continue
        kept.append(line)
    return kept


def _evaluate(program: str) -> tuple[float, list[tuple[str, float]]]:
    lines = _without_formulas(read_program(program))
    if not any(line.kind == "equation" for line in lines):
        try:
            return _straight_line(lines)
        except _Undefined as missing:
            # A name assigned only further down is an unknown of a system written out of order.
            if missing.name not in {line.name for line in lines if line.kind == "assign"}:
                raise _names_error(missing.name) from None
    return solve_equations(lines)  # SymPy loads on this first use only


def safe_eval_program(program: str) -> float:
    """The value of a checked program (``answer``, else the last line); raises
    :class:`EvaluationError` or :class:`UnsafeExpression` with the reason.

    >>> safe_eval_program("price = 80 * (1 - 25%)\\nanswer = price")
    60.0
    """
    return _evaluate(program)[0]


_FENCE_RE = re.compile(r"```(?:[\w+-]*[ \t]*\n)?(.*?)(?:```|\Z)", re.S)
_BULLET_RE = re.compile(r"^(?:[-*\u2022]\s+|\d+[.)]\s+|step\s*\d+\s*[:.)-]\s*)", re.I)
_MATH_PREFIX_RE = re.compile(r"\b(?:math|np|numpy)\.(sqrt|floor|ceil)\b")
_MATH_IMPORT_RE = re.compile(r"^(?:import\s+math|from\s+math\s+import\s+[\w\s,*]+)$")
_DEF_RE = re.compile(r"^def\s+(\w+)\s*\(.*\)\s*(?:->.*)?:$")
_PRINT_RE = re.compile(r"^print\s*\((.*)\)$")
_BARE_HEADER_RE = re.compile(r"^(?:else|try|finally)\s*:$|^except\b.*:$")
_NUMBER_ONLY_RE = re.compile(r"^-?[\d.]+$")


def _is_code(line: str) -> bool:
    """Whether a line that starts with a Python keyword is code ("for i in range(3):", "import os")
    rather than prose ("from this we get:"): code is kept so that the evaluator refuses it."""
    if _BARE_HEADER_RE.match(line):
        return True
    try:
        ast.parse(line + "\n    pass" if line.endswith(":") else line)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _parses(text: str) -> bool:
    try:
        ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _program_lines(block: str) -> list[str]:
    kept: list[str] = []
    functions: set[str] = set()
    assigned: set[str] = set()
    for raw in block.splitlines():
        for piece in raw.split(";"):
            if len(piece) > MAX_PROGRAM_CHARS:
                kept.append(piece)  # refused as too long; the patterns below need not scan it
                continue
            line = piece.split("#", 1)[0].strip().strip("`").strip()
            line = _BULLET_RE.sub("", line).rstrip(" .,").strip()
            if not line or line.lower() in ("python", "py", "text", "plaintext"):
                continue
            line = re.sub(r"^Answer\b", "answer", _MATH_PREFIX_RE.sub(r"\1", line))
            if _MATH_IMPORT_RE.match(line):
                continue  # harmless, and every use of math is rewritten above
            definition = _DEF_RE.match(line)
            if definition:
                functions.add(definition.group(1))  # the body is read as the program itself
                continue
            if functions and re.search(r"\b(?:%s)\s*\(" % "|".join(map(re.escape, functions)), line):
                continue  # "print(solve())": the call of the function just unwrapped
            if line.startswith("return "):
                line = "answer = " + line[len("return "):]
            printed = _PRINT_RE.match(line)
            if printed:
                if any(quote in printed.group(1) for quote in "'\""):
                    continue  # print("The answer is", x) is prose
                line = printed.group(1)
            if KEYWORD_RE.match(line):
                if _is_code(line):
                    kept.append(line)  # kept so that the evaluator refuses it, never silently dropped
                continue
            parts = split_top_level(normalize_line(line))
            if not all(_parses(part) for part in parts):
                continue  # prose
            head = parts[0].strip()
            if len(parts) == 1 and not (re.search(r"[\d+\-*/(.\[]", head) or head in assigned):
                continue  # a lone word such as "Therefore"; "os.system(...)" is kept, to be refused
            if head == "answer" and "answer" in assigned and _NUMBER_ONLY_RE.match(parts[1].strip()):
                continue  # "Answer: 12" after the program is the model restating, not computing
            if len(parts) > 1 and NAME_RE.match(head):
                assigned.add(head)
            kept.append(line)
    return kept


def extract_program(text: str) -> str:
    """The program inside a model's answer: the first fenced block that holds one (else the whole
    text), without language tags, comments, bullets, prose lines, ``print``/``return`` wrappers or
    ``math.`` prefixes. Lines of code the evaluator refuses (imports, loops) are kept.

    >>> extract_program("Here you go:\\n```python\\ncost = 4 * 3  # four pens\\nanswer = cost\\n```\\nDone!")
    'cost = 4 * 3\\nanswer = cost'
    """
    text = text[:MAX_TEXT_CHARS]
    blocks = [match.group(1) for match in _FENCE_RE.finditer(text)] if "```" in text else []
    for block in [*blocks, text]:
        lines = _program_lines(block)
        if lines:
            return "\n".join(lines)
    return ""


def evaluate_solution(text: str) -> Solution:
    """Extract and evaluate the program in a model's answer; never raises for model text.

    >>> evaluate_solution("answer = 7 / 2").value, evaluate_solution("answer = 1 / 0").error
    (3.5, 'division by zero')
    """
    try:
        if not isinstance(text, str):
            return Solution(None, [], "the answer is not text")
        if len(text) > MAX_TEXT_CHARS:
            return Solution(None, [], f"input too long ({len(text)} characters, at most {MAX_TEXT_CHARS})")
        program = extract_program(text)
        if not program:
            return Solution(None, [], "no program found in the answer")
        try:
            value, steps = _evaluate(program)
        except EvaluationError as error:
            return Solution(None, [], error.reason, program)
        return Solution(value, steps, None, program)
    except Exception as error:  # noqa: BLE001 - a bug here must cost one answer, not the whole job
        return Solution(None, [], f"could not evaluate ({type(error).__name__})")
