// Run-time error reporting, tile overlap test and the element-math primitives of the op-spec
// expression language, shared by every generated simulator implementation.
#pragma once

#include <bit>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "check_core.hpp"
#include "element_types.hpp"

namespace pto::sim {

// Packed predicate tiles (what TCMP/TCMPS write and TSEL/TSELS read): predicate (r, c) is bit
// c % B of element (r, c / B), B = 8 * sizeof(element), each predicate row in its own tile row.
template <typename W>
inline constexpr int bits_per_word = 8 * static_cast<int>(sizeof(W));

template <typename W>
bool packed_bit(const W* row, int c) {
    using U = std::make_unsigned_t<W>;
    return ((static_cast<U>(row[c / bits_per_word<W>]) >> (c % bits_per_word<W>)) & 1U) != 0;
}

// A predicate stream: predicate n is bit n % B of the (n / B)-th element of the tile's valid
// region, counted row by row.
template <typename TileT>
bool stream_bit(TileT& tile, long n) {
    using W = typename TileT::DType;
    using U = std::make_unsigned_t<W>;
    const long e = n / bits_per_word<W>;
    const long width = tile.GetValidCol();
    return ((static_cast<U>(tile.at(static_cast<int>(e / width), static_cast<int>(e % width))) >>
             (n % bits_per_word<W>)) & 1U) != 0;
}

// The same for a tile of any layout, by (row, column) of the predicate.
template <typename TileT>
bool packed_bit_at(TileT& tile, int r, int c) {
    using W = typename TileT::DType;
    using U = std::make_unsigned_t<W>;
    return ((static_cast<U>(tile.at(r, c / bits_per_word<W>)) >> (c % bits_per_word<W>)) & 1U) != 0;
}

namespace detail {

// Unsigned type of C's width but at least `unsigned`, so products cannot promote to (overflowing) int.
template <typename C>
using unsigned_wide_t = std::conditional_t<(sizeof(C) < sizeof(unsigned)), unsigned, std::make_unsigned_t<C>>;

template <typename C>
inline constexpr bool is_native_float_v = std::is_floating_point_v<C>;

// Applies a float/double <cmath> function; 16-bit floats go through float and are rounded back.
template <typename C, typename F>
C float_math(C x, F f) {
    if constexpr (is_native_float_v<C>)
        return f(x);
    else
        return C(f(static_cast<float>(x)));
}

template <typename C>
constexpr bool sign_bit(C x) {
    if constexpr (is_native_float_v<C>)
        return std::signbit(x);
    else
        return (x.bits() & 0x8000u) != 0;
}

template <typename C>
constexpr bool is_nan(C x) {
    return !(x == x);
}

} // namespace detail

template <typename C>
constexpr C select(bool cond, C a, C b) {
    return cond ? a : b;
}

namespace detail {

// Bit pattern of a floating-point value as an unsigned integer of the same width, and back.
template <typename C>
using float_bits_t =
    std::conditional_t<sizeof(C) == 8, std::uint64_t, std::conditional_t<sizeof(C) == 4, std::uint32_t, std::uint16_t>>;

template <typename C>
constexpr float_bits_t<C> to_bits(C x) {
    if constexpr (is_native_float_v<C>)
        return std::bit_cast<float_bits_t<C>>(x);
    else
        return x.bits();
}

template <typename C>
constexpr C from_bits(float_bits_t<C> u) {
    if constexpr (is_native_float_v<C>)
        return std::bit_cast<C>(u);
    else
        return C::from_bits(u);
}

// All-ones when `cond` holds, else zero: a lane mask, so the selects below are bitwise.
template <typename U>
constexpr U lane_mask(bool cond) {
    return cond ? static_cast<U>(~U(0)) : U(0);
}

// IEEE 754-2019 maximum (pick_max) or minimum of two floats, written without branches so that
// loops over it vectorise (g++/clang++ -O3 on SSE2 turn it into maxps/minps, two compares and
// bitwise ops; the obvious if-chain blocks vectorisation and was 3-4x slower than a plain loop):
//   m = a > b ? a : b           (max; `a < b` for min) -- b when a == b or either operand is NaN;
//   ties: a == b differs in bits only for +0/-0, so the AND of the two patterns (max) clears the
//         sign unless both are -0, and the OR (min) sets it unless both are +0;
//   NaN:  m already is b when b is NaN; a NaN `a` replaces the result, so the first NaN operand is
//         returned with its payload and sign unchanged.
// 16-bit floats compare through float and keep their own 16-bit patterns.
template <bool pick_max, typename C>
constexpr C ieee_max_min(C a, C b) {
    using U = float_bits_t<C>;
    using F = std::conditional_t<is_native_float_v<C>, C, float>;
    const F fa = static_cast<F>(a);
    const F fb = static_cast<F>(b);
    const C m = pick_max ? (fa > fb ? a : b) : (fa < fb ? a : b); // maxps(a, b) / minps(a, b)
    const U ua = to_bits(a);
    if constexpr (sizeof(C) == 8) {
        // g++ 12 does not vectorise a double compare widened to a 64-bit integer mask, so doubles
        // select on values (same result, bit for bit).
        const U ub = to_bits(b);
        const C tie = from_bits<C>(pick_max ? (ua & ub) : (ua | ub));
        const C r = fa == fb ? tie : m;
        return fa != fa ? a : r;
    } else {
        // m == b on a tie, so AND-ing (OR-ing) a's pattern into m only where a == b gives a & b (a | b).
        const U r = pick_max ? static_cast<U>(to_bits(m) & (ua | lane_mask<U>(!(fa == fb))))
                             : static_cast<U>(to_bits(m) | (ua & lane_mask<U>(fa == fb)));
        const U nan_a = lane_mask<U>(fa != fa);
        return from_bits<C>(static_cast<U>((r & static_cast<U>(~nan_a)) | (ua & nan_a)));
    }
}

} // namespace detail

// IEEE 754-2019 maximum: NaN propagates (if `a` is NaN it is returned, else a NaN `b`, payloads
// unchanged), +0 > -0. Integers: plain comparison.
template <typename C>
constexpr C maximum(C a, C b) {
    if constexpr (is_floating_v<C>)
        return detail::ieee_max_min<true>(a, b);
    else
        return a > b ? a : b;
}

// IEEE 754-2019 minimum: NaN propagates (if `a` is NaN it is returned, else a NaN `b`, payloads
// unchanged), -0 < +0. Integers: plain comparison.
template <typename C>
constexpr C minimum(C a, C b) {
    if constexpr (is_floating_v<C>)
        return detail::ieee_max_min<false>(a, b);
    else
        return a < b ? a : b;
}

namespace detail {

// maximum(x, s) (pick_max) or minimum(x, s) for an `s` that is the same for every element (a
// scalar operand or a constant), with the same bits. The branches test only `s`, so the compiler
// hoists them out of the element loop (loop unswitching) and each loop body is one or two vector
// instructions: for an ordinary `s`, `s > x ? s : x` (maxps(s, x)) already returns a NaN `x` and,
// on a tie, `x` (equal non-zero values have equal bits). Only +0 (max) or -0 (min) as `s` needs
// care: max(-0, +0) is +0 = s, min(+0, -0) is -0 = s; the other zero is ordinary
// (max(+0, -0) = +0 = x).
template <bool pick_max, typename C>
constexpr C max_min_by(C x, C s) {
    using F = std::conditional_t<is_native_float_v<C>, C, float>;
    const F fx = static_cast<F>(x);
    const F fs = static_cast<F>(s);
    if (is_nan(fs))
        return is_nan(fx) ? x : s;
    if (fs == F(0) && sign_bit(s) != pick_max) { // +0 for max, -0 for min; a NaN x stays
        if constexpr (pick_max)
            return fx <= F(0) ? C(0) : x; // a literal +0: one and-not of the compare mask
        else
            return fx >= F(0) ? s : x;
    }
    return (pick_max ? fs > fx : fs < fx) ? s : x;
}

} // namespace detail

// maximum(a, b) (pick_max) or minimum(a, b) of two operands that both vary across a loop, split so
// that the loop vectorises to one maxps/minps per vector: max_min_select is the plain compare and
// select, `a > b ? a : b` (`a < b` for min), and max_min_unsure(a) says whether it may differ from
// maximum/minimum. It can only when `a` is a NaN (the select returns b; maximum returns a) or a
// zero (a tie of +0 and -0 returns b; maximum returns +0, minimum -0): a NaN `b` is returned as it
// should be, and equal non-zero values have equal bits. A caller selects a run of elements, and
// redoes the run with maximum/minimum when any element was unsure.
template <bool pick_max, typename C>
constexpr C max_min_select(C a, C b) {
    using F = std::conditional_t<detail::is_native_float_v<C>, C, float>;
    const F fa = static_cast<F>(a);
    const F fb = static_cast<F>(b);
    return (pick_max ? fa > fb : fa < fb) ? a : b;
}

template <typename C>
constexpr bool max_min_unsure(C a) {
    using F = std::conditional_t<detail::is_native_float_v<C>, C, float>;
    const F fa = static_cast<F>(a);
    return static_cast<bool>(static_cast<int>(fa != fa) | static_cast<int>(fa == F(0)));
}

// Whether `n` elements from `a` and `n` from `b` share no byte (the select-then-redo loop must not
// overwrite an operand it may read again).
template <typename A, typename B>
inline bool apart(const A* a, int n, const B* b, int m) {
    const auto pa = reinterpret_cast<std::uintptr_t>(a);
    const auto pb = reinterpret_cast<std::uintptr_t>(b);
    return pa + static_cast<std::uintptr_t>(n) * sizeof(A) <= pb || pb + static_cast<std::uintptr_t>(m) * sizeof(B) <= pa;
}

// maximum(x, s) for an `s` that does not change across a loop; see detail::max_min_by.
template <typename C>
constexpr C maximum_by(C x, C s) {
    if constexpr (is_floating_v<C>)
        return detail::max_min_by<true>(x, s);
    else
        return x > s ? x : s;
}

// minimum(x, s) for an `s` that does not change across a loop; see detail::max_min_by.
template <typename C>
constexpr C minimum_by(C x, C s) {
    if constexpr (is_floating_v<C>)
        return detail::max_min_by<false>(x, s);
    else
        return x < s ? x : s;
}

// Floats use <cmath> pow in the operand's own precision. Integers are exact modulo 2^bits (computed
// by squaring in the unsigned type); a negative exponent gives 1/base^-exp truncated toward zero, and 0
// for base 0 (no trap on the host).
template <typename C>
constexpr C power(C base, C exp) {
    if constexpr (is_floating_v<C>) {
        return detail::float_math(base, [exp](auto x) { return std::pow(x, static_cast<decltype(x)>(exp)); });
    } else {
        static_assert(is_integer_v<C>, "sim::power: operands must be floating-point or integer");
        using U = detail::unsigned_wide_t<C>;
        if constexpr (std::is_signed_v<C>) {
            if (exp < 0) {
                if (base == C(1))
                    return C(1);
                if (base == C(-1))
                    return exp % 2 == 0 ? C(1) : C(-1);
                return C(0);
            }
        }
        U result = 1;
        U factor = static_cast<U>(base);
        auto e = static_cast<std::make_unsigned_t<C>>(exp);
        while (e != 0) {
            if (e & 1u)
                result = static_cast<U>(result * factor);
            factor = static_cast<U>(factor * factor);
            e = static_cast<decltype(e)>(e >> 1);
        }
        return static_cast<C>(result);
    }
}

// |x|; for signed integers the most negative value wraps to itself, as in two's complement hardware.
template <typename C>
constexpr C absolute(C x) {
    if constexpr (is_floating_v<C>) {
        if constexpr (detail::is_native_float_v<C>)
            return std::fabs(x);
        else
            return C::from_bits(static_cast<std::uint16_t>(x.bits() & 0x7fffu));
    } else {
        static_assert(is_integer_v<C>, "sim::absolute: operand must be floating-point or integer");
        if constexpr (std::is_signed_v<C>) {
            using U = detail::unsigned_wide_t<C>;
            return x < 0 ? static_cast<C>(U(0) - static_cast<U>(x)) : x;
        } else {
            return x;
        }
    }
}

template <typename C>
C exponential(C x) {
    static_assert(is_floating_v<C>, "sim::exponential: operand must be floating-point");
    return detail::float_math(x, [](auto v) { return std::exp(v); });
}

template <typename C>
C logarithm(C x) {
    if constexpr (is_floating_v<C>) {
        return detail::float_math(x, [](auto v) { return std::log(v); });
    } else {
        // Integers: the natural logarithm in double, truncated toward zero on conversion, which
        // saturates (log 0 = -inf gives the type's minimum) and turns a negative input's NaN into 0.
        return narrow<C>(std::log(static_cast<double>(x)));
    }
}

template <typename C>
C square_root(C x) {
    static_assert(is_floating_v<C>, "sim::square_root: operand must be floating-point");
    return detail::float_math(x, [](auto v) { return std::sqrt(v); });
}

template <typename C>
C reciprocal_square_root(C x) {
    static_assert(is_floating_v<C>, "sim::reciprocal_square_root: operand must be floating-point");
    return detail::float_math(x, [](auto v) { return decltype(v)(1) / std::sqrt(v); });
}

template <typename C>
C reciprocal(C x) {
    static_assert(is_floating_v<C>, "sim::reciprocal: operand must be floating-point");
    return detail::float_math(x, [](auto v) { return decltype(v)(1) / v; });
}

} // namespace pto::sim
