// Element arithmetic of the op-spec expression language, free of C++ undefined behaviour:
// integer operations wrap modulo 2^bits (as the hardware does) instead of overflowing.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace pto::sim {

// Unsigned type that is at least as wide as `unsigned int`, so small types do not promote to int.
template <typename C>
using wrap_t = std::conditional_t<(sizeof(C) < sizeof(unsigned)), unsigned, std::make_unsigned_t<C>>;

template <typename C>
constexpr C add(C a, C b) {
    if constexpr (std::is_integral_v<C>)
        return static_cast<C>(static_cast<wrap_t<C>>(a) + static_cast<wrap_t<C>>(b));
    else
        return a + b;
}
template <typename C>
constexpr C sub(C a, C b) {
    if constexpr (std::is_integral_v<C>)
        return static_cast<C>(static_cast<wrap_t<C>>(a) - static_cast<wrap_t<C>>(b));
    else
        return a - b;
}
template <typename C>
constexpr C mul(C a, C b) {
    if constexpr (std::is_integral_v<C>)
        return static_cast<C>(static_cast<wrap_t<C>>(a) * static_cast<wrap_t<C>>(b));
    else
        return a * b;
}
template <typename C>
constexpr C neg(C a) {
    if constexpr (std::is_integral_v<C>)
        return sub<C>(C(0), a);
    else
        return -a;  // 0 - x would turn -0 into +0 and +0 into +0
}
// Integer division truncates toward zero; x/0 gives 0 and MIN/-1 wraps to MIN (no trap on the host).
template <typename C>
constexpr C div(C a, C b) {
    if constexpr (std::is_integral_v<C>) {
        if (b == 0)
            return C(0);
        if constexpr (std::is_signed_v<C>) {
            if (a == std::numeric_limits<C>::min() && b == C(-1))
                return a;
        }
        return static_cast<C>(a / b);
    } else {
        return a / b;
    }
}
template <typename C>
constexpr C bit_and(C a, C b) {
    return static_cast<C>(a & b);
}
template <typename C>
constexpr C bit_or(C a, C b) {
    return static_cast<C>(a | b);
}
template <typename C>
constexpr C bit_xor(C a, C b) {
    return static_cast<C>(a ^ b);
}
template <typename C>
constexpr C bit_not(C a) {
    return static_cast<C>(~a);
}
// Set bits of an integer's two's complement pattern (vbcnt).
template <typename C>
constexpr C popcount(C a) {
    static_assert(std::is_integral_v<C>, "popcount: integer lanes only");
    return static_cast<C>(std::popcount(static_cast<std::make_unsigned_t<C>>(a)));
}
// Leading bits equal to the most significant one, that bit included (vcls): 0 and -1 give the
// width, 1 gives the width less one. An unsigned pattern is read the same way.
template <typename C>
constexpr C cls(C a) {
    static_assert(std::is_integral_v<C>, "cls: integer lanes only");
    using U = std::make_unsigned_t<C>;
    const U u = static_cast<U>(a);
    const U top = static_cast<U>(u >> (sizeof(C) * 8 - 1));
    return static_cast<C>(std::countl_zero(top ? static_cast<U>(~u) : u));
}
// The high half of the double-width product (vmull): (a * b) >> bits, signed for a signed type.
template <typename C>
constexpr C mul_high(C a, C b) {
    static_assert(std::is_integral_v<C> && sizeof(C) <= 4, "mul_high: integer lanes of up to 32 bits");
    using W = std::conditional_t<std::is_signed_v<C>, std::int64_t, std::uint64_t>;
    return static_cast<C>((static_cast<W>(a) * static_cast<W>(b)) >> (sizeof(C) * 8));
}
// Shift counts outside [0, bits) give 0 (left, logical right) or the sign fill (arithmetic right).
template <typename C>
constexpr C shl(C a, C n) {
    constexpr int bits = sizeof(C) * 8;
    if (n < 0 || n >= bits)
        return C(0);
    return static_cast<C>(static_cast<wrap_t<C>>(a) << n);
}
template <typename C>
constexpr C shr(C a, C n) {
    constexpr int bits = sizeof(C) * 8;
    if (n < 0 || n >= bits)
        return (std::is_signed_v<C> && a < 0) ? C(-1) : C(0);
    return static_cast<C>(a >> n);
}

}  // namespace pto::sim

#include <cmath>

namespace pto::sim {

// Remainder with the sign of the dividend (C fmod); integer x % 0 gives 0.
template <typename C>
C fmod_(C a, C b) {
    if constexpr (std::is_integral_v<C>) {
        if (b == 0)
            return C(0);
        if constexpr (std::is_signed_v<C>) {
            if (b == C(-1))
                return C(0);  // avoids MIN % -1, which traps on x86
        }
        return static_cast<C>(a % b);
    } else {
        return std::fmod(a, b);
    }
}

// Remainder with the sign of the divisor: a - floor(a / b) * b; integer x rem 0 gives 0.
template <typename C>
C rem_(C a, C b) {
    if constexpr (std::is_integral_v<C>) {
        const C r = fmod_<C>(a, b);
        if constexpr (std::is_signed_v<C>) {
            if (r != 0 && ((r < 0) != (b < 0)))
                return static_cast<C>(r + b);
        }
        return r;
    } else {
        const C r = std::fmod(a, b);
        if (r != C(0) && ((r < C(0)) != (b < C(0))))
            return r + b;
        return r;
    }
}

// Saturating add/sub: integers clamp to the type's range; floating point is ordinary IEEE.
template <typename C>
constexpr C add_sat(C a, C b) {
    if constexpr (std::is_integral_v<C>) {
        using W = std::conditional_t<std::is_signed_v<C>, long long, unsigned long long>;
        if constexpr (sizeof(C) < sizeof(W)) {
            const W s = static_cast<W>(a) + static_cast<W>(b);
            const W lo = static_cast<W>(std::numeric_limits<C>::min());
            const W hi = static_cast<W>(std::numeric_limits<C>::max());
            return static_cast<C>(s < lo ? lo : (s > hi ? hi : s));
        } else {
            C r{};
            if (__builtin_add_overflow(a, b, &r))
                return (std::is_signed_v<C> && a < 0) ? std::numeric_limits<C>::min() : std::numeric_limits<C>::max();
            return r;
        }
    } else {
        return a + b;
    }
}
template <typename C>
constexpr C sub_sat(C a, C b) {
    if constexpr (std::is_integral_v<C>) {
        C r{};
        if (!__builtin_sub_overflow(a, b, &r))
            return r;
        if constexpr (!std::is_signed_v<C>)
            return C(0);  // unsigned underflow clamps at zero
        else
            return b < 0 ? std::numeric_limits<C>::max() : std::numeric_limits<C>::min();
    } else {
        return a - b;
    }
}

// Rounding helpers of the conversion ops (floating point only).
template <typename C>
C round_even(C x) {
    return std::nearbyint(x);  // default FP environment: ties to even
}
template <typename C>
C round_away(C x) {
    return std::round(x);
}
template <typename C>
C round_floor(C x) {
    return std::floor(x);
}
template <typename C>
C round_ceil(C x) {
    return std::ceil(x);
}
template <typename C>
C round_trunc(C x) {
    return std::trunc(x);
}
// a * b + c rounded once in the compute type (a fused multiply-add), wrapping for integers.
template <typename C>
C fused_mul_add(C a, C b, C c) {
    if constexpr (std::is_floating_point_v<C>)
        return std::fma(a, b, c);
    else
        return add<C>(mul<C>(a, b), c);
}
// An inexact value goes to whichever of its two integer neighbours is odd (von Neumann rounding,
// which keeps the information that the value was inexact); an integer stays.
template <typename C>
C round_odd(C x) {
    const C low = std::floor(x);
    if (low == x)
        return x;
    return std::fmod(low, C(2)) == C(0) ? low + C(1) : low;
}

}  // namespace pto::sim

namespace pto::sim {

// Carry out of a + b + c and borrow out of a - b - c, on the unsigned bit patterns (c is 0 or 1).
template <typename C>
constexpr C carry_add(C a, C b, C c) {
    using U = std::make_unsigned_t<C>;
    const U ua = static_cast<U>(a), ub = static_cast<U>(b), uc = static_cast<U>(c != 0);
    const U s = static_cast<U>(ua + ub);
    return static_cast<C>((s < ua) || (static_cast<U>(s + uc) < s));
}
template <typename C>
constexpr C borrow_sub(C a, C b, C c) {
    using U = std::make_unsigned_t<C>;
    const U ua = static_cast<U>(a), ub = static_cast<U>(b), uc = static_cast<U>(c != 0);
    return static_cast<C>((ua < ub) || (static_cast<U>(ua - ub) < uc));
}

}  // namespace pto::sim
