"""The matrix set: index notation (parse, LaTeX, C++ loops, numpy, located errors), the exact fused
multiply-add fold of the golden, the rule kinds shape_relation, valid_range and dtype_tuples, and
comparison kernels built against upstream's CPU simulator and against ptogen's headers that must
write the same bits (PTOGEN_UPSTREAM names the checkout).

The block-scaled (MX) products and their scale addresses: index notation's `k // 32`, the forms
that read a tile of their own, the golden's order of roundings, and the runtime's
`GetScaleAddr`/`pto/cpu/MXTypes.hpp` and TMATMUL_MX as kernels written for upstream call them."""

from __future__ import annotations

import os
import subprocess
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from pydantic import TypeAdapter, ValidationError

from ptogen.opkinds.matmul import mx_product
from ptogen.rules import PageContext, PageLine, Rule
from ptogen.rules.dtype_tuples import DTypeTuplesRule
from ptogen.rules.shape_relation import ShapeRelationRule
from ptogen.rules.valid_range import ValidRangeRule
from ptogen.spec import expr
from ptogen.spec import expr as semantics
from ptogen.spec.load import load_specs
from ptogen.testing import refmath

from ..compilers import COMPILERS, build_program, cxx_argv, require
from ..helpers import ROOT
from .common import PROJECT

MATMUL = "dst[i,j] = sum(k, a[i,k] * b[k,j])"


def op(short: str):  # type: ignore[no-untyped-def]
    return next(o for o in PROJECT.ops if o.spec.short == short)


# ----------------------------------------------------------------------------- index notation


def test_contraction_parses_into_one_tree_for_three_renderings() -> None:
    node = expr.parse(MATMUL + " + bias[0,j]", {"dst", "a", "b", "bias"})
    assert expr.is_assignment(node) and expr.lhs_indices(node) == ["i", "j"]
    assert expr.to_latex(node, str) == (
        r"\mathrm{dst}_{i,j} = \sum_{k} \mathrm{a}_{i,k} \cdot \mathrm{b}_{k,j} + \mathrm{bias}_{0,j}"
    )
    assert expr.to_numpy(node) == (
        "(rm.fma_fold(rm.index_view(a, 'ik', 'ijk'), rm.index_view(b, 'kj', 'ijk'), axis=2)"
        " + rm.index_view(bias, '0j', 'ij'))"
    )
    loops = expr.to_cpp_loops(
        node,
        {"i": "M", "j": "N", "k": "K"},
        lambda n, ix: f"{n}({','.join(ix)})",
        lambda ix, v: f"out = {v};",
        "C",
    )
    assert loops.splitlines() == [
        "for (int i = 0; i < M; ++i) {",
        "    for (int j = 0; j < N; ++j) {",
        "        C sum0 = C(0);",
        "        for (int k = 0; k < K; ++k) {",
        "            sum0 = sim::fma_step<C>(a(i,k), b(k,j), sum0);",
        "        }",
        "        out = sim::add<C>(sum0, bias(0,j));",
        "    }",
        "}",
    ]


def test_contraction_numpy_is_the_fused_fold() -> None:
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 5)).astype(np.float32)
    b = rng.standard_normal((5, 4)).astype(np.float32)
    bias = rng.standard_normal((2, 4)).astype(np.float32)
    node = expr.parse(MATMUL + " + bias[0,j]", {"dst", "a", "b", "bias"})
    got = eval(expr.to_numpy(node), {"rm": refmath, "a": a, "b": b, "bias": bias})  # noqa: S307
    want = np.zeros((3, 4), dtype=np.float32)
    for i in range(3):
        for j in range(4):
            acc = Fraction(0)
            for k in range(5):  # one rounding per step, to the nearest float
                acc = Fraction(
                    float(np.float32(float(acc + Fraction(float(a[i, k])) * Fraction(float(b[k, j])))))
                )
            want[i, j] = np.float32(float(acc)) + bias[0, j]
    # Fraction -> float64 -> float32 rounds twice; the fold must agree with a correct single rounding
    # wherever the double rounding is harmless, which these values make every element.
    assert np.array_equal(got, want)


def test_permutation_renders_and_transposes() -> None:
    node = expr.parse("dst[i,j] = src[j,i]", {"dst", "src"})
    assert expr.to_latex(node, str) == r"\mathrm{dst}_{i,j} = \mathrm{src}_{j,i}"
    src = np.arange(6).reshape(2, 3)
    got = eval(expr.to_numpy(node), {"rm": refmath, "src": src})  # noqa: S307
    assert np.array_equal(got, src.T)
    loops = expr.to_cpp_loops(
        node,
        {"i": "R", "j": "C"},
        lambda n, ix: f"{n}.at({', '.join(ix)})",
        lambda ix, v: f"dst.at({', '.join(ix)}) = {v};",
        "T",
    )
    assert "dst.at(i, j) = src.at(j, i);" in loops


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("dst[i,j] = a[i,q]", "at column 16: index 'q' is not bound (bound: i, j)"),
        ("dst[i,i] = a[i,i]", "at column 1: an index repeats on the left side"),
        ("dst[i,j] = sum(k, a[i,j])", "at column 12: sum over 'k' does not use 'k'"),
        ("x[i] = a[i]", "at column 1: unknown operand 'x' (known: a, dst)"),
        ("dst[i,j] = a[i,1]", "at column 16: an index is a letter or 0, not '1'"),
        ("dst[i,j] = a[i,j] +", "at column 20: cannot parse index notation: invalid syntax"),
        ("dst[i,j] = sum(i, a[i,j])", "at column 12: index 'i' is already bound"),
        ("dst[0,j] = a[0,j]", "at column 1: the left side's indices are letters, e.g. `dst[i,j]`"),
    ],
)
def test_index_notation_errors_are_located_and_one_line(text: str, message: str) -> None:
    with pytest.raises(expr.ExprError) as err:
        expr.parse(text, {"dst", "a"})
    assert str(err.value) == message and "\n" not in str(err.value)


def test_spec_error_in_index_notation_names_file_line_and_field(tmp_path: Path) -> None:
    import shutil

    from ptogen.errors import SpecError, SpecErrors

    shutil.copytree(ROOT / "specs", tmp_path / "specs")
    spec = tmp_path / "specs/ops/matrix_and_matrix_vector/tmatmul.yaml"
    spec.write_text(spec.read_text().replace("a[i,k] * b[k,j]", "a[i,q] * b[k,j]"))
    with pytest.raises((SpecError, SpecErrors)) as err:
        load_specs(tmp_path / "specs", tmp_path)
    text = str(err.value)
    assert "specs/ops/matrix_and_matrix_vector/tmatmul.yaml:" in text
    assert "semantics.expr: at column 21: index 'q' is not bound (bound: i, j, k)" in text


def test_matmul_pages_and_golden_come_from_the_expression() -> None:
    acc = op("tmatmul_acc")
    assert (
        acc.doc.math
        == r"\mathrm{c}_{i,j} = \sum_{k} \mathrm{a}_{i,k} \cdot \mathrm{b}_{k,j} + \mathrm{c\_in}_{i,j}"
    )
    assert acc.test.numpy_expr.startswith("(rm.fma_fold(rm.index_view(a, 'ik', 'ijk')")
    assert acc.kind.extents(acc) == {"i": "a.GetValidRow()", "k": "a.GetValidCol()", "j": "b.GetValidCol()"}


# ----------------------------------------------------------------------------- the exact fold


def _fma32(a: float, b: float, c: float) -> np.float32:
    """float32(a * b + c) with one rounding, from exact rationals (ties to even)."""
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    near = np.float32(float(exact))
    options = [near, np.nextafter(near, np.float32(np.inf)), np.nextafter(near, np.float32(-np.inf))]
    return min(options, key=lambda t: (abs(Fraction(float(t)) - exact), int(np.array(t).view(np.uint32)) & 1))


def test_fma_fold_rounds_once_per_step() -> None:
    rng = np.random.default_rng(7)
    x = rng.standard_normal((64, 9)).astype(np.float32)
    y = (rng.standard_normal((64, 9)) * 2.0 ** rng.integers(-30, 30, (64, 9))).astype(np.float32)
    got = refmath.fma_fold(x, y, axis=1)
    for r in range(64):
        acc = np.float32(0)
        for k in range(9):
            acc = _fma32(float(x[r, k]), float(y[r, k]), float(acc))
        assert got[r].tobytes() == acc.tobytes()
    # A tie that the double sum hides: 1 + 2^-24 (1 + 2^-20) is just above the midpoint 1 + 2^-24.
    tiny = np.float32(2.0**-24 * (1 + 2.0**-20))
    assert refmath.fma_fold(np.array([[1, tiny]], np.float32), np.array([[1, 1]], np.float32), 1)[
        0
    ] == np.float32(1 + 2.0**-23)
    ints = refmath.fma_fold(np.array([[2**20, 2**20]], np.int32), np.array([[2**12, 1]], np.int32), 1)
    assert ints.dtype == np.int32 and int(ints[0]) == (2**32 + 2**20) - 2**32  # wraps


# ----------------------------------------------------------------------------- rule kinds


RULE = TypeAdapter(Rule)


def test_new_rule_kinds_validate_and_read_back_their_doc_lines() -> None:
    tmatmul = op("tmatmul")
    rules: dict[str, Rule] = {}
    for r in tmatmul.spec.constraints:
        rules.setdefault(r.kind, r)
    page = PageContext([], {"A2A3", "A5", "CPU"}, ["c", "a", "b"], True)
    for kind in ("shape_relation", "valid_range", "dtype_tuples"):
        rule = rules[kind]
        line = rule.doc(tmatmul).replace("`", "")
        back = type(rule).recognise(PageLine(None, line), page)
        assert back is not None
        assert type(rule).model_validate({"kind": kind, **back}) == rule.model_copy(update={"profiles": None})
    assert rules["shape_relation"].doc(tmatmul) == (
        "Static shapes: `a.Rows == c.Rows`, `a.Cols == b.Rows` and `b.Cols == c.Cols`."
    )
    assert rules["valid_range"].text(tmatmul) == "the valid rows of a (m) must lie in [1, 4095]"
    assert (
        rules["dtype_tuples"]
        .doc(tmatmul)
        .startswith("Type tuples (`c`, `a`, `b`): (`int32_t`, `int8_t`, `int8_t`); (`float`, `half`, `half`)")
    )


def test_rule_shapes_are_checked() -> None:
    with pytest.raises(ValidationError, match="tuple 0 \\(float, half\\) has 2 types for 3 operands"):
        RULE.validate_python(
            {"kind": "dtype_tuples", "operands": ["dst", "a", "b"], "tuples": [["float", "half"]]}
        )
    with pytest.raises(ValidationError, match="min 3 is above max 2"):
        RULE.validate_python({"kind": "valid_range", "operand": "a", "extent": "rows", "min": 3, "max": 2})
    with pytest.raises(ValidationError, match="pattern"):
        RULE.validate_python({"kind": "shape_relation", "relations": ["a.Rows = dst.Rows"]})


def test_dtype_tuples_drive_the_test_matrix() -> None:
    tmatmul = op("tmatmul")
    combos = [tuple(c[n] for n in ("c", "a", "b")) for c in tmatmul.test_combos("A2A3")]
    assert sorted(combos) == sorted(
        [
            ("int32_t", "int8_t", "int8_t"),
            ("float", "half", "half"),
            ("float", "bfloat16_t", "bfloat16_t"),
            ("float", "float", "float"),
        ]
    )
    rule = next(r for r in tmatmul.spec.constraints if isinstance(r, DTypeTuplesRule))
    assert not rule.admits(tmatmul, {"c": "float", "a": "int8_t", "b": "int8_t"})
    assert isinstance(
        next(r for r in tmatmul.spec.constraints if r.kind == "shape_relation"), ShapeRelationRule
    )
    assert isinstance(next(r for r in tmatmul.spec.constraints if r.kind == "valid_range"), ValidRangeRule)


# ----------------------------------------------------------------------------- against upstream

COMPARE = r"""
#include <pto/pto-inst.hpp>

#include <cstdint>
#include <cstdio>

using namespace pto;

// No bfloat16_t case: upstream's CPU simulator spells bfloat16_t as _Float16 (IEEE half) unless the
// compiler offers C++23's std::bfloat16_t, which clang does not; its "bf16" results are half's.

static std::uint32_t state = 2024u;
static float next() {  // in [-2, 2), rounded products and sums
    state = state * 1664525u + 1013904223u;
    const auto centred = static_cast<std::int32_t>(state >> 8) - (1 << 23);
    return static_cast<float>(centred) / static_cast<float>(1 << 22);
}
template <typename TileT>
static void fill(TileT& t) {
    using D = typename TileT::DType;
    for (int i = 0; i < TileT::Rows * TileT::Cols; ++i) {
        const float v = next();
        if constexpr (std::is_integral_v<D>) {
            t.data()[i] = static_cast<D>(static_cast<int>(v * 60.0f));
        } else
            t.data()[i] = static_cast<D>(v);
    }
}
template <typename TileT>
static void dump(std::FILE* f, TileT& t) {
    std::fwrite(&t.data()[0], sizeof(typename TileT::DType), TileT::Rows * TileT::Cols, f);
}

template <typename C, typename AB, int M, int K, int N, int m, int k, int n>
static void run(std::FILE* f) {
    using TA = TileLeft<AB, M, K, m, k>;
    using TB = TileRight<AB, K, N, k, n>;
    using TC = TileAcc<C, M, N, m, n>;
    using TBias = Tile<TileType::Bias, C, 1, N, BLayout::RowMajor, 1, n>;
    TA a;
    TB b;
    TC c, cin;
    TBias bias;
    TASSIGN(a, 0x0);
    TASSIGN(b, 0x0);
    TASSIGN(c, 0x0);
    TASSIGN(cin, 0x8000);
    TASSIGN(bias, 0x0);
    fill(a);
    fill(b);
    fill(c);
    fill(cin);
    fill(bias);
    TMATMUL(c, a, b);
    dump(f, c);
    TMATMUL_ACC(c, cin, a, b);
    dump(f, c);
    TMATMUL_BIAS(c, a, b, bias);
    dump(f, c);
    TGEMV(c, a, b);
    dump(f, c);
}

int main(int, char** argv) {
    std::FILE* f = std::fopen(argv[1], "wb");
    run<float, float, 64, 48, 48, 50, 29, 37>(f);
    run<float, half, 32, 64, 32, 17, 40, 23>(f);
    run<int32_t, int8_t, 32, 64, 32, 31, 50, 20>(f);
    run<float, float, 128, 128, 128, 128, 128, 128>(f);
    std::fclose(f);
    return 0;
}
"""


@pytest.mark.skipif(
    not os.environ.get("PTOGEN_UPSTREAM"), reason="set PTOGEN_UPSTREAM to an upstream checkout"
)
def test_simulator_writes_upstreams_bits(tmp_path: Path) -> None:
    cxx = require("clang++-19")  # upstream's headers need a recent clang (g++ 12 and clang 14 reject them)
    upstream = Path(os.environ["PTOGEN_UPSTREAM"])
    src = tmp_path / "compare.cpp"
    src.write_text(COMPARE)
    builds = {
        "ptogen": [f"-I{ROOT / 'generated/include'}", f"-I{ROOT / 'ptogen/runtime/include'}"],
        "upstream": [f"-I{upstream / 'include'}", "-include", "cstdint", "-DPTO_CPU_MAX_THREADS=1"],
    }
    out = {}
    for name, flags in builds.items():
        exe = tmp_path / name
        cmd = [*cxx_argv(cxx), "-std=c++20", "-O2", "-D__CPU_SIM", "-w", *flags, str(src), "-o", str(exe)]
        subprocess.run(cmd, check=True, capture_output=True)
        subprocess.run([str(exe), str(tmp_path / f"{name}.bin")], check=True)
        out[name] = (tmp_path / f"{name}.bin").read_bytes()
    assert len(out["ptogen"]) > 0 and out["ptogen"] == out["upstream"]


def test_shape_relation_to_a_count() -> None:
    bias_op = op("tmatmul_bias")
    rule = next(r for r in bias_op.spec.constraints if isinstance(r, ShapeRelationRule))
    assert rule.rule_operands == ["a", "c", "b", "bias"]
    rv = bias_op.rule_view(rule)
    assert rule.condition(bias_op, rv).endswith("TileBias::Rows == 1)")
    assert rule.doc(bias_op).endswith("`bias.Cols == c.Cols` and `bias.Rows == 1`.")


MX = "c[i,j] = sum(k, a[i,k] * b[k,j] * sa[i, k // 32] * sb[k // 32, j])"


def test_group_index_renders_three_ways() -> None:
    node = semantics.parse(MX, {"a", "b", "c", "sa", "sb"})
    assert ("sa", ("i", "k // 32")) in semantics.indexed(node)
    latex = semantics.to_latex(node, str)
    assert r"\mathrm{sa}_{i,\left\lfloor k / 32 \right\rfloor}" in latex
    group = semantics.indexed(node)  # the parse tree's index node of sb's first index
    assert group[-1] == ("sb", ("k // 32", "j"))
    idx = node.args[1].args[0]  # the contraction's term
    while idx.op != "index" or idx.value != "sb":
        idx = idx.args[-1]
    assert semantics.index_cpp(idx.args[0], str) == "(k / 32)"
    assert semantics.index_value(idx.args[0], {"k": np.arange(70)}).tolist() == [g // 32 for g in range(70)]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("c[i,j] = sum(k, a[i,k] * b[k,j] * sa[i, k // 0] * sb[k // 32, j])", "positive constant"),
        ("c[i,j] = sum(k, a[i,k] * b[k,j] * sa[i, k // j] * sb[k // 32, j])", "positive constant"),
    ],
)
def test_group_index_divides_by_a_positive_constant(text: str, message: str) -> None:
    with pytest.raises(semantics.ExprError, match=message):
        semantics.parse(text, {"a", "b", "c", "sa", "sb"})


def test_mx_forms_read_their_own_tiles() -> None:
    ops = {o.spec.mnemonic: o for o in load_specs(ROOT / "specs", ROOT).ops}
    for name in ("pto.tmatmul_mx", "pto.tgemv_mx"):
        loaded = ops[name]
        main = semantics.names_used(loaded.expr)
        assert main == {"a", "b", "a_scale", "b_scale"}
        own = [semantics.names_used(e) - main for e in loaded.form_exprs.values()]
        assert sorted(map(sorted, own)) == [["bias"], ["bias"], ["c_in"], ["c_in"]]


def test_golden_rounds_the_running_sum_to_float_each_step() -> None:
    # 1 + 2^-30 is not a float: a double sum keeps the small terms, a float running sum drops each.
    k = 64
    a = np.ones((1, k))
    b = np.full((k, 1), 2.0**-30)
    b[0, 0] = 1.0
    scales_a = np.ones((1, 2))
    scales_b = np.ones((2, 1))
    got = mx_product(a, b, scales_a, scales_b)
    assert got.dtype == np.float32 and got[0, 0] == np.float32(1.0)
    assert float(np.sum(a[0] * b[:, 0])) != 1.0
    # the scales of k's group apply to that group only
    scales_b[1, 0] = 4.0
    b[:] = 1.0
    assert mx_product(a, b, scales_a, scales_b)[0, 0] == 32 + 4 * 32


KERNEL = r"""
#include <pto/pto-inst.hpp>
#include "pto/cpu/MXTypes.hpp"

#include <cstdio>

using namespace pto;

// TQUANT's interleave form with an exponent tile whose valid columns are not twice the source's:
// the simulator stops (A5's backend asserts the same shape).
static int bad_interleave() {
    Tile<TileType::Vec, float, 64, 32, BLayout::RowMajor, 64, 20> src;
    Tile<TileType::Vec, int8_t, 64, 32, BLayout::RowMajor, 64, 20> dst;
    Tile<TileType::Vec, uint8_t, 1, 64, BLayout::RowMajor, 1, 64> exp;  // valid 1 x 40 expected
    Tile<TileType::Vec, float, 1, 32> max, scaling;
    for (int r = 0; r < 64; ++r)
        for (int c = 0; c < 32; ++c)
            src.SetElement(r, c, static_cast<float>(r - c));
    TQUANT<0, MxQuantAlg::OcpMxFp8E4M3, true>(dst, src, &exp, &max, &scaling);
    return 0;
}

int main(int argc, char**) {
    if (argc > 1)
        return bad_interleave();
    // The scale address of a tile is its offset into its memory shifted right by SHIFT_MX_ADDR.
    TileLeft<float8_e4m3_t, 16, 64> a;
    TileRight<float8_e5m2_t, 64, 16> b;
    TileLeftScale<float8_e8m0_t, 16, 2> as;
    TileRightScale<float8_e8m0_t, 2, 16> bs;
    TileAcc<float, 16, 16> c;
    TASSIGN(a, 0x400);
    TASSIGN(b, 0x800);
    TASSIGN(c, 0x0);
    if (GetScaleAddr(a.data()) != 0x40 || GetScaleAddr(b.data()) != 0x80) {
        std::printf("scale address %llu %llu\n", (unsigned long long)GetScaleAddr(a.data()),
                    (unsigned long long)GetScaleAddr(b.data()));
        return 1;
    }
    TASSIGN(as, GetScaleAddr(a.data()));
    TASSIGN(bs, GetScaleAddr(b.data()));
    // a = 1 everywhere, b = 0.5, scales 2^1 (left) and 2^-1 (right, group 1 only 2^2):
    // c(i, j) = 32 * 0.5 * 2 * 0.5 + 32 * 0.5 * 2 * 4 = 16 + 128.
    for (int i = 0; i < 16; ++i)
        for (int k = 0; k < 64; ++k)
            a.SetElement(i, k, float8_e4m3_t(1.0));
    for (int k = 0; k < 64; ++k)
        for (int j = 0; j < 16; ++j)
            b.SetElement(k, j, float8_e5m2_t(0.5));
    for (int i = 0; i < 16; ++i)
        for (int g = 0; g < 2; ++g)
            as.SetElement(i, g, float8_e8m0_t::FromRaw(128));
    for (int g = 0; g < 2; ++g)
        for (int j = 0; j < 16; ++j)
            bs.SetElement(g, j, float8_e8m0_t::FromRaw(g == 0 ? 126 : 129));
    TMATMUL_MX(c, a, as, b, bs);
    if (c.GetElement(3, 5) != 144.0f)
        return 2;
    TMATMUL_MX(c, c, a, as, b, bs);  // the accumulating form, in place
    if (c.GetElement(15, 15) != 288.0f)
        return 3;
    // The MX scale layouts: element (r, c) of a 16 x 4 ZZ tensor sits at (c / 2) * 32 + r * 2 + c % 2,
    // of a 4 x 16 NN tensor at (r / 2) * 32 + c * 2 + r % 2 (pairs along k contiguous).
    static float8_e8m0_t host[64];
    for (int n = 0; n < 64; ++n)
        host[n] = float8_e8m0_t::FromRaw(static_cast<std::uint8_t>(n));
    using Zz = GlobalTensor<float8_e8m0_t, TileShape2D<float8_e8m0_t, 16, 4, Layout::MX_A_ZZ>,
                            BaseShape2D<float8_e8m0_t, 16, 4, Layout::MX_A_ZZ>, Layout::MX_A_ZZ>;
    using Nn = GlobalTensor<float8_e8m0_t, TileShape2D<float8_e8m0_t, 4, 16, Layout::MX_B_NN>,
                            BaseShape2D<float8_e8m0_t, 4, 16, Layout::MX_B_NN>, Layout::MX_B_NN>;
    Zz zz(host);
    Nn nn(host);
    Tile<TileType::Mat, float8_e8m0_t, 16, 4, BLayout::RowMajor, 16, 4, SLayout::RowMajor, 32> ms;
    Tile<TileType::Mat, float8_e8m0_t, 4, 16, BLayout::ColMajor, 4, 16, SLayout::ColMajor, 32> ns;
    TASSIGN(ms, 0x0);
    TASSIGN(ns, 0x100);
    TLOAD(ms, zz);
    TLOAD(ns, nn);
    if (ms.GetElement(5, 3).RawData() != 43 || ms.GetElement(15, 0).RawData() != 30)
        return 5;
    if (ns.GetElement(3, 5).RawData() != 43 || ns.GetElement(0, 15).RawData() != 30)
        return 6;
    std::printf("ok\n");
    return 0;
}
"""


@pytest.mark.parametrize("cxx", COMPILERS)
def test_kernel_in_upstreams_spelling(cxx: str, tmp_path: Path) -> None:
    exe = build_program(require(cxx), KERNEL, tmp_path, "mx")
    result = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == "ok\n"
    bad = subprocess.run([str(exe), "bad_interleave"], capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and bad.stdout == ""
    assert "TQUANT: the interleaved exponent tile's valid shape is ceil(valid rows / 64) x 2" in bad.stderr
