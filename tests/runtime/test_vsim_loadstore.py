"""The register model's loads, stores and rearrangements (pto/vsim/loadstore.hpp, rearrange.hpp) in
the call shapes upstream's A5 backend uses: every load distribution it passes (unpack, deinterleave
into two registers, block and element-to-block broadcasts, up- and downsampling), the packing,
one-point and interleaving stores, the unaligned load and store streams with their alignment state
(the tail held until a flush), gathers and scatters by an index register (aliased scatter lanes: the
lowest one's value stays), and the rearrangements:
vintlv, vdintlv and their one-result forms, vsqz (its stored count feeding vstur) and vusqz, vperm,
vslide, vshift, vpack, vsunpack and vzunpack, at every lane width, with the calls that break their
rules refused at compile time. Expected values are written out per lane here, from the tables in the
headers' comments, not computed by the simulation."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ..compilers import COMPILERS, SIM_FLAGS, build_program, cxx_argv, require

PROGRAM = r"""
#include <pto/vsim/builtins.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

static int failures = 0;
#define CHECK(c) do { if (!(c)) { std::printf("FAIL line %d: %s\n", __LINE__, #c); ++failures; } } while (0)

alignas(64) static unsigned char ub[16384];
static uint8_t b(int k) { return static_cast<uint8_t>(k * 7 + 3); }
template <typename T> static T at(int byte) { T v; std::memcpy(&v, ub + byte, sizeof v); return v; }

template <typename R>
struct Wrapped {
    using RegType = R;
    R reg;
    operator RegType&() { return reg; }
};

static vector_bool first(int n, int width) {
    vector_bool p;
    for (int i = 0; i < 256 / width; ++i)
        p.set_lane(i, width, i < n);
    return p;
}

static void loads() {
    const uint8_t* p8 = ub;
    const uint16_t* p16 = reinterpret_cast<const uint16_t*>(ub);
    const uint32_t* p32 = reinterpret_cast<const uint32_t*>(ub);
    vector_u8 x8;
    vlds(x8, p8, 5, US_B8);
    CHECK(x8.get(0) == b(5) && x8.get(1) == b(5) && x8.get(254) == b(5 + 127) && x8.get(255) == b(5 + 127));
    vlds(x8, p8, 3, DS_B8);
    CHECK(x8.get(0) == b(3) && x8.get(1) == b(5) && x8.get(255) == b(3 + 510));
    vector_u16 x16;
    vlds(x16, p16, 4, US_B16);
    CHECK(x16.get(0) == p16[4] && x16.get(1) == p16[4] && x16.get(127) == p16[4 + 63]);
    vlds(x16, p16, 4, DS_B16);
    CHECK(x16.get(1) == p16[6] && x16.get(127) == p16[4 + 254]);
    vlds(x16, p8, 7, UNPK_B8);  // a byte per 16-bit lane, zero-extended
    CHECK(x16.get(0) == b(7) && x16.get(127) == b(7 + 127));
    vector_u32 x32;
    vlds(x32, p16, 2, UNPK_B16);
    CHECK(x32.get(0) == p16[2] && x32.get(63) == p16[2 + 63]);
    vlds(x32, p8, 9, UNPK4_B8);
    CHECK(x32.get(0) == b(9) && x32.get(63) == b(9 + 63));
    vector_u64 x64;
    vlds(x64, p32, 1, UNPK_B32);
    CHECK(x64.get(0) == p32[1] && x64.get(31) == p32[32]);
    vector_u32 even, odd;
    vlds(even, odd, p32, 8, DINTLV_B32);
    CHECK(even.get(0) == p32[8] && odd.get(0) == p32[9]);
    CHECK(even.get(63) == p32[8 + 126] && odd.get(63) == p32[8 + 127]);
    vector_u8 e8, o8;
    vlds(e8, o8, p8, 0, DINTLV_B8);
    CHECK(e8.get(255) == b(510) && o8.get(255) == b(511));
    vector_u16 e16, o16;
    const uint16_t* q16 = p16;
    vlds(e16, o16, q16, 256, DINTLV_B16, POST_UPDATE);
    CHECK(e16.get(3) == p16[6] && o16.get(3) == p16[7] && q16 == p16 + 256);
    vlds(x32, p32, 8, DINTLV_B32);  // one destination: the even elements
    CHECK(x32.get(63) == p32[8 + 126]);
    vector_f32 f;
    const float* pf = reinterpret_cast<const float*>(ub);
    vlds(f, pf, 16, BLK);  // one 32-byte block in each of the eight
    CHECK(f.get(0) == pf[16] && f.get(7) == pf[23] && f.get(8) == pf[16] && f.get(63) == pf[23]);
    vlds(x16, p16, 8, E2B_B16);  // eight elements, each over 16 lanes
    CHECK(x16.get(0) == p16[8] && x16.get(15) == p16[8] && x16.get(16) == p16[9] && x16.get(127) == p16[15]);
    vlds(x32, p32, 8, E2B_B32);
    CHECK(x32.get(7) == p32[8] && x32.get(8) == p32[9] && x32.get(63) == p32[15]);
    // A distribution picked by type, as A5 code does: a value-initialised token is that distribution.
    using Brc = std::conditional_t<true, decltype(BRC_B32), decltype(NORM)>;
    constexpr Brc brc{};
    vlds(x32, p32, 3, brc);
    CHECK(x32.get(0) == p32[3] && x32.get(63) == p32[3]);
}

static void stores() {
    uint8_t* o8 = ub + 8192;
    std::memset(o8, 0xEE, 4096);
    vector_u32 w;
    for (int i = 0; i < 64; ++i)
        w.set(i, 0xA0B0C000u + static_cast<uint32_t>(i));
    uint32_t* o32 = reinterpret_cast<uint32_t*>(o8);
    vsts(w, o32, 4, ONEPT_B32, first(64, 4));  // lane 0 alone
    CHECK(o32[4] == 0xA0B0C000u && o32[5] == 0xEEEEEEEEu);
    vsts(w, o32, 6, ONEPT_B32, first(0, 4));  // an inactive lane 0 writes nothing
    CHECK(o32[6] == 0xEEEEEEEEu);
    vsts(w, o32, 8, std::integral_constant<DistVST, DistVST::DIST_ONEPT>(), first(1, 4));
    CHECK(o32[8] == 0xA0B0C000u && o32[9] == 0xEEEEEEEEu);
    uint16_t* o16 = reinterpret_cast<uint16_t*>(o8 + 512);
    vsts(w, o16, 0, PK_B32, first(10, 4));  // the low 16 bits of each active lane
    CHECK(o16[0] == 0xC000 && o16[9] == 0xC009 && o16[10] == 0xEEEE);
    vsts(w, o16, 64, std::integral_constant<DistVST, DistVST::DIST_PK_B32>(), first(64, 4));
    CHECK(o16[64 + 63] == 0xC03F && o16[128] == 0xEEEE);
    uint8_t* p8 = o8 + 1024;
    vsts(w, p8, 0, PK4_B32, first(5, 4));
    CHECK(p8[0] == 0x00 && p8[4] == 0x04 && p8[5] == 0xEE);
    vector_u16 h;
    for (int i = 0; i < 128; ++i)
        h.set(i, static_cast<uint16_t>(0x5500 + i));
    vsts(h, p8, 64, PK_B16, first(100, 2));
    CHECK(p8[64] == 0x00 && p8[64 + 99] == 99 && p8[64 + 100] == 0xEE);
    vector_u64 d;
    for (int i = 0; i < 32; ++i)
        d.set(i, 0x1111111100000000ull + static_cast<uint64_t>(i));
    uint32_t* q32 = reinterpret_cast<uint32_t*>(o8 + 2048);
    vsts(d, q32, 0, PK_B64, first(6, 4));  // a 64-bit lane is active by its first byte: 3 lanes
    CHECK(q32[0] == 0 && q32[2] == 2 && q32[3] == 0xEEEEEEEEu);
    vector_s32 lo, hi;
    for (int i = 0; i < 64; ++i) {
        lo.set(i, i);
        hi.set(i, -i);
    }
    int32_t* s32 = reinterpret_cast<int32_t*>(o8 + 3072);
    int32_t* cursor = s32;
    vsts(lo, hi, cursor, 20, INTLV_B32, first(10, 4), POST_UPDATE);
    CHECK(s32[0] == 0 && s32[1] == 0 && s32[18] == 9 && s32[19] == -9 && s32[20] == int32_t(0xEEEEEEEE));
    CHECK(cursor == s32 + 20);
}

static void unaligned() {
    float* f = reinterpret_cast<float*>(ub);
    vector_align u;
    vector_f32 x;
    vldas(u, f + 3);
    vldus(x, u, f + 3);
    CHECK(std::memcmp(x.bytes, f + 3, 256) == 0);
    float* out = reinterpret_cast<float*>(ub + 12288);
    for (int i = 0; i < 128; ++i)
        out[i] = -1.0f;
    vector_f32 v;
    for (int i = 0; i < 64; ++i)
        v.write(i, static_cast<float>(i));
    vector_align s;
    float* p = out + 1;
    vstus(s, 5u, v, p, POST_UPDATE);
    CHECK(p == out + 6 && out[1] == -1.0f);  // no 32-byte block is full yet: the bytes are held
    vstus(s, 10u, v, p, POST_UPDATE);
    CHECK(p == out + 16 && out[1] == 0.0f && out[5] == 4.0f && out[6] == 0.0f && out[15] == 9.0f);
    vstus(s, 3u, v, p, POST_UPDATE);
    CHECK(out[16] == -1.0f);
    vstas(s, p, 0, POST_UPDATE);
    CHECK(out[16] == 0.0f && out[18] == 2.0f && out[19] == -1.0f && out[0] == -1.0f);
    // vsqz's stored count feeds vstur; vstar writes the tail.
    vector_u32 src, packed;
    vector_bool every3;
    for (int i = 0; i < 64; ++i) {
        src.set(i, 100u + static_cast<uint32_t>(i));
        every3.set_lane(i, 4, i % 3 == 0);
    }
    vsqz(packed, src, every3, MODE_STORED);
    CHECK(packed.get(0) == 100 && packed.get(21) == 163 && packed.get(22) == 0);
    uint32_t* o = reinterpret_cast<uint32_t*>(out + 64);
    uint32_t* q = o;
    vstur(s, packed, q, POST_UPDATE);
    vstar(s, q);
    CHECK(q == o + 22 && o[0] == 100 && o[21] == 163 && o[22] == 0xBF800000u);
    vsqz(packed, src, first(2, 4));  // without MODE_STORED the count stays
    vstur(s, packed, q, POST_UPDATE);
    CHECK(q == o + 44);
}

static void gathers() {
    const float* f = reinterpret_cast<const float*>(ub);
    vector_u32 idx;
    for (int i = 0; i < 64; ++i)
        idx.set(i, static_cast<uint32_t>((i * 5) % 200));
    vector_f32 g;
    for (int i = 0; i < 64; ++i)
        g.write(i, 7.0f);
    vgather2(g, f, idx, first(10, 4));
    CHECK(g.get(9) == f[45] && g.get(1) == f[5] && g.get(10) == 0.0f);
    vector_u16 i16, g16;
    for (int i = 0; i < 128; ++i)
        i16.set(i, static_cast<uint16_t>(300 - i));
    Wrapped<vector_u16> wi;  // an index register behind a wrapper, as A5's RegTensor<uint16_t>
    wi.reg = i16;
    vgather2(g16, ub, wi, first(128, 2));
    CHECK(g16.get(0) == b(300) && g16.get(127) == b(173));
    vector_u32 g32;
    const uint16_t* p16 = reinterpret_cast<const uint16_t*>(ub);
    vgather2_bc(g32, p16, idx, first(64, 4));  // 16-bit elements into 32-bit lanes, zero-extended
    CHECK(g32.get(3) == p16[15] && g32.get(63) == p16[(63 * 5) % 200]);
    uint8_t* dst = ub + 14336;
    std::memset(dst, 0xEE, 512);
    vector_u16 vals;
    for (int i = 0; i < 128; ++i)
        vals.set(i, static_cast<uint16_t>(0x7700 + i));
    vscatter(vals, dst, i16, first(3, 2));  // the low byte of each lane, at its index
    CHECK(dst[300] == 0 && dst[299] == 1 && dst[298] == 2 && dst[297] == 0xEE);
    vector_u16 same;  // lanes 0 to 3 aliased in pairs: the lower lane of each pair is written (A5)
    for (int i = 0; i < 128; ++i)
        same.set(i, static_cast<uint16_t>(400 + i / 2));
    vscatter(vals, dst, same, first(4, 2));
    CHECK(dst[400] == 0 && dst[401] == 2 && dst[402] == 0xEE);
}

static void rearrange() {
    vector_s32 a, c, low, high;
    for (int i = 0; i < 64; ++i) {
        a.set(i, i);
        c.set(i, 1000 + i);
    }
    vintlv(low, high, a, c);
    CHECK(low.get(0) == 0 && low.get(1) == 1000 && low.get(63) == 1031);
    CHECK(high.get(0) == 32 && high.get(63) == 1063);
    vector_s32 e, o;
    vdintlv(e, o, low, high);
    CHECK(std::memcmp(e.bytes, a.bytes, 256) == 0 && std::memcmp(o.bytes, c.bytes, 256) == 0);
    vintlv(a, c, a, c);  // in place
    CHECK(std::memcmp(a.bytes, low.bytes, 256) == 0 && std::memcmp(c.bytes, high.bytes, 256) == 0);
    vector_u32 wide;
    for (int i = 0; i < 64; ++i)
        wide.set(i, 0xABCD0000u + static_cast<uint32_t>(i));
    vector_u16 narrow;
    for (int i = 0; i < 128; ++i)
        narrow.set(i, 0xFFFF);
    vpack(narrow, wide, LOWER);
    CHECK(narrow.get(0) == 0 && narrow.get(63) == 63 && narrow.get(64) == 0);
    vpack(narrow, wide, HIGHER);
    CHECK(narrow.get(0) == 0 && narrow.get(64) == 0 && narrow.get(127) == 63);

    // One half of a pair (vintlvv2, vdintlvv2), a lookup (vperm), slides and shifts, at every lane width
    // (they move bits: a float register is one of these widths). Lane k of x holds x(k), of y y(k).
    auto widths = [](auto proto) {
        using R = decltype(proto);
        using T = typename R::bits_t;
        constexpr int n = R::lanes;
        auto x = [](int k) { return static_cast<T>(k * 37 + 11); };
        auto y = [](int k) { return static_cast<T>(k * 53 + 200); };
        R a, c, d, zero;
        for (int k = 0; k < n; ++k) {
            a.set(k, x(k));
            c.set(k, y(k));
        }
        bool ok = true;
        vintlvv2(d, a, c, LOWER);  // the stream x0 y0 x1 y1 ..., its first n elements
        for (int i = 0; i < n; ++i)
            ok &= d.get(i) == (i % 2 == 0 ? x(i / 2) : y(i / 2));
        vintlvv2(d, a, c, HIGHER);
        for (int i = 0; i < n; ++i)
            ok &= d.get(i) == (i % 2 == 0 ? x(n / 2 + i / 2) : y(n / 2 + i / 2));
        vdintlvv2(d, a, c, LOWER);  // the even elements of the stream a then c
        for (int i = 0; i < n; ++i)
            ok &= d.get(i) == (i < n / 2 ? x(2 * i) : y(2 * i - n));
        vdintlvv2(d, a, c, HIGHER);
        for (int i = 0; i < n; ++i)
            ok &= d.get(i) == (i < n / 2 ? x(2 * i + 1) : y(2 * i + 1 - n));
        using I = typename pto::vsim::vector_for<std::conditional_t<sizeof(T) == 1, pto::vsim::u8,
            std::conditional_t<sizeof(T) == 2, pto::vsim::u16,
            std::conditional_t<sizeof(T) == 4, pto::vsim::u32, pto::vsim::u64>>>>::type;
        I idx;
        for (int i = 0; i < n; ++i)  // reversed, and every third index past the last lane
            idx.set(i, static_cast<typename I::bits_t>(n - 1 - i + (i % 3 == 0 ? 2 * n : 0)));
        vperm(d, a, idx);
        for (int i = 0; i < n; ++i)
            ok &= d.get(i) == x(n - 1 - i);
        for (int amount : {0, 1, 5, n - 1, n}) {
            vshift(d, a, static_cast<std::int16_t>(amount));
            for (int i = 0; i < n; ++i)
                ok &= d.get(i) == (i >= amount ? x(i - amount) : T(0));
            vslide(d, a, c, static_cast<std::int16_t>(amount));  // the window of c then a at n - amount
            for (int i = 0; i < n; ++i)
                ok &= d.get(i) == (i >= amount ? x(i - amount) : y(n - amount + i));
            R s;
            vslide(s, a, zero, static_cast<std::int16_t>(amount));  // vshift is vslide with zeros behind
            vshift(d, a, static_cast<std::int16_t>(amount));
            ok &= std::memcmp(s.bytes, d.bytes, 256) == 0;
        }
        d = a;
        vperm(d, d, idx);  // in place
        ok &= d.get(0) == x(n - 1);
        vslide(d, d, c, 2);
        ok &= d.get(0) == y(n - 2) && d.get(2) == x(n - 1);
        return ok;
    };
    CHECK(widths(vector_u8{}));
    CHECK(widths(vector_s16{}));
    CHECK(widths(vector_f16{}));
    CHECK(widths(vector_bf16{}));
    CHECK(widths(vector_u32{}));
    CHECK(widths(vector_f32{}));
    CHECK(widths(vector_s64{}));
    // The A6 call shape: both halves of one register's deinterleave, as bf16.
    vector_bf16 m, lo16, hi16;
    for (int i = 0; i < 128; ++i)
        m.write(i, static_cast<float>(i));
    vdintlvv2(lo16, m, m, LOWER);
    vdintlvv2(hi16, m, m, HIGHER);
    CHECK(lo16.read(0) == 0.0f && lo16.read(63) == 126.0f && lo16.read(64) == 0.0f);
    CHECK(hi16.read(0) == 1.0f && hi16.read(127) == 127.0f);
    // vperm with a signed index: its low bits address the lane (-1 is the last).
    vector_f32 fs, fd;
    vector_s32 sidx;
    for (int i = 0; i < 64; ++i) {
        fs.write(i, 0.5f * static_cast<float>(i));
        sidx.set(i, -1 - i);
    }
    vperm(fd, fs, sidx);
    CHECK(fd.read(0) == 31.5f && fd.read(63) == 0.0f);

    // vusqz: lane i counts the active lanes below it, at 8, 16 and 32 bits.
    auto every3_b32 = [] {
        vector_bool p;
        for (int i = 0; i < 64; ++i)
            p.set_lane(i, 4, i % 3 == 0);
        return p;
    };
    vector_u32 count32;
    vusqz(count32, every3_b32());
    for (int i = 0; i < 64; ++i)
        CHECK(count32.get(i) == static_cast<uint32_t>((i + 2) / 3));
    vector_u8 count8;
    vusqz(count8, pset_b8(PAT_ALL));
    CHECK(count8.get(0) == 0 && count8.get(1) == 1 && count8.get(255) == 255);
    vector_s16 count16;
    vusqz(count16, first(10, 2));
    CHECK(count16.get(0) == 0 && count16.get(10) == 10 && count16.get(127) == 10);
    // The page's expansion: squeeze, then vusqz's counts as a lookup into the squeezed register, and
    // a select that zeroes the lanes the mask leaves out, gives each kept lane back in its place.
    vector_u32 src3, packed3, counts3, spread3, back3, none3;
    for (int i = 0; i < 64; ++i)
        src3.set(i, 500u + static_cast<uint32_t>(i));
    vsqz(packed3, src3, every3_b32());
    vusqz(counts3, every3_b32());
    vperm(spread3, packed3, counts3);
    vsel(back3, spread3, none3, every3_b32());
    for (int i = 0; i < 64; ++i)
        CHECK(back3.get(i) == (i % 3 == 0 ? 500u + static_cast<uint32_t>(i) : 0u));

    // vsunpack sign-extends and vzunpack zero-extends one half of the lanes, whatever the registers'
    // signedness: 8 to 16, 16 to 32 and 32 to 64 bits.
    vector_u8 n8;
    for (int i = 0; i < 256; ++i)
        n8.set(i, static_cast<uint8_t>(i * 5 + 1));
    vector_s16 s16;
    vector_u16 u16;
    vsunpack(s16, n8, LOWER);
    vzunpack(u16, n8, HIGHER);
    for (int i = 0; i < 128; ++i) {
        CHECK(s16.get(i) == static_cast<int8_t>(i * 5 + 1));
        CHECK(u16.get(i) == static_cast<uint8_t>((128 + i) * 5 + 1));
    }
    vector_s16 n16;
    for (int i = 0; i < 128; ++i)
        n16.set(i, static_cast<int16_t>(i % 2 == 0 ? -300 * i : 300 * i));
    vector_u32 w32;
    vsunpack(w32, n16, HIGHER);
    CHECK(w32.get(0) == static_cast<uint32_t>(-19200) && w32.get(1) == 19500u);
    vector_s32 z32;
    vzunpack(z32, n16, LOWER);
    CHECK(z32.get(2) == 65536 - 600 && z32.get(3) == 900 && z32.get(63) == 18900);
    vector_s32 n32;
    for (int i = 0; i < 64; ++i)
        n32.set(i, i == 40 ? INT32_MIN : -i);
    vector_s64 s64;
    vector_u64 u64;
    vsunpack(s64, n32, HIGHER);
    vzunpack(u64, n32, HIGHER);
    CHECK(s64.get(8) == INT32_MIN && s64.get(31) == -63 && u64.get(8) == 0x80000000ull);
    CHECK(u64.get(31) == 0xFFFFFFC1ull && u64.get(0) == 0xFFFFFFE0ull);
    vsunpack(s64, n32, LOWER);
    CHECK(s64.get(0) == 0 && s64.get(31) == -31);
}

// vldsx2/vstsx2 (the pair forms under their own names), the fixed-stride vsld/vsst, the block-strided
// vsldb/vsstb with their control word, the block gather vgatherb and the unaligned vstu/vsta.
static void pairs_strides_blocks() {
    const uint32_t* p32 = reinterpret_cast<const uint32_t*>(ub);
    const uint16_t* p16 = reinterpret_cast<const uint16_t*>(ub);
    vector_f32 lo, hi;
    vldsx2(lo, hi, reinterpret_cast<const float*>(ub), 4, DINTLV_B32);
    CHECK(std::memcmp(lo.bytes + 4 * 63, p32 + 4 + 126, 4) == 0 && std::memcmp(hi.bytes, p32 + 5, 4) == 0);
    vector_u8 e8, o8;
    vldsx2(e8, o8, ub, 1, DINTLV_B8);
    CHECK(e8.get(0) == b(1) && o8.get(0) == b(2) && e8.get(255) == b(1 + 510) && o8.get(255) == b(1 + 511));
    vector_u16 s16;
    vlds(s16, p16, 0, NORM);  // overwritten whole by the strided load
    vsld(s16, p16, 2, STRIDE_S3_B16);  // lane i from element 2 + 3i
    CHECK(s16.get(0) == p16[2] && s16.get(1) == p16[5] && s16.get(127) == p16[2 + 381]);
    vector_u32 s32;
    vsld(s32, p32, 1, STRIDE_S8_B32);
    CHECK(s32.get(0) == p32[1] && s32.get(63) == p32[1 + 504]);
    vector_u64 s64;
    const uint64_t* p64 = reinterpret_cast<const uint64_t*>(ub);
    vsld(s64, p64, 0, STRIDE_S4_B64);
    CHECK(s64.get(1) == p64[4] && s64.get(31) == p64[124]);
    vsld(s64, p64, 3, STRIDE_S2_B64);
    CHECK(s64.get(0) == p64[3] && s64.get(31) == p64[3 + 62]);
    // vsldb: the odd blocks active, 96 bytes apart; the others zero.
    vector_bool odd_blocks;
    for (int k = 0; k < 8; ++k)
        odd_blocks.set_lane(k, 32, k % 2 == 1);
    vector_s16 blk;
    vlds(blk, p16, 0, NORM);
    const uint32_t cfg = (3u << 16) | 5u;  // blocks 3 x 32 bytes apart; POST_UPDATE moves 5 x 32 bytes
    vsldb(blk, p16, cfg, odd_blocks);
    CHECK(std::memcmp(blk.bytes + 32, ub + 96, 32) == 0 && std::memcmp(blk.bytes + 160, ub + 480, 32) == 0);
    CHECK(blk.get(0) == 0 && blk.get(47) == 0 && std::memcmp(blk.bytes + 224, ub + 672, 32) == 0);
    const uint16_t* cur16 = p16;
    vsldb(blk, cur16, cfg, first(256, 1), POST_UPDATE);
    CHECK(std::memcmp(blk.bytes + 224, ub + 7 * 96, 32) == 0 && cur16 == p16 + 80);
    // vgatherb: block k from the byte offset in 32-bit lane k; lanes 8..63 of the index are not read.
    vector_u32 offs;
    for (int i = 0; i < 64; ++i)
        offs.set(i, i < 8 ? static_cast<uint32_t>((7 - i) * 64 + 32) : 0xFFFFFFFFu);
    vector_f32 gb;
    for (int i = 0; i < 64; ++i)
        gb.write(i, 5.0f);
    vgatherb(gb, reinterpret_cast<const float*>(ub), offs, first(48, 4));  // blocks 0..5 active
    CHECK(std::memcmp(gb.bytes, ub + 7 * 64 + 32, 32) == 0);
    CHECK(std::memcmp(gb.bytes + 160, ub + 2 * 64 + 32, 32) == 0);
    CHECK(gb.get(48) == 0.0f && gb.get(63) == 0.0f);
    Wrapped<vector_u32> wo;  // offsets behind a wrapper, as A5's RegTensor<uint32_t>
    wo.reg = offs;
    vector_u8 gb8;
    vgatherb(gb8, ub, wo, first(256, 1));
    CHECK(std::memcmp(gb8.bytes + 224, ub + 32, 32) == 0);
    vector_bool blocks_0_to_3 = first(128, 1);
    pto::pto_vgatherb(gb8, ub, wo, blocks_0_to_3);  // as A5's TGATHERB calls it
    CHECK(std::memcmp(gb8.bytes + 96, ub + 4 * 64 + 32, 32) == 0 && gb8.get(128) == 0 && gb8.get(255) == 0);

    uint8_t* out = ub + 8192;
    std::memset(out, 0xEE, 4096);
    vector_u16 a16, c16;
    for (int i = 0; i < 128; ++i) {
        a16.set(i, static_cast<uint16_t>(i));
        c16.set(i, static_cast<uint16_t>(0x8000 + i));
    }
    uint16_t* o16 = reinterpret_cast<uint16_t*>(out);
    vstsx2(a16, c16, o16, 2, INTLV_B16, first(3, 2));  // three pairs, from element 2
    CHECK(o16[1] == 0xEEEE && o16[2] == 0 && o16[3] == 0x8000 && o16[7] == 0x8002 && o16[8] == 0xEEEE);
    vector_u32 v32;
    for (int i = 0; i < 64; ++i)
        v32.set(i, 0x01000000u + static_cast<uint32_t>(i));
    uint32_t* o32 = reinterpret_cast<uint32_t*>(out + 1024);
    vsst(v32, o32, 1, STRIDE_S8_B32);  // lane i to element 1 + 8i; the elements between untouched
    CHECK(o32[0] == 0xEEEEEEEEu && o32[1] == 0x01000000u && o32[2] == 0xEEEEEEEEu && o32[9] == 0x01000001u);
    CHECK(o32[1 + 504] == 0x0100003Fu && o32[1 + 505] == 0xEEEEEEEEu);
    uint16_t* q16 = reinterpret_cast<uint16_t*>(out + 3072);
    vsst(a16, q16, 0, STRIDE_S3_B16);
    CHECK(q16[0] == 0 && q16[1] == 0xEEEE && q16[3] == 1 && q16[381] == 127);
    // vsstb: blocks of the register 2 x 32 bytes apart, blocks 0..2 active (by their first byte).
    std::memset(out, 0xEE, 4096);
    vector_u8 r8;
    for (int i = 0; i < 256; ++i)
        r8.set(i, static_cast<uint8_t>(i));
    uint8_t* dst = out;
    vsstb(r8, dst, (2u << 16) | 1u, first(65, 1), POST_UPDATE);  // lane 64 opens block 2
    CHECK(out[0] == 0 && out[31] == 31 && out[32] == 0xEE && out[64] == 32 && out[128] == 64);
    CHECK(out[159] == 95 && out[192] == 0xEE && dst == out + 32);
    vsstb(r8, dst, (2u << 16) | 1u, odd_blocks);  // the pointer stays
    CHECK(out[32] == 0xEE && out[96] == 32 && out[224] == 96 && out[256] == 0xEE && dst == out + 32);

    // vstu appends the whole register at base + offset and moves the offset on; vsta flushes the tail.
    float* fo = reinterpret_cast<float*>(out + 2048);
    for (int i = 0; i < 256; ++i)
        fo[i] = -1.0f;
    vector_f32 vf;
    for (int i = 0; i < 64; ++i)
        vf.write(i, static_cast<float>(i));
    vector_align s;
    vector_address off;
    off.offset = 3;
    vstu(s, off, vf, fo, POST_UPDATE);
    CHECK(off.offset == 67 && fo[3] == 0.0f && fo[63] == 60.0f && fo[64] == -1.0f);  // 12 bytes held
    vstu(s, off, vf, fo, NO_POST_UPDATE);
    CHECK(off.offset == 67 && fo[64] == 61.0f && fo[67] == 0.0f && fo[127] == 60.0f && fo[128] == -1.0f);
    vsta(s, fo, 131);
    CHECK(fo[128] == 61.0f && fo[130] == 63.0f && fo[131] == -1.0f);
    // vstus without POST_UPDATE, as A5's TQuant calls it: each append at the address the caller names.
    vector_align t;
    float* w = fo + 192;
    vstus(t, 5u, vf, w);
    vstus(t, 4u, vf, w + 5);
    CHECK(w[0] == 0.0f && w[4] == 4.0f && w[5] == 0.0f && w[7] == 2.0f && w[8] == -1.0f);  // 4 bytes held
    vstas(t, w + 9, 0);
    CHECK(w[8] == 3.0f && w[9] == -1.0f);
}

int main(int argc, char** argv) {
    for (int k = 0; k < 16384; ++k)
        ub[k] = b(k);
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "unprimed") {
        vector_align u;
        vector_f32 x;
        vldus(x, u, reinterpret_cast<float*>(ub));
        std::puts("survived");
        return 0;
    }
    if (mode == "vsta_elsewhere") {
        vector_align s;
        vector_address off;
        vector_f32 v;
        float* p = reinterpret_cast<float*>(ub) + 1;
        vstu(s, off, v, p, POST_UPDATE);
        vsta(s, p, 63);
        std::puts("survived");
        return 0;
    }
    if (mode == "vldsx2_norm") {
        vector_f32 x, y;
        vldsx2(x, y, reinterpret_cast<float*>(ub), 0, NORM);
        std::puts("survived");
        return 0;
    }
    if (mode == "flush_elsewhere") {
        vector_align s;
        vector_f32 v;
        float* p = reinterpret_cast<float*>(ub) + 1;
        vstus(s, 3u, v, p, POST_UPDATE);
        vstar(s, p + 1);
        std::puts("survived");
        return 0;
    }
    if (mode == "shift_too_far" || mode == "slide_back") {
        vector_s32 d, v;
        if (mode == "shift_too_far")
            vshift(d, v, 65);
        else
            vslide((vector_u8&)d, (vector_u8&)v, (vector_u8&)v, -1);
        std::puts("survived");
        return 0;
    }
    loads();
    stores();
    unaligned();
    gathers();
    rearrange();
    pairs_strides_blocks();
    std::printf("%d failures\n", failures);
    return failures == 0 ? 0 : 1;
}
"""


@pytest.fixture(scope="module", params=COMPILERS)
def program(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_program(require(request.param), PROGRAM, tmp_path_factory.mktemp("vsim_ls"), "ls")


def test_distributions_streams_gathers_and_rearrangements(program: Path) -> None:
    run = subprocess.run([str(program)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 failures" in run.stdout


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("unprimed", "vldus: the alignment state was not primed by vldas"),
        ("flush_elsewhere", "vstar: the flush address is not where the store stream ended"),
        ("shift_too_far", "vshift: the amount 65 is outside 0 .. 64 (the register's lanes)"),
        ("slide_back", "vslide: the amount -1 is outside 0 .. 256 (the register's lanes)"),
        ("vsta_elsewhere", "vsta: the flush address is not where the store stream ended"),
        ("vldsx2_norm", "vldsx2: the simulation has DINTLV_B8, DINTLV_B16 and DINTLV_B32 only"),
    ],
)
def test_a_broken_unaligned_stream_stops_the_run(program: Path, mode: str, message: str) -> None:
    run = subprocess.run([str(program), mode], capture_output=True, text=True, timeout=60)
    assert run.returncode != 0 and "survived" not in run.stdout
    assert run.stderr.startswith(f"PTO runtime error: {message}"), run.stderr


# Each call breaks one rule of a rearrangement builtin (the registers' widths or element kinds) or of
# a gather (the index register's lane width), all in one translation unit.
REFUSED = r"""
#include <pto/vsim/loadstore.hpp>
#include <pto/vsim/rearrange.hpp>

void element_wider_than_the_index_lane(vector_u16& dst, const float* ptr, const vector_u16& index,
                                       const vector_bool& mask) {
    vgather2(dst, ptr, index, mask);
}

void block_offsets_not_32_bit(vector_f32& dst, const float* ptr, const vector_u16& index,
                              const vector_bool& mask) {
    vgatherb(dst, ptr, index, mask);
}

void refused() {
    vector_u16 h;
    vector_u32 w;
    vector_f32 f;
    vector_s64 d;
    vintlvv2(h, w, w, LOWER);
    vdintlvv2(w, h, w, HIGHER);
    vperm(h, w, w);
    vperm(f, f, f);
    vshift(h, w, 1);
    vslide(w, w, h, 1);
    vusqz(f, vector_bool{});
    vusqz(d, vector_bool{});
    vsunpack(w, w, LOWER);
    vzunpack(f, h, LOWER);
}
"""

REFUSED_MESSAGES = (
    "vintlvv2: the sources and the result have one element width",
    "vdintlvv2: the sources and the result have one element width",
    "vperm: the source and the result have one element width",
    "vperm: the index register holds integer lanes of the source's width",
    "vshift: the source and the result have one element width",
    "vslide: the sources and the result have one element width",
    "vusqz: the result holds integer lanes of 8, 16 or 32 bits",
    "vsunpack: integer lanes of 8, 16 or 32 bits, widened to a result of twice their width",
    "vzunpack: integer lanes of 8, 16 or 32 bits, widened to a result of twice their width",
    "vgather2: the element is wider than a lane of the index register",
    "vgatherb: the byte offsets are a register of 32-bit lanes",
)


@pytest.mark.parametrize("compiler", COMPILERS)
def test_rearrangements_and_gathers_the_pages_refuse_do_not_compile(compiler: str, tmp_path: Path) -> None:
    from ..helpers import ROOT

    (tmp_path / "refused.cpp").write_text(REFUSED, encoding="utf-8")
    built = subprocess.run(
        [
            *cxx_argv(require(compiler)),
            *SIM_FLAGS,
            "-fsyntax-only",
            f"-I{ROOT / 'ptogen/runtime/include'}",
            str(tmp_path / "refused.cpp"),
        ],
        capture_output=True,
        text=True,
    )
    assert built.returncode != 0
    missing = [m for m in REFUSED_MESSAGES if m not in built.stderr]
    assert not missing, built.stderr
    # one error per call, each naming its rule: no call breaks a rule it was not written for
    errors = [line for line in built.stderr.splitlines() if "error:" in line]
    assert len(errors) == 12, built.stderr
    assert sum(line.count(m) for line in errors for m in REFUSED_MESSAGES) == 12, built.stderr
