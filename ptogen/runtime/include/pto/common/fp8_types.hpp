// The 8-bit floats of the OCP microscaling (MX) formats, written for ptogen:
//
//   float8_e4m3_t  sign, 4 exponent bits (bias 7), 3 fraction bits; no infinity, S.1111.111 is NaN
//                  (OCP's E4M3, ml_dtypes' float8_e4m3fn); largest finite value 448.
//   float8_e5m2_t  sign, 5 exponent bits (bias 15), 2 fraction bits; IEEE-style: exponent 31 is
//                  infinity (fraction 0) or NaN (ml_dtypes' float8_e5m2); largest finite 57344.
//   float8_e8m0_t  8 exponent bits (bias 127), no sign, no fraction: code c is 2^(c - 127), 0xFF is
//                  NaN (ml_dtypes' float8_e8m0fnu); the shared scale of an MX block.
//
// Storage is one byte, as upstream's CPU simulator has it (tiles and buffers of these types are
// reinterpreted as bytes), with upstream's interface: FromRaw/RawData, a converting constructor from
// double and a conversion to double; element arithmetic is done in double.
//
// Decoding is exact. The simulator moves these types as bytes (TLOAD, TSTORE, TMOV, TTRANS); only
// the conversions below compute with them:
//   - e4m3 and e5m2 from double round to nearest, ties to the even code. e4m3 saturates: a value
//     beyond 448 in magnitude (infinity included) becomes +-448, as the E4M3 encoder of upstream's
//     TQUANT simulator clamps before it rounds (ml_dtypes gives NaN there); e5m2 overflows to
//     infinity, as IEEE rounding does. NaN becomes a NaN code (e5m2's quiet one, 0x7E) with the value's
//     sign; zeros keep their sign.
//   - e8m0 from double picks the power of two nearest in the fraction, a tie (fraction 1.5) rounding
//     up, as ml_dtypes does; below 2^-126, a value above 2^-127 becomes code 1 (2^-126) and a
//     positive one up to 2^-127 code 0 (2^-127), again as ml_dtypes does; zero, a negative
//     value, infinity, NaN and values past 2^127 rounded become 0xFF (NaN).
// Where upstream's own MXType class differs (it truncates the fraction, and decodes E4M3's 0x7F, E5M2's
// exponent 31 and E8M0's 0xFF as finite numbers) the TQUANT spec's notes record it.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include <pto/common/mx_codecs.hpp>

namespace pto {

namespace detail {

struct e8m0_format {
    static double decode(std::uint8_t code) {
        return code == 0xffu ? std::numeric_limits<double>::quiet_NaN() : std::ldexp(1.0, static_cast<int>(code) - 127);
    }
    static std::uint8_t encode(double value) {
        if (!(value > 0.0) || std::isinf(value))
            return 0xffu;  // zero, negative, infinity, NaN
        // Below the smallest normal float, ml_dtypes rounds up to 2^-126 (code 1) whatever lies above
        // 2^-127, and gives code 0 (2^-127) to the rest.
        if (value < 0x1p-126)
            return value > 0x1p-127 ? 0x01u : 0x00u;
        int e = 0;
        const double fraction = std::frexp(value, &e);  // value = fraction * 2^e, fraction in [0.5, 1)
        int exponent = e - 1;                           // value = (2 * fraction) * 2^exponent
        if (fraction >= 0.75)
            ++exponent;  // 2 * fraction >= 1.5: nearer (or a tie, rounded up) to the next power
        if (exponent < -127)
            return 0x00u;
        if (exponent > 127)
            return 0xffu;
        return static_cast<std::uint8_t>(exponent + 127);
    }
};

// One byte holding a code of Format, with upstream's interface.
template <typename Format>
class fp8_value {
  public:
    fp8_value() = default;
    fp8_value(double value) : code_(Format::encode(value)) {}  // NOLINT: converting, as upstream's

    static fp8_value FromRaw(std::uint8_t code) {
        fp8_value v;
        v.code_ = code;
        return v;
    }
    std::uint8_t RawData() const {
        return code_;
    }
    operator double() const {  // NOLINT: converting, as upstream's
        return Format::decode(code_);
    }
    explicit operator float() const {
        return static_cast<float>(Format::decode(code_));
    }

    template <typename U>
    double operator+(const U& other) const {
        return double(*this) + static_cast<double>(other);
    }
    template <typename U>
    double operator-(const U& other) const {
        return double(*this) - static_cast<double>(other);
    }
    template <typename U>
    double operator*(const U& other) const {
        return double(*this) * static_cast<double>(other);
    }
    template <typename U>
    double operator/(const U& other) const {
        return double(*this) / static_cast<double>(other);
    }

  private:
    std::uint8_t code_ = 0;
};

}  // namespace detail

using float8_e4m3_t = detail::fp8_value<detail::fp8_format<4, 3, 7, false>>;
using float8_e5m2_t = detail::fp8_value<detail::fp8_format<5, 2, 15, true>>;
using float8_e8m0_t = detail::fp8_value<detail::e8m0_format>;

static_assert(sizeof(float8_e4m3_t) == 1 && sizeof(float8_e5m2_t) == 1 && sizeof(float8_e8m0_t) == 1);

}  // namespace pto
