// The 4-bit element types of the CPU simulator: int4b_t and the two 4-bit floats of the OCP
// microscaling formats, float4_e2m1x2_t and float4_e1m2x2_t.
//
// Storage follows upstream's CPU simulator, which code written for it depends on (its tests size
// buffers and pack data this way):
// - int4b_t takes one byte per element, the value's two's-complement code in the low four bits;
// - the "x2" floats are twin types: two elements share one byte, element 2k in the low nibble and
//   element 2k + 1 in the high one. A value of the type holds one code in its low nibble, so a
//   buffer of N bytes of it holds 2N elements; GetProperDataPart/SetProperDataPart read and write
//   element k of such a buffer.
//
// The 4-bit floats have no infinity and no NaN. Their conversion from double is upstream's, bit for
// bit (the TCVT spec's notes record it): the significand is truncated to the format's bits, a value
// below the normal range becomes a truncated subnormal, zero becomes +0, and past the largest
// exponent the exponent field keeps only its low bits (no saturation; TCVT's SaturationMode::ON
// clamps first).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace pto {

struct int4b_t {
    std::uint8_t storage;
    int4b_t() = default;
    explicit constexpr int4b_t(std::int32_t value) : storage(static_cast<std::uint8_t>(value & 0x0f)) {}
    // The value, sign-extended from bit 3.
    constexpr operator std::int8_t() const {
        return static_cast<std::int8_t>((storage & 0x08) ? (storage | 0xf0) : (storage & 0x0f));
    }
};

namespace detail {

// A sign bit, ExpBits exponent bits with bias Bias and ManBits significand bits, in the low
// 1 + ExpBits + ManBits bits of a byte. An exponent field of 0 is subnormal: (man / 2^ManBits) *
// 2^(1 - Bias). Twin says two elements share a byte in memory.
template <int ExpBits, int ManBits, int Bias, bool Twin>
class minifloat {
    static_assert(1 + ExpBits + ManBits <= 8, "minifloat: the code must fit a byte");
    static constexpr int code_bits = 1 + ExpBits + ManBits;
    static constexpr std::uint8_t field_mask(int bits) {
        return static_cast<std::uint8_t>((1u << bits) - 1u);
    }

  public:
    static constexpr int exponent_bits = ExpBits;
    static constexpr int mantissa_bits = ManBits;
    static constexpr int bias = Bias;
    static constexpr bool twin = Twin;

    constexpr minifloat() : code_(0) {}
    constexpr minifloat(double value) : code_(encode(value)) {}

    static constexpr minifloat FromRaw(std::uint8_t code) {
        minifloat m;
        m.code_ = code;
        return m;
    }
    constexpr std::uint8_t RawData() const {
        return code_;
    }

    constexpr operator double() const {
        return decode(code_);
    }
    explicit constexpr operator float() const {
        return static_cast<float>(decode(code_));
    }

    // Element arithmetic as upstream's type offers it: in double.
    template <typename U>
    constexpr double operator+(const U& other) const {
        return double(*this) + static_cast<double>(other);
    }
    template <typename U>
    constexpr double operator-(const U& other) const {
        return double(*this) - static_cast<double>(other);
    }
    template <typename U>
    constexpr double operator*(const U& other) const {
        return double(*this) * static_cast<double>(other);
    }
    template <typename U>
    constexpr double operator/(const U& other) const {
        return double(*this) / static_cast<double>(other);
    }

    static constexpr double decode(std::uint8_t code) {
        const int man = code & field_mask(ManBits);
        const int exp = (code >> ManBits) & field_mask(ExpBits);
        const bool negative = (code >> (ExpBits + ManBits)) & 1;
        double scale = 1.0;  // 2^(e - Bias), e = exp or 1 for subnormals
        for (int e = exp == 0 ? 1 : exp; e > Bias; --e)
            scale *= 2.0;
        for (int e = exp == 0 ? 1 : exp; e < Bias; ++e)
            scale /= 2.0;
        const double fraction = static_cast<double>(man) / static_cast<double>(1 << ManBits);
        const double magnitude = (exp == 0 ? fraction : 1.0 + fraction) * scale;
        return negative ? -magnitude : magnitude;
    }

    static constexpr std::uint8_t encode(double value) {
        if (value == 0.0)
            return 0;
        const std::uint64_t bits = std::bit_cast<std::uint64_t>(value);
        const std::uint64_t sign = bits >> 63;
        const std::int64_t dexp = static_cast<std::int64_t>((bits >> 52) & 0x7ff);
        if (dexp == 0)
            return 0;  // a double subnormal is far below the smallest 4-bit value
        std::uint64_t man = (bits & ((std::uint64_t{1} << 52) - 1)) >> (52 - ManBits);
        std::int64_t exp = dexp - 1023 + Bias;
        if (exp < 0) {  // subnormal: the implicit bit joins the significand, shifted right
            const std::int64_t shift = 1 - exp;
            man = shift >= 64 ? 0 : ((man | (std::uint64_t{1} << ManBits)) >> shift);
            exp = 0;
        }
        return static_cast<std::uint8_t>((sign << (ExpBits + ManBits)) |
                                         ((static_cast<std::uint64_t>(exp) & field_mask(ExpBits)) << ManBits) |
                                         (man & field_mask(ManBits)));
    }

  private:
    std::uint8_t code_;
};

} // namespace detail

using float4_e2m1x2_t = detail::minifloat<2, 1, 1, true>;
using float4_e1m2x2_t = detail::minifloat<1, 2, 1, true>;

// Whether two elements of T share one byte of storage.
template <typename T>
constexpr bool IsTwinType() {
    return std::is_same_v<T, float4_e2m1x2_t> || std::is_same_v<T, float4_e1m2x2_t>;
}

template <typename T>
inline constexpr bool is_packed_v = std::is_same_v<T, int4b_t> || IsTwinType<T>();

// Storage units (values of T) that hold `elements` elements.
template <typename T>
constexpr std::size_t storage_units(std::size_t elements) {
    return IsTwinType<T>() ? (elements + 1) / 2 : elements;
}

// Element `offset` of a buffer of T (a twin type's element is one nibble of a unit).
template <typename T>
inline T GetProperDataPart(const T* buf, std::size_t offset) {
    if constexpr (IsTwinType<T>()) {
        const std::uint8_t unit = buf[offset / 2].RawData();
        return T::FromRaw(static_cast<std::uint8_t>((offset % 2 ? unit >> 4 : unit) & 0x0f));
    } else {
        return buf[offset];
    }
}

template <typename T>
inline void SetProperDataPart(T* buf, std::size_t offset, T value) {
    if constexpr (IsTwinType<T>()) {
        const unsigned shift = offset % 2 ? 4u : 0u;
        const unsigned kept = buf[offset / 2].RawData() & ~(0x0fu << shift);
        buf[offset / 2] = T::FromRaw(static_cast<std::uint8_t>(kept | ((value.RawData() & 0x0fu) << shift)));
    } else {
        buf[offset] = value;
    }
}

namespace detail {
// numeric_limits of a 4-bit float, by code: min() is the smallest positive value (a subnormal, as
// upstream defines it), max() the largest, lowest() its negation.
template <typename T>
struct minifloat_limits {
    static constexpr bool is_specialized = true;
    static constexpr bool is_signed = true;
    static constexpr bool is_integer = false;
    static constexpr bool is_exact = false;
    static constexpr bool has_infinity = false;
    static constexpr bool has_quiet_NaN = false;
    static constexpr bool has_signaling_NaN = false;
    static constexpr int radix = 2;
    static constexpr int digits = T::mantissa_bits + 1;
    static constexpr std::uint8_t top = static_cast<std::uint8_t>((1u << (T::exponent_bits + T::mantissa_bits)) - 1u);
    static constexpr T min() noexcept {
        return T::FromRaw(1);
    }
    static constexpr T max() noexcept {
        return T::FromRaw(top);
    }
    static constexpr T lowest() noexcept {
        return T::FromRaw(static_cast<std::uint8_t>(top | (top + 1u)));
    }
    // No infinity or NaN: these give +0, as the standard asks of a type without them.
    static constexpr T infinity() noexcept {
        return T{};
    }
    static constexpr T quiet_NaN() noexcept {
        return T{};
    }
    static constexpr T signaling_NaN() noexcept {
        return T{};
    }
};
} // namespace detail

} // namespace pto

namespace std {

template <int E, int M, int B, bool W>
class numeric_limits<pto::detail::minifloat<E, M, B, W>>
    : public pto::detail::minifloat_limits<pto::detail::minifloat<E, M, B, W>> {};

template <>
class numeric_limits<pto::int4b_t> {
  public:
    static constexpr bool is_specialized = true;
    static constexpr bool is_signed = true;
    static constexpr bool is_integer = true;
    static constexpr bool is_exact = true;
    static constexpr bool has_infinity = false;
    static constexpr bool has_quiet_NaN = false;
    static constexpr bool has_signaling_NaN = false;
    static constexpr int radix = 2;
    static constexpr int digits = 3;
    static constexpr pto::int4b_t min() noexcept {
        return pto::int4b_t(-8);
    }
    static constexpr pto::int4b_t lowest() noexcept {
        return pto::int4b_t(-8);
    }
    static constexpr pto::int4b_t max() noexcept {
        return pto::int4b_t(7);
    }
    static constexpr pto::int4b_t infinity() noexcept {
        return pto::int4b_t(0);
    }
};

} // namespace std

// Upstream declares the 4-bit floats and these helpers at global scope.
using pto::float4_e1m2x2_t;
using pto::float4_e2m1x2_t;
using pto::GetProperDataPart;
using pto::IsTwinType;
using pto::SetProperDataPart;
