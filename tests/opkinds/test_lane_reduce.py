"""The reductions across lanes (lane_reduce: a register, its groups, its pairs) in the call shapes upstream's
A5 backend uses beyond the generated cases: a widening int16 sum, VCMAX's index read back as
TROWARGMAX reads it, group results packed from lane 0, pairs under a partial predicate, and a result
register of another element type rejected at compile time."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ..compilers import COMPILERS, build_program, cxx_argv, require
from ..helpers import ROOT

SHAPES = r"""
#include <pto/vsim/builtins.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

static int failures = 0;
static void expect(bool ok, const char* what) {
    if (!ok) {
        std::printf("FAIL %s\n", what);
        ++failures;
    }
}

template <int W>
static vector_bool first_lanes(int n) {
    vector_bool p;
    for (int i = 0; i < 256 / W; ++i)
        p.set_lane(i, W, i < n);
    return p;
}

int main() {
    // TROWSUM of int16_t: vcadd sums 128 int16 lanes into an int32 register, beyond int16's range.
    vector_s16 s16;
    for (int i = 0; i < 128; ++i)
        s16.write(i, 300);
    vector_s32 sum;
    sum.write(5, 7);
    vcadd(sum, s16, first_lanes<2>(128), MODE_ZEROING);
    expect(sum.read(0) == 38400 && sum.read(5) == 0, "vcadd int16 into int32");

    // TROWARGMAX: the maximum in lane 0, its index in lane 1 as the index type's bits; ties keep the
    // first lane. Deinterleaving with zero (vdintlv) gives the values and the indices.
    vector_f32 f, fmax;
    for (int i = 0; i < 64; ++i)
        f.write(i, static_cast<float>(i % 7));
    f.write(37, 100.0f);
    f.write(50, 100.0f);
    vcmax(fmax, f, first_lanes<4>(64), MODE_ZEROING);
    const auto& fidx = reinterpret_cast<const vector_u32&>(fmax);
    expect(fmax.read(0) == 100.0f && fidx.read(1) == 37u && fidx.read(2) == 0u, "vcmax f32 value and index");
    vector_f16 h, hmin;
    for (int i = 0; i < 128; ++i)
        h.set(i, 0x3c00);  // 1.0
    h.set(90, 0xbc00);     // -1.0
    vcmin(hmin, h, first_lanes<2>(128));
    const auto& hidx = reinterpret_cast<const vector_u16&>(hmin);
    expect(hmin.get(0) == 0xbc00 && hidx.read(1) == 90u, "vcmin f16 value and index");
    vcmin(hmin, h, first_lanes<2>(90));  // lane 90 inactive
    expect(hmin.get(0) == 0x3c00 && hidx.read(1) == 0u, "vcmin skips inactive lanes");

    // TQUANT: vcgmax of u16 magnitudes, eight group maxima in lanes 0..7.
    vector_u16 mag, gmax;
    for (int i = 0; i < 128; ++i)
        mag.write(i, static_cast<std::uint16_t>(i));
    vcgmax(gmax, mag, first_lanes<2>(128), MODE_ZEROING);
    bool groups = true;
    for (int g = 0; g < 8; ++g)
        groups = groups && gmax.read(g) == 16 * g + 15;
    expect(groups && gmax.read(8) == 0 && gmax.read(127) == 0, "vcgmax u16 groups packed from lane 0");

    // TPAIRREDUCESUM: 5 loaded lanes give pairs (0,1), (2,3) and lane 4 alone.
    vector_f32 p, pairs;
    for (int i = 0; i < 64; ++i)
        p.write(i, static_cast<float>(i + 1));
    pairs.write(40, 9.0f);
    vcpadd(pairs, p, first_lanes<4>(5));
    expect(pairs.read(0) == 3.0f && pairs.read(1) == 7.0f && pairs.read(2) == 5.0f && pairs.read(3) == 0.0f,
           "vcpadd pairs under a partial predicate");
    expect(pairs.read(40) == 0.0f, "vcpadd zeroes the upper half");
    pairs.write(40, 9.0f);
    vcpadd(pairs, p, first_lanes<4>(64), MODE_MERGING);
    expect(pairs.read(31) == 127.0f && pairs.read(40) == 9.0f, "vcpadd merging keeps the upper half");

    std::printf("failures %d\n", failures);
    return failures == 0 ? 0 : 1;
}
"""


def test_a5_call_shapes(tmp_path: Path) -> None:
    compiler = require(COMPILERS[0])
    exe = build_program(compiler, SHAPES, tmp_path, "shapes", ["-O1"])
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=False, timeout=60)
    assert run.returncode == 0 and "failures 0" in run.stdout, run.stdout


def test_a_result_of_another_element_type_is_rejected(tmp_path: Path) -> None:
    """Only a sum widens (int16 into int32); a maximum keeps the source's type, and says so."""
    compiler = require(COMPILERS[0])
    src = tmp_path / "bad.cpp"
    src.write_text(
        "#include <pto/vsim/builtins.hpp>\n"
        "void f(vector_s32& d, const vector_s16& s, const vector_bool& p) { vcmax(d, s, p); }\n"
    )
    build = subprocess.run(
        [*cxx_argv(compiler), "-std=c++20", "-fsyntax-only", f"-I{ROOT / 'generated/include'}",
         f"-I{ROOT / 'ptogen/runtime/include'}", str(src)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert build.returncode != 0
    assert "vcmax: result and input must hold one element type" in build.stderr
