"""The element-semantics expression language of op specs.

An op's `semantics.expr` (e.g. ``select(src > 0, src, src * slope)``) is parsed once with Python's
`ast` into a small checked tree, then rendered three ways: LaTeX for the docs, C++ for the CPU
simulator and numpy for the golden reference. Only the constructs below are accepted, so a
spec cannot smuggle code into any of the three outputs.

Index notation states an op over whole tiles as one assignment: `dst[i,j] = src[j,i]` (a
permutation), `dst[i,j] = sum(k, a[i,k] * b[k,j]) + bias[0,j]` (a contraction, then a broadcast
row). An index is a letter bound by the left side or by an enclosing `sum(var, term)`, or the
constant 0; `sum(k, x * y)` folds over k in order, from zero, each step one fused multiply-add.
A letter in scope may also be a value of the right side (`dst[i,j] = select(j <= i, 1, 0)`): its
loop index in the compute type.
An index may also be affine (the remap kind's slices and strides): letters, non-negative integer
constants and scalar operands joined by `+`, `-` and `*` with a constant, e.g. `src[i + r0, 2*j + 1]`,
and `//` by a positive constant (the MX scales' `a_scale[i, k // 32]`: one scale per 32 k);
on the left side each index then holds exactly one letter (`dst[i + r0, j + c0] = src[i, j]`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# name -> (arity, C++ helper, numpy helper, LaTeX operator name)
FUNCTIONS: dict[str, tuple[int, str, str, str]] = {
    "select": (3, "", "rm.select", ""),
    "max": (2, "sim::maximum", "rm.maximum", r"\max"),
    "min": (2, "sim::minimum", "rm.minimum", r"\min"),
    "pow": (2, "sim::power", "rm.power", r"\mathrm{pow}"),
    "abs": (1, "sim::absolute", "rm.absolute", r"\mathrm{abs}"),
    "exp": (1, "sim::exponential", "rm.exponential", r"\exp"),
    "log": (1, "sim::logarithm", "rm.logarithm", r"\ln"),
    "sqrt": (1, "sim::square_root", "rm.square_root", r"\sqrt"),
    "rsqrt": (1, "sim::reciprocal_square_root", "rm.reciprocal_square_root", r"\mathrm{rsqrt}"),
    "fmod": (2, "sim::fmod_", "rm.fmod", r"\mathrm{fmod}"),
    "carry_add": (3, "sim::carry_add", "rm.carry_add", r"\mathrm{carry}"),
    "borrow_sub": (3, "sim::borrow_sub", "rm.borrow_sub", r"\mathrm{borrow}"),
    "rem": (2, "sim::rem_", "rm.rem", r"\mathrm{remainder}"),
    "add_sat": (2, "sim::add_sat", "rm.add_sat", r"\mathrm{add\_sat}"),
    "sub_sat": (2, "sim::sub_sat", "rm.sub_sat", r"\mathrm{sub\_sat}"),
    "rint": (1, "sim::round_even", "rm.rint", r"\mathrm{rint}"),
    "round": (1, "sim::round_away", "rm.round_away", r"\mathrm{round}"),
    "floor": (1, "sim::round_floor", "rm.floor", r"\lfloor"),
    "ceil": (1, "sim::round_ceil", "rm.ceil", r"\lceil"),
    "trunc": (1, "sim::round_trunc", "rm.trunc", r"\mathrm{trunc}"),
    # To an odd neighbour unless exact (von Neumann rounding): 2.5 -> 3, 2.25 -> 3, 4.0 -> 4.
    "round_odd": (1, "sim::round_odd", "rm.round_odd", r"\mathrm{rodd}"),
    # The value rounded to the result's element type `T` and continued in the compute type: states
    # an intermediate rounding (TAXPY's half product), a no-op where T is the compute type.
    "rounded": (1, "", "rm.rounded", r"\mathrm{rnd}_T"),
    # The value converted to the result's element type `T` with saturation (clamped to T's finite
    # range, a float rounded to nearest even, NaN to 0 for integers) and continued in the compute
    # type: the saturating conversion of a fused op (TADDRELUCONV's `convert`).
    "saturated": (1, "", "rm.saturated", r"\mathrm{sat}_T"),
    # The value computed in the element type S of the tiles it reads, from their elements as stored
    # (an integer wraps there, a float is rounded to S), then continued in the compute type: a fused
    # op whose sum is formed in its sources' type (TADDRELUCONV's `half`, TADDDEQRELU's `int32_t`).
    "as_source": (1, "", "rm.as_source", r"\mathrm{as\_source}"),
    # Integer bit counts: the set bits of the pattern (vbcnt), and the leading bits equal to the
    # most significant one, that bit included (vcls: 0 and -1 give the width).
    "popcount": (1, "sim::popcount", "rm.popcount", r"\mathrm{popcount}"),
    "cls": (1, "sim::cls", "rm.cls", r"\mathrm{cls}"),
    # One rounding of a * b + c in the compute type (wrapping for integers): the fused multiply-adds.
    "fma": (3, "sim::fused_mul_add", "rm.fused_mul_add", r"\mathrm{fma}"),
    # The high half of the double-width integer product, signed for a signed type (vmull's high result).
    "mul_high": (2, "sim::mul_high", "rm.mul_high", r"\mathrm{mul\_high}"),
}

# Functions the simulator computes with one <cmath> library call per element (no vector form): a
# loop over them is call-bound, and the simulator walks a contiguous valid region in one loop.
LIBRARY_CALLS = frozenset({"pow", "exp", "log", "fmod", "rem"})

# Reductions: `sum(x)` folds x over the axis the op kind reduces (row or column), left to right,
# in the compute type. name -> (C++ step helper, numpy fold helper, LaTeX operator).
# `max`/`min` with one argument reduce; with two they are element-wise.
REDUCERS: dict[str, tuple[str, str, str]] = {
    "sum": ("sim::add", "rm.fold_add", r"\sum"),
    "prod": ("sim::mul", "rm.fold_mul", r"\prod"),
    "max": ("sim::maximum", "rm.fold_maximum", r"\max"),
    "min": ("sim::minimum", "rm.fold_minimum", r"\min"),
    # Index of the extreme value: an element replaces the best so far only when strictly greater
    # (less), so ties keep the first index and a NaN wins only at index 0. The step is a comparison.
    "argmax": (">", "rm.fold_argmax", r"\operatorname{arg\,max}"),
    "argmin": ("<", "rm.fold_argmin", r"\operatorname{arg\,min}"),
}
ARG_REDUCERS = frozenset({"argmax", "argmin"})

_BINOPS: dict[type, tuple[str, int, str]] = {
    ast.Add: ("+", 6, "+"),
    ast.Sub: ("-", 6, "-"),
    ast.Mult: ("*", 7, r"\cdot"),
    ast.Div: ("/", 7, "/"),
    ast.BitAnd: ("&", 3, r"\mathbin{\&}"),
    ast.BitOr: ("|", 1, r"\mathbin{|}"),
    ast.BitXor: ("^", 2, r"\oplus"),
    ast.LShift: ("<<", 5, r"\ll"),
    ast.RShift: (">>", 5, r"\gg"),
}
_CMPOPS: dict[type, tuple[str, str]] = {
    ast.Gt: (">", ">"),
    ast.GtE: (">=", r"\ge"),
    ast.Lt: ("<", "<"),
    ast.LtE: ("<=", r"\le"),
    ast.Eq: ("==", "="),
    ast.NotEq: ("!=", r"\ne"),
}


class ExprError(ValueError):
    pass


@dataclass(frozen=True)
class Node:
    op: str  # "name", "const", "call", "bin", "cmp", "neg", "not", "apply", "reduce",
    # index notation: "assign" (lhs, rhs), "index" (an operand at indices: value the operand, args
    # its indices as "ivar" nodes or "const" 0), "ivar" (value the index letter), "contract"
    # (value the bound index, args the term)
    args: tuple[Node, ...] = ()
    value: str | int | float | None = None


def parse(text: str, names: set[str], attrs: dict[str, int] | None = None) -> Node:
    """Parse and check an expression; `names` are the operands it may read, `attrs` the enum
    attributes it may apply (name -> number of arguments), e.g. `mode(src0, src1)`."""
    if _is_assignment(text):
        return _parse_assignment(text, names, attrs or {})
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        raise ExprError(f"cannot parse expression: {exc.msg}") from None
    return _convert(tree, names, attrs or {})


def _is_assignment(text: str) -> bool:
    """Whether the text is index notation: one `=` that is not part of `==`, `<=`, `>=`, `!=`."""
    return re.search(r"(?<![=<>!])=(?!=)", text) is not None


def _at(node: ast.AST) -> str:
    return f"at column {getattr(node, 'col_offset', 0) + 1}: "


def _parse_assignment(text: str, names: set[str], attrs: dict[str, int]) -> Node:
    try:
        module = ast.parse(text, mode="exec")
    except SyntaxError as exc:
        where = f"at column {exc.offset}: " if exc.offset else ""
        raise ExprError(f"{where}cannot parse index notation: {exc.msg}") from None
    stmt = module.body[0] if len(module.body) == 1 else None
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
        raise ExprError("index notation is one assignment, e.g. `dst[i,j] = src[j,i]`")
    target = stmt.targets[0]
    if not isinstance(target, ast.Subscript):
        raise ExprError(f"{_at(target)}the left side is an operand at indices, e.g. `dst[i,j]`")
    lhs = _index(target, names, bound=None)
    free = [v for a in lhs.args for v in sorted(_ivars(a))]
    if len(set(free)) != len(free):
        raise ExprError(f"{_at(target)}an index repeats on the left side")
    rhs = _convert_indexed(stmt.value, names, attrs, set(free))
    return Node("assign", (lhs, rhs))


def _index(node: ast.Subscript, names: set[str], bound: set[str] | None) -> Node:
    """`x[i,0]` as an "index" node; `bound` (None on the left side) are the letters in scope."""
    if not isinstance(node.value, ast.Name) or node.value.id not in names:
        what = ast.unparse(node.value)
        raise ExprError(f"{_at(node)}unknown operand {what!r} (known: {', '.join(sorted(names))})")
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    out = []
    for part in parts:
        if isinstance(part, ast.BinOp):
            affine = _affine(part, names, bound)
            if bound is None and len(_ivars(affine)) != 1:
                raise ExprError(f"{_at(part)}an index of the left side holds exactly one letter")
            out.append(affine)
        elif isinstance(part, ast.Name) and part.id not in names:
            if bound is not None and part.id not in bound:
                raise ExprError(
                    f"{_at(part)}index {part.id!r} is not bound (bound: {', '.join(sorted(bound))})"
                )
            out.append(Node("ivar", value=part.id))
        elif isinstance(part, ast.Constant) and part.value == 0 and bound is not None:
            out.append(Node("const", value=0))
        elif bound is None:
            raise ExprError(f"{_at(node)}the left side's indices are letters, e.g. `dst[i,j]`")
        else:
            raise ExprError(f"{_at(part)}an index is a letter or 0, not {ast.unparse(part)!r}")
    return Node("index", tuple(out), value=node.value.id)


_AFFINE_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%"}
# The affine operators that take a positive constant on their right (the parity of an index, or
# its half, as TINTERLEAVE's page writes the interleaved stream).
_BY_CONSTANT = ("//", "%")
# Index terms naming a tile's valid extent: `cols(src0)` is the number of columns src0 gives a row
# (its valid columns; an op kind may take it per row from elsewhere, see opkinds/remap.py).
EXTENTS = ("rows", "cols")


def _affine(node: ast.AST, names: set[str], bound: set[str] | None) -> Node:
    """An affine index: letters (bound ones on the right side), non-negative integer constants and
    scalar operands, joined by `+`, `-` and `*` where one factor of a product is a constant, and
    divided (`//`, rounding down) or taken modulo (`%`) by a positive constant."""
    if isinstance(node, ast.BinOp) and type(node.op) in _AFFINE_OPS:
        left, right = _affine(node.left, names, bound), _affine(node.right, names, bound)
        op = _AFFINE_OPS[type(node.op)]
        if op == "*" and left.op != "const" and right.op != "const":
            raise ExprError(f"{_at(node)}an index multiplies by a constant only, not {ast.unparse(node)!r}")
        if op in _BY_CONSTANT and (right.op != "const" or int(str(right.value)) <= 0):
            raise ExprError(
                f"{_at(node)}an index divides by a positive constant only, not {ast.unparse(node)!r}"
            )
        return Node("affine", (left, right), value=op)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in EXTENTS
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id in names
        and not node.keywords
    ):
        return Node("extent", (Node("name", value=node.args[0].id),), value=node.func.id)
    if isinstance(node, ast.Name):
        if node.id in names:
            return Node("name", value=node.id)
        if bound is not None and node.id not in bound:
            raise ExprError(f"{_at(node)}index {node.id!r} is not bound (bound: {', '.join(sorted(bound))})")
        return Node("ivar", value=node.id)
    if isinstance(node, ast.Constant) and type(node.value) is int and node.value >= 0:
        return Node("const", value=node.value)
    raise ExprError(
        f"{_at(node)}an index term is a letter, a scalar operand or an integer, not {ast.unparse(node)!r}"
    )


def index_text(node: Node) -> str:
    """The spelling of one index (`i`, `0`, `i + index_row`, `2 * j + 1`, `j - cols(src0)`)."""
    if node.op == "extent":
        return f"{node.value}({node.args[0].value})"
    if node.op == "icmp":
        return f"{index_text(node.args[0])} {node.value} {index_text(node.args[1])}"
    if node.op != "affine":
        return str(node.value)
    left, right = (index_text(a) for a in node.args)
    if node.value in ("*", *_BY_CONSTANT):
        left, right = (
            f"({t})" if a.op == "affine" and a.value in ("+", "-") else t
            for a, t in zip(node.args, (left, right), strict=True)
        )
    elif node.value == "-" and node.args[1].op == "affine" and node.args[1].value in ("+", "-"):
        right = f"({right})"
    return f"{left} {node.value} {right}"


def index_cpp(node: Node, spell: Callable[[str], str]) -> str:
    """One index as a C++ `int` expression; `spell` names a letter or a scalar operand."""
    if node.op in ("ivar", "name"):
        return spell(str(node.value))
    if node.op == "extent":
        return spell(index_text(node))
    if node.op == "const":
        return str(node.value)
    left, right = (index_cpp(a, spell) for a in node.args)
    # `//` is C++'s `/`: an index is never negative where it is read, so both round down
    return f"({left} {'/' if node.value == '//' else node.value} {right})"


def index_value(node: Node, env: dict[str, Any]) -> Any:
    """One index evaluated over `env` (a letter or scalar operand -> an int or a numpy array)."""
    if node.op in ("ivar", "name"):
        return env[str(node.value)]
    if node.op == "extent":
        return env[index_text(node)]
    if node.op == "const":
        return int(str(node.value))
    left, right = (index_value(a, env) for a in node.args)
    if node.op == "icmp":
        return {
            "<": left < right,
            "<=": left <= right,
            ">": left > right,
            ">=": left >= right,
            "==": left == right,
            "!=": left != right,
        }[str(node.value)]
    if node.value == "+":
        return left + right
    if node.value == "-":
        return left - right
    if node.value == "//":
        return left // right
    if node.value == "%":
        return left % right
    return left * right


def _has_affine(node: Node) -> bool:
    """Whether an index of the expression is more than a letter or 0 (an affine index)."""
    if node.op == "icmp" or (
        node.op == "index"
        and any(a.op in ("affine", "name", "extent") or (a.op == "const" and a.value != 0) for a in node.args)
    ):
        return True
    return any(_has_affine(a) for a in node.args)


def index_letters(node: Node) -> set[str]:
    """The index letters an index (or any expression) uses."""
    return _ivars(node)


def _convert_indexed(node: ast.AST, names: set[str], attrs: dict[str, int], bound: set[str]) -> Node:
    """The right side of index notation: the expression language plus `x[...]` and `sum(k, term)`."""
    if isinstance(node, ast.Subscript):
        return _index(node, names, bound)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "sum":
        if len(node.args) != 2 or not isinstance(node.args[0], ast.Name) or node.args[0].id in names:
            raise ExprError(f"{_at(node)}a contraction is `sum(k, term)` with a new index letter k")
        var = node.args[0].id
        if var in bound:
            raise ExprError(f"{_at(node)}index {var!r} is already bound")
        term = _convert_indexed(node.args[1], names, attrs, bound | {var})
        if var not in _ivars(term):
            raise ExprError(f"{_at(node)}sum over {var!r} does not use {var!r}")
        return Node("contract", (term,), value=var)
    if isinstance(node, ast.Name) and node.id not in names:
        if node.id in bound:  # an index letter used as a value (TCI's `start + j`)
            return Node("ivar", value=node.id)
        raise ExprError(f"{_at(node)}{node.id!r} is neither an operand nor an index in scope")
    # Everything else is the element language; its operands may be indexed.
    rebuilt = _convert_shallow(node, names, attrs, bound)
    return rebuilt


def _convert_shallow(node: ast.AST, names: set[str], attrs: dict[str, int], bound: set[str]) -> Node:
    def sub(n: ast.AST) -> Node:
        return _convert_indexed(n, names, attrs, bound)

    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return Node("neg", (sub(node.operand),))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return Node("bin", (sub(node.left), sub(node.right)), value=_BINOPS[type(node.op)][0])
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _CMPOPS:
        return Node("cmp", (sub(node.left), sub(node.comparators[0])), value=_CMPOPS[type(node.ops[0])][0])
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS:
        fn = node.func.id
        if len(node.args) != FUNCTIONS[fn][0] or node.keywords:
            raise ExprError(f"{_at(node)}{fn}() takes {FUNCTIONS[fn][0]} arguments")
        reads = any(isinstance(n, ast.Subscript) for a in node.args[1:] for n in ast.walk(a))
        if fn == "select" and _index_condition(node.args[0]) and reads:
            # a select on a condition over indices between operand reads (a piecewise read:
            # concatenation) chooses which operand is read where; a comparison elsewhere (TTRI's
            # `j <= i + diagonal`, a select of plain values) is a value
            cond = node.args[0]
            assert isinstance(cond, ast.Compare)
            left, right = _affine(cond.left, names, bound), _affine(cond.comparators[0], names, bound)
            icmp = Node("icmp", (left, right), value=_CMPOPS[type(cond.ops[0])][0])
            return Node("call", (icmp, *(sub(a) for a in node.args[1:])), value=fn)
        return Node("call", tuple(sub(a) for a in node.args), value=fn)
    if isinstance(node, (ast.Name, ast.Constant)):
        try:
            return _convert(node, names, attrs)
        except ExprError as exc:
            raise ExprError(f"{_at(node)}{exc}") from None
    raise ExprError(f"{_at(node)}unsupported construct in index notation {ast.unparse(node)!r}")


def _index_condition(node: ast.AST) -> bool:
    """Whether a select's condition is an ordering of index terms (both sides affine in the letters)."""
    return (
        isinstance(node, ast.Compare)
        and len(node.ops) == 1
        and type(node.ops[0]) in (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)
        and _ivars_in_ast(node)
    )


def _ivars_in_ast(node: ast.AST) -> bool:
    """Whether an expression names an index letter (a bare name that is not a function)."""
    return any(isinstance(n, ast.Name) and len(n.id) == 1 for n in ast.walk(node))


def _ivars(node: Node) -> set[str]:
    found = {str(node.value)} if node.op == "ivar" else set()
    for a in node.args:
        found |= _ivars(a)
    return found


def is_assignment(node: Node) -> bool:
    """Whether a parsed expression is index notation (`dst[i,j] = ...`)."""
    return node.op == "assign"


def lhs_indices(node: Node) -> list[str]:
    """The index letters of an assignment's left side, in order."""
    return [v for a in node.args[0].args for v in sorted(_ivars(a))]


def contractions(node: Node) -> list[Node]:
    """Every `sum(k, term)` in the expression, outermost first."""
    found = [node] if node.op == "contract" else []
    for a in node.args:
        found += contractions(a)
    return found


def indexed(node: Node) -> list[tuple[str, tuple[str, ...]]]:
    """Each operand read at indices, with its index spellings ("0" for the constant), in order."""
    found = [(str(node.value), tuple(index_text(a) for a in node.args))] if node.op == "index" else []
    for a in node.args:
        found += indexed(a)
    return found


def _convert(node: ast.AST, names: set[str], attrs: dict[str, int]) -> Node:
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise ExprError(f"unknown operand {node.id!r} (known: {', '.join(sorted(names))})")
        return Node("name", value=node.id)
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    ):
        return Node("const", value=node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return Node("neg", (_convert(node.operand, names, attrs),))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return Node("not", (_convert(node.operand, names, attrs),))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return Node(
            "bin",
            (_convert(node.left, names, attrs), _convert(node.right, names, attrs)),
            value=_BINOPS[type(node.op)][0],
        )
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _CMPOPS:
        left, right = _convert(node.left, names, attrs), _convert(node.comparators[0], names, attrs)
        return Node("cmp", (left, right), value=_CMPOPS[type(node.ops[0])][0])
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        fn = node.func.id
        if fn in attrs:
            if len(node.args) != attrs[fn]:
                raise ExprError(f"attribute {fn}() takes {attrs[fn]} arguments")
            return Node("apply", tuple(_convert(a, names, attrs) for a in node.args), value=fn)
        if fn in REDUCERS and len(node.args) == 1:
            return Node("reduce", (_convert(node.args[0], names, attrs),), value=fn)
        if fn not in FUNCTIONS:
            raise ExprError(
                f"unknown function {fn!r} (known: {', '.join(sorted(set(FUNCTIONS) | set(REDUCERS)))})"
            )
        if len(node.args) != FUNCTIONS[fn][0]:
            raise ExprError(f"{fn}() takes {FUNCTIONS[fn][0]} arguments")
        return Node("call", tuple(_convert(a, names, attrs) for a in node.args), value=fn)
    raise ExprError(f"unsupported construct {ast.unparse(node)!r}")


def uses_function(node: Node, name: str) -> bool:
    """Whether the expression calls function `name` anywhere."""
    return (node.op == "call" and node.value == name) or any(uses_function(a, name) for a in node.args)


def names_used(node: Node) -> set[str]:
    """Operands (and applied attributes) an expression reads."""
    if node.op == "assign":
        return names_used(node.args[1])
    found = {str(node.value)} if node.op in ("name", "apply", "index") else set()
    for arg in node.args:
        found |= names_used(arg)
    return found


_PREC = {"+": 6, "-": 6, "*": 7, "/": 7, "&": 3, "|": 1, "^": 2, "<<": 5, ">>": 5}


def _prec(node: Node) -> int:
    if node.op in ("reduce", "contract"):
        return 6  # a sum binds like +: wrap it inside a product
    if node.op == "bin":
        return _PREC[str(node.value)]
    if node.op == "cmp":
        return 4
    if node.op in ("neg", "not"):
        return 8
    return 9


# ----------------------------------------------------------------------------- renderers

# Wrap-safe helpers of pto/common/sim_arith.hpp (integer overflow is UB with plain operators).
_CPP_ARITH = {
    "+": "add",
    "-": "sub",
    "*": "mul",
    "/": "div",
    "&": "bit_and",
    "|": "bit_or",
    "^": "bit_xor",
    "<<": "shl",
    ">>": "shr",
}


# Two-argument functions with a helper specialised for a second argument that is the same for every
# element (a scalar operand or a constant): same result, but the helper branches on that argument
# only, so the element loop is unswitched and vectorises to one instruction (see sim_support.hpp).
_BY_INVARIANT = {"max": "sim::maximum_by", "min": "sim::minimum_by"}


def to_cpp(
    node: Node,
    ref: Callable[[str], str],
    ctype: str,
    enums: dict[str, str] | None = None,
    varying: frozenset[str] = frozenset(),
    at: Callable[[str, tuple[str, ...]], str] | None = None,
    contract: Callable[[Node], str] | None = None,
) -> str:
    """C++ in compute type `ctype`; `ref(name)` spells an operand's element as a compute value;
    `enums` maps attribute operands to their enum (applied through generated `apply_<Enum>`);
    `varying` names the operands whose value changes from element to element (tiles, vregs).
    Index notation: `at(name, indices)` spells an operand's element at C++ index expressions and
    `contract(node)` the value of a contraction (computed by the caller's loop)."""

    def invariant(n: Node) -> bool:
        return not (names_used(n) & varying)

    def go(n: Node) -> str:
        if n.op == "assign":
            raise ExprError("index notation is a loop nest: render it with to_cpp_loops()")
        if n.op == "index":
            if at is None:
                raise ExprError("indexed operands need an element accessor")
            return at(str(n.value), tuple(index_text(a) for a in n.args))
        if n.op == "ivar":
            return f"{ctype}({n.value})"
        if n.op == "contract":
            if contract is None:
                raise ExprError("a contraction is a loop: its op kind renders it")
            return contract(n)
        if n.op == "reduce":
            raise ExprError("a reduction is a loop: its op kind renders it (see reduction())")
        if n.op == "apply":
            enum = (enums or {})[str(n.value)]
            return f"apply_{enum}<{ctype}>({ref(str(n.value))}, {', '.join(go(a) for a in n.args)})"
        if n.op == "name":
            return ref(str(n.value))
        if n.op == "const":
            return f"{ctype}({n.value!r})"
        if n.op == "neg":
            return f"sim::neg<{ctype}>({go(n.args[0])})"
        if n.op == "not":
            return f"sim::bit_not<{ctype}>({go(n.args[0])})"
        if n.op == "bin":
            return f"sim::{_CPP_ARITH[str(n.value)]}<{ctype}>({go(n.args[0])}, {go(n.args[1])})"
        if n.op == "cmp":
            left, right = n.args
            return f"{wrap(left, _prec(n))} {n.value} {wrap(right, _prec(n) + 1)}"
        fn = str(n.value)
        if fn == "select":
            cond, a, b = (go(a) for a in n.args)
            return f"({cond} ? {ctype}({a}) : {ctype}({b}))"
        if fn == "rounded":
            return f"{ctype}(sim::narrow<T>({go(n.args[0])}))"
        if fn == "saturated":
            return f"{ctype}(sim::saturate<T>({go(n.args[0])}))"
        if fn == "as_source":  # the operands as stored (`<name>_s`), in S's compute type `U`
            return f"{ctype}(sim::narrow<S>({to_cpp(n.args[0], lambda name: f'{name}_s', 'U')}))"
        helper = FUNCTIONS[fn][1]
        if fn in _BY_INVARIANT and varying and not invariant(n.args[0]) and invariant(n.args[1]):
            helper = _BY_INVARIANT[fn]
        return f"{helper}<{ctype}>({', '.join(go(a) for a in n.args)})"

    def wrap(n: Node, prec: int) -> str:
        text = go(n)
        return f"({text})" if _prec(n) < prec else text

    return go(node)


def to_cpp_loops(
    node: Node,
    extents: dict[str, str],
    at: Callable[[str, tuple[str, ...]], str],
    store: Callable[[tuple[str, ...], str], str],
    ctype: str,
    indent: str = "    ",
) -> str:
    """The plain loop nest of index notation: one loop per left-side index (in order), each
    contraction folded in its own inner loop in index order, from zero, one fused multiply-add per
    step when its term is a product (`sim::fma_step`), else one addition. `extents` gives each
    index letter's C++ trip count, `at(name, indices)` an operand's element in the compute type and
    `store(indices, value)` the statement that writes the result."""
    if node.op != "assign":
        raise ExprError("to_cpp_loops renders index notation (`dst[i,j] = ...`)")
    lhs, rhs = node.args
    free = tuple(str(a.value) for a in lhs.args)
    lines: list[str] = []
    depth = 0
    for var in free:
        lines.append(f"{indent * depth}for (int {var} = 0; {var} < {extents[var]}; ++{var}) {{")
        depth += 1
    names: dict[int, str] = {}
    for n, c in enumerate(contractions(rhs)):
        if contractions(c.args[0]):
            raise ExprError("contractions do not nest")
        var, term = str(c.value), c.args[0]
        acc = f"sum{n}"
        names[id(c)] = acc
        pad = indent * depth
        lines.append(f"{pad}{ctype} {acc} = {ctype}(0);")
        lines.append(f"{pad}for (int {var} = 0; {var} < {extents[var]}; ++{var}) {{")
        if term.op == "bin" and term.value == "*":
            x, y = (to_cpp(t, str, ctype, at=at) for t in term.args)
            step = f"sim::fma_step<{ctype}>({x}, {y}, {acc})"
        else:
            step = f"sim::add<{ctype}>({acc}, {to_cpp(term, str, ctype, at=at)})"
        lines.append(f"{pad}{indent}{acc} = {step};")
        lines.append(f"{pad}}}")
    value = to_cpp(rhs, str, ctype, at=at, contract=lambda c: names[id(c)])
    lines.append(f"{indent * depth}{store(free, value)}")
    for d in range(depth - 1, -1, -1):
        lines.append(f"{indent * d}}}")
    return "\n".join(lines)


# Operators whose numpy spelling differs from C++ semantics (integer division, shift counts).
_NUMPY_HELPERS = {"/": "divide", "<<": "shl", ">>": "shr"}


def to_numpy(node: Node, enums: dict[str, str] | None = None, axis: int | None = None) -> str:
    """Python/numpy source; operands are variables of the same name, constants use `C(...)`;
    a reduction folds over `axis` (given by the op kind). Index notation gives an array over the
    left side's indices: each operand is viewed over the indices in scope (`rm.index_view`), a
    contraction of a product folds with one correctly rounded fused multiply-add per step
    (`rm.fma_fold`), of any other term with one addition per step (`rm.fold_add`)."""
    axes = ""  # the index letters in scope (index notation), in array-axis order
    gathered = False  # affine index notation: operands are read by numpy's fancy indexing

    def go(n: Node) -> str:
        nonlocal axes
        if n.op == "assign" and _has_affine(n):
            # a function of the walk's index grids: each operand read at its computed indices
            nonlocal gathered
            gathered = True
            return f"lambda {', '.join(lhs_indices(n))}: {go(n.args[1])}"
        if n.op == "assign":
            axes = "".join(str(a.value) for a in n.args[0].args)
            return go(n.args[1])
        if n.op == "icmp":
            return f"({_numpy_index(n)})"
        if n.op == "index" and gathered:
            return f"{n.value}[{', '.join(f'rm.ix({_numpy_index(a)})' for a in n.args)}]"
        if n.op == "index":
            labels = "".join("0" if a.op == "const" else str(a.value) for a in n.args)
            return f"rm.index_view({n.value}, {labels!r}, {axes!r})"
        if n.op == "ivar":
            return f"rm.index_values(C, {str(n.value)!r}, {axes!r})"
        if n.op == "contract":
            outer = axes
            axes = outer + str(n.value)
            term = n.args[0]
            if term.op == "bin" and term.value == "*":
                text = f"rm.fma_fold({go(term.args[0])}, {go(term.args[1])}, axis={len(outer)})"
            else:
                text = f"rm.fold_add({go(term)}, axis={len(outer)})"
            axes = outer
            return text
        if n.op == "reduce":
            if axis is None:
                raise ExprError("this op kind does not reduce")
            return f"{REDUCERS[str(n.value)][1]}({go(n.args[0])}, axis={axis})"
        if n.op == "apply" and str(n.value) not in (enums or {}):  # a function of the op kind's own
            return f"rm.{n.value}({', '.join(go(a) for a in n.args)})"
        if n.op == "apply":
            enum = (enums or {})[str(n.value)]
            return f"apply_{enum}(C, {n.value}, {', '.join(go(a) for a in n.args)})"
        if n.op == "name":
            return str(n.value)
        if n.op == "const":
            return f"C({n.value!r})"
        if n.op == "neg":
            return f"rm.negate({go(n.args[0])})"
        if n.op == "not":
            return f"rm.invert({go(n.args[0])})"
        if n.op == "bin" and n.value in _NUMPY_HELPERS:
            return f"rm.{_NUMPY_HELPERS[str(n.value)]}({go(n.args[0])}, {go(n.args[1])})"
        if n.op in ("bin", "cmp"):
            return f"({go(n.args[0])} {n.value} {go(n.args[1])})"
        if n.value in ("rounded", "saturated"):
            return f"rm.{n.value}(T, {go(n.args[0])})"
        if n.value == "as_source":  # the operands as stored, from the caller's `stored` arrays
            inner = to_numpy(_renamed(n.args[0], lambda name: f"stored[{name!r}]"))
            return f"rm.as_source(C, S, {inner})"
        return f"{FUNCTIONS[str(n.value)][2]}({', '.join(go(a) for a in n.args)})"

    return go(node)


def to_latex(node: Node, ref: Callable[[str], str], reduce_index: str | None = None) -> str:
    """LaTeX math; `ref(name)` spells an operand, e.g. `\\mathrm{src}_{i,j}`; a reduction runs over
    `reduce_index` (given by the op kind)."""

    def go(n: Node) -> str:
        if n.op == "assign":
            return f"{go(n.args[0])} = {go(n.args[1])}"
        if n.op == "index":
            name = str(n.value).replace("_", r"\_")  # an underscore in \mathrm is a subscript
            return rf"\mathrm{{{name}}}_{{{','.join(_latex_index(a) for a in n.args)}}}"
        if n.op == "ivar":
            return str(n.value)
        if n.op == "icmp":
            tex = next(v[1] for v in _CMPOPS.values() if v[0] == n.value)
            return f"{_latex_index(n.args[0])} {tex} {_latex_index(n.args[1])}"
        if n.op == "contract":
            return rf"\sum_{{{n.value}}} {wrap(n.args[0], 7)}"
        if n.op == "reduce":
            if reduce_index is None:
                raise ExprError("this op kind does not reduce")
            return rf"{REDUCERS[str(n.value)][2]}_{{{reduce_index}}} {wrap(n.args[0], 7)}"
        if n.op == "apply":
            return rf"\mathrm{{{n.value}}}({', '.join(go(a) for a in n.args)})"
        if n.op == "name":
            return ref(str(n.value))
        if n.op == "const":
            return str(n.value)
        if n.op == "neg":
            return f"-{wrap(n.args[0], 8)}"
        if n.op == "not":
            return rf"\lnot {wrap(n.args[0], 8)}"
        if n.op == "bin":
            left, right = n.args
            if n.value == "/":
                return rf"\frac{{{go(left)}}}{{{go(right)}}}"
            tex = _BINOPS[next(k for k, v in _BINOPS.items() if v[0] == n.value)][2]
            return f"{wrap(left, _prec(n))} {tex} {wrap(right, _prec(n) + 1)}"
        if n.op == "cmp":
            tex = next(v[1] for v in _CMPOPS.values() if v[0] == n.value)
            return f"{wrap(n.args[0], 5)} {tex} {wrap(n.args[1], 5)}"
        fn = str(n.value)
        if fn == "select":
            cond, a, b = n.args
            return f"({go(cond)}) ? {branch(a)} : {branch(b)}"
        if fn == "sqrt":
            return rf"\sqrt{{{go(n.args[0])}}}"
        return f"{FUNCTIONS[fn][3]}({', '.join(go(a) for a in n.args)})"

    def branch(n: Node) -> str:
        return go(n) if _prec(n) >= 9 else f"({go(n)})"

    def wrap(n: Node, prec: int) -> str:
        text = go(n)
        return rf"\left({text}\right)" if _prec(n) < prec else text

    return go(node)


def _latex_index(node: Node) -> str:
    if _divides(node):
        return _latex_divided(node)
    text = index_text(node).replace("_", r"\_")
    return re.sub(r"([A-Za-z][A-Za-z0-9\\_]*[A-Za-z0-9_])", r"\\mathrm{\1}", text).replace(" * ", r" \cdot ")


def _divides(node: Node) -> bool:
    return (node.op == "affine" and node.value in _BY_CONSTANT) or any(_divides(a) for a in node.args)


def _latex_divided(node: Node) -> str:
    """An index that divides or takes a remainder: `\\lfloor (c + j) / 2 \rfloor`, `j \bmod 2`."""
    if node.op != "affine":
        if node.op == "icmp":
            tex = next(v[1] for v in _CMPOPS.values() if v[0] == node.value)
            return f"{_latex_index(node.args[0])} {tex} {_latex_index(node.args[1])}"
        return _latex_index(node)
    left, right = (_latex_divided(a) for a in node.args)
    if node.value in ("*", "%", "//") and node.args[0].op == "affine" and node.args[0].value in ("+", "-"):
        left = f"({left})"
    if node.value == "//":
        return rf"\left\lfloor {left} / {right} \right\rfloor"
    return {"%": rf"{left} \bmod {right}", "*": rf"{left} \cdot {right}"}.get(
        str(node.value), f"{left} {node.value} {right}"
    )


def _numpy_index(node: Node) -> str:
    """One index as Python over the index grids: a tile's extent is its array's."""
    text = index_text(node)
    return re.sub(
        r"\b(rows|cols)\((\w+)\)", lambda m: f"{m.group(2)}.shape[{EXTENTS.index(m.group(1))}]", text
    )


def reduction(node: Node) -> tuple[str, Node] | None:
    """(reducer, term) when the whole expression is one reduction, e.g. `sum(src)`."""
    if node.op == "reduce":
        return str(node.value), node.args[0]
    return None


def reducer_step(name: str) -> str:
    """C++ helper that folds one more term into a reduction's accumulator (for an arg-reduction,
    the comparison that makes a term the new best)."""
    return REDUCERS[name][0]


def is_arg_reduction(name: str) -> bool:
    return name in ARG_REDUCERS


def _renamed(node: Node, spell: Callable[[str], str]) -> Node:
    """The expression with each operand name spelled by `spell` (a rendering step, not a parse)."""
    if node.op == "name":
        return Node("name", value=spell(str(node.value)))
    return Node(node.op, tuple(_renamed(a, spell) for a in node.args), node.value)


def stored_operands(node: Node) -> list[str]:
    """The operands the expression's `as_source(...)` calls read, in order of first use."""
    names = (str(d.value) for c in _as_source_calls(node) for d in _walk(c.args[0]) if d.op == "name")
    return list(dict.fromkeys(names))


def names_outside_as_source(node: Node) -> set[str]:
    """The operands the expression reads other than inside its `as_source(...)` calls."""
    if node.op == "call" and node.value == "as_source":
        return set()
    found = {str(node.value)} if node.op in ("name", "apply", "index") else set()
    return found.union(*(names_outside_as_source(a) for a in node.args))


def as_source_problems(node: Node) -> list[str]:
    """What an `as_source(...)` call may not hold: it reads operands with `+`, `-` and `*` only (its
    value is computed in the sources' type, which has no constants or functions of its own)."""

    def plain(n: Node) -> bool:
        arithmetic = n.op == "bin" and n.value in ("+", "-", "*")
        return n.op == "name" or (arithmetic and all(plain(a) for a in n.args))

    if any(not plain(c.args[0]) for c in _as_source_calls(node)):
        return ["as_source() holds operands joined by +, - and * only"]
    return []


def _as_source_calls(node: Node) -> list[Node]:
    return [n for n in _walk(node) if n.op == "call" and n.value == "as_source"]


def _walk(node: Node) -> list[Node]:
    return [node, *(d for a in node.args for d in _walk(a))]


def has_reduction(node: Node) -> bool:
    return node.op in ("reduce", "contract") or any(has_reduction(a) for a in node.args)


def bitwise(node: Node) -> bool:
    """Whether an expression only combines its operands' bits (`&`, `|`, `^`, `~`): its lanes compute
    on each element's stored bit pattern, whatever the element type."""
    if node.op == "name":
        return True
    if node.op == "not" or (node.op == "bin" and node.value in ("&", "|", "^")):
        return all(bitwise(a) for a in node.args)
    return False


def shift_counts(node: Node) -> set[str]:
    """Operands the expression reads only as the count of a shift (`x << n`, `x >> n`): a count's
    lanes may be integers of either signedness, as any count outside [0, bit width) is one."""
    counts: set[str] = set()
    other: set[str] = set()

    def go(n: Node, as_count: bool) -> None:
        if n.op == "name":
            (counts if as_count else other).add(str(n.value))
        elif n.op == "bin" and n.value in ("<<", ">>"):
            go(n.args[0], False)
            go(n.args[1], True)
        else:
            for a in n.args:
                go(a, False)

    go(node, False)
    return counts - other
