"""The calculator tool: arithmetic on numbers a customer or a tool gave, without eval.

Only numbers, + - * / // % ** and parentheses are read, from Python's own parser; anything
else (names, calls, attributes) is refused, and sizes are bounded so no input can hang a worker.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable

MAX_CHARS = 200
MAX_POWER = 100
_OPERATORS: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
# An expression inside a sentence: numbers joined by at least one operator ("1299*2 + 450").
EXPRESSION = re.compile(r"\(?\s*-?\d[\d,]*(?:\.\d+)?\s*\)?(?:\s*(?:[-+*/%×x÷^]|\*\*|//)\s*\(?\s*-?\d[\d,]*(?:\.\d+)?\s*\)?)+")


class CalculationError(ValueError):
    """The text is not arithmetic we evaluate, or its result is not a finite number."""


def calculate(expression: str) -> float | int:
    text = expression.replace("×", "*").replace("÷", "/").replace("^", "**").replace(",", "")
    text = re.sub(r"(?<=\d)\s*x\s*(?=[\d(])", "*", text)
    if len(text) > MAX_CHARS:
        raise CalculationError(f"longer than {MAX_CHARS} characters")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        raise CalculationError("not an arithmetic expression") from None
    result = _value(tree.body)
    if isinstance(result, float):
        if result != result or result in (float("inf"), float("-inf")):
            raise CalculationError("the result is not a finite number")
        return int(result) if result.is_integer() else round(result, 6)
    return result


def find_expression(text: str) -> str | None:
    """The arithmetic in a message, if it has some ("what is 1299 x 2 + 450?")."""
    match = EXPRESSION.search(text)
    return match.group(0).strip() if match else None


def _value(node: ast.AST) -> float | int:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        value = _value(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _value(node.left), _value(node.right)
        if isinstance(node.op, ast.Pow) and (abs(right) > MAX_POWER or abs(left) > 10**6):
            raise CalculationError("that power is too large")
        if abs(left) > 1e15 or abs(right) > 1e15:
            raise CalculationError("those numbers are too large")
        try:
            return _OPERATORS[type(node.op)](left, right)
        except ZeroDivisionError:
            raise CalculationError("division by zero") from None
    raise CalculationError("only numbers and + - * / % ** and parentheses are allowed")
