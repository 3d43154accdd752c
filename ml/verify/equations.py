"""Solving the small equation systems a model writes instead of a straight-line program.

``adults + children = 9``, ``5 * adults + 3 * children = 35``, ``answer = adults``: every line
was checked by :mod:`ml.verify.program`; here the SymPy objects are built by walking that tree
(numbers become exact ``Rational``s, names ``Symbol``s), never by parsing text with SymPy, whose
parser calls ``eval``. Assignments whose right side is already known are computed first (so
``price = 12`` is a value, not an unknown), the rest become equations.

Why this cannot hang (there is no killable timeout for a thread in Python, and ``signal.alarm``
works only in the main thread): everything is bounded *before* SymPy solves. At most
``MAX_UNKNOWNS`` (6) unknowns and 40 equations; every equation, cleared of denominators, is a
polynomial of total degree at most 2, and the degree is bounded node by node while the tree is
walked (``MAX_BUILD_DEGREE``), so no expansion can blow up; linear systems go to ``linsolve``
(Gauss-Jordan on a 40 x 6 matrix of rationals whose sizes the 2000-character input bounds);
a system with a quadratic goes to ``solve`` only with at most 2 unknowns and one quadratic
equation, i.e. one quadratic after eliminating the linear equations. Two quadratics (a quartic
resultant) are refused.

>>> from ml.verify.program import read_program
>>> solve_equations(read_program("x + y = 10\\nx - y = 2\\nanswer = x"))
(6.0, [('x', 6.0), ('y', 4.0)])
"""
from __future__ import annotations

import ast
import math
from collections import Counter

from .errors import EvaluationError, UnsafeExpression
from .program import MAX_MAGNITUDE, ProgramLine, expression_names

__all__ = ["MAX_BUILD_DEGREE", "MAX_DEGREE", "MAX_NONLINEAR_UNKNOWNS", "MAX_UNKNOWNS", "solve_equations"]

MAX_UNKNOWNS = 6
MAX_DEGREE = 2
MAX_NONLINEAR_UNKNOWNS = 2
MAX_BUILD_DEGREE = 4
_LOG_MAX = math.log10(MAX_MAGNITUDE)


class _Builder:
    """SymPy expressions from checked trees, with a bound on (numerator, denominator) degree."""

    def __init__(self, sympy, known: dict) -> None:
        self.sp = sympy
        self.known = known
        self.symbols: dict[str, object] = {}

    def symbol(self, name: str):
        if name not in self.symbols:
            self.symbols[name] = self.sp.Symbol(name)
        return self.symbols[name]

    def number(self, value):
        if getattr(value, "is_real", None) is False:
            raise EvaluationError("the result is not a real number")
        magnitude = abs(float(value))
        if not math.isfinite(magnitude):
            raise EvaluationError("the result is not a finite number")
        if magnitude > MAX_MAGNITUDE:
            raise UnsafeExpression("number too large")
        return value

    def build(self, node: ast.expr) -> tuple[object, int, int]:
        sp = self.sp
        if isinstance(node, ast.Constant):
            value = sp.Integer(node.value) if isinstance(node.value, int) else sp.Rational(repr(node.value))
            return value, 0, 0
        if isinstance(node, ast.Name):
            if node.id in self.known:
                return self.known[node.id], 0, 0
            return self.symbol(node.id), 1, 0
        if isinstance(node, ast.UnaryOp):
            value, num, den = self.build(node.operand)
            return (-value if isinstance(node.op, ast.USub) else value), num, den
        if isinstance(node, ast.Call):
            return self.call(node), 0, 0
        if isinstance(node, ast.BinOp):
            return self.binop(node)
        raise UnsafeExpression(f"{type(node).__name__} is not allowed")  # read_program refused it already

    def call(self, node: ast.Call):
        sp = self.sp
        args = [self.build(arg)[0] for arg in node.args]
        if any(arg.free_symbols for arg in args):
            raise EvaluationError("functions of unknowns are not solved")
        name, count = node.func.id, len(args)
        if name in ("min", "max"):
            if count < 2:
                raise EvaluationError(f"{name} needs at least two numbers")
            return self.number((sp.Min if name == "min" else sp.Max)(*args))
        if name == "round":
            if count > 2 or (count == 2 and (args[1] != int(args[1]) or abs(args[1]) > 15)):
                raise EvaluationError("round takes a number and a whole number of digits, at most 15")
            digits = int(args[1]) if count == 2 else 0
            return self.number(sp.Rational(repr(round(float(args[0]), digits))))
        if count != 1:
            raise EvaluationError(f"{name} takes one number")
        (arg,) = args
        if name == "sqrt":
            if arg < 0:
                raise EvaluationError("the result is not a real number")
            return self.number(sp.sqrt(arg))
        functions = {"abs": sp.Abs, "floor": sp.floor, "ceil": sp.ceiling}
        return self.number(functions[name](arg))

    def binop(self, node: ast.BinOp) -> tuple[object, int, int]:
        sp = self.sp
        a, na, da = self.build(node.left)
        b, nb, db = self.build(node.right)
        op = node.op
        if isinstance(op, (ast.Div, ast.FloorDiv, ast.Mod)) and not b.free_symbols and b == 0:
            raise EvaluationError("division by zero")
        if not a.free_symbols and not b.free_symbols:
            return self.number(self.numeric(op, a, b)), 0, 0
        if isinstance(op, (ast.Add, ast.Sub)):
            value, num, den = (a + b if isinstance(op, ast.Add) else a - b), max(na + db, nb + da), da + db
        elif isinstance(op, ast.Mult):
            value, num, den = a * b, na + nb, da + db
        elif isinstance(op, ast.Div):
            value, num, den = a / b, na + db, da + nb
        elif isinstance(op, ast.Pow):
            if b.free_symbols or b != int(b) or abs(b) > MAX_DEGREE:
                raise EvaluationError("powers of unknowns other than -2 to 2 are not solved")
            k = int(b)
            value, num, den = a**k, (na * k if k >= 0 else da * -k), (da * k if k >= 0 else na * -k)
        else:
            raise EvaluationError("'//' and '%' of unknowns are not solved")
        if num > MAX_BUILD_DEGREE or den > MAX_BUILD_DEGREE:
            raise EvaluationError(f"equations of degree above {MAX_DEGREE} are not solved")
        return value, num, den

    def numeric(self, op: ast.operator, a, b):
        sp = self.sp
        if isinstance(op, ast.Add):
            return a + b
        if isinstance(op, ast.Sub):
            return a - b
        if isinstance(op, ast.Mult):
            return a * b
        if isinstance(op, ast.Div):
            return a / b
        if isinstance(op, ast.FloorDiv):
            return sp.floor(a / b)
        if isinstance(op, ast.Mod):
            return sp.Mod(a, b)
        # A power: its size is estimated before it is computed, as in the straight-line evaluator.
        if a < 0 and b != int(b):
            raise EvaluationError("the result is not a real number")
        if a == 0 and b < 0:
            raise EvaluationError("division by zero")
        # Exact rationals: a tiny result (0.5**10**15) is as costly as a huge one, so both are refused.
        if abs(b) > 1000 or (a != 0 and abs(float(b) * math.log10(abs(float(a)))) > _LOG_MAX):
            raise UnsafeExpression("power too large")
        return a**b


def _target(lines: list[ProgramLine]) -> ProgramLine | None:
    answers = [line for line in lines if line.kind == "assign" and line.name == "answer"]
    if answers:
        return answers[-1]
    last = lines[-1]
    return last if last.kind in ("assign", "expr") else None


def solve_equations(lines: list[ProgramLine]) -> tuple[float, list[tuple[str, float]]]:
    """The answer of a checked program with equations, and the value of each name it fixes."""
    import sympy

    assigned = Counter(line.name for line in lines if line.kind == "assign")
    twice = sorted(name for name, count in assigned.items() if count > 1)
    if twice:
        raise EvaluationError(f"{twice[0]!r} is assigned twice; with equations each name is assigned once")
    known: dict[str, object] = {}
    builder = _Builder(sympy, known)
    steps: list[tuple[str, float]] = []
    pending = [line for line in lines if line.kind == "assign"]
    changed = True
    while changed:  # at most len(lines) rounds: each round fixes one name or stops
        changed = False
        for line in list(pending):
            if expression_names(line.right) <= known.keys():
                known[line.name] = builder.build(line.right)[0]
                steps.append((line.name, float(known[line.name])))
                pending.remove(line)
                changed = True

    target = _target(lines)
    read_elsewhere = set().union(*(expression_names(line.right) for line in lines if line is not target),
                                 *(expression_names(line.left) for line in lines if line.left is not None))
    # "answer = x" only names what to report, unless another line reads answer: then it is an equation.
    report_only = target is not None and (target.kind == "expr" or target.name not in read_elsewhere)
    if target is None:
        target_expr = None
    elif target.kind == "assign" and target.name in known:
        target_expr = known[target.name]  # still read every equation below: they may contradict it
    else:
        target_expr = builder.build(target.right)[0] if report_only else builder.symbol(target.name)

    equations, denominators = [], []
    for line in lines:
        if line.kind == "expr" or (line is target and report_only) or line.name in known:
            continue
        left = builder.symbol(line.name) if line.kind == "assign" else builder.build(line.left)[0]
        numerator, denominator = sympy.fraction(sympy.together(left - builder.build(line.right)[0]))
        numerator = sympy.expand(numerator)
        if not numerator.free_symbols:
            if numerator != 0:
                raise EvaluationError("the equations contradict each other")
            continue
        if sympy.Poly(numerator, *sorted(numerator.free_symbols, key=str)).total_degree() > MAX_DEGREE:
            raise EvaluationError(f"equations of degree above {MAX_DEGREE} are not solved")
        equations.append(numerator)
        if denominator.free_symbols:
            denominators.append(denominator)

    unknowns = sorted(set().union(*(e.free_symbols for e in equations)), key=str)
    if target_expr is None:
        if len(unknowns) != 1:
            raise EvaluationError("no 'answer = ...' line says which unknown is the answer")
        target_expr = unknowns[0]
    if not target_expr.free_symbols:
        return float(builder.number(target_expr)), steps
    if not target_expr.free_symbols <= set(unknowns):
        raise EvaluationError("the equations do not determine the answer")
    if len(unknowns) > MAX_UNKNOWNS:
        raise UnsafeExpression(f"too many unknowns ({len(unknowns)}, at most {MAX_UNKNOWNS})")
    degrees = [sympy.Poly(e, *unknowns).total_degree() for e in equations]
    if max(degrees) <= 1:
        solved = sympy.linsolve(equations, unknowns)
        solutions = [dict(zip(unknowns, values)) for values in solved]
    else:
        if len(unknowns) > MAX_NONLINEAR_UNKNOWNS or sum(d > 1 for d in degrees) > 1:
            raise EvaluationError("non-linear equations are solved only as one quadratic in at most 2 unknowns")
        solutions = sympy.solve(equations, unknowns, dict=True)
    if not solutions:
        raise EvaluationError("the equations contradict each other")

    values, undetermined = [], False
    for solution in solutions:
        value = target_expr.subs(solution)
        if value.free_symbols:
            undetermined = True
            continue
        if value.is_real is False or any(d.subs(solution) == 0 for d in denominators):
            continue
        values.append((float(builder.number(value)), solution))
    if not values:
        raise EvaluationError("the equations do not determine the answer" if undetermined
                              else "the equations have no real solution")
    distinct = []
    for value, solution in values:
        if not any(math.isclose(value, other, rel_tol=1e-9, abs_tol=1e-12) for other, _ in distinct):
            distinct.append((value, solution))
    if len(distinct) > 1:  # a quadratic: a count or a length is the positive root
        positive = [pair for pair in distinct if pair[0] > 0]
        if len(positive) != 1:
            shown = ", ".join(f"{v:g}" for v, _ in distinct)
            raise EvaluationError(f"the equations have several solutions: {shown}")
        distinct = positive
    value, solution = distinct[0]
    for symbol in unknowns:
        fixed = solution.get(symbol)
        if fixed is not None and not getattr(fixed, "free_symbols", True) and fixed.is_real is not False:
            steps.append((str(symbol), float(fixed)))
    return value, steps
