"""The sort unit's UB-to-UB builtins of the register model (pto/vsim/sfu.hpp), in the call shapes
upstream's A5 backend uses (TSORT32, TMRGSORT), checked record by record: vbitsort orders each group
of 32 from the largest score with stable ties and NaN last, vmrgsort4 merges the lists its control
word enables (ties to the lower list, the stop-when-used-up bit, repeats over consecutive blocks) and
get_vms4_sr() reports the records taken per list; vsort32 and vtranspose stop the run; vaddreluconv
and vmulconv convert lane by lane (rounding, ReLU, saturation, NaN, placement, modes)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ..compilers import COMPILERS, build_program, require

PROGRAM = r"""
#include <pto/vsim/float16_codec.hpp>
#include <pto/vsim/predicate.hpp>
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

    // vaddreluconv f32 -> f16: lane i of the first 64; the sum rounded in f32, rectified, converted
    vector_f32 fa, fb;
    for (int i = 0; i < 64; ++i) {
        fa.write(i, static_cast<float>(i) - 10.0f);
        fb.write(i, 0.5f);
    }
    fa.write(1, nan);
    fa.write(2, 70000.0f);            // overflows f16: +inf
    fa.write(3, 1.0f);
    fb.write(3, 0.00048828125f);      // 1 + 2^-11: the f16 tie rounds to even, 1.0
    vector_f16 h;
    for (int i = 0; i < 128; ++i)
        h.write(i, 7.0f);
    uint32_t n64 = 64, n60 = 60;
    const vector_bool all32 = plt_b32(n64, POST_UPDATE);
    vaddreluconv(h, fa, fb, all32);
    CHECK(h.read(0) == 0.0f && !std::signbit(h.read(0)));  // -9.5 -> +0
    CHECK(std::isnan(h.read(1)) && std::isinf(h.read(2)) && h.read(3) == 1.0f);
    CHECK(h.read(20) == 10.5f && h.read(63) == 53.5f);
    CHECK(h.read(64) == 7.0f && h.read(127) == 7.0f);       // no source lane: kept (MODE_MERGING)
    vaddreluconv(h, fa, fb, plt_b32(n60, POST_UPDATE), MODE_ZEROING);
    CHECK(h.read(59) == 49.5f && h.read(60) == 0.0f && h.read(100) == 0.0f);
    // f16 -> s8: the f16 sum, rectified, to nearest even, saturating; NaN gives 0
    vector_f16 ha, hb;
    for (int i = 0; i < 128; ++i) {
        ha.write(i, 2.5f);
        hb.write(i, 0.0f);
    }
    ha.write(1, 3.5f);
    ha.write(2, 1000.0f);
    ha.write(3, nan);
    ha.write(4, 2048.0f);
    hb.write(4, 1.0f);                // 2049 is not an f16: the f16 sum is 2048, saturating to 127
    vector_s8 q;
    for (int i = 0; i < 256; ++i)
        q.write(i, 5);
    uint32_t n128 = 128;
    const vector_bool all16 = plt_b16(n128, POST_UPDATE);
    vaddreluconv(q, ha, hb, all16, MODE_ZEROING);
    CHECK(q.read(0) == 2 && q.read(1) == 4 && q.read(2) == 127 && q.read(3) == 0 && q.read(4) == 127);
    CHECK(q.read(127) == 2 && q.read(128) == 0 && q.read(255) == 0);
    // f16 -> f32 reads the source's first 64 lanes
    vector_f32 wide;
    vaddreluconv(wide, ha, hb, all16);
    CHECK(wide.read(0) == 2.5f && wide.read(2) == 1000.0f && wide.read(63) == 2.5f);
    // vmulconv f16 -> s8: the product, no ReLU
    vector_f16 m1, m2;
    for (int i = 0; i < 128; ++i) {
        m1.write(i, -1.5f);
        m2.write(i, 3.0f);
    }
    m1.write(1, 100.0f);
    m1.write(2, -0.25f);
    m2.write(2, 2.0f);                // -0.5: ties to even, -0
    vector_s8 mq;
    vmulconv(mq, m1, m2, all16, MODE_ZEROING);
    CHECK(mq.read(0) == -4 && mq.read(1) == 127 && mq.read(2) == 0 && mq.read(200) == 0);

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
