// hifloat8_t: the 8-bit HiFloat8 element type of upstream's CPU simulator, written for ptogen.
//
// The simulator moves it as bytes (TLOAD, TSTORE, TTRANS); host code reads a value through
// `static_cast<double>` (or float), and builds one from a double (the nearest encoding, the smaller
// value on a tie; NaN becomes 0x80). The decoding follows upstream's CPU simulator, so that both give
// every encoding the same value:
//   bit 7 sign; the other seven bits start with a prefix naming the exponent width D:
//   `11` D = 4, `10` D = 3, `01` D = 2 (then five bits), `001` D = 1 (then four), `0001` D = 0 (then
//   three), `0000` a denormal or zero (then three bits m: 2^(m - 23), m = 0 is 0, or NaN with the sign
//   set). After the prefix, D exponent bits (a sign bit and the magnitude below an implicit leading 1)
//   and the rest as the fraction of 1.f, read over 5 - D bits; D = 4 with exponent 15 and fraction 1 is
//   infinity.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

namespace pto {

namespace detail {

inline double hifloat8_value(std::uint8_t byte) {
    const double sign = (byte & 0x80u) ? -1.0 : 1.0;
    const unsigned bits = byte & 0x7fu;
    if ((bits >> 3) == 0) {
        const unsigned m = bits & 0x7u;
        if (m == 0)
            return (byte & 0x80u) ? std::numeric_limits<double>::quiet_NaN() : 0.0;
        return sign * std::ldexp(1.0, static_cast<int>(m) - 23);
    }
    int width = 0;      // exponent bits
    unsigned rest = 0;  // the bits after the prefix
    if ((bits >> 5) != 0) {
        width = static_cast<int>(bits >> 5) + 1;  // 01 -> 2, 10 -> 3, 11 -> 4
        rest = bits & 0x1fu;
    } else if ((bits >> 4) == 1) {
        width = 1;
        rest = bits & 0xfu;
    } else {
        rest = bits & 0x7u;
    }
    const int fraction_bits = 5 - width;
    const unsigned exponent_field = rest >> fraction_bits;
    const unsigned fraction = rest & ((1u << fraction_bits) - 1u);
    int exponent = 0;
    if (width > 0) {
        const unsigned negative = exponent_field & (1u << (width - 1));
        const int magnitude = static_cast<int>((1u << (width - 1)) | (exponent_field - negative));
        exponent = negative ? -magnitude : magnitude;
    }
    if (width == 4 && exponent == 15 && fraction == 1)
        return sign * std::numeric_limits<double>::infinity();
    return sign * std::ldexp(1.0 + static_cast<double>(fraction) / static_cast<double>(1u << fraction_bits), exponent);
}

inline const std::array<double, 256>& hifloat8_values() {
    static const std::array<double, 256> table = [] {
        std::array<double, 256> t{};
        for (unsigned i = 0; i < 256; ++i)
            t[i] = hifloat8_value(static_cast<std::uint8_t>(i));
        return t;
    }();
    return table;
}

}  // namespace detail

struct hifloat8_t {
    std::uint8_t data = 0;

    hifloat8_t() = default;
    hifloat8_t(double value) : data(encode(value)) {}  // NOLINT: converting, as upstream's

    static hifloat8_t FromRaw(std::uint8_t raw) {
        hifloat8_t h;
        h.data = raw;
        return h;
    }
    std::uint8_t RawData() const { return data; }
    operator double() const { return detail::hifloat8_values()[data]; }  // NOLINT: converting

private:
    // The encoding of the nearest value (the smaller one on a tie); beyond the largest finite value
    // in either direction, the extreme encoding itself (infinity).
    static std::uint8_t encode(double value) {
        if (std::isnan(value))
            return 0x80u;
        const auto& values = detail::hifloat8_values();
        int best = -1;
        double best_diff = 0.0;
        for (int i = 0; i < 256; ++i) {
            const double v = values[static_cast<std::size_t>(i)];
            if (std::isnan(v))
                continue;
            const double diff = std::fabs(v - value);
            const bool closer = best < 0 || diff < best_diff ||
                                (diff == best_diff && v < values[static_cast<std::size_t>(best)]);
            if (closer) {
                best = i;
                best_diff = diff;
            }
        }
        return static_cast<std::uint8_t>(best);
    }
};

static_assert(sizeof(hifloat8_t) == 1);

}  // namespace pto
