"""IEEE 754-2019 maximum/minimum of the simulator core (sim::maximum / sim::minimum in
pto/common/sim_support.hpp): NaN in either position, signed zeros in both orders, infinities, for
float, double, half, bfloat16_t and integers, compiled with each host compiler at -O0 and -O3 (the
functions are branch-free so that loops vectorise; -O3 checks the vectorised loop as well), and
their forms for a second operand fixed across a loop (sim::maximum_by / sim::minimum_by)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ..compilers import cxx_argv
from .test_core_cpp import CHECK_MACRO, FLAGS, INCLUDE, _write_standins

PROGRAM = r"""
#include <pto/pto-inst.hpp>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <limits>

using namespace pto;

@CHECK@

template <typename F>
static auto bits(F x) {
    if constexpr (std::is_same_v<F, float>)
        return std::bit_cast<std::uint32_t>(x);
    else if constexpr (std::is_same_v<F, double>)
        return std::bit_cast<std::uint64_t>(x);
    else
        return x.bits();
}

// One float type: F built from float values; nan_a / nan_b are two NaNs with different payloads
// and signs, so the returned one is identified by its bits.
template <typename F>
static void float_cases(F nan_a, F nan_b) {
    const F pz = F(0.0f), nz = F(-0.0f), one = F(1.0f), m2 = F(-2.0f);
    const F inf = F(std::numeric_limits<float>::infinity());
    const F ninf = F(-std::numeric_limits<float>::infinity());
    // NaN propagates from either position; with two NaNs the first operand wins.
    for (F x : {pz, nz, one, m2, inf, ninf}) {
        CHECK(bits(sim::maximum<F>(nan_a, x)) == bits(nan_a));
        CHECK(bits(sim::maximum<F>(x, nan_b)) == bits(nan_b));
        CHECK(bits(sim::minimum<F>(nan_a, x)) == bits(nan_a));
        CHECK(bits(sim::minimum<F>(x, nan_b)) == bits(nan_b));
    }
    CHECK(bits(sim::maximum<F>(nan_a, nan_b)) == bits(nan_a));
    CHECK(bits(sim::maximum<F>(nan_b, nan_a)) == bits(nan_b));
    CHECK(bits(sim::minimum<F>(nan_a, nan_b)) == bits(nan_a));
    CHECK(bits(sim::minimum<F>(nan_b, nan_a)) == bits(nan_b));
    // Signed zeros, both orders: +0 > -0.
    CHECK(bits(sim::maximum<F>(pz, nz)) == bits(pz) && bits(sim::maximum<F>(nz, pz)) == bits(pz));
    CHECK(bits(sim::minimum<F>(pz, nz)) == bits(nz) && bits(sim::minimum<F>(nz, pz)) == bits(nz));
    CHECK(bits(sim::maximum<F>(nz, nz)) == bits(nz) && bits(sim::minimum<F>(pz, pz)) == bits(pz));
    CHECK(bits(sim::maximum<F>(nz, m2)) == bits(nz) && bits(sim::minimum<F>(pz, one)) == bits(pz));
    // Infinities.
    CHECK(bits(sim::maximum<F>(inf, one)) == bits(inf) && bits(sim::maximum<F>(ninf, one)) == bits(one));
    CHECK(bits(sim::minimum<F>(one, ninf)) == bits(ninf) && bits(sim::minimum<F>(inf, m2)) == bits(m2));
    CHECK(bits(sim::maximum<F>(ninf, inf)) == bits(inf) && bits(sim::minimum<F>(ninf, inf)) == bits(ninf));
    CHECK(bits(sim::maximum<F>(inf, inf)) == bits(inf) && bits(sim::minimum<F>(ninf, ninf)) == bits(ninf));
    CHECK(bits(sim::maximum<F>(m2, one)) == bits(one) && bits(sim::minimum<F>(m2, one)) == bits(m2));

    // The same cases through a loop the compiler may vectorise (arrays in both operand orders).
    const F xs[] = {nan_a, pz, nz, one, m2, inf, ninf, nan_b};
    constexpr int n = sizeof xs / sizeof xs[0];
    F as[n * n], bs[n * n], mx[n * n], mn[n * n];
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            as[i * n + j] = xs[i];
            bs[i * n + j] = xs[j];
        }
    for (int k = 0; k < n * n; ++k) {
        mx[k] = sim::maximum<F>(as[k], bs[k]);
        mn[k] = sim::minimum<F>(as[k], bs[k]);
    }
    for (int k = 0; k < n * n; ++k) {
        const F a = as[k], b = bs[k];
        const float fa = static_cast<float>(a), fb = static_cast<float>(b);
        const bool nan_first = fa != fa, nan_second = !nan_first && fb != fb;
        const auto tie_max = bits(a) & bits(b), tie_min = bits(a) | bits(b);
        const auto want_max = nan_first    ? bits(a)
                              : nan_second ? bits(b)
                              : fa > fb    ? bits(a)
                              : fa < fb    ? bits(b)
                                           : tie_max;
        const auto want_min = nan_first    ? bits(a)
                              : nan_second ? bits(b)
                              : fa < fb    ? bits(a)
                              : fa > fb    ? bits(b)
                                           : tie_min;
        CHECK(bits(mx[k]) == want_max);
        CHECK(bits(mn[k]) == want_min);
    }

    // maximum_by / minimum_by, the simulator's form when the second operand is the same for every
    // element (a scalar operand or a constant): bit for bit the results of maximum / minimum, with
    // that operand fixed for a whole loop (its branches are hoisted) and as a literal zero (TRELU).
    for (int j = 0; j < n; ++j) {
        const F s = xs[j];
        F by_mx[n], by_mn[n], zero_mx[n], zero_mn[n];
        for (int i = 0; i < n; ++i) {
            by_mx[i] = sim::maximum_by<F>(xs[i], s);
            by_mn[i] = sim::minimum_by<F>(xs[i], s);
            zero_mx[i] = sim::maximum_by<F>(xs[i], F(0.0f));
            zero_mn[i] = sim::minimum_by<F>(xs[i], F(-0.0f));
        }
        for (int i = 0; i < n; ++i) {
            CHECK(bits(by_mx[i]) == bits(sim::maximum<F>(xs[i], s)));
            CHECK(bits(by_mn[i]) == bits(sim::minimum<F>(xs[i], s)));
            CHECK(bits(zero_mx[i]) == bits(sim::maximum<F>(xs[i], pz)));
            CHECK(bits(zero_mn[i]) == bits(sim::minimum<F>(xs[i], nz)));
        }
    }
}

template <typename I>
static void integer_cases() {
    constexpr I lo = std::numeric_limits<I>::min(), hi = std::numeric_limits<I>::max();
    static_assert(sim::maximum<I>(lo, hi) == hi && sim::maximum<I>(hi, lo) == hi);
    static_assert(sim::minimum<I>(lo, hi) == lo && sim::minimum<I>(hi, lo) == lo);
    CHECK(sim::maximum<I>(I(0), I(0)) == I(0) && sim::minimum<I>(I(3), I(3)) == I(3));
    CHECK(sim::maximum<I>(I(5), I(7)) == I(7) && sim::minimum<I>(I(5), I(7)) == I(5));
    for (I s : {lo, I(0), I(5), hi}) {
        CHECK(sim::maximum_by<I>(I(5), s) == sim::maximum<I>(I(5), s));
        CHECK(sim::minimum_by<I>(I(5), s) == sim::minimum<I>(I(5), s));
    }
}

// Usable in constant expressions.
static_assert(std::bit_cast<std::uint32_t>(sim::maximum<float>(-0.0f, 0.0f)) == 0u);
static_assert(std::bit_cast<std::uint32_t>(sim::minimum<float>(0.0f, -0.0f)) == 0x80000000u);
static_assert(sim::maximum<half>(half(-0.0f), half(0.0f)).bits() == 0x0000);
static_assert(sim::minimum<bfloat16_t>(bfloat16_t(0.0f), bfloat16_t(-0.0f)).bits() == 0x8000);
static_assert(sim::maximum<double>(-1.0, 2.0) == 2.0);

int main() {
    float_cases<float>(std::bit_cast<float>(0x7fc00001u), std::bit_cast<float>(0xffc00002u));
    float_cases<double>(std::bit_cast<double>(0x7ff8000000000001ull),
                        std::bit_cast<double>(0xfff8000000000002ull));
    float_cases<half>(half::from_bits(0x7e01), half::from_bits(0xfe02));
    float_cases<bfloat16_t>(bfloat16_t::from_bits(0x7fc1), bfloat16_t::from_bits(0xffc2));
    integer_cases<std::int8_t>();
    integer_cases<std::uint16_t>();
    integer_cases<std::int32_t>();
    integer_cases<std::int64_t>();
    std::printf("%d checks, %d failures\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
"""


@pytest.mark.parametrize("opt", ["-O0", "-O3"])
@pytest.mark.parametrize("cxx", ["g++", "clang++"])
def test_maximum_minimum(cxx: str, opt: str, tmp_path: Path):
    if shutil.which(cxx) is None:
        pytest.skip(f"{cxx} is not installed")
    gen = _write_standins(tmp_path)
    src = tmp_path / "minmax.cpp"
    src.write_text(PROGRAM.replace("@CHECK@", CHECK_MACRO))
    exe = tmp_path / "minmax"
    cmd = [*cxx_argv(cxx), *FLAGS, opt, f"-I{INCLUDE}", f"-I{gen}", str(src), "-o", str(exe)]
    build = subprocess.run(cmd, capture_output=True, text=True)
    assert build.returncode == 0, f"{cxx} failed:\n{build.stderr}"
    result = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert ", 0 failures" in result.stdout


# TMAX/TMIN through the generated simulator: its row loop selects first and redoes a row exactly
# when an element of the first operand is a NaN or a zero (sim::max_min_select / max_min_unsure).
# Rows with and without such elements, in place and not, against sim::maximum / minimum per element.
TILE_PROGRAM = r"""
#include <pto/pto-inst.hpp>

#include <bit>
#include <cstdint>
#include <cstdio>

using namespace pto;

static int failures = 0;

template <typename F>
static std::uint32_t bits(F x) {
    if constexpr (std::is_same_v<F, float>)
        return std::bit_cast<std::uint32_t>(x);
    else
        return x.bits();
}

template <typename F, int C>
static void run(F nan_a, F nan_b) {
    using T = Tile<TileType::Vec, F, 8, C, BLayout::RowMajor, 6, C - 3>;
    T a, b, mx, mn, in_place;
    const F specials[] = {nan_a, F(0.0f), F(-0.0f), nan_b, F(1.0f), F(-2.0f)};
    for (int r = 0; r < 8; ++r)
        for (int c = 0; c < C; ++c) {
            // Rows 0-2 plain values only (the selected result stands), rows 3-5 special values in
            // both operands (the row is redone), rows 6-7 outside the valid region.
            const F plain_a = F(static_cast<float>((r * 7 + c * 3) % 11) - 5.5f);
            const F plain_b = F(static_cast<float>((r * 5 + c) % 9) - 4.25f);
            a.at(r, c) = r >= 3 ? specials[(r + c) % 6] : plain_a;
            b.at(r, c) = r >= 3 ? specials[(r * 2 + c) % 6] : plain_b;
            mx.at(r, c) = mn.at(r, c) = F(99.0f);
            in_place.at(r, c) = a.at(r, c);
        }
    TMAX(mx, a, b);
    TMIN(mn, a, b);
    TMAX(in_place, in_place, b);  // dst is src0: the exact loop only
    for (int r = 0; r < 8; ++r)
        for (int c = 0; c < C; ++c) {
            const bool valid = r < 6 && c < C - 3;
            const F want_max = valid ? sim::maximum<F>(a.at(r, c), b.at(r, c)) : F(99.0f);
            const F want_min = valid ? sim::minimum<F>(a.at(r, c), b.at(r, c)) : F(99.0f);
            const F want_in_place = valid ? want_max : a.at(r, c);
            if (bits(mx.at(r, c)) != bits(want_max) || bits(mn.at(r, c)) != bits(want_min) ||
                bits(in_place.at(r, c)) != bits(want_in_place)) {
                std::printf("FAIL %d bytes, (%d, %d)\n", static_cast<int>(sizeof(F)), r, c);
                ++failures;
            }
        }
}

int main() {
    run<float, 64>(std::bit_cast<float>(0x7fc00001u), std::bit_cast<float>(0xffc00002u));
    run<half, 64>(half::from_bits(0x7e01), half::from_bits(0xfe02));
    run<bfloat16_t, 32>(bfloat16_t::from_bits(0x7fc1), bfloat16_t::from_bits(0xffc2));
    std::printf("%d failures\n", failures);
    return failures == 0 ? 0 : 1;
}
"""


@pytest.mark.parametrize("opt", ["-O0", "-O3"])
def test_tile_tile_max_min_select_then_redo_is_exact(opt: str, tmp_path: Path):
    from ptogen.testing.runner import default_compilers

    from ..helpers import ROOT

    cxx = default_compilers()[0]
    src = tmp_path / "tile_minmax.cpp"
    src.write_text(TILE_PROGRAM)
    exe = tmp_path / "tile_minmax"
    includes = [f"-I{ROOT / 'generated/include'}", f"-I{ROOT / 'ptogen/runtime/include'}"]
    cmd = [*cxx_argv(cxx), "-std=c++20", "-ffp-contract=off", opt, *includes, str(src), "-o", str(exe)]
    build = subprocess.run(cmd, capture_output=True, text=True)
    assert build.returncode == 0, f"{cxx} failed:\n{build.stderr[:3000]}"
    result = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "0 failures" in result.stdout, result.stdout[:3000] + result.stderr
