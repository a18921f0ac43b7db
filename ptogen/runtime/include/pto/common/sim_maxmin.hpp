// Row kernels of IEEE 754-2019 maximum/minimum over float rows, for the simulator's TMAX, TMIN,
// TMAXS and TMINS (and any op whose whole element expression is max/min of two row-major operands).
//
// Why a hand-written kernel: maximum/minimum are not one SSE instruction (maxps returns its second
// operand for a NaN and for a tie of +0 and -0), so the portable loop needs several instructions
// per vector. AVX-512DQ's vrangeps orders -0 below +0 and picks the larger (smaller) number in one
// instruction, but it follows maxNum for a quiet NaN (returns the other operand) and quiets a
// signalling one; two lane selects then return a NaN operand unchanged, the first operand's when
// both are NaNs, as sim::maximum/minimum do. Where the machine has AVX-512DQ (checked once at run
// time, no compiler flag asked of the user), a row is done sixteen lanes at a time; a kernel
// returns false when it did not run, and the caller's portable loop does the row.
#pragma once

#include <cstdint>

namespace pto::sim::maxmin {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PTO_SIM_MAXMIN_X86 1
using v16f = float __attribute__((vector_size(64)));
using v16i = std::int32_t __attribute__((vector_size(64)));

#define PTO_SIM_AVX512 __attribute__((target("avx512f,avx512dq")))

// vrangeps' immediate: bits 1:0 pick min (00) or max (01); bits 3:2 = 01 keep the picked value's
// sign (00 would copy the first operand's).
template <bool pick_max>
inline constexpr int range_imm = pick_max ? 1 : 0;

PTO_SIM_AVX512 inline v16f load16(const float* p) {
    v16f v;
    __builtin_memcpy(&v, p, sizeof v);  // an unaligned load
    return v;
}
PTO_SIM_AVX512 inline void store16(float* p, v16f v) {
    __builtin_memcpy(p, &v, sizeof v);
}
PTO_SIM_AVX512 inline v16f range16(v16f a, v16f b, int imm_max) {
    // The immediate must be a constant: two spelled-out calls, chosen by a constant argument.
    v16f picked = imm_max != 0 ? __builtin_ia32_rangeps512_mask(a, b, 5, a, static_cast<unsigned short>(0xFFFF), 4)
                               : __builtin_ia32_rangeps512_mask(a, b, 4, a, static_cast<unsigned short>(0xFFFF), 4);
    // Predicate 3 is "unordered": a lane where either operand is a NaN. Rare, so tested once per
    // vector and fixed only when present.
    const unsigned short unordered = __builtin_ia32_cmpps512_mask(a, b, 3, static_cast<unsigned short>(0xFFFF), 4);
    if (__builtin_expect(unordered != 0, 0)) {
        const v16i nan_a = a != a, nan_b = b != b;  // all ones in a lane whose operand is a NaN
        v16i out = reinterpret_cast<v16i>(picked);
        out = (nan_b & reinterpret_cast<v16i>(b)) | (~nan_b & out);
        out = (nan_a & reinterpret_cast<v16i>(a)) | (~nan_a & out);
        picked = reinterpret_cast<v16f>(out);
    }
    return picked;
}
// One lane (a row's tail) the same way, so that the tail rounds and orders exactly as the body.
PTO_SIM_AVX512 inline float range1(float a, float b, int imm_max) {
    v16f va{a}, vb{b};
    return range16(va, vb, imm_max)[0];
}

PTO_SIM_AVX512 inline void rows_tt(float* d, const float* a, const float* b, int n, int imm_max) {
    int c = 0;
    for (; c + 16 <= n; c += 16)
        store16(d + c, range16(load16(a + c), load16(b + c), imm_max));
    for (; c < n; ++c)
        d[c] = range1(a[c], b[c], imm_max);
}

PTO_SIM_AVX512 inline void rows_ts(float* d, const float* a, float s, int n, int imm_max) {
    const v16f vs{s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s};
    int c = 0;
    for (; c + 16 <= n; c += 16)
        store16(d + c, range16(load16(a + c), vs, imm_max));
    for (; c < n; ++c)
        d[c] = range1(a[c], s, imm_max);
}

inline bool has_avx512dq() {
    static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
    return yes;
}
#undef PTO_SIM_AVX512
#endif

// The elements a kernel reads of an operand (rows of `cols` at `stride`) and writes of the
// destination must be the same elements (in place) or share no byte.
inline bool span_safe(const float* d, long ds, const float* x, long xs, int rows, int cols) {
    if (d == x && ds == xs)
        return true;
    const auto pd = reinterpret_cast<std::uintptr_t>(d);
    const auto px = reinterpret_cast<std::uintptr_t>(x);
    const auto end_d = pd + static_cast<std::uintptr_t>((rows - 1) * ds + cols) * sizeof(float);
    const auto end_x = px + static_cast<std::uintptr_t>((rows - 1) * xs + cols) * sizeof(float);
    return end_d <= px || end_x <= pd;
}

// d = maximum(a, b) (pick_max) or minimum(a, b) over `rows` rows of `cols` elements, rows `ds`,
// `as`, `bs` elements apart; false when not done here (then the caller's loop does it).
template <bool pick_max>
inline bool tile(float* d, long ds, const float* a, long as, const float* b, long bs, int rows, int cols) {
#ifdef PTO_SIM_MAXMIN_X86
    if (rows > 0 && cols > 0 && has_avx512dq() && span_safe(d, ds, a, as, rows, cols) &&
        span_safe(d, ds, b, bs, rows, cols)) {
        if (ds == cols && as == cols && bs == cols) {  // whole rows: one contiguous run
            rows_tt(d, a, b, rows * cols, range_imm<pick_max>);
        } else {
            for (int r = 0; r < rows; ++r)
                rows_tt(d + r * ds, a + r * as, b + r * bs, cols, range_imm<pick_max>);
        }
        return true;
    }
#endif
    (void)d, (void)ds, (void)a, (void)as, (void)b, (void)bs, (void)rows, (void)cols;
    return false;
}

// d = maximum(a, s) (pick_max) or minimum(a, s) for one value s; as `tile` otherwise.
template <bool pick_max>
inline bool tile_scalar(float* d, long ds, const float* a, long as, float s, int rows, int cols) {
#ifdef PTO_SIM_MAXMIN_X86
    if (rows > 0 && cols > 0 && has_avx512dq() && span_safe(d, ds, a, as, rows, cols)) {
        if (ds == cols && as == cols) {
            rows_ts(d, a, s, rows * cols, range_imm<pick_max>);
        } else {
            for (int r = 0; r < rows; ++r)
                rows_ts(d + r * ds, a + r * as, s, cols, range_imm<pick_max>);
        }
        return true;
    }
#endif
    (void)d, (void)ds, (void)a, (void)as, (void)s, (void)rows, (void)cols;
    return false;
}

}  // namespace pto::sim::maxmin
