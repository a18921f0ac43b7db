// Element math of the builtins' lane expressions, over the types lanes compute in (float and the
// integer types), with no tile-runtime type in sight. The generated builtins spell it `sim::f`: this
// namespace answers first and hands every other name to the runtime's std-only `pto::sim` arithmetic.
#pragma once

#include <cmath>
#include <type_traits>

#include <pto/common/sim_arith.hpp>

namespace pto::vsim::sim {

using namespace pto::sim;  // add, sub, mul, shifts, carries: wrapping integer arithmetic

// IEEE 754-2019 maximum / minimum: a NaN operand gives a NaN (the first, if both are), and +0 > -0.
template <bool pick_max, typename C>
inline C max_min(C x, C s) {
    if constexpr (std::is_floating_point_v<C>) {
        if (x != x)
            return x;
        if (s != s)
            return s;
        if (x == s)
            return std::signbit(x) == pick_max ? s : x;
    }
    return (pick_max ? s > x : s < x) ? s : x;
}
template <typename C>
inline C maximum(C x, C s) {
    return max_min<true>(x, s);
}
template <typename C>
inline C minimum(C x, C s) {
    return max_min<false>(x, s);
}
template <typename C>
inline C maximum_by(C x, C s) {
    return max_min<true>(x, s);
}
template <typename C>
inline C minimum_by(C x, C s) {
    return max_min<false>(x, s);
}

// |x|: a float's sign bit cleared (NaN payloads kept); the most negative integer wraps to itself.
template <typename C>
inline C absolute(C x) {
    if constexpr (std::is_floating_point_v<C>)
        return std::fabs(x);
    else if constexpr (std::is_signed_v<C>)
        return x < 0 ? neg<C>(x) : x;
    else
        return x;
}

// The float functions, evaluated in the lane's compute type (float) and rounded by the caller.
template <typename C>
inline C exponential(C x) {
    static_assert(std::is_floating_point_v<C>, "exponential: float lanes only");
    return std::exp(x);
}
template <typename C>
inline C logarithm(C x) {
    static_assert(std::is_floating_point_v<C>, "logarithm: float lanes only");
    return std::log(x);
}
template <typename C>
inline C square_root(C x) {
    static_assert(std::is_floating_point_v<C>, "square_root: float lanes only");
    return std::sqrt(x);
}
template <typename C>
inline C reciprocal_square_root(C x) {
    static_assert(std::is_floating_point_v<C>, "reciprocal_square_root: float lanes only");
    return C(1) / std::sqrt(x);
}

} // namespace pto::vsim::sim
