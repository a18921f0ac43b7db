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

// `R` rows (1 or 2) from row i, columns [j, j + 8 * V): the accumulators stay in registers over k.
template <int R, int V>
PTO_SIM_AVX2 inline void block(int i, int j, int k, int n, const float* a, const float* b, float* out) {
    v8f acc[R][V];
    for (int r = 0; r < R; ++r)
        for (int v = 0; v < V; ++v)
            acc[r][v] = v8f{};
    const float* a0 = a + static_cast<std::ptrdiff_t>(i) * k;
    for (int kk = 0; kk < k; ++kk) {
        const float* row = b + static_cast<std::ptrdiff_t>(kk) * n + j;
        v8f bv[V];
        for (int v = 0; v < V; ++v)
            bv[v] = load8(row + 8 * v);
        for (int r = 0; r < R; ++r) {
            const v8f x = splat(a0[static_cast<std::ptrdiff_t>(r) * k + kk]);
            for (int v = 0; v < V; ++v)
                acc[r][v] = fma8(x, bv[v], acc[r][v]);
        }
    }
    for (int r = 0; r < R; ++r)
        for (int v = 0; v < V; ++v)
            store8(out + static_cast<std::ptrdiff_t>(i + r) * n + j + 8 * v, acc[r][v]);
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
