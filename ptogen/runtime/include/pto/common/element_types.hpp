// Element types of PTO tiles that the host has no native type for (binary16 and bfloat16), and the
// traits the simulator uses to pick the type element math is done in.
#pragma once

#include <bit>
#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <pto/common/fp8_types.hpp>
#include <pto/common/hifloat8.hpp>
#include <pto/vsim/float16_codec.hpp>

namespace pto {

namespace detail {

// Shared arithmetic of the 16-bit float types: everything is done in float and rounded back. For
// + - * / float (24 significand bits >= 2p + 2 for p <= 11) makes that the correctly rounded result.
template <typename Self>
struct float16_ops {
    friend constexpr Self operator+(Self a, Self b) {
        return Self(static_cast<float>(a) + static_cast<float>(b));
    }
    friend constexpr Self operator-(Self a, Self b) {
        return Self(static_cast<float>(a) - static_cast<float>(b));
    }
    friend constexpr Self operator*(Self a, Self b) {
        return Self(static_cast<float>(a) * static_cast<float>(b));
    }
    friend constexpr Self operator/(Self a, Self b) {
        return Self(static_cast<float>(a) / static_cast<float>(b));
    }
    friend constexpr Self& operator+=(Self& a, Self b) {
        return a = a + b;
    }
    friend constexpr Self& operator-=(Self& a, Self b) {
        return a = a - b;
    }
    friend constexpr Self& operator*=(Self& a, Self b) {
        return a = a * b;
    }
    friend constexpr Self& operator/=(Self& a, Self b) {
        return a = a / b;
    }
    // A 16-bit float times a float is a float, and a double times one a double, as with the native
    // 16-bit types of upstream's CPU builds (its tests multiply tile elements by float scalings and
    // numeric_limits<half>::max() by double fractions).
    friend constexpr float operator*(Self a, float b) {
        return static_cast<float>(a) * b;
    }
    friend constexpr float operator*(float a, Self b) {
        return a * static_cast<float>(b);
    }
    friend constexpr double operator*(double a, Self b) {
        return a * static_cast<double>(b);
    }
    friend constexpr Self operator+(Self a) {
        return a;
    }
    friend constexpr Self operator-(Self a) {
        return Self::from_bits(static_cast<std::uint16_t>(a.bits() ^ 0x8000u));
    }
    friend constexpr bool operator==(Self a, Self b) {
        return static_cast<float>(a) == static_cast<float>(b);
    }
    friend constexpr std::partial_ordering operator<=>(Self a, Self b) {
        return static_cast<float>(a) <=> static_cast<float>(b);
    }
};

} // namespace detail

namespace detail {

// Storage, conversions and bit access shared by the two 16-bit float types; `Traits` supplies
// the rounding from float and the exact widening to float.
template <typename Self, typename Traits>
struct float16_storage : float16_ops<Self> {
    std::uint16_t storage;

    float16_storage() = default;
    constexpr float16_storage(float value) : storage(Traits::from_float(value)) {}
    constexpr float16_storage(double value) : float16_storage(double_to_float_round_odd(value)) {}
    template <typename I>
        requires std::is_integral_v<I>
    constexpr float16_storage(I value) : float16_storage(static_cast<double>(value)) {}

    static constexpr Self from_bits(std::uint16_t b) {
        Self h;
        h.storage = b;
        return h;
    }
    constexpr std::uint16_t bits() const {
        return storage;
    }

    // Explicit, so mixed expressions do not silently drop to float arithmetic.
    template <typename U>
        requires std::is_arithmetic_v<U>
    explicit constexpr operator U() const {
        return static_cast<U>(Traits::to_float(storage));
    }
};

struct half_traits {
    static constexpr std::uint16_t from_float(float v) {
        return float_to_half_bits(v);
    }
    static constexpr float to_float(std::uint16_t b) {
        return half_bits_to_float(b);
    }
};

struct bfloat16_traits {
    static constexpr std::uint16_t from_float(float v) {
        return float_to_bfloat16_bits(v);
    }
    static constexpr float to_float(std::uint16_t b) {
        return bfloat16_bits_to_float(b);
    }
};

} // namespace detail

// IEEE 754 binary16. Trivial (no default member initialiser) so tiles and vregs can value-initialise
// it to +0 and copy it with memcpy semantics, like a native float.
struct half : detail::float16_storage<half, detail::half_traits> {
    using float16_storage::float16_storage;
};

// bfloat16: the top 16 bits of an IEEE binary32.
struct bfloat16_t : detail::float16_storage<bfloat16_t, detail::bfloat16_traits> {
    using float16_storage::float16_storage;
};

static_assert(sizeof(half) == 2 && std::is_trivially_copyable_v<half> && std::is_trivial_v<half>);
static_assert(sizeof(bfloat16_t) == 2 && std::is_trivially_copyable_v<bfloat16_t> && std::is_trivial_v<bfloat16_t>);

using float16_t = half;
using float32_t = float;

template <typename T>
inline constexpr bool is_floating_v =
    std::is_floating_point_v<std::remove_cv_t<T>> || std::is_same_v<std::remove_cv_t<T>, half> ||
    std::is_same_v<std::remove_cv_t<T>, bfloat16_t>;

// bool is integral in C++ but is not a PTO integer element type.
template <typename T>
inline constexpr bool is_integer_v =
    std::is_integral_v<std::remove_cv_t<T>> && !std::is_same_v<std::remove_cv_t<T>, bool>;

namespace sim {

template <typename T>
inline constexpr bool is_float16_v = std::is_same_v<T, half> || std::is_same_v<T, bfloat16_t>;

// The type element math is done in: 16-bit floats are widened to float, as the vector units do.
template <typename T>
using compute_t = std::conditional_t<is_float16_v<T>, float, T>;

// Converts a compute value back to the element type. 16-bit floats round to nearest even; integers
// use static_cast, which wraps modulo 2^n in C++20.
template <typename T, typename C>
constexpr T narrow(C value) {
    if constexpr (is_float16_v<T>) {
        return T(value);
    } else if constexpr (std::is_integral_v<T> && !std::is_integral_v<C>) {
        // Floating point to integer saturates (NaN gives 0): a plain cast is undefined out of range.
        const double v = static_cast<double>(value);
        if (v != v)
            return T(0);
        if (v <= static_cast<double>(std::numeric_limits<T>::min()))
            return std::numeric_limits<T>::min();
        if (v >= static_cast<double>(std::numeric_limits<T>::max()))
            return std::numeric_limits<T>::max();
        return static_cast<T>(v);
    } else {
        return static_cast<T>(value);
    }
}

// Converts a compute value to the element type with saturation and returns it in the compute type:
// clamped to T's finite range (a float to an integer rounded to nearest even first, NaN gives 0),
// so the narrowing that stores it is exact. A fused op's saturating `convert` (TADDRELUCONV).
template <typename T, typename C>
constexpr C saturate(C value) {
    if constexpr (std::is_integral_v<T> && !std::is_integral_v<C>) {
        const double v = static_cast<double>(value);
        if (v != v)
            return C(0);
        const double lo = static_cast<double>(std::numeric_limits<T>::lowest());
        const double hi = static_cast<double>(std::numeric_limits<T>::max());
        return static_cast<C>(std::nearbyint(v < lo ? lo : (v > hi ? hi : v)));
    } else if constexpr (std::is_integral_v<T>) {
        using W = long long;
        const W lo = static_cast<W>(std::numeric_limits<T>::lowest());
        const W hi = static_cast<W>(std::numeric_limits<T>::max());
        const W v = static_cast<W>(value);
        return static_cast<C>(v < lo ? lo : (v > hi ? hi : v));
    } else {
        // Largest finite value: half 65504, bfloat16_t 0x1.fep127, else the type's own.
        const double hi = std::is_same_v<T, half>          ? 65504.0
                          : std::is_same_v<T, bfloat16_t> ? 0x1.fep127
                                                          : static_cast<double>(std::numeric_limits<T>::max());
        const double v = static_cast<double>(value);
        return v != v ? value : static_cast<C>(v < -hi ? -hi : (v > hi ? hi : v));
    }
}

} // namespace sim

} // namespace pto
