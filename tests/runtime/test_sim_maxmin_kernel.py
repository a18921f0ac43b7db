"""The AVX-512 row kernels of IEEE maximum/minimum (pto/common/sim_maxmin.hpp), which the generated
TMAX/TMIN/TMAXS/TMINS use for float tiles: bit for bit what sim::maximum/minimum (and the _by forms)
give, over signed zeros, infinities, quiet and signalling NaNs of both signs with payloads,
subnormals and random bit patterns, with row tails, strides, in place; a destination that
overlaps an operand shifted is left to the generated loop. Whether a kernel runs must match the
machine: it runs exactly where the CPU has AVX-512F and AVX-512DQ."""

from __future__ import annotations

import platform
import subprocess
from pathlib import Path

import pytest

from ..compilers import build_program

PROGRAM = r"""
#include <pto/pto-inst.hpp>
#include <pto/common/sim_maxmin.hpp>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <vector>

using namespace pto;

int main() {
    std::vector<std::uint32_t> values = {0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u, 0x7f800000u,
                                         0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7fa00001u, 0xffa00001u,
                                         0x7fc00123u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x7f7fffffu,
                                         0xff7fffffu};
    std::uint32_t state = 2463534242u;  // xorshift: random bit patterns beside the specials
    for (int i = 0; i < 40; ++i) {
        state ^= state << 13, state ^= state >> 17, state ^= state << 5;
        values.push_back(state);
    }
    std::vector<float> a, b;
    for (auto x : values)
        for (auto y : values)
            a.push_back(std::bit_cast<float>(x)), b.push_back(std::bit_cast<float>(y));
    const int cols = 27, stride = 29;  // a 16-lane body and a tail of 11; rows 2 apart in storage
    const int rows = static_cast<int>(a.size()) / cols;
    std::vector<float> sa(rows * stride), sb(rows * stride), d(rows * stride), keep;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            sa[r * stride + c] = a[r * cols + c], sb[r * stride + c] = b[r * cols + c];
    int failures = 0, ran = 0;
    auto same = [&](float got, float want, const char* what, int i) {
        if (std::bit_cast<std::uint32_t>(got) != std::bit_cast<std::uint32_t>(want) && failures++ < 10)
            std::printf("FAIL %s %d: %08x want %08x\n", what, i, std::bit_cast<std::uint32_t>(got),
                        std::bit_cast<std::uint32_t>(want));
    };
    auto tt = [&](bool pick_max, float* dst, const float* x) {
        return pick_max ? sim::maxmin::tile<true>(dst, stride, x, stride, sb.data(), stride, rows, cols)
                        : sim::maxmin::tile<false>(dst, stride, x, stride, sb.data(), stride, rows, cols);
    };
    auto ts = [&](bool pick_max, float s) {
        return pick_max ? sim::maxmin::tile_scalar<true>(d.data(), stride, sa.data(), stride, s, rows, cols)
                        : sim::maxmin::tile_scalar<false>(d.data(), stride, sa.data(), stride, s, rows, cols);
    };
    for (int pick_max = 0; pick_max < 2; ++pick_max) {
        const bool did = tt(pick_max != 0, d.data(), sa.data());
        ran += did;
        if (did)
            for (int r = 0; r < rows; ++r)
                for (int c = 0; c < cols; ++c) {
                    const float x = sa[r * stride + c], y = sb[r * stride + c];
                    const float want = pick_max ? sim::maximum<float>(x, y) : sim::minimum<float>(x, y);
                    same(d[r * stride + c], want, "tile", r * cols + c);
                }
        for (std::uint32_t s_bits : {0x00000000u, 0x80000000u, 0x3f800000u, 0x7fc00005u, 0xffa00007u,
                                 0xff800000u}) {
            const float s = std::bit_cast<float>(s_bits);
            const bool did_s = ts(pick_max != 0, s);
            ran += did_s;
            if (did_s)
                for (int r = 0; r < rows; ++r)
                    for (int c = 0; c < cols; ++c) {
                        const float x = sa[r * stride + c];
                        const float want =
                            pick_max ? sim::maximum_by<float>(x, s) : sim::minimum_by<float>(x, s);
                        same(d[r * stride + c], want, "scalar", r * cols + c);
                    }
        }
    }
    // In place: dst is src0.
    keep = sa;
    if (tt(true, sa.data(), sa.data())) {
        ++ran;
        for (int i = 0; i < rows * cols; ++i) {
            const int at = (i / cols) * stride + i % cols;
            same(sa[at], sim::maximum<float>(keep[at], sb[at]), "in place", i);
        }
    }
    // A destination one element past an operand would read what it has written: not done here.
    const bool shifted = tt(true, sa.data() + 1, sa.data());
    std::printf("ran %d shifted %d failures %d\n", ran, shifted ? 1 : 0, failures);
    return failures == 0 ? 0 : 1;
}
"""


def _has_avx512dq() -> bool:
    if platform.machine() not in ("x86_64", "AMD64"):
        return False
    flags = set()
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            break
    return {"avx512f", "avx512dq"} <= flags


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_maxmin_kernels_are_exact_and_run_where_the_machine_can(opt: str, tmp_path: Path):
    from ptogen.testing.runner import default_compilers

    exe = build_program(default_compilers()[0], PROGRAM, tmp_path, "maxmin", [opt])
    result = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    expected_runs = 2 * (1 + 6) + 1 if _has_avx512dq() else 0
    assert f"ran {expected_runs} shifted 0 failures 0" in result.stdout, result.stdout[-2000:]
