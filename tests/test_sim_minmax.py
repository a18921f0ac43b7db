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

from tests.compilers import cxx_argv
from tests.test_core_cpp import CHECK_MACRO, FLAGS, INCLUDE, _write_standins

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
