// The contraction kernel of the simulator's matrix products: out = a x b over row-major buffers of
// the compute type, each element summed over k in index order from zero with one fused
// multiply-add per step (integers: a wrapping multiply and add). The order and the roundings are
// those of a plain triple loop; only the schedule differs, so the results are bit-identical to it.
//
// Speed: rows are computed in pairs, 32 columns at a time, the k loop innermost over eight vector
// accumulators held in registers (i-k-j order over a row block: contiguous columns of b). Where
// the machine has AVX2 and FMA (checked once at run time) a clone compiled for them runs, so
// kernels need no -m flags; elsewhere the same schedule runs with std::fma.
#pragma once

#include <cmath>
#include <cstddef>
#include <type_traits>

#include <pto/common/sim_arith.hpp>

namespace pto::sim {

// One step of a contraction: acc + a * b, rounded once (floats) or wrapping (integers).
template <typename C>
inline C fma_step(C a, C b, C acc) {
    if constexpr (std::is_integral_v<C>)
        return add<C>(acc, mul<C>(a, b));
    else
        return std::fma(a, b, acc);
}

namespace gemm {

// Rows [0, m) of out (m x n, row stride n) = a (m x k, row stride k) times b (k x n, row stride n).
template <typename C>
inline void product_generic(int m, int k, int n, const C* a, const C* b, C* out) {
    for (int i = 0; i < m; ++i) {
        C* o = out + static_cast<std::ptrdiff_t>(i) * n;
        for (int j = 0; j < n; ++j)
            o[j] = C(0);
        for (int kk = 0; kk < k; ++kk) {
            const C x = a[static_cast<std::ptrdiff_t>(i) * k + kk];
            const C* row = b + static_cast<std::ptrdiff_t>(kk) * n;
            for (int j = 0; j < n; ++j)
                o[j] = fma_step<C>(x, row[j], o[j]);
        }
    }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PTO_SIM_GEMM_X86 1
using v8f = float __attribute__((vector_size(32)));

#define PTO_SIM_AVX2 __attribute__((target("avx2,fma")))

PTO_SIM_AVX2 inline v8f splat(float x) {
    return v8f{x, x, x, x, x, x, x, x};
}
PTO_SIM_AVX2 inline v8f load8(const float* p) {
    v8f v;
    __builtin_memcpy(&v, p, sizeof v);  // an unaligned load
    return v;
}
PTO_SIM_AVX2 inline void store8(float* p, v8f v) {
    __builtin_memcpy(p, &v, sizeof v);
}
PTO_SIM_AVX2 inline v8f fma8(v8f a, v8f b, v8f c) {
    return __builtin_ia32_vfmaddps256(a, b, c);  // a * b + c, one rounding per lane
}

// Rows i and i + 1 (R = 2) or row i alone, columns [j, j + 32) (W = 4 vectors) or [j, j + 8)
// (W = 1): the accumulators are named registers over the whole k loop (no arrays, which a compiler
// may keep in memory).
template <int R, int W>
PTO_SIM_AVX2 inline void block(int i, int j, int k, int n, const float* a, const float* b, float* out) {
    v8f c00{}, c01{}, c02{}, c03{}, c10{}, c11{}, c12{}, c13{};
    const float* a0 = a + static_cast<std::ptrdiff_t>(i) * k;
    const float* a1 = a0 + (R == 2 ? k : 0);
    const float* col = b + j;
    for (int kk = 0; kk < k; ++kk, col += n) {
        const v8f b0 = load8(col);
        const v8f x0 = splat(a0[kk]);
        c00 = fma8(x0, b0, c00);
        if constexpr (W == 4) {
            const v8f b1 = load8(col + 8), b2 = load8(col + 16), b3 = load8(col + 24);
            c01 = fma8(x0, b1, c01);
            c02 = fma8(x0, b2, c02);
            c03 = fma8(x0, b3, c03);
            if constexpr (R == 2) {
                const v8f x1 = splat(a1[kk]);
                c10 = fma8(x1, b0, c10);
                c11 = fma8(x1, b1, c11);
                c12 = fma8(x1, b2, c12);
                c13 = fma8(x1, b3, c13);
            }
        } else if constexpr (R == 2) {
            c10 = fma8(splat(a1[kk]), b0, c10);
        }
    }
    float* o0 = out + static_cast<std::ptrdiff_t>(i) * n + j;
    store8(o0, c00);
    if constexpr (W == 4) {
        store8(o0 + 8, c01);
        store8(o0 + 16, c02);
        store8(o0 + 24, c03);
    }
    if constexpr (R == 2) {
        float* o1 = o0 + n;
        store8(o1, c10);
        if constexpr (W == 4) {
            store8(o1 + 8, c11);
            store8(o1 + 16, c12);
            store8(o1 + 24, c13);
        }
    }
}

template <int R>
PTO_SIM_AVX2 inline void rows(int i, int k, int n, const float* a, const float* b, float* out) {
    int j = 0;
    for (; j + 32 <= n; j += 32)
        block<R, 4>(i, j, k, n, a, b, out);
    for (; j + 8 <= n; j += 8)
        block<R, 1>(i, j, k, n, a, b, out);
    for (; j < n; ++j) {  // the last columns one at a time, in the same order
        for (int r = 0; r < R; ++r) {
            float s = 0.0f;
            for (int kk = 0; kk < k; ++kk)
                s = std::fma(a[static_cast<std::ptrdiff_t>(i + r) * k + kk], b[static_cast<std::ptrdiff_t>(kk) * n + j], s);
            out[static_cast<std::ptrdiff_t>(i + r) * n + j] = s;
        }
    }
}

PTO_SIM_AVX2 inline void product_avx2(int m, int k, int n, const float* a, const float* b, float* out) {
    int i = 0;
    for (; i + 2 <= m; i += 2)
        rows<2>(i, k, n, a, b, out);
    if (i < m)
        rows<1>(i, k, n, a, b, out);
}

inline bool has_avx2_fma() {
    static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return yes;
}
#undef PTO_SIM_AVX2
#endif

template <typename C>
inline void product(int m, int k, int n, const C* a, const C* b, C* out) {
#ifdef PTO_SIM_GEMM_X86
    if constexpr (std::is_same_v<C, float>) {
        if (has_avx2_fma()) {
            product_avx2(m, k, n, a, b, out);
            return;
        }
    }
#endif
    product_generic<C>(m, k, n, a, b, out);
}

}  // namespace gemm
}  // namespace pto::sim
