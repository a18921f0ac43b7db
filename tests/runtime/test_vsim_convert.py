"""vcvt and vtrc in the builtin spelling (pto/vsim/convert.hpp): the call shapes upstream's A5 backend uses
(rounding as a token or a `Round*Type` object, saturation and part in any order), lane placement of
narrowing and widening conversions (PART_EVEN/ODD, P0-P3), inactive and unused lanes, every rounding
mode, saturation, NaN and signed zero; vtrc's rounding in place and its inactive lanes; vci's index
lanes; vbitcast's and pbitcast's bit copies. f32 to f16 under R is also checked against numpy over a
sweep, and every admitted pair under each rounding, saturation and part against a model of the spec."""

from __future__ import annotations

import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from ..compilers import COMPILERS, build_program, require

PROGRAM = r"""
#include <pto/common/cpu_stub.hpp>  // the control register A5's TCVT sets
#include <pto/vsim/builtins.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

using __cce_simd::RoundRType;

template <typename T>
struct RegTensor {  // A5's wrapper: a RegType and a conversion to it
    using RegType = pto::vsim::vector_of<
        std::conditional_t<std::is_same_v<T, float>, pto::vsim::f32, pto::vsim::i32>>;
    RegType reg;
    operator RegType&() { return reg; }
};

static int failures = 0;
#define CHECK(c) do { if (!(c)) { std::printf("FAIL line %d: %s\n", __LINE__, #c); ++failures; } } while (0)

static uint16_t h(const vector_f16& v, int i) { return v.get(i); }

// The pair sweep: every admitted pair, each rounding (integer results), saturation and part, on edge
// values and pseudo-random ones, under a mask of pseudo-random bits. Each call prints its tokens, the
// source, the mask and the destination as hex; the test computes the destination itself.
static uint64_t lcg = 0x9e3779b97f4a7c15ull;
static uint32_t next_random() {
    lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(lcg >> 32);
}
static void hex(const unsigned char* p, int n) {
    for (int i = 0; i < n; ++i)
        std::printf("%02x", p[i]);
}
template <typename R>
static void fill(R& src) {
    using K = typename R::kind;
    constexpr int lanes = R::lanes;
    if constexpr (K::is_float) {
        const float edges[] = {0.0f, -0.0f, 0.5f, -0.5f, 1.5f, 2.5f, -2.5f, 127.5f, -128.5f, 255.5f, 256.0f,
                               -129.0f, 32767.5f, -32768.5f, 65504.0f, 65519.0f, 65520.0f, -1e10f, 1e10f,
                               3e9f, -3e9f, INFINITY, -INFINITY, NAN, 1e-8f, -1e-40f, 70000.7f, 2147483648.0f,
                               -2147483904.0f, 1.00048828125f, 3.0000002f, 16777217.0f, 1e30f, -65535.0f};
        for (int i = 0; i < lanes; ++i) {
            const uint32_t r = next_random();
            const float digits = static_cast<float>(static_cast<int32_t>(r % 2000001u) - 1000000) / 1000.0f;
            const float v = std::ldexp(digits, static_cast<int>(r >> 27) - 12);
            src.write(i, i < static_cast<int>(sizeof edges / sizeof edges[0]) ? edges[i] : v);
        }
    } else {
        const int64_t edges[] = {0,     1,     -1,        2,         127,      128,       -128,       -129,
                                 255,   256,   32767,     32768,     -32768,   -32769,    65535,      65536,
                                 INT32_MAX, INT32_MIN, 16777217, -16777217, 2147483520, 4294967295};
        for (int i = 0; i < lanes; ++i) {
            const uint64_t r = (uint64_t{next_random()} << 32) | next_random();
            const bool edge = i < static_cast<int>(sizeof edges / sizeof edges[0]);
            src.set(i, static_cast<typename K::bits>(edge ? edges[i] : static_cast<int64_t>(r)));
        }
    }
}
template <typename D, typename S>
static void sweep(const char* name) {
    S src;
    fill(src);
    vector_bool m;
    for (auto& b : m.bits)
        b = static_cast<unsigned char>(next_random() | 0x11);  // mostly active
    constexpr int ws = S::kind::width, wd = D::kind::width;
    // A 4-bit float destination packs two codes a byte: bf16 to E2M1 is a 4:1 narrowing.
    constexpr bool fp4 = std::is_same_v<typename D::kind, pto::vsim::f4e2m1>;
    constexpr int ratio = fp4 ? 4 : ws > wd ? ws / wd : wd / ws;
    const pto::vsim::round rounds[] = {ROUND_R, ROUND_A, ROUND_F, ROUND_C, ROUND_Z};
    const int n_rounds = D::kind::is_float || !S::kind::is_float ? 1 : 5;
    const pto::vsim::part two[] = {PART_EVEN, PART_ODD}, four[] = {PART_P0, PART_P1, PART_P2, PART_P3};
    for (int k = 0; k < n_rounds; ++k)
        for (const pto::vsim::sat sat : {RS_DISABLE, RS_ENABLE})
            for (int part = 0; part < ratio; ++part) {
                D dst;
                std::memset(dst.bytes, 0xab, sizeof dst.bytes);  // every lane is written, used or not
                if (ratio == 1)
                    vcvt(dst, src, m, rounds[k], sat);
                else
                    vcvt(dst, src, m, rounds[k], sat, ratio == 2 ? two[part] : four[part]);
                std::printf("%s %d %d %d ", name, k, sat == RS_ENABLE, part);
                hex(src.bytes, sizeof src.bytes);
                std::putchar(' ');
                hex(m.bits, sizeof m.bits);
                std::putchar(' ');
                hex(dst.bytes, sizeof dst.bytes);
                std::putchar('\n');
            }
}

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    const vector_bool all32 = pset_b32(PAT_ALL), all16 = pset_b16(PAT_ALL), all8 = pset_b8(PAT_ALL);
    if (mode == "sweep") {  // f32 -> f16 under R, PART_EVEN: bits of every converted lane
        vector_f32 x;
        vector_f16 y;
        float v;
        int n = 0;
        while (std::fread(&v, sizeof v, 1, stdin) == 1) {
            x.write(n++, v);
            if (n == 64) {
                vcvt(y, x, all32, ROUND_R, RS_DISABLE, PART_EVEN);
                for (int i = 0; i < 64; ++i)
                    std::printf("%u\n", y.get(2 * i));
                n = 0;
            }
        }
        return 0;
    }
    if (mode == "pairs") {
        sweep<vector_s64, vector_f32>("f32:s64");
        sweep<vector_s32, vector_f32>("f32:s32");
        sweep<vector_s16, vector_f32>("f32:s16");
        sweep<vector_f16, vector_f32>("f32:f16");
        sweep<vector_bf16, vector_f32>("f32:bf16");
        sweep<vector_s32, vector_f16>("f16:s32");
        sweep<vector_s16, vector_f16>("f16:s16");
        sweep<vector_s8, vector_f16>("f16:s8");
        sweep<vector_u8, vector_f16>("f16:u8");
        sweep<vector_f32, vector_f16>("f16:f32");
        sweep<vector_s32, vector_bf16>("bf16:s32");
        sweep<vector_f32, vector_bf16>("bf16:f32");
        sweep<vector_f16, vector_bf16>("bf16:f16");
        sweep<vector_bf16, vector_f16>("f16:bf16");
        sweep<vector_f16, vector_u8>("u8:f16");
        sweep<vector_u16, vector_u8>("u8:u16");
        sweep<vector_u32, vector_u8>("u8:u32");
        sweep<vector_f16, vector_s8>("s8:f16");
        sweep<vector_s16, vector_s8>("s8:s16");
        sweep<vector_s32, vector_s8>("s8:s32");
        sweep<vector_u8, vector_u16>("u16:u8");
        sweep<vector_u32, vector_u16>("u16:u32");
        sweep<vector_f16, vector_s16>("s16:f16");
        sweep<vector_f32, vector_s16>("s16:f32");
        sweep<vector_u8, vector_s16>("s16:u8");
        sweep<vector_u32, vector_s16>("s16:u32");
        sweep<vector_s32, vector_s16>("s16:s32");
        sweep<vector_f32, vector_u32>("u32:f32");
        sweep<vector_u8, vector_u32>("u32:u8");
        sweep<vector_u16, vector_u32>("u32:u16");
        sweep<vector_s16, vector_u32>("u32:s16");
        sweep<vector_f32, vector_s32>("s32:f32");
        sweep<vector_u8, vector_s32>("s32:u8");
        sweep<vector_u16, vector_s32>("s32:u16");
        sweep<vector_s16, vector_s32>("s32:s16");
        sweep<vector_s64, vector_s32>("s32:s64");
        sweep<vector_s32, vector_s64>("s64:s32");
        sweep<vector_f32, vector_s64>("s64:f32");
        sweep<vector_f8e4m3, vector_f32>("f32:f8e4m3");
        sweep<vector_f4e2m1x2, vector_bf16>("bf16:f4e2m1");
        return 0;
    }
    if (mode == "narrow_round") {
        vector_f8e4m3 y;
        vector_f32 x;
        vcvt(y, x, all32, ROUND_Z, RS_ENABLE, PART_P0);
        std::puts("survived");
        return 0;
    }
    if (mode == "bad_part") {
        vector_s16 y;
        vector_s32 x;
        vcvt(y, x, all32, RS_DISABLE, PART_P2);
        std::puts("survived");
        return 0;
    }

    // f32 -> s32: each rounding mode on 2.5, -2.5, 2.25; token or Round*Type object.
    vector_f32 f;
    const float fv[] = {2.5f, -2.5f, 2.25f, -0.0f, NAN, 3e9f, -3e9f, 1.5f};
    for (int i = 0; i < 8; ++i)
        f.write(i, fv[i]);
    vector_s32 s;
    vcvt(s, f, all32, RoundRType(), RS_DISABLE);
    CHECK(s.read(0) == 2 && s.read(1) == -2 && s.read(2) == 2 && s.read(3) == 0);
    CHECK(s.read(4) == 0 && s.read(5) == INT32_MAX && s.read(6) == INT32_MIN && s.read(7) == 2);
    vcvt(s, f, all32, ROUND_A);
    CHECK(s.read(0) == 3 && s.read(1) == -3 && s.read(2) == 2);
    vcvt(s, f, all32, ROUND_F);
    CHECK(s.read(0) == 2 && s.read(1) == -3 && s.read(2) == 2);
    vcvt(s, f, all32, ROUND_C);
    CHECK(s.read(0) == 3 && s.read(1) == -2 && s.read(2) == 3);
    vcvt(s, f, all32, ROUND_Z, RS_ENABLE);
    CHECK(s.read(0) == 2 && s.read(1) == -2 && s.read(2) == 2);
    vcvt(s, f, all32, ROUND_O);
    CHECK(s.read(0) == 3 && s.read(1) == -3 && s.read(2) == 3 && s.read(7) == 1);
    vcvt(s, f, all32);  // no token: R
    CHECK(s.read(0) == 2 && s.read(7) == 2);

    // The control register's saturation bits, as A5's TCVT sets them: bit 60 hands the choice to bit
    // 59 (0 saturates, 1 wraps) whatever the token says; bit 60 clear leaves it to the token.
    vector_s32 wide;
    wide.write(0, 40000);
    wide.write(1, -40000);
    vector_s16 narrow;
    set_ctrl(sbitset0(sbitset1(0, 60), 59));
    vcvt(narrow, wide, all32, RS_DISABLE, PART_EVEN);
    CHECK(narrow.read(0) == 32767 && narrow.read(2) == -32768);
    set_ctrl(sbitset1(sbitset1(0, 60), 59));
    vcvt(narrow, wide, all32, RS_ENABLE, PART_EVEN);
    CHECK(narrow.read(0) == -25536 && narrow.read(2) == 25536);
    set_ctrl(sbitset1(0, 59));
    vcvt(narrow, wide, all32, RS_DISABLE, PART_EVEN);
    CHECK(narrow.read(0) == -25536);
    vcvt(narrow, wide, all32, RS_ENABLE, PART_EVEN);
    CHECK(narrow.read(0) == 32767);
    // bf16 to half (A5's TCVT, sat token before the rounding): bit 48 alone decides, 0 saturating.
    vector_bf16 big;
    big.set(0, 0x4780);  // 65536, past half's largest finite 65504
    big.set(1, 0x3f81);  // 1.0078125: exact in half
    vector_f16 halves;
    set_ctrl(0);
    vcvt(halves, big, all16, RS_DISABLE, RoundRType());
    CHECK(halves.get(0) == 0x7bff && halves.get(1) == 0x3c08);
    set_ctrl(sbitset1(0, 48));
    vcvt(halves, big, all16, RS_ENABLE, RoundRType());
    CHECK(halves.get(0) == 0x7c00);
    set_ctrl(0);

    // Inactive lanes are zero; a b32 mask of the first 3 lanes.
    vector_s32 m;
    for (int i = 0; i < 64; ++i)
        m.write(i, 7);
    uint32_t three = 3;
    vcvt(m, f, plt_b32(three, POST_UPDATE), ROUND_R);
    CHECK(m.read(2) == 2 && m.read(3) == 0 && m.read(63) == 0);

    // f32 -> f16 narrowing: PART_EVEN to even lanes, PART_ODD to odd lanes, the other lanes zero.
    vector_f32 a;
    a.write(0, 1.0f);
    a.write(1, -0.0f);
    a.write(2, 1e6f);
    a.write(3, NAN);
    a.write(4, 1.0f + 1.0f / 2048.0f);  // halfway between two halves
    vector_f16 e, o;
    vcvt(e, a, all32, ROUND_R, RS_DISABLE, PART_EVEN);
    vcvt(o, a, all32, RS_DISABLE, ROUND_R, PART_ODD);
    CHECK(h(e, 0) == 0x3c00 && h(e, 1) == 0 && h(e, 2) == 0x8000 && h(e, 4) == 0x7c00);
    CHECK((h(e, 6) & 0x7c00) == 0x7c00 && (h(e, 6) & 0x3ff) != 0);  // NaN stays NaN
    CHECK(h(e, 8) == 0x3c00 && h(o, 1) == 0x3c00 && h(o, 0) == 0 && h(o, 3) == 0x8000);
    vcvt(e, a, all32, ROUND_C, PART_EVEN);
    CHECK(h(e, 8) == 0x3c01);
    vcvt(e, a, all32, ROUND_A, PART_EVEN);
    CHECK(h(e, 8) == 0x3c01);
    vcvt(e, a, all32, ROUND_R, RS_ENABLE, PART_EVEN);  // saturation: the largest finite half
    CHECK(h(e, 4) == 0x7bff);
    // bf16 from f32 and back (widening reads the even or odd source lanes).
    vector_bf16 b;
    vcvt(b, a, all32, ROUND_R, PART_EVEN);
    CHECK(b.get(0) == 0x3f80 && b.get(2) == 0x8000);
    vector_f32 w;
    vcvt(w, b, all16, PART_EVEN);
    CHECK(w.read(0) == 1.0f && std::signbit(w.read(1)) && w.read(1) == 0.0f);
    vcvt(w, e, all16, PART_ODD);
    CHECK(w.read(0) == 0.0f);

    // Integer narrowing: RS_ENABLE clamps, without it the value wraps; the 4:1 parts.
    vector_s32 i32;
    i32.write(0, 70000);
    i32.write(1, -70000);
    i32.write(2, 300);
    vector_s16 i16;
    vcvt(i16, i32, all32, RS_ENABLE, PART_EVEN);
    CHECK(i16.read(0) == 32767 && i16.read(2) == -32768 && i16.read(4) == 300);
    vcvt(i16, i32, all32, RS_DISABLE, PART_EVEN);
    CHECK(i16.read(0) == static_cast<int16_t>(70000) && i16.read(2) == static_cast<int16_t>(-70000));
    vector_u8 u8;
    vcvt(u8, i32, all32, RS_ENABLE, PART_P0);
    CHECK(u8.read(0) == 255 && u8.read(4) == 0 && u8.read(8) == 255 && u8.read(1) == 0);
    vcvt(u8, i32, all32, RS_ENABLE, PART_P3);
    CHECK(u8.read(3) == 255 && u8.read(11) == 255 && u8.read(0) == 0);
    // Integer widening: u8 -> u32 P2 reads source lanes 4i + 2; s8 -> s16 keeps the sign.
    for (int i = 0; i < 256; ++i)
        u8.write(i, static_cast<uint8_t>(i));
    vector_u32 u32;
    vcvt(u32, u8, all8, PART_P2);
    CHECK(u32.read(0) == 2 && u32.read(1) == 6 && u32.read(63) == 254);
    vector_s8 s8;
    s8.write(1, -5);
    vcvt(i16, s8, all8, PART_ODD);
    CHECK(i16.read(0) == -5);
    // The mask of a widening conversion is at the source's width: odd source lane 1 off.
    vector_bool odd_off = all8;
    odd_off.set_lane(1, 1, false);
    vcvt(i16, s8, odd_off, PART_ODD);
    CHECK(i16.read(0) == 0);
    // Integer to float rounds: 2^24 + 1 under R and C; s64 -> f32 through a RegTensor destination.
    i32.write(0, (1 << 24) + 1);
    vcvt(f, i32, all32, ROUND_R);
    CHECK(f.read(0) == 16777216.0f);
    vcvt(f, i32, all32, ROUND_C);
    CHECK(f.read(0) == 16777218.0f);
    vector_s64 i64;
    i64.write(0, -3);
    RegTensor<float> rt;
    vcvt(rt, i64, pset_b32(PAT_ALL), RoundRType(), PART_EVEN);
    CHECK(rt.reg.read(0) == -3.0f && rt.reg.read(1) == 0.0f);
    // f16 -> s8 and u8 clamp (a float source always does); f16 -> s32 widening.
    vector_f16 hh;
    hh.write(0, 300.0f);
    hh.write(1, -300.0f);
    vcvt(s8, hh, all16, ROUND_R, RS_DISABLE, PART_EVEN);
    CHECK(s8.read(0) == 127 && s8.read(2) == -128);
    vcvt(u8, hh, all16, ROUND_R, PART_EVEN);
    CHECK(u8.read(0) == 255 && u8.read(2) == 0);
    vcvt(i32, hh, all16, ROUND_R, PART_ODD);
    CHECK(i32.read(0) == -300);

    // f32 -> E4M3 (A5's TQUANT): nearest even, RS_ENABLE saturating at 448, else past it NaN; NaN, -0.
    vector_f32 q;
    const float qv[] = {1.0625f, 1.1875f, 500.0f, -INFINITY, NAN,
                        -0.0f,   464.0f,  465.0f, 0x1p-10f,  0x1p-9f * 2.5f};
    for (int i = 0; i < 10; ++i)
        q.write(i, qv[i]);
    vector_f8e4m3 e8;
    vcvt(e8, q, all32, ROUND_R, RS_ENABLE, PART_P0);
    CHECK(e8.get(0) == 0x38 && e8.get(4) == 0x3a && e8.get(8) == 0x7e && e8.get(12) == 0xfe);
    CHECK((e8.get(16) & 0x7f) == 0x7f && e8.get(20) == 0x80 && e8.get(24) == 0x7e && e8.get(28) == 0x7e);
    CHECK(e8.get(32) == 0x00 && e8.get(36) == 0x02 && e8.get(1) == 0 && e8.get(255) == 0);  // 2^-10 ties to 0
    vcvt(e8, q, all32, RoundRType(), RS_DISABLE, PART_P3);  // the other bytes of each lane are zero
    CHECK(e8.get(11) == 0x7f && e8.get(15) == 0xff && e8.get(27) == 0x7e && e8.get(31) == 0x7f);
    CHECK(e8.get(3) == 0x38 && e8.get(0) == 0 && e8.get(8) == 0);
    vcvt(e8, q, plt_b32(three = 3, POST_UPDATE), ROUND_R, RS_ENABLE, PART_P1);
    CHECK(e8.get(9) == 0x7e && e8.get(13) == 0);  // inactive lanes give 0
    vcvt(e8, q, all32, ROUND_R, RS_ENABLE, PART_P2);
    CHECK(e8.get(2) == 0x38 && e8.get(6) == 0x3a);
    // bf16 -> E2M1: lanes 2i, 2i + 1 to the nibbles of byte 4i + part; ties to even; saturating; NaN 7.
    vector_bf16 qb;
    const float bv[] = {0.25f, 0.75f, 5.0f, 100.0f, -0.0f, NAN, -INFINITY, -2.5f, 1.5f, 3.0f};
    for (int i = 0; i < 10; ++i)
        qb.write(i, bv[i]);
    vector_f4e2m1x2 f4;
    vcvt(f4, qb, all16, ROUND_R, PART_P0);
    CHECK(f4.get(0) == 0x20 && f4.get(4) == 0x76 && f4.get(8) == 0x78 && f4.get(12) == 0xcf);
    CHECK(f4.get(16) == 0x53 && f4.get(1) == 0 && f4.get(20) == 0);
    vcvt(f4, qb, all16, RS_ENABLE, ROUND_R, PART_P2);
    CHECK(f4.get(2) == 0x20 && f4.get(6) == 0x76 && f4.get(0) == 0 && f4.get(4) == 0);
    vector_bool lanes8 = pset_b16(PAT_VL8);
    lanes8.set_lane(3, 2, false);
    vcvt(f4, qb, lanes8, ROUND_R, PART_P1);
    CHECK(f4.get(1) == 0x20 && f4.get(5) == 0x06 && f4.get(9) == 0x78);  // lane 3 off

    // vtrc: an integer value in the lane's own type; inactive lanes zero unless MODE_MERGING.
    vector_f32 t;
    const float tv[] = {2.5f, -2.5f, -0.25f, 1e30f, NAN, 7.75f};
    for (int i = 0; i < 6; ++i)
        t.write(i, tv[i]);
    vector_f32 tr;
    vtrc(tr, t, ROUND_F, all32);
    CHECK(tr.read(0) == 2.0f && tr.read(1) == -3.0f && tr.read(2) == -1.0f && tr.read(3) == 1e30f);
    CHECK(std::isnan(tr.read(4)) && tr.read(5) == 7.0f);
    vtrc(tr, t, ROUND_Z, all32, MODE_ZEROING);
    CHECK(tr.read(1) == -2.0f && tr.read(2) == 0.0f && std::signbit(tr.read(2)));
    vtrc(tr, t, RoundRType(), all32);
    CHECK(tr.read(0) == 2.0f && tr.read(1) == -2.0f && tr.read(5) == 8.0f);
    uint32_t two = 2;
    tr.write(3, 5.0f);
    vtrc(tr, t, ROUND_C, plt_b32(two, POST_UPDATE), MODE_MERGING);
    CHECK(tr.read(0) == 3.0f && tr.read(1) == -2.0f && tr.read(3) == 5.0f);
    vtrc(tr, t, ROUND_A, plt_b32(two = 2, POST_UPDATE));
    CHECK(tr.read(0) == 3.0f && tr.read(1) == -3.0f && tr.read(3) == 0.0f);
    vector_f16 th;
    th.write(0, -1.5f);
    vtrc(th, th, ROUND_A, all16);
    CHECK(th.read(0) == -2.0f);

    // vci: start + i (or start - i) in every lane, wrapping in the lane's type; no mask.
    vector_s32 idx;
    vci(idx, 5);
    CHECK(idx.read(0) == 5 && idx.read(63) == 68);
    vci(idx, 5, DEC_ORDER);
    CHECK(idx.read(1) == 4 && idx.read(63) == -58);
    vector_s8& bytes = reinterpret_cast<vector_s8&>(idx);
    vci(bytes, static_cast<int8_t>(100), INC_ORDER);
    CHECK(bytes.read(27) == 127 && bytes.read(28) == -128);
    vector_u16 ui;
    vci(ui, 1, DEC_ORDER);
    CHECK(ui.read(1) == 0 && ui.read(2) == 65535);

    // vbitcast copies the bits under the destination's type; pbitcast copies a predicate's bits.
    vector_f32 fb;
    fb.write(0, -0.0f);
    fb.write(1, NAN);
    fb.write(63, 1.0f);
    vector_s32 sb;
    vbitcast(sb, fb);
    CHECK(sb.read(0) == INT32_MIN && sb.read(63) == 0x3f800000);
    CHECK(std::memcmp(sb.bytes, fb.bytes, sizeof sb.bytes) == 0);
    vector_u16 hb;
    vbitcast(hb, fb);
    CHECK(hb.read(1) == 0x8000 && hb.read(0) == 0 && hb.read(127) == 0x3f80);
    vector_bool p16 = pset_b16(PAT_VL8), p32;
    pbitcast(p32, p16);
    CHECK(std::memcmp(p32.bits, p16.bits, sizeof p32.bits) == 0);
    CHECK(p32.lane(3, 4) && !p32.lane(4, 4));  // 8 b16 lanes read as 4 b32 lanes

    std::printf("%d failures\n", failures);
    return failures == 0 ? 0 : 1;
}
"""

# Calls the CPU profile rejects, one per rule; one program, so one compile reports both.
REJECTED = r"""
#include <pto/vsim/builtins.hpp>
int main() {
    vector_f32 x;
    vector_u16 y;
    vcvt(y, x, pset_b32(PAT_ALL), ROUND_R, PART_EVEN);
    vector_s32 z;
    vtrc(z, z, ROUND_R, pset_b32(PAT_ALL));
    vci(x, 0.0f);
}
"""


# Element types of the sweep: numpy storage, and whether the lanes hold floats (bf16 as its bits).
TYPES = {
    **{"f32": (np.float32, True), "f16": (np.float16, True), "bf16": (np.uint16, True)},
    **{"s64": (np.int64, False), "s32": (np.int32, False), "s16": (np.int16, False), "s8": (np.int8, False)},
    **{"u32": (np.uint32, False), "u16": (np.uint16, False), "u8": (np.uint8, False)},
}
LARGEST = {"f16": 0x7BFF, "bf16": 0x7F7F, "f32": 0x7F7FFFFF}


def _values(name: str, raw: bytes) -> np.ndarray:
    """A register's lanes as float64 (floats, exactly) or int64 / uint64 (integers)."""
    store, is_float = TYPES[name]
    lanes = np.frombuffer(raw, dtype=store)
    if name == "bf16":
        return (lanes.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return lanes.astype(np.float64) if is_float else lanes.astype(np.uint64 if name == "u32" else np.int64)


def _to_integer(x: np.ndarray, src_float: bool, dst: str, rnd: int, sat: bool) -> np.ndarray:
    """The spec's integer result: a float source rounded by the mode and always clamped (NaN to 0); an
    integer one clamped under RS_ENABLE, else wrapped."""
    info = np.iinfo(TYPES[dst][0])
    if src_float:
        away = lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5)  # noqa: E731
        with np.errstate(invalid="ignore"):
            rounded = [np.rint, away, np.floor, np.ceil, np.trunc][rnd](x)
        ints = []
        for v in rounded:
            if v != v:
                ints.append(0)
            elif abs(v) == np.inf:
                ints.append(info.max if v > 0 else info.min)
            else:
                ints.append(min(max(int(v), info.min), info.max))
        return np.array(ints, dtype=object)
    values = [int(v) for v in x]
    if sat:
        return np.array([min(max(v, info.min), info.max) for v in values], dtype=object)
    span = 1 << info.bits  # wrapping: only the destination's bits are kept (the caller keeps them)
    return np.array([v % span for v in values], dtype=object)


def _to_float_bits(x: np.ndarray, src: str, dst: str, sat: bool) -> np.ndarray:
    """The spec's float result under ROUND_R, as the destination's bits: IEEE nearest-even (numpy's casts;
    bf16 rounds f32's bits); RS_ENABLE turns an infinity into the largest finite value."""
    with np.errstate(over="ignore", invalid="ignore"):
        # a float source is an f32 value exactly; an integer one is rounded once, to the destination
        wide = x.astype(np.float64) if dst == "f16" and not TYPES[src][1] else x.astype(np.float32)
        if dst == "f32":
            out = wide.astype(np.float32).view(np.uint32).astype(np.int64)
        elif dst == "f16":
            out = wide.astype(np.float16).view(np.uint16).astype(np.int64)
        else:
            b = wide.view(np.uint32).astype(np.int64)
            out = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    infinity = {"f32": 0x7F800000, "f16": 0x7C00, "bf16": 0x7F80}[dst]
    sign = {"f32": 1 << 31, "f16": 0x8000, "bf16": 0x8000}[dst]
    if sat:
        out = np.where((out & ~sign) == infinity, (out & sign) | LARGEST[dst], out)
    return out


def _narrow_codes(x: np.ndarray, dst: str, sat: bool) -> np.ndarray:
    """The spec's codes of a conversion to an 8- or 4-bit float: nearest even (ml_dtypes' casts); E4M3
    saturates at 448 under RS_ENABLE, else a value past it is NaN; E2M1 always saturates at 6 and gives
    NaN its largest positive code."""
    with np.errstate(invalid="ignore", over="ignore"):
        if dst == "f8e4m3":
            kept = np.clip(x, -448, 448) if sat else x
            return kept.astype(np.float32).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
        codes = np.clip(x, -6, 6).astype(np.float32).astype(ml_dtypes.float4_e2m1fn).view(np.uint8)
    return np.where(np.isnan(x), 7, codes).astype(np.uint8)


def _check_narrow(name: str, sat: str, part: str, x: np.ndarray, mask: np.ndarray, got: bytes) -> str | None:
    """One sweep call to E4M3 (f32 lane j to byte 4j + part) or E2M1 (bf16 lanes 2i, 2i + 1 to the
    nibbles of byte 4i + part), every other byte zero; any NaN code for a NaN."""
    dst, p = name.split(":")[1], int(part)
    width = 4 if dst == "f8e4m3" else 2
    active = mask[np.arange(x.size) * width] == 1
    codes = np.where(active, _narrow_codes(x, dst, sat == "1"), 0).astype(np.uint8)
    expect = np.zeros(256, dtype=np.uint8)
    expect[4 * np.arange(64) + p] = codes if dst == "f8e4m3" else codes[0::2] | (codes[1::2] << 4)
    seen = np.frombuffer(got, dtype=np.uint8)
    if dst == "f8e4m3":  # E4M3's NaN is 0x7f of either sign
        expect, seen = (np.where(a & 0x7F == 0x7F, 0x7F, a) for a in (expect, seen))
    bad = np.nonzero(expect != seen)[0]
    if bad.size:
        k = int(bad[0])
        return f"{name} sat {sat} part {part}: byte {k} is {seen[k]:#x}, expected {expect[k]:#x}"
    return None


def _check_call(line: str) -> str | None:
    """Recompute one sweep call's destination from its source and mask; the first mismatch, or None."""
    name, rnd, sat, part, src_hex, mask_hex, dst_hex = line.split()
    src, dst = name.split(":")
    if dst in ("f8e4m3", "f4e2m1"):
        mask = np.unpackbits(np.frombuffer(bytes.fromhex(mask_hex), dtype=np.uint8), bitorder="little")
        x = _values(src, bytes.fromhex(src_hex))
        return _check_narrow(name, sat, part, x, mask, bytes.fromhex(dst_hex))
    ws, wd = np.dtype(TYPES[src][0]).itemsize, np.dtype(TYPES[dst][0]).itemsize
    x = _values(src, bytes.fromhex(src_hex))
    mask = np.unpackbits(np.frombuffer(bytes.fromhex(mask_hex), dtype=np.uint8), bitorder="little")
    got = np.frombuffer(bytes.fromhex(dst_hex), dtype=TYPES[dst][0])
    got_bits = got.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[wd]).astype(np.uint64)
    ratio, p = max(ws, wd) // min(ws, wd), int(part)
    n = 256 // max(ws, wd)
    j = np.arange(n)
    si = j if ws >= wd else ratio * j + p
    di = (j if ws == wd else ratio * j + p) if ws >= wd else j
    active = mask[si * ws] == 1
    src_float, dst_float = TYPES[src][1], TYPES[dst][1]
    if dst_float:
        # Between 16-bit floats the control register's bit 48 decides, and the program's is 0: saturate.
        want = _to_float_bits(x[si], src, dst, sat == "1" or {src, dst} == {"bf16", "f16"})
    else:
        want = _to_integer(x[si], src_float, dst, int(rnd), sat == "1")
        want = np.array([v % (1 << (8 * wd)) for v in want], dtype=np.uint64)
    expect = np.zeros(256 // wd, dtype=np.uint64)
    expect[di[active]] = np.asarray(want, dtype=np.uint64)[active]
    if dst_float:  # any NaN for a NaN
        nan_got = np.isnan(_values(dst, bytes.fromhex(dst_hex)))
        nan_want = np.zeros(256 // wd, dtype=bool)
        nan_want[di[active]] = np.isnan(x[si][active])
        if not np.array_equal(nan_got, nan_want):
            return f"{name} rnd {rnd} sat {sat} part {part}: NaN lanes differ"
        expect[nan_want] = got_bits[nan_want]
    bad = np.nonzero(expect != got_bits)[0]
    if bad.size:
        k = int(bad[0])
        call = f"{name} rnd {rnd} sat {sat} part {part}"
        return f"{call}: lane {k} is {got_bits[k]:#x}, expected {expect[k]:#x}"
    return None




@pytest.fixture(scope="module", params=COMPILERS)
def program(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_program(require(request.param), PROGRAM, tmp_path_factory.mktemp("vsim_cvt"), "cvt")


def test_call_shapes_modes_parts_edges_and_a_numpy_sweep(program: Path) -> None:
    # One test, so that one worker builds the program.
    run = subprocess.run([str(program)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 failures" in run.stdout

    rng = np.random.default_rng(7)
    bits = rng.integers(0, 2**32, size=64 * 64, dtype=np.uint64).astype(np.uint32)
    # Magnitudes around half's range (subnormals to overflow) as well as arbitrary floats.
    scaled = (rng.standard_normal(64 * 64) * np.exp2(rng.uniform(-26, 17, 64 * 64))).astype(np.float32)
    inputs = np.concatenate([bits.view(np.float32), scaled])
    run = subprocess.run([str(program), "sweep"], input=inputs.tobytes(), capture_output=True, timeout=60)
    assert run.returncode == 0, run.stderr
    got = np.array(run.stdout.split(), dtype=np.uint16)
    with np.errstate(over="ignore", invalid="ignore"):
        want = inputs.astype(np.float16).view(np.uint16)
    nan = np.isnan(inputs)
    assert np.array_equal(got[~nan], want[~nan])
    assert np.all((got[nan] & 0x7C00) == 0x7C00) and np.all((got[nan] & 0x3FF) != 0)

    # A part past the conversion's width ratio stops the simulation with the builtin's name.
    run = subprocess.run([str(program), "bad_part"], capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and "survived" not in run.stdout
    assert run.stderr.startswith("PTO runtime error: vcvt: the part names a lane"), run.stderr
    # To an 8- or 4-bit float only nearest even is simulated: another rounding stops and says so.
    run = subprocess.run([str(program), "narrow_round"], capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and "survived" not in run.stdout
    assert "8- and 4-bit floats to nearest even only" in run.stderr, run.stderr

    # Every admitted pair, each rounding of an integer result, saturation and part, lane by lane.
    run = subprocess.run([str(program), "pairs"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len({line.split()[0] for line in lines}) == 40
    problems = [p for p in map(_check_call, lines) if p]
    assert not problems, "\n".join(problems[:10])


def test_types_the_pages_do_not_admit_are_compile_errors_naming_the_rule(tmp_path: Path) -> None:
    with pytest.raises(AssertionError) as failure:
        build_program(require(COMPILERS[0]), REJECTED, tmp_path, "rejected")
    assert "vcvt [CPU]: the source and destination element types must be a pair" in str(failure.value)
    assert "vtrc [CPU]: dst and src must hold one float type" in str(failure.value)
    assert "vci [CPU]: DType must be one of: int8_t" in str(failure.value)
