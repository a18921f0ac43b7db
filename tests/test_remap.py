"""The remap kind: affine and piecewise index notation (spec/expr.py) and the facts the kind reads
from one parse tree (page math, simulator index expressions, golden index grids); the reshape kind
and the same_bytes rule. The ops themselves run through tests/test_simulator.py."""

from __future__ import annotations

import numpy as np
import pytest

from ptogen.lower.views import ProjectView
from ptogen.opkinds import KINDS
from ptogen.spec import expr
from ptogen.spec.load import load_specs
from ptogen.testing import refmath as rm

from .helpers import ROOT

PROJECT = ProjectView(load_specs(ROOT / "specs", ROOT))


def op(short: str):  # type: ignore[no-untyped-def]
    return next(o for o in PROJECT.ops if o.spec.short == short)


def test_affine_indices_render_latex_cpp_and_numpy_from_one_tree() -> None:
    tree = expr.parse("dst[i,j] = src[i + r0, 2*j + 1]", {"dst", "src", "r0"})
    assert expr.indexed(tree.args[1]) == [("src", ("i + r0", "2 * j + 1"))]
    assert expr.to_latex(tree, str) == r"\mathrm{dst}_{i,j} = \mathrm{src}_{i + \mathrm{r0},2 \cdot j + 1}"
    row, col = tree.args[1].args
    assert expr.index_cpp(row, {"i": "r", "r0": "r0"}.__getitem__) == "(r + r0)"
    assert expr.index_cpp(col, {"j": "c"}.__getitem__) == "((2 * c) + 1)"
    grid = np.arange(3)
    assert expr.index_value(col, {"j": grid}).tolist() == [1, 3, 5]
    src = np.arange(16).reshape(4, 4)
    fn = eval(expr.to_numpy(tree), {"rm": rm, "r0": np.float32(1), "src": src})  # noqa: S307 (our own rendering)
    assert fn(np.array([[0]]), np.array([[1]])).tolist() == [[src[1, 3]]]


def test_the_left_side_may_be_affine_with_one_letter_per_index() -> None:
    tree = expr.parse("dst[i + r0, j + c0] = src[i,j]", {"dst", "src", "r0", "c0"})
    assert expr.lhs_indices(tree) == ["i", "j"]
    with pytest.raises(expr.ExprError, match="column 5: an index of the left side holds exactly one letter"):
        expr.parse("dst[i + j, j] = src[i,j]", {"dst", "src"})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("dst[i,j] = src[i * j, j]", "column 16: an index multiplies by a constant only"),
        ("dst[i,j] = src[i + k, j]", "column 20: index 'k' is not bound"),
        ("dst[i,j] = src[i / 2, j]", "an index term is a letter, a scalar operand or an integer"),
    ],
)
def test_bad_affine_indices_name_their_column(text: str, message: str) -> None:
    with pytest.raises(expr.ExprError, match=message):
        expr.parse(text, {"dst", "src"})


def test_piecewise_reads_choose_a_branch_per_element() -> None:
    tree = expr.parse(
        "dst[i,j] = select(j < cols(src0), src0[i,j], src1[i, j - cols(src0)])", {"dst", "src0", "src1"}
    )
    cond, first, last = tree.args[1].args
    assert expr.index_text(cond) == "j < cols(src0)"
    env = {"i": np.zeros(5, dtype=int), "j": np.arange(5), "cols(src0)": 2}
    assert expr.index_value(cond, env).tolist() == [True, True, False, False, False]
    assert expr.index_value(last.args[1], env).tolist() == [-2, -1, 0, 1, 2]
    assert r"\mathrm{cols}(\mathrm{src0})" in expr.to_latex(tree, str)
    assert "src0.shape[1]" in expr.to_numpy(tree)


def test_the_remap_kind_reads_its_ops_from_the_expression() -> None:
    remap = KINDS["remap"]
    extract, insert, concat = op("textract"), op("tinsert"), op("tconcat")
    assert remap.walked(extract) == "dst" and remap.walked(insert) == "src"  # type: ignore[attr-defined]
    assert remap.element_map(extract) == {  # type: ignore[attr-defined]
        "dst_row": "r",
        "dst_col": "c",
        "src_row": "(r + index_row)",
        "src_col": "(c + index_col)",
    }
    assert remap.bounds(insert) == [("dst", "((rows - 1) + index_row)", "((cols - 1) + index_col)")]  # type: ignore[attr-defined]
    assert remap.reads(concat) == ["src0", "src1"]  # type: ignore[attr-defined]
    assert [b["cond"] for b in remap.branches(concat)] == ["(c < cols_src0)", "(c - cols_src0) < cols_src1"]  # type: ignore[attr-defined]
    assert remap.math(extract) == (  # type: ignore[attr-defined]
        r"\mathrm{dst}_{i,j} = \mathrm{src}_{i + \mathrm{index\_row},j + \mathrm{index\_col}}"
    )


def test_the_remap_kind_rejects_what_it_cannot_walk() -> None:
    remap = KINDS["remap"]
    names = {"dst", "src", "r0"}
    assert remap.check_expr(expr.parse("dst[i,j] = src[i + r0, j]", names)) == []
    assert remap.check_expr(expr.parse("src", names))  # not index notation
    both = remap.check_expr(expr.parse("dst[i + r0, j] = src[i + r0, j]", names))
    assert both and "exactly one side" in both[0]
    assert remap.check_expr(expr.parse("dst[i,j] = src[i,j] * 2", names))


def test_same_bytes_is_a_static_rule_with_a_breaking_case() -> None:
    reshape = op("treshape")
    (rv,) = [rv for rv in reshape.rules_for("CPU") if rv.rule.kind == "same_bytes"]
    assert "span the same number of bytes" in rv.rule.text(reshape)


def test_a_pair_sum_adds_reads_of_one_tile() -> None:
    remap = KINDS["remap"]
    pair = op("tpairreducesum")
    assert remap.sums(pair) and remap.source(pair) == "src0"  # type: ignore[attr-defined]
    assert remap.terms(pair) == [  # type: ignore[attr-defined]
        {"row": "r", "col": "(2 * c)"},
        {"row": "r", "col": "((2 * c) + 1)"},
    ]
    names = {"dst", "src0", "src1"}
    assert remap.check_expr(expr.parse("dst[i,j] = src0[i, 2 * j] + src1[i, 2 * j + 1]", names))
