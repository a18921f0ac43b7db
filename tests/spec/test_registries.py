"""The open model: op kinds and rule kinds come from registries, and one parse of an expression
drives the page's math, the simulator's C++ and the numpy reference."""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import TypeAdapter, ValidationError

from ptogen.opkinds import KINDS
from ptogen.rules import RULE_KINDS, PageContext, PageLine, Rule, kind_name
from ptogen.rules.valid_extent import MinValidExtentRule, SameValidExtentRule
from ptogen.spec import expr
from ptogen.testing import refmath
from ptogen.testing.plan import TileDecl

from ..helpers import ROOT, checkout_project

PROJECT = checkout_project()


def op(short: str):  # type: ignore[no-untyped-def]
    return next(o for o in PROJECT.ops if o.spec.short == short)


def test_every_op_names_a_registered_kind() -> None:
    assert {o.spec.semantics.kind for o in PROJECT.ops} <= set(KINDS)
    assert {"elementwise", "lane", "tile_reduce", "lane_reduce"} <= set(KINDS)


def test_reduction_math_comes_from_the_expression() -> None:
    assert op("trowsum").doc.math == r"\mathrm{dst}_{i,0} = \sum_{j} \mathrm{src}_{i,j}"
    assert op("tcolmax").doc.math == r"\mathrm{dst}_{0,j} = \max_{i} \mathrm{src}_{i,j}"
    assert op("trowsum").test.numpy_expr == "rm.fold_add(src, axis=1)"
    assert op("tcolmax").test.numpy_expr == "rm.fold_maximum(src, axis=0)"
    assert op("tabs").doc.math == r"\mathrm{dst}_{i,j} = \mathrm{abs}(\mathrm{src}_{i,j})"


def test_one_argument_max_reduces_and_two_arguments_compare() -> None:
    names = {"a", "b"}
    assert expr.parse("max(a)", names).op == "reduce"
    assert expr.parse("max(a, b)", names).op == "call"
    assert expr.to_latex(expr.parse("sum(a * b)", names), lambda n: n, "j") == r"\sum_{j} a \cdot b"
    with pytest.raises(expr.ExprError):
        expr.to_cpp(expr.parse("sum(a)", names), lambda n: n, "C")  # a loop: the kind renders it


def test_kinds_check_their_expressions() -> None:
    names = {"src"}
    assert KINDS["elementwise"].check_expr(expr.parse("sum(src)", names))
    assert not KINDS["tile_reduce"].check_expr(expr.parse("sum(src)", names))
    assert KINDS["tile_reduce"].check_expr(expr.parse("src + 1", names))
    assert KINDS["tile_reduce"].check_expr(expr.parse("sum(sum(src))", names))


def test_rounded_rounds_to_the_element_type_in_all_three_outputs() -> None:
    """`rounded(x)` is one fact: the page's rnd_T, the simulator's narrow to T and back, and the
    reference's rounding to T; only kinds whose simulator names T accept it."""
    node = expr.parse("rounded(a * b) + c", {"a", "b", "c"})
    assert expr.to_latex(node, lambda n: n) == r"\mathrm{rnd}_T(a \cdot b) + c"
    assert "C(sim::narrow<T>(sim::mul<C>(a, b)))" in expr.to_cpp(node, lambda n: n, "C")
    assert expr.to_numpy(node) == "(rm.rounded(T, (a * b)) + c)"
    assert not KINDS["elementwise"].check_expr(node)
    assert any("element type" in p for p in KINDS["predicate"].check_expr(node))
    # half: 1.5 * 1.3330078 = 1.99951171875 is not a half; rounded it is 2.0, which the sum keeps
    a, b = np.float32(np.float16(1.5)), np.float32(np.float16(1.3330078))
    product = refmath.rounded(np.float16, np.asarray(a * b))
    assert product.dtype == np.float32 and float(product) == float(np.float16(a * b)) != float(a * b)
    assert float(refmath.rounded(np.float32, np.asarray(a * b))) == float(a * b)


def test_saturated_converts_with_saturation_in_all_three_outputs() -> None:
    """`saturated(x)`: the page's sat_T, the simulator's sim::saturate to T, the reference's clamp."""
    node = expr.parse("saturated(max(a + b, 0))", {"a", "b"})
    assert expr.to_latex(node, lambda n: n).startswith(r"\mathrm{sat}_T(")
    assert "C(sim::saturate<T>(" in expr.to_cpp(node, lambda n: n, "C")
    assert expr.to_numpy(node).startswith("rm.saturated(T, ")
    assert any("element type" in p for p in KINDS["predicate"].check_expr(node))
    half_sums = np.array([2.5, 3.5, 200.0, np.nan], dtype=np.float32)
    assert refmath.saturated(np.int8, half_sums).tolist()[:3] == [2.0, 4.0, 127.0]
    assert refmath.saturated(np.int8, half_sums)[3] == 0
    assert refmath.saturated(np.int8, np.array([300, -300], dtype=np.int16)).tolist() == [127, -128]
    assert refmath.saturated(np.float16, np.array([7e4], dtype=np.float32)).tolist() == [65504.0]


def test_as_source_computes_in_the_tiles_type_in_all_three_outputs() -> None:
    """`as_source(x)`: x from its tiles' stored elements in their own type (an `int32_t` sum wraps, a
    `half` one is rounded to `half`), then continued in the compute type; it holds only operands
    joined by +, - and *, and only element-wise ops accept it."""
    node = expr.parse("s * as_source(a + b)", {"a", "b", "s"})
    assert expr.to_latex(node, lambda n: n) == r"s \cdot \mathrm{as\_source}(a + b)"
    assert "C(sim::narrow<S>(sim::add<U>(a_s, b_s)))" in expr.to_cpp(node, lambda n: n, "C")
    assert expr.to_numpy(node) == "(s * rm.as_source(C, S, (stored['a'] + stored['b'])))"
    assert expr.stored_operands(node) == ["a", "b"] and expr.names_outside_as_source(node) == {"s"}
    assert not KINDS["elementwise"].check_expr(node)
    assert any("element type" in p for p in KINDS["predicate"].check_expr(node))
    assert KINDS["elementwise"].check_expr(expr.parse("as_source(a + 1)", {"a"}))
    # int32_t: 2147483647 + 5 wraps to -2147483644 before the conversion to float
    big = np.array([2147483647], dtype=np.int32)
    wrapped = refmath.as_source(np.float32, np.int32, big + np.array([5], dtype=np.int32))
    assert wrapped.dtype == np.float32 and wrapped.tolist() == [-2147483648.0]
    # half: 6.1 + 5.395 is 11.495 in float and 11.5 as a half
    a, b = np.float32(np.float16(6.1)), np.float32(np.float16(5.395))
    assert refmath.as_source(np.float32, np.float16, np.asarray(a + b)).tolist() == 11.5


def test_bit_counts_in_all_three_outputs() -> None:
    """`popcount(x)` and `cls(x)` (vbcnt, vcls): one parse tree gives the page's function, the
    simulator's helper and the reference's count, over the element's own width."""
    for fn in ("popcount", "cls"):
        node = expr.parse(f"{fn}(a)", {"a"})
        assert expr.to_latex(node, lambda n: n) == rf"\mathrm{{{fn}}}(a)"
        assert expr.to_cpp(node, lambda n: n, "C") == f"sim::{fn}<C>(a)"
        assert expr.to_numpy(node) == f"rm.{fn}(a)"
    assert refmath.popcount(np.array([0, -1, 5, -128], dtype=np.int8)).tolist() == [0, 8, 2, 1]
    assert refmath.popcount(np.array([0xFFFF], dtype=np.uint16)).tolist() == [16]
    # the sign bit counts: 0 and -1 give the width, 1 one less, the extremes one
    ints = np.array([0, -1, 1, -2, 127, -128, 63], dtype=np.int8)
    assert refmath.cls(ints).tolist() == [8, 8, 7, 7, 1, 1, 2]
    assert refmath.cls(np.array([0x80000000, 0x7FFFFFFF, 0], dtype=np.uint32)).tolist() == [1, 1, 32]


def test_folds_run_in_order_in_the_operand_type() -> None:
    # float32 left-to-right: 1e8 + 1 + 1 ... stays 1e8, unlike a pairwise or wider sum.
    x = np.array([[1e8] + [1.0] * 16], dtype=np.float32)
    assert refmath.fold_add(x, axis=1).tolist() == [[np.float32(1e8)]]
    assert refmath.fold_add(x.T, axis=0).shape == (1, 1)
    wrap = np.array([[30000, 30000]], dtype=np.int16)
    assert refmath.fold_add(wrap, axis=1).dtype == np.int16
    nan = np.array([[1.0, np.nan, 2.0]], dtype=np.float32)
    assert np.isnan(refmath.fold_maximum(nan, axis=1)[0, 0])


def test_rules_validate_by_kind_and_carry_their_own_text() -> None:
    adapter = TypeAdapter(Rule)
    rule = adapter.validate_python(
        {"kind": "same_valid_extent", "operands": ["dst", "src"], "extent": "rows"}
    )
    assert isinstance(rule, SameValidExtentRule)
    view = op("trowsum").rule_view(
        next(r for r in op("trowsum").spec.constraints if r.kind == "same_valid_extent")
    )
    assert view.condition == "dst.GetValidRow() == src.GetValidRow()"
    assert (
        view.runtime_message("A5") == "PTO runtime error: TROWSUM [A5]: dst must have the valid rows of src"
    )
    assert view.doc == "Runtime: `dst.GetValidRow() == src.GetValidRow()`."
    with pytest.raises(ValidationError):
        adapter.validate_python({"kind": "same_valid_extent", "operands": ["dst"], "extent": "rows"})
    with pytest.raises(ValidationError):
        adapter.validate_python({"kind": "no_such_rule"})


def test_each_rule_kind_recognises_its_own_doc_line() -> None:
    """Import reads back what a rule writes (for the kinds that recognise page lines)."""
    page_line = "Runtime: dst.GetValidRow() == src.GetValidRow()."
    page = PageContext([PageLine(None, page_line)], {"A2A3", "A5", "CPU"}, ["dst", "src"], True, [])
    found = SameValidExtentRule.from_page(page)
    assert found == [{"kind": "same_valid_extent", "operands": ["dst", "src"], "extent": "rows"}]
    assert len({kind_name(c) for c in RULE_KINDS}) == len(RULE_KINDS)


def test_min_valid_extent_states_checks_breaks_and_reads_back_one_relation() -> None:
    """A scratch tile's lower bound (TREM's tmp on A2A3): one relation is the run-time check, the
    message, the doc line, what import reads back and the tile the run-time-fail test shrinks."""
    trem = op("trem")
    rules = [r for r in trem.spec.constraints if isinstance(r, MinValidExtentRule)]
    cols, rows = (trem.rule_view(r) for r in rules)
    assert cols.condition == "tmp.GetValidCol() >= dst.GetValidCol()"
    assert rows.condition == "tmp.GetValidRow() >= 2"
    assert cols.runtime_message("A2A3").endswith("TREM [A2A3]: tmp must have at least the valid cols of dst")
    assert rows.runtime_message("A2A3").endswith("TREM [A2A3]: tmp must have at least 2 valid rows")
    for rule in rules:
        line = PageLine("A2A3", rule.doc(trem).replace("`", ""))
        page = PageContext([line], {"A2A3", "A5", "CPU"}, ["dst", "tmp"], True, [])
        assert MinValidExtentRule.from_page(page) == [
            {"kind": rule.kind, **rule.model_dump(exclude_defaults=True)}
        ]
    strict = TypeAdapter(Rule).validate_python(
        {"kind": "min_valid_extent", "operand": "tmp", "extent": "rows", "at_least": "dst", "strict": True}
    )
    assert strict.text(trem) == "tmp must have more valid rows than dst"
    tiles = {n: TileDecl(n, "float", 8, 8, 8, 8, True, "Vec", "RowMajor") for n in ("dst", "tmp")}
    broken, _ = strict.break_runtime(tiles, {})
    assert broken["tmp"].valid_rows == 8  # equal is not more
    broken, _ = rules[0].break_runtime(tiles, {})
    assert broken["tmp"].valid_cols == 7  # one short of dst's
    with pytest.raises(ValidationError):
        TypeAdapter(Rule).validate_python({"kind": "min_valid_extent", "operand": "tmp", "extent": "rows"})


def test_templates_never_switch_on_rule_kind() -> None:
    for path in (ROOT / "templates").rglob("*.j2"):
        text = path.read_text()
        for cls in RULE_KINDS:
            assert f'"{kind_name(cls)}"' not in text, f"{path} switches on rule kind {kind_name(cls)}"


def test_a_generation_error_names_the_spec_file_and_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """As torchgen's location context: a failure while generating one op names its spec entry."""
    from ptogen.emit.render import plan
    from ptogen.errors import GenerationError

    def broken(self, project, op, tests):  # type: ignore[no-untyped-def]
        if op.spec.short == "trowsum":
            raise ValueError("no test shape fits")

    monkeypatch.setattr(type(KINDS["tile_reduce"]), "plan_tests", broken)
    with pytest.raises(GenerationError) as info:
        plan(PROJECT)
    message = str(info.value)
    assert message.startswith("specs/ops/reduce_and_expand/trowsum.yaml:1: pto.trowsum: planning its tests:")
    assert "no test shape fits" in message


def test_the_package_has_no_import_cycles() -> None:
    """Module-level imports inside ptogen form no cycle (the layout is a pipeline)."""
    import ast

    package = ROOT / "ptogen"
    modules: dict[str, set[str]] = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        here = list(parts[:-1])
        deps = set()
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ImportFrom) and node.level:
                base = ".".join(here[: len(here) - node.level + 1] + ([node.module] if node.module else []))
                deps.add(base)
                deps.update(f"{base}.{alias.name}" for alias in node.names)  # submodules too
        modules[name] = deps

    def known(dep: str) -> str:
        while dep not in modules and "." in dep:
            dep = dep.rsplit(".", 1)[0]
        return dep

    graph = {m: {known(d) for d in ds if known(d) in modules} - {m} for m, ds in modules.items()}
    done: set[str] = set()

    def visit(node: str, stack: list[str]) -> None:
        for nxt in graph.get(node, ()):
            assert nxt not in stack, " -> ".join([*stack[stack.index(nxt) :], nxt])
            if nxt not in done:
                visit(nxt, [*stack, nxt])
        done.add(node)

    for start in graph:
        visit(start, [start])
