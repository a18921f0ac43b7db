"""A page's `semantics` section: the op kind that recognises the page, the operand it iterates, and
its element expression (and the overloads' own) read from the formula."""

from __future__ import annotations

import re
from typing import Any

from ..spec import expr as language
from . import kinds
from .contract import PageOp
from .formula import attr_arity, latex_to_expr, latex_to_index_notation, reduces_over
from .naming import plain
from .operands import name_from_math, page_rows
from .pagefacts import PageFacts
from .problem import ImportProblem
from .sections import domain_paragraph

# Operand kinds an expression may name.
_VALUES = ("tile", "scalar", "vreg", "global", "mask")
# What a formula the expression language cannot read raises.
_UNREAD = (language.ExprError, SyntaxError, ValueError)


# What a vector op page says when an inactive lane keeps the destination's value.
KEEPS_INACTIVE = "an inactive lane keeps the destination's value"


def read_semantics(
    facts: PageFacts,
    operands: list[dict[str, Any]],
    intrinsic: dict[str, Any] | None,
    vector: bool,
    unplaced: list[str],
    level: str = "tile",
) -> dict[str, Any]:
    """The semantics section; each fact the page lacks is set to a placeholder and reported."""
    kind, dst, stated = _kind_and_domain(facts, operands, vector, level)
    dsts = [o["name"] for o in operands if o["role"] == "dst"]
    params = intrinsic["params"] if intrinsic else []
    if facts.math and not page_rows(facts):
        name_from_math(facts.math, operands, params, unplaced)
    names = {o["name"] for o in operands if o["kind"] in _VALUES}
    if kinds.reads_groups(kind):  # a context that stands for several tensors (a group of ranks)
        names |= {o["name"] for o in operands if o["kind"] == "context"}
    attrs = attr_arity(facts.math, {o["name"] for o in operands if o["kind"] == "attr"}) if facts.math else {}
    attrs |= kinds.functions(kind)
    expr, extra = _element_math(facts, kind, names, attrs, unplaced)
    if expr is None:
        first = next((o["name"] for o in operands if o["role"] in ("src", "scalar")), dst)
        if kinds.computes(kind):
            unplaced.append(
                f"no element semantics on the page: `semantics.expr` set to `{first}`; write the real one"
            )
        expr = first
    _overload_formulas(facts, kind, (intrinsic or {}).get("overloads", []), names, attrs, unplaced)
    sem: dict[str, Any] = {"kind": kind, "expr": expr, "domain": dst, **stated}
    sem["tolerance"] = {"kind": "exact"}
    if extra:
        sem["extra_outputs"] = extra
    kinds.complete(kind, sem, operands)
    expr = sem["expr"]
    if vector:
        # The formula's introduction says what an inactive lane holds when the call names no mode.
        keeps = any(KEEPS_INACTIVE in line for line in facts.mechanism)
        sem["inactive_lanes"] = "preserve" if keeps else "zero"
    if len(dsts) > 1 and vector:
        # Further results (a carry mask): the page names them but gives no expression for them.
        sem["extra_outputs"] = {d: expr for d in dsts[1:]}
        unplaced.append(
            f"no semantics for the further result(s) {', '.join(dsts[1:])}: set to `{expr}`; write them"
        )
    return sem


def _kind_and_domain(
    facts: PageFacts, operands: list[dict[str, Any]], vector: bool, level: str
) -> tuple[str, str, dict[str, Any]]:
    """The op kind that recognises the page (each kind looks for itself: `recognise`), the operand
    the op iterates, and the further semantics the kind reads from the page (`import_semantics`)."""
    math = facts.math or ""
    operand_kinds = tuple(o["kind"] for o in operands)
    operand_types = tuple(o["asm_type"] for o in operands)
    page = PageOp(
        vector, math, reduces_over(math), domain_paragraph(facts), operand_kinds, level, operand_types
    )
    kind = kinds.recognise(page)
    if kind is None:
        raise ImportProblem("no op kind recognises this page (its formula, iteration domain and operands)")
    dst = kinds.domain(kind, operands)
    if dst is None:
        raise ImportProblem("the page names no destination operand (no `dst` and no result)")
    return kind, dst, kinds.page_semantics(kind, page)


def _reader(kind: str) -> Any:
    return latex_to_index_notation if kinds.index_notation(kind) else latex_to_expr


def _element_math(
    facts: PageFacts, kind: str, names: set[str], attrs: dict[str, int], unplaced: list[str]
) -> tuple[str | None, dict[str, str]]:
    """The element expression of the main result, and those of further results the formula states."""
    if not facts.math:
        return None, {}
    read = _reader(kind)
    # A kind whose formula states several results, or more than the element math, says which
    # plain formula gives which result (the first: the main one).
    (_, main), *further = kinds.formulas(kind, facts.math)
    expr = None
    try:
        expr = read(main, names, attrs)
        return expr, {str(out): read(formula, names, attrs) for out, formula in further}
    except _UNREAD as exc:
        unplaced.append(f"math not understood ({exc}): {facts.math}")
        return expr, {}


def _overload_formulas(
    facts: PageFacts,
    kind: str,
    overloads: list[dict[str, Any]],
    names: set[str],
    attrs: dict[str, int],
    unplaced: list[str],
) -> None:
    """An overload's own expression, from the formula the page gives after "Declaration N." (the
    main declaration is 1, so overload k is declaration k + 1)."""
    for before, formula in facts.more_math:
        m = re.match(r"Declaration (\d+)\. ", plain(before))
        if m is None or not 1 < int(m.group(1)) <= len(overloads) + 1:
            continue
        ov = overloads[int(m.group(1)) - 2]
        ov_names = names | {o["name"] for o in ov.get("operands", []) if o["kind"] in ("tile", "scalar")}
        try:
            ov["expr"] = _reader(kind)(formula, ov_names, attrs)
        except _UNREAD as exc:
            unplaced.append(f"math of declaration {m.group(1)} not understood ({exc}): {formula}")
