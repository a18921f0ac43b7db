"""The register model's predicate generation and UB loads and stores (pto/vsim/predicate.hpp,
pto/vsim/loadstore.hpp), in the call shapes upstream's A5 backend uses: pset/pge patterns at each
lane width, plt's first-n lanes with the count taken off, NORM and broadcast loads, masked stores of
each width (also spelt as `std::integral_constant<DistVST, ...>`), and POST_UPDATE moving the
pointer after the access."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ..compilers import COMPILERS, build_program, require

PROGRAM = r"""
#include <pto/vsim/builtins.hpp>

#include <cstdint>
#include <cstdio>
#include <string>

static int failures = 0;
#define CHECK(c) do { if (!(c)) { std::printf("FAIL line %d: %s\n", __LINE__, #c); ++failures; } } while (0)

template <int W>
static int count(const vector_bool& p) {
    int n = 0;
    for (int i = 0; i < 256 / W; ++i)
        n += p.lane(i, W);
    return n;
}

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    alignas(32) static unsigned char ub[4096] = {};
    if (mode == "unsupported_load") {
        vector_f32 v;
        vlds(v, reinterpret_cast<float*>(ub), 0, SPLT4CHN_B8);
        std::puts("survived");
        return 0;
    }
    // Patterns: counted from lane 0, PAT_H and PAT_Q from the top.
    CHECK(count<4>(pset_b32(PAT_ALL)) == 64 && count<2>(pset_b16(PAT_ALL)) == 128);
    CHECK(count<1>(pset_b8(PAT_ALL)) == 256);
    CHECK(count<4>(pset_b32(PAT_ALLF)) == 0);
    const vector_bool vl8 = pset_b32(PAT_VL8);
    CHECK(count<4>(vl8) == 8 && vl8.lane(7, 4) && !vl8.lane(8, 4));
    CHECK(count<4>(pset_b32(PAT_M3)) == 63 && count<4>(pset_b32(PAT_M4)) == 64);
    const vector_bool half = pset_b32(PAT_H);
    CHECK(count<4>(half) == 32 && half.lane(32, 4) && !half.lane(31, 4));
    CHECK(count<4>(pset_b32(PAT_Q)) == 16 && pset_b32(PAT_Q).lane(48, 4));
    CHECK(count<4>(pset_b32(PAT_VL128)) == 0); // wider than the register: illegal, sets nothing
    CHECK(count<1>(pge_b8(PAT_ALL)) == 256 && count<2>(pge_b16(PAT_VL16)) == 16);
    // A 16-bit lane is its two bytes' bits: one image serves every width.
    CHECK(pset_b16(PAT_VL1).bit(0) && pset_b16(PAT_VL1).bit(1) && !pset_b16(PAT_VL1).bit(2));

    // plt: the first n lanes, n reduced by the lanes set, never below zero.
    uint32_t n = 100;
    CHECK(count<4>(plt_b32(n, POST_UPDATE)) == 64 && n == 36);
    CHECK(count<4>(plt_b32(n, POST_UPDATE)) == 36 && n == 0);
    CHECK(count<4>(plt_b32(n, POST_UPDATE)) == 0 && n == 0);
    uint32_t m = 200, k = 300;
    CHECK(count<2>(plt_b16(m, POST_UPDATE)) == 128 && m == 72);
    CHECK(count<1>(plt_b8(k, POST_UPDATE)) == 256 && k == 44);

    // Loads: NORM reads 256 bytes at ptr + offset elements; BRC repeats one element.
    float* f = reinterpret_cast<float*>(ub);
    for (int i = 0; i < 256; ++i)
        f[i] = static_cast<float>(i);
    vector_f32 x;
    vlds(x, f, 8, NORM);
    CHECK(x.read(0) == 8.0f && x.read(63) == 71.0f);
    vlds(x, f, 5, BRC_B32);
    CHECK(x.read(0) == 5.0f && x.read(40) == 5.0f);
    vector_s16 h;
    vlds(h, reinterpret_cast<int16_t*>(ub), 1, BRC_B16); // the upper half of f[0] == 0.0f
    CHECK(h.read(0) == 0 && h.read(127) == 0);
    float* p = f;
    vlds(x, p, 64, NORM, POST_UPDATE); // reads at p, then p moves on
    CHECK(x.read(0) == 0.0f && p == f + 64);

    // Stores: the active lanes of the distribution's width.
    float* out = f + 512;
    vector_f32 y;
    for (int i = 0; i < 64; ++i)
        y.write(i, -static_cast<float>(i));
    uint32_t left = 10;
    vsts(y, out, 0, NORM_B32, plt_b32(left, POST_UPDATE));
    CHECK(out[9] == -9.0f && out[10] == 0.0f);
    vsts(y, out, 64, std::integral_constant<DistVST, DistVST::DIST_NORM>(), pset_b32(PAT_ALL));
    CHECK(out[64 + 63] == -63.0f);
    int16_t* s = reinterpret_cast<int16_t*>(ub + 3072);
    vector_s16 z;
    for (int i = 0; i < 128; ++i)
        z.write(i, static_cast<int16_t>(i + 1));
    int16_t* q = s;
    vsts(z, q, 128, NORM_B16, pset_b16(PAT_VL4), POST_UPDATE);
    CHECK(s[3] == 4 && s[4] == 0 && q == s + 128);

    std::printf("%d failures\n", failures);
    return failures == 0 ? 0 : 1;
}
"""


@pytest.fixture(scope="module", params=COMPILERS)
def program(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_program(require(request.param), PROGRAM, tmp_path_factory.mktemp("vsim_pl"), "pl")


def test_patterns_counts_loads_and_stores(program: Path) -> None:
    run = subprocess.run([str(program)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 failures" in run.stdout


def test_a_distribution_the_simulation_lacks_stops_it(program: Path) -> None:
    run = subprocess.run([str(program), "unsupported_load"], capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and "survived" not in run.stdout
    assert run.stderr.startswith("PTO runtime error: vlds: the simulation has no SPLT4CHN"), run.stderr
