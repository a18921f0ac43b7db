"""The element-semantics expression language of op specs.

An op's `semantics.expr` (e.g. ``select(src > 0, src, src * slope)``) is parsed once with Python's
`ast` into a small checked tree, then rendered three ways: LaTeX for the docs, C++ for the CPU
simulator and numpy for the golden reference. Only the constructs below are accepted, so a
spec cannot smuggle code into any of the three outputs.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

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
    # The value rounded to the result's element type `T` and continued in the compute type: states
    # an intermediate rounding (TAXPY's half product), a no-op where T is the compute type.
    "rounded": (1, "", "rm.rounded", r"\mathrm{rnd}_T"),
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
    op: str  # "name", "const", "call", "bin", "cmp", "neg", "not", "apply", "reduce"
    args: tuple[Node, ...] = ()
    value: str | int | float | None = None


def parse(text: str, names: set[str], attrs: dict[str, int] | None = None) -> Node:
    """Parse and check an expression; `names` are the operands it may read, `attrs` the enum
    attributes it may apply (name -> number of arguments), e.g. `mode(src0, src1)`."""
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        raise ExprError(f"cannot parse expression: {exc.msg}") from None
    return _convert(tree, names, attrs or {})


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
    found = {str(node.value)} if node.op in ("name", "apply") else set()
    for arg in node.args:
        found |= names_used(arg)
    return found


_PREC = {"+": 6, "-": 6, "*": 7, "/": 7, "&": 3, "|": 1, "^": 2, "<<": 5, ">>": 5}


def _prec(node: Node) -> int:
    if node.op == "reduce":
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
) -> str:
    """C++ in compute type `ctype`; `ref(name)` spells an operand's element as a compute value;
    `enums` maps attribute operands to their enum (applied through generated `apply_<Enum>`);
    `varying` names the operands whose value changes from element to element (tiles, vregs)."""

    def invariant(n: Node) -> bool:
        return not (names_used(n) & varying)

    def go(n: Node) -> str:
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
        helper = FUNCTIONS[fn][1]
        if fn in _BY_INVARIANT and varying and not invariant(n.args[0]) and invariant(n.args[1]):
            helper = _BY_INVARIANT[fn]
        return f"{helper}<{ctype}>({', '.join(go(a) for a in n.args)})"

    def wrap(n: Node, prec: int) -> str:
        text = go(n)
        return f"({text})" if _prec(n) < prec else text

    return go(node)


# Operators whose numpy spelling differs from C++ semantics (integer division, shift counts).
_NUMPY_HELPERS = {"/": "divide", "<<": "shl", ">>": "shr"}


def to_numpy(node: Node, enums: dict[str, str] | None = None, axis: int | None = None) -> str:
    """Python/numpy source; operands are variables of the same name, constants use `C(...)`;
    a reduction folds over `axis` (given by the op kind)."""

    def go(n: Node) -> str:
        if n.op == "reduce":
            if axis is None:
                raise ExprError("this op kind does not reduce")
            return f"{REDUCERS[str(n.value)][1]}({go(n.args[0])}, axis={axis})"
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
        if n.value == "rounded":
            return f"rm.rounded(T, {go(n.args[0])})"
        return f"{FUNCTIONS[str(n.value)][2]}({', '.join(go(a) for a in n.args)})"

    return go(node)


def to_latex(node: Node, ref: Callable[[str], str], reduce_index: str | None = None) -> str:
    """LaTeX math; `ref(name)` spells an operand, e.g. `\\mathrm{src}_{i,j}`; a reduction runs over
    `reduce_index` (given by the op kind)."""

    def go(n: Node) -> str:
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


def has_reduction(node: Node) -> bool:
    return node.op == "reduce" or any(has_reduction(a) for a in node.args)
