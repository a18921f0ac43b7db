"""The remap kind: affine and piecewise index notation (spec/expr.py) and the facts the kind reads
from one parse tree (page math, simulator index expressions, golden index grids); the reshape kind,
the same_bytes rule and the valid_multiple rule (TINTERLEAVE's even valid columns on A5);
TEXTRACT's two-destination ND -> 2xNZ form at two different windows, under A5's rules and the
CPU's. The ops themselves run through tests/test_simulator.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from ptogen.opkinds import KINDS
from ptogen.rules import RULE_KINDS
from ptogen.rules.parts import is_static
from ptogen.rules.valid_multiple import ValidMultipleRule
from ptogen.spec import expr
from ptogen.testing import refmath as rm
from ptogen.testing.plan import TileDecl

from ..compilers import COMPILERS, build_program, require
from .common import PROJECT


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


def test_indices_divide_and_take_remainders_by_a_constant() -> None:
    names = {"dst0", "src0", "src1"}
    tree = expr.parse(
        "dst0[i,j] = select(j % 2 == 0, src0[i, (cols(dst0) + j) // 2], src1[i, j // 2])", names
    )
    cond, first, _ = tree.args[1].args
    assert expr.index_text(first.args[1]) == "(cols(dst0) + j) // 2"
    assert expr.index_cpp(first.args[1], {"j": "c", "cols(dst0)": "n"}.__getitem__) == "((n + c) / 2)"
    j = np.arange(5)
    assert expr.index_value(cond, {"j": j}).tolist() == [True, False, True, False, True]
    assert expr.index_value(first.args[1], {"j": j, "cols(dst0)": 4}).tolist() == [2, 2, 3, 3, 4]
    latex = expr.to_latex(tree, str)
    assert r"(j \bmod 2 = 0)" in latex
    assert r"\left\lfloor (\mathrm{cols}(\mathrm{dst0}) + j) / 2 \right\rfloor" in latex
    with pytest.raises(expr.ExprError, match="divides by a positive constant only"):
        expr.parse("dst0[i,j] = src0[i, j // 0]", names)
    with pytest.raises(expr.ExprError, match="divides by a positive constant only"):
        expr.parse("dst0[i,j] = src0[i, j % i]", names)


def test_two_destinations_each_have_their_own_expression() -> None:
    kind = KINDS["remap"]
    inter = op("tinterleave")
    assert kind.multi(inter) and kind.multi_reads(inter) == ["src0", "src1"]
    outs = kind.multi_outputs(inter)
    assert [o["dst"] for o in outs] == ["dst0", "dst1"]
    assert outs[1]["branches"][0] == {
        "cond": "(((cols_dst0 + c) % 2) == 0)",
        "tile": "src0",
        "row": "r",
        "col": "((cols_dst0 + c) / 2)",
    }
    assert outs[1]["branches"][1]["cond"] == "((cols_dst0 + c) / 2) < cols_src1"
    assert kind.math(inter).startswith(r"\begin{aligned}\mathrm{dst0}_{i,j} = ")
    assert r" \\ \mathrm{dst1}_{i,j} = " in kind.math(inter)
    # the page's formula reads back as the two destinations' expressions
    formulas = kind.import_formulas(kind.math(inter))
    assert [name for name, _ in formulas] == [None, "dst1"]
    # TDEINTERLEAVE's one-source form passes its source for both reads and has its own golden
    de = op("tdeinterleave")
    one = de.forms[1]
    assert kind.sim_args(de, one) == ["dst0", "dst1", "src", "src"]
    assert kind.form_changes_result(de, one)
    assert kind.manifest_extra(de)["stand_ins"] == {"1": {"src1": "src0"}}
    assert not kind.multi(op("tconcat"))


def test_interleave_and_deinterleave_are_inverse_in_the_golden() -> None:
    """The numpy of both ops' expressions over one 3x6 stream: deinterleaving what was interleaved
    gives the sources back, for an even and (as the page's stream says) an odd column count."""
    names = {"dst0", "dst1", "src0", "src1"}
    inter = {
        d: op("tinterleave").extra_exprs[d] if d != "dst0" else op("tinterleave").loaded.expr
        for d in ("dst0", "dst1")
    }
    de = {
        d: op("tdeinterleave").extra_exprs[d] if d != "dst0" else op("tdeinterleave").loaded.expr
        for d in ("dst0", "dst1")
    }
    assert names >= {str(t.args[0].value) for t in inter.values()}
    for cols in (6, 5):
        a, b = np.arange(3 * cols).reshape(3, cols), 100 + np.arange(3 * cols).reshape(3, cols)

        def run(trees, s0, s1, cols=cols):  # type: ignore[no-untyped-def]
            out = {}
            i, j = np.meshgrid(np.arange(3), np.arange(cols), indexing="ij")
            env = {"i": i, "j": j, "cols(src0)": cols, "cols(src1)": cols, "cols(dst0)": cols}
            for d, tree in trees.items():
                want = np.zeros((3, cols), dtype=int)
                taken = np.zeros((3, cols), dtype=bool)
                for cond, read in KINDS["remap"]._branches_of(tree.args[1]):
                    rr, cc = (np.broadcast_to(expr.index_value(x, env), i.shape) for x in read.args)
                    holds = expr.index_value(cond, env) if cond is not None else cc < cols
                    here = ~taken & np.broadcast_to(holds, i.shape)
                    src = s0 if str(read.value) == "src0" else s1
                    want[here] = src[rr[here], cc[here]]
                    taken |= here
                assert taken.all()
                out[d] = want
            return out

        mixed = run(inter, a, b)
        stream = np.concatenate([a[:, :, None], b[:, :, None]], axis=2).reshape(3, 2 * cols)
        assert (np.concatenate([mixed["dst0"], mixed["dst1"]], axis=1) == stream).all()
        back = run(de, mixed["dst0"], mixed["dst1"])
        assert (back["dst0"] == a).all() and (back["dst1"] == b).all()


RULE = ValidMultipleRule(operand="dst0", extent="cols", multiple=2, profiles=["A5"])


def test_it_is_registered_and_checks_at_run_time() -> None:
    assert ValidMultipleRule in RULE_KINDS
    assert not is_static(RULE) and RULE.rule_operands == ["dst0"]
    with pytest.raises(ValidationError):
        ValidMultipleRule(operand="dst0", extent="cols", multiple=1)


def test_condition_text_and_page_line_come_from_the_op() -> None:
    inter = op("tinterleave")
    rv = next(rv for rv in inter.rules_for("A5") if rv.rule.kind == "valid_multiple")
    assert rv.rule.condition(inter, rv) == "dst0.GetValidCol() % 2 == 0"
    assert rv.rule.text(inter) == "the valid cols of dst0 must be a multiple of 2"
    assert rv.rule.doc(inter) == "Runtime multiple: `dst0.GetValidCol() % 2 == 0`."
    assert not [rv for rv in inter.rules_for("CPU") if rv.rule.kind == "valid_multiple"]


def test_the_page_line_reads_back() -> None:
    class Line:
        text = "Runtime multiple: src0.GetValidCol() % 4 == 0 (even pairs)"

    class Page:
        data = {"src0": None}

    found = ValidMultipleRule.recognise(Line(), Page())  # type: ignore[arg-type]
    assert found == {"operand": "src0", "extent": "cols", "multiple": 4, "note": "even pairs"}
    Line.text = "Runtime multiple: other.GetValidCol() % 4 == 0"
    assert ValidMultipleRule.recognise(Line(), Page()) is None  # type: ignore[arg-type]


def test_admits_legalises_and_breaks_every_tile_of_the_extent() -> None:
    tiles = {n: TileDecl(n, "float", 8, 32, 8, 7) for n in ("dst0", "dst1", "src0")}
    tiles["src1"] = TileDecl("src1", "float", 8, 32, 8, 9)
    assert not RULE.admits_tiles(tiles)
    legal = RULE.legalise(tiles)
    assert [t.valid_cols for t in legal.values()] == [6, 6, 6, 9] and RULE.admits_tiles(legal)
    broken, _ = RULE.break_runtime(legal, {})
    assert [t.valid_cols for t in broken.values()] == [5, 5, 5, 9] and not RULE.admits_tiles(broken)


SENTINEL = -1  # what a destination holds before the call: padding lanes keep it


# TEXTRACT's ND -> 2xNZ form: one row-major half source, two NZ destinations at different offsets
# (dst1 with a partial valid region), called under A5's rules (the page's path) and the CPU's.
ND2XNZ = (32, 64, (16, 32, 16, 32, 0, 16), (16, 16, 13, 9, 8, 3))


def _nd2xnz() -> str:
    rows, cols, w0, w1 = ND2XNZ
    decl = "Tile<TileType::Vec, half, {}, {}, BLayout::ColMajor, {}, {}, SLayout::RowMajor>"
    out = f"""
    {{
        Tile<TileType::Vec, half, {rows}, {cols}> src;
        {decl.format(*w0[:4])} dst0;
        {decl.format(*w1[:4])} dst1;
        for (int k = 0; k < {rows * cols}; ++k) src.data()[k] = static_cast<half>(k % 1021 + 1);"""
    for profile in ("profile_a5", "profile_cpu"):
        out += f"""
        for (int k = 0; k < {w0[0] * w0[1]}; ++k) dst0.data()[k] = static_cast<half>({SENTINEL});
        for (int k = 0; k < {w1[0] * w1[1]}; ++k) dst1.data()[k] = static_cast<half>({SENTINEL});
        profiled::TEXTRACT<{profile}>(dst0, dst1, src, {w0[4]}, {w0[5]}, {w1[4]}, {w1[5]});"""
        for name, w in (("dst0", w0), ("dst1", w1)):
            out += f"""
        {{
            std::vector<double> logical;
            for (int i = 0; i < {w[0]}; ++i)
                for (int j = 0; j < {w[1]}; ++j)
                    logical.push_back(static_cast<double>({name}.GetElement(i, j)));
            show("nd2xnz_{profile}_{name}", logical.data(), {w[0] * w[1]});
        }}"""
    return out + "\n    }"


def _nd2xnz_golden(w: tuple[int, int, int, int, int, int]) -> np.ndarray:
    rows, cols, *_ = ND2XNZ
    src = (np.arange(rows * cols) % 1021 + 1).astype(np.float16).astype(np.float64).reshape(rows, cols)
    want = np.full((w[0], w[1]), float(SENTINEL))
    want[: w[2], : w[3]] = src[w[4] : w[4] + w[2], w[5] : w[5] + w[3]]
    return want.reshape(-1)


def _program() -> str:
    body = _nd2xnz()
    return f"""
#include <pto/pto-inst.hpp>
#include <cstdio>
#include <vector>
using namespace pto;

template <typename T>
void show(const char* name, const T* data, int count) {{
    std::printf("%s", name);
    for (int k = 0; k < count; ++k) std::printf(" %g", static_cast<double>(data[k]));
    std::printf("\\n");
}}

int main() {{{body}
    return 0;
}}
"""


@pytest.mark.parametrize("cxx", COMPILERS)
def test_textract_nd_to_two_nz_windows(cxx: str, tmp_path: Path) -> None:
    exe = build_program(require(cxx), _program(), tmp_path, "conv_moves")
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    got = {line.split()[0]: np.array(line.split()[1:], dtype=np.float64) for line in run.stdout.splitlines()}
    for profile in ("profile_a5", "profile_cpu"):
        for name, w in (("dst0", ND2XNZ[2]), ("dst1", ND2XNZ[3])):
            key = f"nd2xnz_{profile}_{name}"
            assert np.array_equal(got[key], _nd2xnz_golden(w)), key
