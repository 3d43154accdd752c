"""Reading a solving program into checked lines, before anything is evaluated.

A program is a short straight-line list of ``name = expression`` lines, or equations over unknown
names (``x + y = 10``), ending with ``answer = ...`` (``answer: x`` is read the same). Each side of
a line goes through :func:`ast.parse` (which builds a tree and executes nothing) and then through a
whitelist of node types, so a refusal names what was refused ("attribute access is not allowed")
and evaluation never meets a node it did not expect. The limits are module constants:

* ``MAX_PROGRAM_CHARS`` (2000) and ``MAX_LINES`` (40): a solution to a word problem is a few lines;
  anything longer is a model rambling, and the bound keeps parsing and solving cheap.
* ``MAX_NESTING`` (20 brackets, 60 tree levels): deep nesting is never arithmetic a word problem
  needs and is how parsers are made to recurse without end.
* ``MAX_MAGNITUDE`` (1e15): every literal and every intermediate value; an int can then never grow
  past ~100 bits, so no operation is slow, and floats stay exact for integers.
* ``MAX_CALL_ARGS`` (20) for ``min``/``max``.

>>> [(line.kind, line.name) for line in read_program("total = 3 * 4\\nanswer: total - 2")]
[('assign', 'total'), ('assign', 'answer')]
>>> read_program("x + y = 10; answer = x")[0].kind
'equation'
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .errors import EvaluationError, UnsafeExpression

__all__ = [
    "ALLOWED_FUNCTIONS", "KEYWORD_RE", "NAME_RE", "split_top_level", "MAX_CALL_ARGS", "MAX_LINES", "MAX_MAGNITUDE", "MAX_NESTING", "MAX_PROGRAM_CHARS",
    "ProgramLine", "check_expression", "expression_names", "normalize_line", "read_program",
]

MAX_PROGRAM_CHARS = 2000
MAX_LINES = 40
MAX_NESTING = 20
MAX_TREE_DEPTH = 60
MAX_MAGNITUDE = 1e15
MAX_CALL_ARGS = 20
ALLOWED_FUNCTIONS = ("round", "abs", "min", "max", "sqrt", "floor", "ceil")

_KEYWORDS = ("import", "from", "for", "while", "if", "elif", "else", "def", "class", "with", "try", "except",
             "finally", "return", "lambda", "global", "nonlocal", "del", "assert", "raise", "yield", "async",
             "await", "pass", "break", "continue")
KEYWORD_RE = re.compile(r"^(%s)\b" % "|".join(_KEYWORDS))
NAME_RE = re.compile(r"^[A-Za-z_]\w*$")
_AUGMENTED_RE = re.compile(r"^([A-Za-z_]\w*)\s*(\*\*|//|[-+*/%])=(?!=)(.*)$")
_ANSWER_COLON_RE = re.compile(r"^answer\s*:\s*(.+)$", re.IGNORECASE)
# "25%" is a percentage when no operand follows the sign: "25% * 80" and "80 * 25%" are, "10 % 3" is not.
_PERCENT_RE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*%(?!\s*[\w(.])")
_THOUSANDS_RE = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
# "5x + 3y = 35" and "2(3 + 4)" as written on paper; "1e5" stays a number.
_IMPLICIT_RE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?![eE][-+]?\d)(?=[A-Za-z(])")
_ADJACENT_BRACKETS_RE = re.compile(r"\)\s*\(")
# Models write the arithmetic of the page, not of Python: "^" is a power there, never a XOR.
_SYMBOLS = str.maketrans({"^": "**", "\u00d7": "*", "\u00f7": "/", "\u2212": "-", "\u2013": "-", "$": None})

_REFUSED_NODES: dict[type, str] = {
    ast.Attribute: "attribute access is not allowed",
    ast.Subscript: "indexing is not allowed",
    ast.Lambda: "lambdas are not allowed",
    ast.ListComp: "comprehensions are not allowed",
    ast.SetComp: "comprehensions are not allowed",
    ast.DictComp: "comprehensions are not allowed",
    ast.GeneratorExp: "comprehensions are not allowed",
    ast.Compare: "comparisons are not allowed",
    ast.BoolOp: "'and' and 'or' are not allowed",
    ast.IfExp: "conditions are not allowed",
    ast.NamedExpr: "':=' is not allowed",
    ast.JoinedStr: "strings are not allowed",
    ast.List: "lists, tuples and sets are not allowed",
    ast.Tuple: "lists, tuples and sets are not allowed",
    ast.Set: "lists, tuples and sets are not allowed",
    ast.Dict: "lists, tuples and sets are not allowed",
    ast.Starred: "'*' arguments are not allowed",
    ast.Await: "'await' is not allowed",
    ast.Yield: "'yield' is not allowed",
    ast.YieldFrom: "'yield' is not allowed",
}
_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
_UNARY = (ast.USub, ast.UAdd)


@dataclass(frozen=True)
class ProgramLine:
    """One checked line. ``kind`` is ``assign`` (``name = right``), ``equation`` (``left = right``)
    or ``expr`` (a bare expression, read as the result when it is the last line)."""

    kind: str
    number: int
    text: str
    right: ast.expr
    name: str | None = None
    left: ast.expr | None = None


def normalize_line(line: str) -> str:
    """The notation models use, in Python's: ``^`` for powers, ``25%`` for 0.25, ``$`` dropped,
    ``1,200`` without its separator (only on lines without brackets, where a comma separates
    arguments), ``5x`` and ``2(3 + 4)`` as products, ``answer: x`` as ``answer = x``,
    ``total += 5`` as ``total = total + (5)``.

    >>> normalize_line("tip = $1,200 * 15%")
    'tip = 1200 * (15/100)'
    """
    line = line.strip().translate(_SYMBOLS)
    if "(" not in line:
        line = _THOUSANDS_RE.sub("", line)
    line = _PERCENT_RE.sub(r"(\1/100)", line)
    line = _ADJACENT_BRACKETS_RE.sub(")*(", _IMPLICIT_RE.sub(r"\1*", line))
    colon = _ANSWER_COLON_RE.match(line)
    if colon:
        line = f"answer = {colon.group(1)}"
    augmented = _AUGMENTED_RE.match(line)
    if augmented:
        name, op, rest = augmented.groups()
        line = f"{name} = {name} {op} ({rest.strip()})"
    return line


def split_top_level(line: str) -> list[str]:
    """Split on ``=`` outside brackets (``==`` counts as one ``=``: models write equations so)."""
    line = line.replace("==", "=")
    parts, depth, start = [], 0, 0
    for i, char in enumerate(line):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "=" and depth == 0:
            parts.append(line[start:i])
            start = i + 1
    parts.append(line[start:])
    return parts


def _nesting(text: str) -> int:
    depth = deepest = 0
    for char in text:
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth -= 1
    return deepest


def _parse(text: str, number: int) -> ast.expr:
    text = text.strip()
    if not text:
        raise EvaluationError(f"line {number} has an empty side")
    if _nesting(text) > MAX_NESTING:
        raise UnsafeExpression(f"nesting too deep on line {number}")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise EvaluationError(f"could not read line {number}: {text[:60]!r}") from None
    check_expression(tree.body)
    return tree.body


def check_expression(node: ast.expr) -> None:
    """Refuse every node outside arithmetic on numbers, names and whitelisted calls.

    >>> check_expression(ast.parse("().__class__", mode="eval").body)
    Traceback (most recent call last):
    ...
    ml.verify.errors.UnsafeExpression: attribute access is not allowed
    """
    stack = [(node, 1)]  # explicit stack: a deep tree cannot exhaust Python's recursion here
    while stack:
        current, depth = stack.pop()
        if depth > MAX_TREE_DEPTH:
            raise UnsafeExpression("nesting too deep")
        for refused, reason in _REFUSED_NODES.items():
            if isinstance(current, refused):
                raise UnsafeExpression(reason)
        if isinstance(current, ast.Constant):
            if isinstance(current.value, str):
                raise UnsafeExpression("strings are not allowed")
            if isinstance(current.value, bool) or not isinstance(current.value, (int, float)):
                raise UnsafeExpression(f"only numbers are allowed, not {current.value!r}")
            if abs(current.value) > MAX_MAGNITUDE:
                raise UnsafeExpression("number too large")
        elif isinstance(current, ast.Name):
            if current.id.startswith("_"):
                raise UnsafeExpression(
                    f"names other than the problem's quantities are not allowed: {current.id!r}")
        elif isinstance(current, ast.BinOp):
            if not isinstance(current.op, _OPERATORS):
                raise UnsafeExpression(f"the operator {type(current.op).__name__} is not allowed")
            stack += [(current.right, depth + 1), (current.left, depth + 1)]  # left first, as read
        elif isinstance(current, ast.UnaryOp):
            if not isinstance(current.op, _UNARY):
                raise UnsafeExpression(f"the operator {type(current.op).__name__} is not allowed")
            stack.append((current.operand, depth + 1))
        elif isinstance(current, ast.Call):
            if not isinstance(current.func, ast.Name):
                check_expression(current.func)  # the attribute's or the lambda's own reason first
                raise UnsafeExpression(f"only calls of {', '.join(ALLOWED_FUNCTIONS)} are allowed")
            if current.func.id not in ALLOWED_FUNCTIONS:
                raise UnsafeExpression(
                    f"functions other than {', '.join(ALLOWED_FUNCTIONS)} are not allowed: {current.func.id!r}")
            if current.keywords:
                raise UnsafeExpression("keyword arguments are not allowed")
            if not current.args or len(current.args) > MAX_CALL_ARGS:
                raise UnsafeExpression(f"{current.func.id} takes 1 to {MAX_CALL_ARGS} arguments")
            stack += [(arg, depth + 1) for arg in reversed(current.args)]
        else:
            raise UnsafeExpression(f"{type(current).__name__} is not allowed")


def expression_names(node: ast.expr) -> set[str]:
    """Names an expression reads as values (the names of called functions left out)."""
    callees = {id(c.func) for c in ast.walk(node) if isinstance(c, ast.Call)}
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and id(n) not in callees}


def read_program(program: str) -> list[ProgramLine]:
    """Split, normalize and check every line of ``program``; raise on the first refusal."""
    if len(program) > MAX_PROGRAM_CHARS:
        raise UnsafeExpression(f"input too long ({len(program)} characters, at most {MAX_PROGRAM_CHARS})")
    raw_lines = [part.strip() for line in program.splitlines() for part in line.split(";")]
    raw_lines = [line for line in raw_lines if line]
    if not raw_lines:
        raise EvaluationError("the program is empty")
    if len(raw_lines) > MAX_LINES:
        raise UnsafeExpression(f"too many lines ({len(raw_lines)}, at most {MAX_LINES})")
    lines = []
    for number, raw in enumerate(raw_lines, start=1):
        keyword = KEYWORD_RE.match(raw)
        if keyword:
            word = keyword.group(1)
            if word in ("import", "from"):
                raise UnsafeExpression("imports are not allowed")
            if word == "lambda":
                raise UnsafeExpression("lambdas are not allowed")
            raise UnsafeExpression(f"only assignments and equations are allowed, not {word!r}")
        text = normalize_line(raw)
        if re.search(r"[<>!]=|[<>]", text):
            raise UnsafeExpression("comparisons are not allowed")
        parts = split_top_level(text)
        head = parts[0].strip()
        if len(parts) == 1:
            lines.append(ProgramLine("expr", number, raw, _parse(head, number)))
        elif NAME_RE.match(head):
            if head.startswith("_"):
                raise UnsafeExpression(f"names other than the problem's quantities are not allowed: {head!r}")
            # "total = 3 * 4 = 12": the formula is what counts, the model's own result after it does not.
            lines.append(ProgramLine("assign", number, raw, _parse(parts[1], number), name=head))
        elif len(parts) == 2:
            lines.append(ProgramLine("equation", number, raw, _parse(parts[1], number), left=_parse(head, number)))
        else:
            raise EvaluationError(f"line {number} has more than one '=' in an equation")
    return lines
