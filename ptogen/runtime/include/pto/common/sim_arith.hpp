// Element arithmetic of the op-spec expression language, free of C++ undefined behaviour:
// integer operations wrap modulo 2^bits (as the hardware does) instead of overflowing.
#pragma once

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
    return sub<C>(C(0), a);
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
