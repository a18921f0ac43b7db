// Element conversion of TCVT between any two element types, with the rounding a RoundMode names
// and the behaviour a SaturationMode names (the op spec's notes state and argue each decision).
//
// The rounding is passed in as `integral`, the op's RoundMode applied to a double (rint, floor,
// ...), so the spec's expressions stay the single source of what each mode means. The same
// function also rounds to a narrower floating type: the exact value lies between two adjacent
// representable values lo < hi, and `integral` is asked about a position between two integers
// whose lower one has lo's parity (see pick_neighbour). A mode that returns the value unrounded
// (CAST_NONE) means the conversion's own rounding: toward zero to an integer, as C converts, and
// to nearest even to a floating type.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "element_types.hpp"
#include "packed_types.hpp"
#include "sim_round.hpp"

namespace pto::sim {

template <typename T>
constexpr exact_t exact_value(T v) {
    if constexpr (is_float16_v<T>)
        return static_cast<exact_t>(static_cast<float>(v));
    else
        return static_cast<exact_t>(v);
}

// Unsigned integer holding a floating type's bit pattern.
template <typename D>
using float_bits_t = std::conditional_t<sizeof(D) == 2, std::uint16_t, std::conditional_t<sizeof(D) == 4, std::uint32_t, std::uint64_t>>;

template <typename D>
constexpr D from_magnitude_bits(float_bits_t<D> bits, bool negative) {
    constexpr float_bits_t<D> sign = float_bits_t<D>(1) << (sizeof(D) * 8 - 1);
    return std::bit_cast<D>(static_cast<float_bits_t<D>>(negative ? (bits | sign) : bits));
}

template <typename D>
constexpr float_bits_t<D> magnitude_bits(D v) {
    constexpr float_bits_t<D> sign = float_bits_t<D>(1) << (sizeof(D) * 8 - 1);
    return static_cast<float_bits_t<D>>(std::bit_cast<float_bits_t<D>>(v) & ~sign);
}

template <typename D>
constexpr D largest_finite() {
    if constexpr (std::is_same_v<D, half>)
        return std::bit_cast<D>(std::uint16_t{0x7bff});
    else if constexpr (std::is_same_v<D, bfloat16_t>)
        return std::bit_cast<D>(std::uint16_t{0x7f7f});
    else
        return std::numeric_limits<D>::max();
}

// A first guess at the nearest D to the non-negative value a; it may be the wrong one of the two
// neighbours (double rounding), which pick_neighbour corrects by comparing exact values.
template <typename D>
D near_guess(exact_t a) {
    if constexpr (std::is_same_v<D, float> || std::is_same_v<D, double>)
        return static_cast<D>(a);
    else
        return D(static_cast<double>(a));
}

// Rounds the non-negative exact magnitude a (of a value with the given sign) to D as `integral`
// decides (sim_round.hpp says how).
template <typename D, typename F>
D round_to_float(exact_t a, bool negative, F integral) {
    const auto value = [](float_bits_t<D> b) { return exact_value(from_magnitude_bits<D>(b, false)); };
    const float_bits_t<D> bits = round_magnitude(a, negative, magnitude_bits(near_guess<D>(a)), value, integral);
    return from_magnitude_bits<D>(bits, negative);
}

// Width of the signed integer a non-saturating float-to-integer conversion goes through: the
// conversion upstream's CPU simulator performs on x86-64 hosts (64 bits for 64-bit destinations,
// uint32_t and uint8_t, 32 bits otherwise). Out of that range, or NaN, it yields -2^(W-1).
template <typename D>
inline constexpr int unsaturated_width = (sizeof(D) == 8 || std::is_same_v<D, std::uint32_t> || std::is_same_v<D, std::uint8_t>) ? 64 : 32;

template <typename D>
D float_to_integer(double v, bool saturate, double rounded) {
    if (saturate) {
        if (v != v)
            return D(0);
        const exact_t r = static_cast<exact_t>(rounded);
        if (r <= static_cast<exact_t>(std::numeric_limits<D>::min()))
            return std::numeric_limits<D>::min();
        if (r >= static_cast<exact_t>(std::numeric_limits<D>::max()))
            return std::numeric_limits<D>::max();
        return static_cast<D>(rounded);
    }
    using W = std::conditional_t<unsaturated_width<D> == 64, std::int64_t, std::int32_t>;
    const exact_t r = static_cast<exact_t>(rounded);
    const bool inside = v == v && r >= static_cast<exact_t>(std::numeric_limits<W>::min()) &&
                        r < -static_cast<exact_t>(std::numeric_limits<W>::min());
    const W w = inside ? static_cast<W>(rounded) : std::numeric_limits<W>::min();
    return static_cast<D>(w);  // modulo 2^bits of D (C++20)
}

// Saturation bounds of the 4-bit types, upstream's: float4_e1m2x2_t's [-4, 3.5] reaches past its
// largest value (1.75), and a clamped value still goes through the encoding below.
template <typename T>
constexpr double packed_lowest() {
    return std::is_same_v<T, int4b_t> ? -8.0 : std::is_same_v<T, float4_e2m1x2_t> ? -6.0 : -4.0;
}
template <typename T>
constexpr double packed_highest() {
    return std::is_same_v<T, int4b_t> ? 7.0 : std::is_same_v<T, float4_e2m1x2_t> ? 6.0 : 3.5;
}

// max(lo, min(hi, x)) in this order, so NaN becomes hi, as upstream's simulator clamps.
constexpr double clamp_as_upstream(double x, double lo, double hi) {
    const double below = x < hi ? x : hi;
    return lo < below ? below : lo;
}

template <typename D, typename S, typename F>
D convert(S value, F integral, bool saturate);

// TCVT from float to float is round-only (the TCVT page's type table; A5 computes it with vtrc): the
// value is rounded to an integral float as the RoundMode says, CAST_NONE (no rounding of its own) to
// nearest even; NaN, infinities and zeros are kept and a zero result keeps the value's sign. Other
// pairs pass the value through to convert.
template <typename D, typename S, typename F>
S round_only(S value, F integral) {
    if constexpr (std::is_same_v<D, float> && std::is_same_v<S, float>) {
        const double x = value;
        if (x != x || std::isinf(x) || x == 0)
            return value;
        double r = integral(x);
        if (r != std::nearbyint(r))
            r = std::nearbyint(r);
        return static_cast<S>(std::copysign(r, x));
    } else {
        return value;
    }
}

// Conversions to and from the 4-bit types. An int4b_t source converts as its value does (to another
// integer type as an int8_t); a 4-bit float source is first rounded to an integer as the RoundMode
// says (upstream's behaviour), then converts as that float does, and keeps its code when it goes to
// the other 4-bit float. To a 4-bit type: with saturation the value is first clamped
// to the type's bounds, a floating value is then rounded to an integer as the RoundMode says, and
// the result is encoded: an int4b_t clamped to [-8, 7] whatever the saturation, a 4-bit float by its
// truncating encoding (packed_types.hpp).
template <typename D, typename S, typename F>
D convert_packed(S value, F integral, bool saturate) {
    if constexpr (IsTwinType<S>() && IsTwinType<D>()) {
        return D::FromRaw(value.RawData());
    } else if constexpr (std::is_same_v<S, int4b_t>) {
        if constexpr (is_integer_v<D>)
            return convert<D, std::int8_t>(static_cast<std::int8_t>(value), integral, saturate);
        else
            return convert<D, float>(static_cast<float>(static_cast<std::int8_t>(value)), integral, saturate);
    } else if constexpr (is_packed_v<S>) {
        // Upstream's simulator (and its tests' goldens) round a 4-bit float to an integer as the
        // RoundMode says on its way to any wider type: 1.5 becomes 2.0 under CAST_RINT.
        return convert<D, float>(static_cast<float>(integral(static_cast<double>(value))), integral, saturate);
    } else {
        double x = static_cast<double>(exact_value(value));
        if (saturate)
            x = clamp_as_upstream(x, packed_lowest<D>(), packed_highest<D>());
        if constexpr (is_floating_v<S>)
            x = x == x ? integral(x) : x;
        if constexpr (std::is_same_v<D, int4b_t>)
            return int4b_t(static_cast<std::int32_t>(clamp_as_upstream(x, -8.0, 7.0)));
        else
            return D(x);
    }
}

template <typename D, typename S, typename F>
D convert(S value, F integral, bool saturate) {
    if constexpr (is_packed_v<D> || is_packed_v<S>) {
        return convert_packed<D, S>(value, integral, saturate);
    } else if constexpr (is_floating_v<D>) {
        const exact_t x = exact_value(value);
        D out;
        if (x != x)
            out = D(std::numeric_limits<float>::quiet_NaN());
        else if (x == 0)
            out = from_magnitude_bits<D>(0, std::signbit(static_cast<double>(x)));
        else if (x == std::numeric_limits<exact_t>::infinity() || x == -std::numeric_limits<exact_t>::infinity())
            out = D(static_cast<float>(x));
        else
            out = round_to_float<D>(x < 0 ? -x : x, x < 0, integral);
        if (saturate && (out == D(std::numeric_limits<float>::infinity()) || out == D(-std::numeric_limits<float>::infinity())))
            out = from_magnitude_bits<D>(magnitude_bits(largest_finite<D>()), x < 0);
        return out;
    } else if constexpr (is_floating_v<S>) {
        const double v = static_cast<double>(exact_value(value));
        return float_to_integer<D>(v, saturate, v == v ? integral(v) : v);
    } else if constexpr (std::is_signed_v<S> == std::is_signed_v<D> && sizeof(D) >= sizeof(S)) {
        return static_cast<D>(value);  // widening keeps every value
    } else {
        if (saturate) {
            const exact_t x = static_cast<exact_t>(value);
            if (x < static_cast<exact_t>(std::numeric_limits<D>::min()))
                return std::numeric_limits<D>::min();
            if (x > static_cast<exact_t>(std::numeric_limits<D>::max()))
                return std::numeric_limits<D>::max();
        }
        return static_cast<D>(value);  // modulo 2^bits of D (C++20)
    }
}

}  // namespace pto::sim
