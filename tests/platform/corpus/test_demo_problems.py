"""The self-written demo problems (corpus/demo/problems.jsonl): complete, varied and correct.

Each equation is checked by putting the answer in for the unknown ``x``: both sides must agree.
"""
from __future__ import annotations

import ast
import json
import math
import operator
from importlib import resources

from django.test import SimpleTestCase

from corpus.text import text_hash
from ml.text.numbers import extract_numbers

_OPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.USub: operator.neg,
}


def evaluate(expression: str, x: float) -> float:
    """Arithmetic over numbers and ``x`` only (no names, calls or attributes)."""

    def walk(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return float(node.value)
        if isinstance(node, ast.Name) and node.id == "x":
            return x
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](walk(node.left), walk(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](walk(node.operand))
        raise ValueError(f"unsupported in an equation: {ast.dump(node)}")

    return walk(ast.parse(expression.strip(), mode="eval"))


def demo_rows() -> list[dict]:
    source = resources.files("corpus").joinpath("demo", "problems.jsonl")
    return [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]


class DemoProblemsFileTests(SimpleTestCase):
    def setUp(self):
        self.rows = demo_rows()

    def test_at_least_48_distinct_problems_in_the_generic_format(self):
        self.assertGreaterEqual(len(self.rows), 48)
        for row in self.rows:
            self.assertEqual(set(row), {"text", "source", "source_id", "split", "answer", "equation"}, row)
            self.assertEqual(row["source"], "demo")
            self.assertIn(row["split"], {"train", "dev", "test"})
        self.assertEqual(len({row["source_id"] for row in self.rows}), len(self.rows))
        self.assertEqual(len({text_hash(row["text"]) for row in self.rows}), len(self.rows))
        self.assertEqual({row["split"] for row in self.rows}, {"train", "dev", "test"})

    def test_every_problem_has_an_answer_and_numbers(self):
        for row in self.rows:
            with self.subTest(row["source_id"]):
                self.assertTrue(row["answer"].strip())
                float(row["answer"])  # numeric
                self.assertTrue(extract_numbers(row["text"]), "no number in the text")
                self.assertTrue(row["text"].rstrip().endswith("?"), "the question is asked")

    def test_every_equation_holds_for_its_answer(self):
        for row in self.rows:
            with self.subTest(row["source_id"], equation=row["equation"]):
                left, right = row["equation"].split("=")
                x = float(row["answer"])
                self.assertTrue(
                    math.isclose(evaluate(left, x), evaluate(right, x), rel_tol=1e-9, abs_tol=1e-9),
                    f"{row['equation']} is false for x = {row['answer']}",
                )

    def test_the_checker_rejects_a_wrong_answer(self):
        self.assertFalse(math.isclose(evaluate("4 * x + 20", 11.0), evaluate("2 * (x + 20)", 11.0)))
        with self.assertRaises(ValueError):
            evaluate("__import__('os')", 1.0)
