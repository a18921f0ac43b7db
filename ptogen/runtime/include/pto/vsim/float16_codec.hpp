// Bit codecs of the 16-bit float formats (binary16 and bfloat16), free of any element type, so the
// tile runtime and the vector builtins (which must not see the tile runtime's types) share them.
#pragma once

#include <bit>
#include <cstdint>

namespace pto::detail {

// float -> binary16, round to nearest even. Subnormal results are rounded too (no flush to zero).
constexpr std::uint16_t float_to_half_bits(float value) {
    const std::uint32_t x = std::bit_cast<std::uint32_t>(value);
    const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
    const std::uint32_t mag = x & 0x7fffffffu;
    if (mag >= 0x7f800000u) {
        if (mag == 0x7f800000u)
            return static_cast<std::uint16_t>(sign | 0x7c00u);
        // NaN: keep the top payload bits and force the quiet bit so the payload can never become 0 (inf).
        return static_cast<std::uint16_t>(sign | 0x7e00u | ((mag >> 13) & 0x3ffu));
    }
    if (mag >= 0x38800000u) {
        // Normal in binary16 (|value| >= 2^-14). Rebias the exponent (127 -> 15) and round at bit 13;
        // a mantissa carry ripples into the exponent, which is exactly the right result.
        const std::uint32_t rounded = mag + 0xfffu + ((mag >> 13) & 1u) - (112u << 23);
        if (rounded >= (31u << 23))
            return static_cast<std::uint16_t>(sign | 0x7c00u);
        return static_cast<std::uint16_t>(sign | (rounded >> 13));
    }
    // Subnormal (or zero) in binary16: the result is the significand scaled by 2^24, rounded.
    const std::uint32_t exponent = mag >> 23;
    const std::uint32_t shift = 126u - exponent; // > 13 here
    if (exponent == 0 || shift > 24u)
        return sign; // below half the smallest subnormal
    const std::uint32_t significand = (mag & 0x7fffffu) | 0x800000u;
    std::uint32_t q = significand >> shift;
    const std::uint32_t rem = significand & ((1u << shift) - 1u);
    const std::uint32_t halfway = 1u << (shift - 1u);
    if (rem > halfway || (rem == halfway && (q & 1u)))
        ++q; // may reach 0x400, the smallest normal, which is the correct encoding
    return static_cast<std::uint16_t>(sign | q);
}

constexpr float half_bits_to_float(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1fu;
    std::uint32_t mantissa = h & 0x3ffu;
    if (exponent == 0x1fu)
        return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
    if (exponent != 0)
        return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
    if (mantissa == 0)
        return std::bit_cast<float>(sign);
    // Subnormal: normalise, every binary16 subnormal is a normal float.
    std::uint32_t biased = 113u;
    while ((mantissa & 0x400u) == 0) {
        mantissa <<= 1;
        --biased;
    }
    return std::bit_cast<float>(sign | (biased << 23) | ((mantissa & 0x3ffu) << 13));
}

// float -> bfloat16 (the top half of a float), round to nearest even.
constexpr std::uint16_t float_to_bfloat16_bits(float value) {
    const std::uint32_t x = std::bit_cast<std::uint32_t>(value);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return static_cast<std::uint16_t>((x >> 16) | 0x0040u); // quiet bit keeps it a NaN
    // Overflow past the largest finite value carries into the exponent and yields inf, as RNE requires.
    return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

constexpr float bfloat16_bits_to_float(std::uint16_t b) {
    return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

// double -> float rounded to odd: an inexact result gets its last bit set. Rounding that to a format
// with at most 22 significand bits is then the same as rounding the double directly (no double rounding).
constexpr float double_to_float_round_odd(double value) {
    // Beyond float's range the narrowing cast is not a constant expression; both targets overflow anyway.
    constexpr double float_max = 3.4028234663852886e38;
    if (value > float_max)
        return std::bit_cast<float>(0x7f800000u);
    if (value < -float_max)
        return std::bit_cast<float>(0xff800000u);
    const float f = static_cast<float>(value);
    if (value != value || static_cast<double>(f) == value)
        return f;
    std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
    if ((bits & 1u) == 0) {
        const double af = f < 0 ? -static_cast<double>(f) : static_cast<double>(f);
        const double av = value < 0 ? -value : value;
        bits = af < av ? bits + 1u : bits - 1u; // step toward the exact value
    }
    return std::bit_cast<float>(bits);
}

} // namespace pto::detail
