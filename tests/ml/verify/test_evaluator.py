"""The safe evaluator: what it refuses (and why), that it stays bounded, and what it computes."""
from __future__ import annotations

import time

import pytest

from ml.verify import (
    MAX_LINES,
    MAX_PROGRAM_CHARS,
    EvaluationError,
    UnsafeExpression,
    evaluate_solution,
    extract_program,
    safe_eval_program,
)

HANG_GUARD_S = 2.0  # generous: a refusal takes microseconds; this only catches a hang


@pytest.fixture(scope="module", autouse=True)
def sympy_loaded():
    """Import SymPy once so its import time does not count in the hang guards below."""
    safe_eval_program("x + 1 = 2\nanswer = x")


def _refusal(program: str) -> EvaluationError:
    start = time.perf_counter()
    with pytest.raises(EvaluationError) as caught:
        safe_eval_program(program)
    assert time.perf_counter() - start < HANG_GUARD_S
    return caught.value


@pytest.mark.parametrize("program, reason", [
    ("answer = os", "names other than the problem's quantities are not allowed: 'os'"),
    ("answer = __import__('os')", "'__import__'"),
    ("answer = __builtins__", "'__builtins__'"),
    ("answer = ().__class__", "attribute access is not allowed"),
    ("answer = (1).__class__.__bases__", "attribute access is not allowed"),
    ("import os\nanswer = 1", "imports are not allowed"),
    ("from os import system\nanswer = 1", "imports are not allowed"),
    ("answer = (lambda: 5)()", "lambdas are not allowed"),
    ("f = lambda: 5\nanswer = f()", "lambdas are not allowed"),
    ("answer = [x for x in range(3)]", "comprehensions are not allowed"),
    ("answer = sum(x for x in range(3))", "not allowed"),
    ("answer = open('/etc/passwd')", "'open'"),
    ("answer = 'a' * 10", "strings are not allowed"),
    ("answer = x[0]", "indexing is not allowed"),
    ("answer = 3 if 1 else 2", "conditions are not allowed"),
    ("answer = 1 < 2", "comparisons are not allowed"),
    ("x = 5\nfor i in range(3):\n    x = x + 1\nanswer = x", "not 'for'"),
    ("while True:\n    pass", "not 'while'"),
    ("answer = True + 1", "only numbers"),
    ("answer = 1j", "not allowed"),
    ("answer = round(2.5, ndigits=1)", "keyword arguments are not allowed"),
    ("answer = [abs][0](2)", "indexing is not allowed"),
    ("_secret = 1\nanswer = _secret", "'_secret'"),
])
def test_refuses_what_is_not_arithmetic_and_says_why(program, reason):
    error = _refusal(program)
    assert isinstance(error, UnsafeExpression)
    assert reason in error.reason


@pytest.mark.parametrize("program", [
    "answer = 9**9**9", "answer = 10**1000", "answer = 2 ** 4000001", "answer = 2 ** -4000001",
    "x = 10\nanswer = x ** x ** x", "answer = 7 ^ 99",
    "x + 1 = 2 ** 10 ** 10\nanswer = x", "x = 0.5 ** (10 ** 15)\ny + x = 1\nanswer = y",
])
def test_refuses_huge_powers_before_computing_them(program):
    assert "power too large" in _refusal(program).reason


@pytest.mark.parametrize("program", ["answer = 1e300 * 1e10", "answer = 10**15 * 10**15", "answer = 1e16"])
def test_refuses_numbers_past_the_magnitude_bound(program):
    assert "number too large" in _refusal(program).reason


def test_refuses_long_inputs_and_too_many_lines():
    assert "input too long" in _refusal("answer = " + "1 + " * MAX_PROGRAM_CHARS + "1").reason
    many = "\n".join(f"x{i} = {i}" for i in range(MAX_LINES + 1)) + "\nanswer = x1"
    assert "too many lines" in _refusal(many).reason
    assert evaluate_solution("x" * 100_000).error.startswith("input too long")


@pytest.mark.parametrize("program", [
    "answer = " + "(" * 150 + "1" + ")" * 150,
    "answer = " + "-" * 1500 + "1",
    "answer = " + "+".join(["1"] * 400),
    "answer = " + "abs(" * 80 + "1" + ")" * 80,
])
def test_refuses_deep_nesting(program):
    assert "nesting too deep" in _refusal(program).reason


@pytest.mark.parametrize("program, reason", [
    ("answer = 7 / 0", "division by zero"),
    ("answer = 7 % 0", "division by zero"),
    ("answer = sqrt(-4)", "not a real number"),
    ("answer = (-8) ** (1 / 3)", "not a real number"),
    ("answer = total", "'total'"),
    ("x + y = 10\nanswer = x", "do not determine"),
    ("x + y = 10\nx + y = 3\nanswer = x", "contradict"),
    ("x = 2\nx + 1 = 4\nanswer = x", "contradict"),
    ("x ** 3 = 8\nanswer = x", "not solved"),
    ("x * y = 12\nx + y = 7\nanswer = x", "several solutions"),
    ("a + b + c + d + e + f + g = 7\nanswer = a", "too many unknowns"),
    ("(x + y + z + w + u + v) ** 2 = 1\nanswer = x", "one quadratic in at most 2 unknowns"),
])
def test_reports_why_a_program_has_no_answer(program, reason):
    assert reason in _refusal(program).reason


def test_computes_a_straight_line_program():
    assert safe_eval_program("muffins = 24 * 5\nleft = muffins - 18\nanswer = left / 2") == 51.0
    assert safe_eval_program("a = 3\nb = a * 4\nb + 1") == 13.0  # no answer line: the last line
    assert safe_eval_program("answer = round(sqrt(2) * 100) + max(1, 4) + floor(2.7) + ceil(0.2) + abs(-1)") == 149
    assert safe_eval_program("answer = 7 // 2 + 7 % 2 + 2 ** 3") == 12
    assert safe_eval_program("total = 3\ntotal += 4\nanswer = total") == 7


def test_percentages_and_page_notation():
    assert safe_eval_program("answer = 80 * 25%") == 20.0
    assert safe_eval_program("price = 80 * (1 - 25%)\nanswer = price * (1 + 5%)") == pytest.approx(63.0)
    assert safe_eval_program("answer = 10 % 3") == 1  # a remainder, not a percentage
    assert safe_eval_program("answer = 2^10") == 1024
    assert safe_eval_program("p = $1,200\nanswer = p / 2") == 600
    assert safe_eval_program("answer = 2(3 + 4)") == 14


def test_solves_a_small_equation_system():
    assert safe_eval_program("x + y = 10; x - y = 2; answer = x") == 6.0
    assert safe_eval_program("adults + children = 9\n5adults + 3children = 35\nanswer: adults") == 4.0
    assert safe_eval_program("y = 2 * x\nx + y = 9\nanswer = y") == 6.0
    assert safe_eval_program("100 / t = 20\nanswer = t") == 5.0
    assert safe_eval_program("side ** 2 = 49\nanswer = side * 4") == 28.0  # the positive root
    # Written out of order, a name used before it is assigned is an unknown.
    assert safe_eval_program("answer = a + b\na = 2\nb = 3") == 5.0


def test_solving_returns_within_the_bound():
    start = time.perf_counter()
    program = "\n".join(["a + b + c + d + e + f = 21", "a - b = -1", "b - c = -1", "c - d = -1", "d - e = -1",
                         "e - f = -1", "answer = f"])
    assert safe_eval_program(program) == 6.0
    assert time.perf_counter() - start < HANG_GUARD_S


def test_extract_program_from_fenced_and_prose_answers():
    fenced = "Here is the program:\n```python\ncost = 4 * 3  # four pens\nanswer = cost\n```\nThe answer is 12."
    assert extract_program(fenced) == "cost = 4 * 3\nanswer = cost"
    prose = "Let x be the adult tickets.\nx + y = 9\n5*x + 3*y = 35\nanswer: x\nSo they bought 4 adult tickets."
    assert extract_program(prose) == "x + y = 9\n5*x + 3*y = 35\nanswer: x"
    wrapped = "```python\ndef solve():\n    apples = 12\n    return apples - 5\n\nprint(solve())\n```"
    assert extract_program(wrapped) == "apples = 12\nanswer = apples - 5"
    assert extract_program("1. price = 80\n2. answer = price * 25%.") == "price = 80\nanswer = price * 25%"
    assert extract_program("import math\nside = math.sqrt(49)\nanswer = side * 4") == "side = sqrt(49)\nanswer = side * 4"
    assert extract_program("I could not solve this.") == ""


def test_evaluate_solution_never_raises_and_keeps_refusals():
    solved = evaluate_solution("```\nx = 10\ny = x * 2\nprint(y)\n```")
    assert (solved.value, solved.steps, solved.error) == (20.0, [("x", 10.0), ("y", 20.0)], None)
    # The model's restated answer after its program does not replace what the program computes.
    assert evaluate_solution("cost = 3 * 4.50\nanswer = cost + 2\nAnswer: 99").value == 15.5
    # Code the evaluator refuses is kept, not dropped, so the whole answer is refused.
    looped = evaluate_solution("```python\nx = 5\nfor i in range(3):\n    x = x + 1\nanswer = x\n```")
    assert looped.value is None and "for" in looped.error
    assert evaluate_solution("```python\nimport os\nos.system('ls')\nanswer = 1\n```").error == "imports are not allowed"
    assert evaluate_solution("answer = ().__class__.__bases__[0].__subclasses__()").value is None
    for text in ["", "```", "answer =", "= 5", "answer = (", None, 12, "x" * 9000, "x = 1\n" * 50]:
        solution = evaluate_solution(text)
        assert solution.value is None and solution.error


def test_a_formula_line_before_the_numbers_is_read_as_a_formula_not_refused():
    # What Qwen2.5-Coder wrote for "A train travels 360 km in 4 hours ... in 7 hours?"
    assert safe_eval_program("distance = speed * time\ndistance = 360 / 4 * 7\nanswer = distance") == 630
    with pytest.raises(UnsafeExpression):  # an undefined name the answer depends on is still refused
        safe_eval_program("distance = speed * 7\nanswer = distance")
