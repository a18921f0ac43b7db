"""The block-scaled (MX) products and their scale addresses (issue #24, h-mx): index notation's
`k // 32`, the forms that read a tile of their own, the golden's order of roundings, the fp4 codec
the generated cases' goldens use (`ptogen/testing/fp4.py`; the generated TMATMUL_MX, TGEMV_MX and
TQUANT cases run fp4 tiles), and the runtime's `GetScaleAddr`/`pto/cpu/MXTypes.hpp` and TMATMUL_MX
as kernels written for upstream call them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from ptogen.opkinds.matmul import mx_product
from ptogen.spec import expr as semantics
from ptogen.spec.load import load_specs
from ptogen.testing import fp4

from .compilers import COMPILERS, build_program, require
from .helpers import ROOT

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


def test_e8m0_codes_are_powers_of_two() -> None:
    # The codes the MX tests draw (MX_SCALE_CODES) decode to 2^-6 .. 2^6 in ml_dtypes, as in the runtime.
    from ptogen.opkinds.matmul import MX_SCALE_CODES

    low, high = MX_SCALE_CODES
    codes = np.arange(low, high + 1, dtype=np.uint8).view(ml_dtypes.float8_e8m0fnu).astype(np.float64)
    assert codes.tolist() == [2.0**e for e in range(-6, 7)]


def test_fp4_codes_decode_pack_and_round_as_the_types_define() -> None:
    # E2M1: OCP's FP4 (1 sign, 2 exponent bits with bias 1, 1 significand bit); E1M2: one exponent
    # bit with bias 1, so exponent 0 gives m/4 and exponent 1 gives 1 + m/4.
    assert fp4.value_table(fp4.E2M1)[:8].tolist() == [0, 0.5, 1, 1.5, 2, 3, 4, 6]
    assert fp4.value_table(fp4.E1M2)[:8].tolist() == [k / 4 for k in range(8)]
    for name in fp4.TWINS:
        table = fp4.value_table(name)
        assert (table[8:] == -table[:8]).all() and np.signbit(table[8])
        # every code is its value's nearest code; midpoints go to the even (significand 0) code
        assert [fp4.nearest_code(v, name) for v in table] == list(range(16))
    assert fp4.nearest_code(0.25, fp4.E2M1) == 0 and fp4.nearest_code(5.0, fp4.E2M1) == 6
    assert fp4.nearest_code(-2.5, fp4.E2M1) == 0x8 | 4 and fp4.nearest_code(100.0, fp4.E2M1) == 7
    assert fp4.nearest_code(0.125, fp4.E1M2) == 0 and fp4.nearest_code(1.375, fp4.E1M2) == 6
    # element 2k in the low nibble of byte k
    codes = np.array([1, 2, 15, 0, 7], dtype=np.uint8)
    assert fp4.pack(codes).tolist() == [0x21, 0x0F, 0x07]
    assert fp4.unpack(fp4.pack(codes), 5).tolist() == codes.tolist()
