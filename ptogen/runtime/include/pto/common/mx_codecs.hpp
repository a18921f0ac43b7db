// The rounding encoders of the MX formats' 8- and 4-bit floats, on their codes alone: they name no
// element type, so the vector builtin vcvt (pto/vsim/convert.hpp) rounds with the same definitions as
// the tile simulation (fp8_types.hpp, TQUANT) in a build whose element types are another header's.
//
//   fp8_format (E4M3, E5M2) rounds to nearest, ties to the even code; E4M3 saturates at +-448,
//   E5M2 overflows to infinity (fp8_types.hpp says where each choice comes from).
//   fp4_format (E2M1, E1M2) rounds to nearest, ties to the even code, and saturates: these formats
//   have no infinity and no NaN, so a magnitude past the largest value, infinity included, gives the
//   largest code of its sign, and NaN the largest positive code (TQUANT's MX encoding, its spec's
//   notes). A zero keeps its sign. The truncating conversion of TCVT is another one (packed_types.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace pto::detail {

// A sign bit, ExpBits exponent bits with bias Bias and ManBits fraction bits. Ieee says the top
// exponent is infinity/NaN (e5m2); otherwise only the all-ones code of each sign is NaN (e4m3).
template <int ExpBits, int ManBits, int Bias, bool Ieee>
struct fp8_format {
    static constexpr int max_exp_field = (1 << ExpBits) - 1;
    static constexpr int min_exp = 1 - Bias;  // exponent of the smallest normal value

    static double decode(std::uint8_t code) {
        const bool negative = (code & 0x80u) != 0;
        const int exp_field = (code >> ManBits) & max_exp_field;
        const int man = code & ((1 << ManBits) - 1);
        double magnitude = 0.0;
        if (Ieee && exp_field == max_exp_field) {
            magnitude = man == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
        } else if (!Ieee && exp_field == max_exp_field && man == (1 << ManBits) - 1) {
            magnitude = std::numeric_limits<double>::quiet_NaN();
        } else if (exp_field == 0) {
            magnitude = std::ldexp(static_cast<double>(man), min_exp - ManBits);
        } else {
            magnitude = std::ldexp(static_cast<double>((1 << ManBits) | man), exp_field - Bias - ManBits);
        }
        return negative ? -magnitude : magnitude;
    }

    static std::uint8_t largest_finite() {
        return Ieee ? static_cast<std::uint8_t>(((max_exp_field - 1) << ManBits) | ((1 << ManBits) - 1))
                    : static_cast<std::uint8_t>((max_exp_field << ManBits) | ((1 << ManBits) - 2));
    }

    static std::uint8_t encode(double value) {
        const std::uint8_t sign = std::signbit(value) ? 0x80u : 0x00u;
        if (std::isnan(value))  // e4m3's only NaN code; e5m2's quiet NaN (the top fraction bit)
            return static_cast<std::uint8_t>(sign | (Ieee ? (max_exp_field << ManBits) | (1 << (ManBits - 1)) : 0x7f));
        const double a = std::fabs(value);
        const std::uint8_t overflow =
            Ieee ? static_cast<std::uint8_t>(max_exp_field << ManBits) : largest_finite();
        if (std::isinf(a))
            return static_cast<std::uint8_t>(sign | overflow);
        if (a == 0.0)
            return sign;
        // The quantum of a's binade (of the subnormal range below the smallest normal), then a's
        // multiple of it rounded to nearest even: exact, since both are powers of two apart.
        int e = std::ilogb(a);
        if (e < min_exp)
            e = min_exp;
        const double steps = std::nearbyint(std::ldexp(a, ManBits - e));
        long long r = static_cast<long long>(steps);
        if (r == (1LL << (ManBits + 1))) {  // rounded up into the next binade
            ++e;
            r >>= 1;
        }
        int exp_field = 0;
        int man = static_cast<int>(r);
        if (r >= (1LL << ManBits)) {
            exp_field = e + Bias;
            man = static_cast<int>(r - (1LL << ManBits));
        }
        const bool too_big = Ieee ? exp_field >= max_exp_field
                                  : (exp_field > max_exp_field ||
                                     (exp_field == max_exp_field && man == (1 << ManBits) - 1));
        if (too_big)
            return static_cast<std::uint8_t>(sign | overflow);
        return static_cast<std::uint8_t>(sign | (exp_field << ManBits) | man);
    }
};

// A sign bit above ExpBits exponent bits with bias Bias and ManBits fraction bits, in the low bits of
// a byte; an exponent field of 0 is subnormal; every code is a finite value.
template <int ExpBits, int ManBits, int Bias>
struct fp4_format {
    static constexpr int min_exp = 1 - Bias;  // exponent of the smallest normal value
    static constexpr std::uint8_t sign_bit = 1u << (ExpBits + ManBits);
    static constexpr std::uint8_t top = sign_bit - 1u;  // the largest magnitude's code

    static double decode(std::uint8_t code) {
        const int exp_field = (code >> ManBits) & ((1 << ExpBits) - 1);
        const int man = code & ((1 << ManBits) - 1);
        const double magnitude = exp_field == 0 ? std::ldexp(static_cast<double>(man), min_exp - ManBits)
                                                : std::ldexp(static_cast<double>((1 << ManBits) | man),
                                                             exp_field - Bias - ManBits);
        return (code & sign_bit) != 0 ? -magnitude : magnitude;
    }

    static std::uint8_t encode_nearest(double value) {
        if (std::isnan(value))
            return top;
        const std::uint8_t sign = std::signbit(value) ? sign_bit : 0u;
        const double a = std::fabs(value);
        if (a >= decode(top))
            return static_cast<std::uint8_t>(sign | top);
        if (a == 0.0)
            return sign;
        // As fp8_format: a's multiple of its binade's quantum, to nearest even; a code's bits are its
        // exponent field and fraction side by side, so one more step past a binade's last code is the
        // next binade's first.
        const int e = std::max(std::ilogb(a), min_exp);
        const long long steps = static_cast<long long>(std::nearbyint(std::ldexp(a, ManBits - e)));
        const long long first = 1LL << ManBits;  // a normal binade's first step count
        const long long code = steps < first ? steps : ((e - min_exp + 1LL) << ManBits) + steps - first;
        return static_cast<std::uint8_t>(sign | code);
    }
};

} // namespace pto::detail
