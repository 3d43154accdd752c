"""The solve and masked-number prompts: their examples are programs the evaluator accepts."""
from __future__ import annotations

import random

import pytest

from ml.verify import (
    MASKED_SYSTEM,
    SOLVE_EXAMPLES,
    SOLVE_SYSTEM,
    mask_number,
    masked_messages,
    safe_eval_program,
    solve_messages,
)
from ml.verify.prompts import BLANK, MASKED_EXAMPLES


@pytest.mark.parametrize("problem, program, answer", SOLVE_EXAMPLES)
def test_each_solve_example_evaluates_to_its_answer(problem, program, answer):
    assert safe_eval_program(program) == pytest.approx(answer)


@pytest.mark.parametrize("problem, answer, program, hidden", MASKED_EXAMPLES)
def test_each_masked_example_recovers_its_number(problem, answer, program, hidden):
    assert BLANK in problem
    assert safe_eval_program(program) == pytest.approx(hidden)


def test_the_examples_cover_percentages_and_an_equation_system():
    problems = [problem for problem, _, _ in SOLVE_EXAMPLES]
    programs = [program for _, program, _ in SOLVE_EXAMPLES]
    assert len(SOLVE_EXAMPLES) == 3
    assert any("%" in problem for problem in problems)
    assert any(not line.split("=")[0].strip().isidentifier() for program in programs for line in program.splitlines())


def test_solve_messages():
    messages = solve_messages("  Tom has 3 apples and buys 4 more. How many does he have?  ")
    assert messages[0] == {"role": "system", "content": SOLVE_SYSTEM}
    assert "answer = ..." in SOLVE_SYSTEM
    assert [m["role"] for m in messages[1:-1]] == ["user", "assistant"] * 3
    assert messages[-1] == {"role": "user", "content": "Tom has 3 apples and buys 4 more. How many does he have?"}


def test_mask_number_hides_one_number_and_says_where():
    problem = "A pen costs $3, a book costs $12 and a bag costs 25% more than the book."
    seen = set()
    for seed in range(30):
        masked = mask_number(problem, random.Random(seed))
        start, end = masked.hidden_span
        assert masked.text_with_blank == problem[:start] + BLANK + problem[end:]
        assert float(problem[start:end]) == masked.hidden_value
        seen.add(masked.hidden_value)
    assert seen == {3.0, 12.0, 25.0}  # every number can be hidden; the percent sign stays
    assert "___%" in mask_number("Save 25% now.", random.Random(0)).text_with_blank


def test_mask_number_prefers_a_number_that_occurs_once():
    problem = "Sam has 4 red and 4 blue marbles and gives away 3."
    assert {mask_number(problem, random.Random(seed)).hidden_value for seed in range(20)} == {3.0}
    with pytest.raises(ValueError):
        mask_number("No numbers at all.", random.Random(0))


def test_masked_messages_state_the_answer():
    messages = masked_messages("Sam has ___ coins and finds 2. How many coins does he have?", 9.0)
    assert messages[0]["content"] == MASKED_SYSTEM
    assert messages[-1]["role"] == "user"
    assert "The answer to the problem is 9." in messages[-1]["content"]
    assert "Sam has ___ coins" in messages[-1]["content"]
