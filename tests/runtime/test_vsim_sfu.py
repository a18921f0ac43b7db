"""The sort unit's UB-to-UB builtins of the register model (pto/vsim/sfu.hpp), in the call shapes
upstream's A5 backend uses (TSORT32, TMRGSORT), checked record by record: vbitsort orders each group
of 32 from the largest score with stable ties and NaN last, vmrgsort4 merges the lists its control
word enables (ties to the lower list, the stop-when-used-up bit, repeats over consecutive blocks) and
get_vms4_sr() reports the records taken per list; vsort32 and vtranspose stop the run."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ..compilers import COMPILERS, build_program, require

PROGRAM = r"""
#include <pto/vsim/float16_codec.hpp>
#include <pto/vsim/sfu.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <limits>

static int failures = 0;
#define CHECK(c) do { if (!(c)) { std::printf("FAIL line %d: %s\n", __LINE__, #c); ++failures; } } while (0)

struct Rec { float score; uint32_t index; };
static Rec rec(const float* records, int k) {
    Rec r;
    std::memcpy(&r, records + 2 * k, sizeof r);
    return r;
}
// A 16-bit float score: binary16 bits, converted explicitly as A5's half is.
struct Half {
    uint16_t bits;
    explicit operator float() const { return pto::detail::half_bits_to_float(bits); }
};
static Half half_of(float f) { return Half{pto::detail::float_to_half_bits(f)}; }
static float list_score(int list, int k) { return static_cast<float>(100 - 4 * k - list); }

int main(int argc, char** argv) {
    if (argc > 1) {  // the unsimulated builtins stop the run
        float a[64] = {}, b[64] = {};
        if (argv[1][0] == 's')
            vsort32(a, b, 0);
        else
            vtranspose(a, b, 0);
        return 0;
    }
    const float nan = std::numeric_limits<float>::quiet_NaN();
    // Two groups: scores with ties and a NaN, indices descending (so stable order differs from
    // ordering by index value).
    float scores[64];
    uint32_t idx[64];
    for (int i = 0; i < 64; ++i) {
        scores[i] = static_cast<float>((i * 7) % 5);  // 0 2 4 1 3 0 2 ...
        idx[i] = 1000u - static_cast<uint32_t>(i);
    }
    scores[3] = nan;
    scores[40] = -0.0f;
    float out[128];
    std::memset(out, 0xAB, sizeof out);
    vbitsort(out, scores, idx, 2);
    for (int g = 0; g < 2; ++g) {
        bool seen[32] = {};
        for (int k = 0; k < 32; ++k) {
            const Rec r = rec(out + 64 * g, k);
            const int pos = static_cast<int>(1000u - r.index) - 32 * g;
            CHECK(pos >= 0 && pos < 32 && !seen[pos]);
            if (pos < 0 || pos >= 32)
                continue;
            seen[pos] = true;
            CHECK(std::memcmp(&r.score, &scores[32 * g + pos], 4) == 0);
            if (k > 0) {
                const Rec p = rec(out + 64 * g, k - 1);
                const int prev = static_cast<int>(1000u - p.index) - 32 * g;
                // descending, a NaN last, equal scores in their order in the group
                CHECK(std::isnan(r.score) || (!std::isnan(p.score) && p.score >= r.score));
                CHECK(std::isnan(r.score) || p.score != r.score || prev < pos);
            }
        }
    }
    CHECK(std::isnan(rec(out, 31).score) && rec(out, 31).index == 997u);
    CHECK(rec(out, 0).score == 4.0f && rec(out, 0).index == 1000u - 2);
    // half scores: the score in bytes 0..1, zeros in bytes 2..3, the index in bytes 4..7
    Half hs[32];
    uint32_t hidx[32];
    for (int i = 0; i < 32; ++i) {
        hs[i] = half_of(static_cast<float>(i % 3) - 1.0f);
        hidx[i] = static_cast<uint32_t>(i);
    }
    Half hout[128];
    std::memset(hout, 0xCD, sizeof hout);
    vbitsort(hout, hs, hidx, 1);
    unsigned char bytes[8];
    std::memcpy(bytes, hout, 8);
    uint32_t first_index;
    std::memcpy(&first_index, bytes + 4, 4);
    CHECK(static_cast<float>(hout[0]) == 1.0f && bytes[2] == 0 && bytes[3] == 0 && first_index == 2u);
    std::memcpy(bytes, hout + 4 * 31, 8);
    uint32_t last_index;
    std::memcpy(&last_index, bytes + 4, 4);
    CHECK(static_cast<float>(hout[4 * 31]) == -1.0f && last_index == 30u);

    // vmrgsort4 over three lists of records (list n: scores 100 - 4k - n), a tie between lists 0 and 2.
    float l0[16], l1[16], l2[16];
    float* lists[3] = {l0, l1, l2};
    for (int n = 0; n < 3; ++n)
        for (int k = 0; k < 8; ++k) {
            const Rec r{list_score(n, k), static_cast<uint32_t>(10 * n + k)};
            std::memcpy(lists[n] + 2 * k, &r, sizeof r);
        }
    Rec tie{96.0f, 77u};  // list 2 record 1 scores 96, as list 0 record 1 does
    std::memcpy(l2 + 2, &tie, sizeof tie);
    float merged[48];
    const uint64_t count = 8u | (uint64_t(3) << 16) | (uint64_t(8) << 32);
    vmrgsort4(merged, lists, count, 1u | (0b0111u << 8));
    const int64_t sr = get_vms4_sr();
    CHECK((sr & 0xFFFF) == 8 && ((sr >> 16) & 0xFFFF) == 3 && ((sr >> 32) & 0xFFFF) == 8 && (sr >> 48) == 0);
    for (int k = 1; k < 19; ++k)
        CHECK(rec(merged, k - 1).score >= rec(merged, k).score);
    CHECK(rec(merged, 0).index == 0u && rec(merged, 1).index == 10u && rec(merged, 2).index == 20u);
    // the tie at 96: list 0's record before list 2's
    int at0 = -1, at2 = -1;
    for (int k = 0; k < 19; ++k) {
        if (rec(merged, k).index == 1u) at0 = k;
        if (rec(merged, k).index == 77u) at2 = k;
    }
    CHECK(at0 >= 0 && at2 == at0 + 1);
    // bit 12: stop as soon as one enabled list (list 1, three records) is used up
    vmrgsort4(merged, lists, count, 1u | (0b0111u << 8) | (1u << 12));
    const int64_t stopped = get_vms4_sr();
    CHECK(((stopped >> 16) & 0xFFFF) == 3 && (stopped & 0xFFFF) == 3 && ((stopped >> 32) & 0xFFFF) == 2);
    // a disabled list takes no part
    vmrgsort4(merged, lists, count, 1u | (0b0101u << 8));
    CHECK(((get_vms4_sr() >> 16) & 0xFFFF) == 0);
    // repeats: TMRGSORT's single-source form, four blocks of two records each time, twice
    float blocks[32];
    for (int b = 0; b < 8; ++b)
        for (int k = 0; k < 2; ++k) {
            const Rec r{static_cast<float>(50 - k * 10 - b), static_cast<uint32_t>(b * 2 + k)};
            std::memcpy(blocks + 2 * (2 * b + k), &r, sizeof r);
        }
    float* quad[4] = {blocks, blocks + 4, blocks + 8, blocks + 12};
    float two_groups[32];
    vmrgsort4(two_groups, quad, 2u | (2ull << 16) | (2ull << 32) | (2ull << 48), 2u | (0b1111u << 8));
    CHECK(rec(two_groups, 0).index == 0u && rec(two_groups, 7).index == 7u);
    CHECK(rec(two_groups, 8).index == 8u && rec(two_groups, 15).index == 15u);
    CHECK(rec(two_groups, 3).score == 47.0f && rec(two_groups, 4).score == 40.0f);

    std::printf("%d failures\n", failures);
    return failures == 0 ? 0 : 1;
}
"""


def test_sort_unit_records_and_unsimulated_builtins(tmp_path: Path) -> None:
    # plain C++ over byte buffers, with nothing a second compiler would read differently: one build
    program = build_program(require(COMPILERS[0]), PROGRAM, tmp_path, "sfu")
    run = subprocess.run([str(program)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 failures" in run.stdout
    for builtin in ("vsort32", "vtranspose"):
        run = subprocess.run([str(program), builtin[1]], capture_output=True, text=True, timeout=60)
        assert run.returncode != 0
        assert f"{builtin} is not simulated" in run.stderr
