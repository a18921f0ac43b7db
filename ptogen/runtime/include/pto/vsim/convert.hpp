// vcvt, vtrc, vci, vbitcast and pbitcast, the vector conversion builtins, in every call shape A5 vector
// code uses: after vcvt's mask come up to three tokens in any order, a rounding (`ROUND_R` .. `ROUND_O`,
// or a `__cce_simd::Round*Type` object such as `RoundRType()`), a saturation (`RS_ENABLE`,
// `RS_DISABLE`) and a part (`PART_EVEN`, `PART_ODD`, `PART_P0` .. `PART_P3`). The element conversion is
// TCVT's (pto/common/sim_round.hpp and the rounding functions of sim_arith.hpp), so the two levels round
// alike. Lane placement, inactive lanes, rounding, saturation and the admitted types are decided in the
// specs (specs/ops/conversion_ops/), whose notes say which source each choice follows.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>

#include <pto/common/mx_codecs.hpp>
#include <pto/common/sim_arith.hpp>
#include <pto/common/sim_round.hpp>
#include <pto/vsim/lanes.hpp>
#include <pto/vsim/modes.hpp>
#include <pto/vsim/register.hpp>

// The rounding types A5 code names with `using __cce_simd::RoundRType;` and passes as `R()`.
namespace __cce_simd {
struct RoundRType { static constexpr pto::vsim::round value = pto::vsim::round::r; };
struct RoundAType { static constexpr pto::vsim::round value = pto::vsim::round::a; };
struct RoundFType { static constexpr pto::vsim::round value = pto::vsim::round::f; };
struct RoundCType { static constexpr pto::vsim::round value = pto::vsim::round::c; };
struct RoundZType { static constexpr pto::vsim::round value = pto::vsim::round::z; };
struct RoundOType { static constexpr pto::vsim::round value = pto::vsim::round::o; };
} // namespace __cce_simd

namespace pto::vsim {

namespace cvt {

struct options {
    round rnd = round::r;
    bool saturate = false;
    int part = 0;
};

inline void take(options& o, round r) {
    o.rnd = r;
}
inline void take(options& o, sat s) {
    o.saturate = s == sat::enable;
}

// The control register's saturation bits, as A5's TCVT sets them around its calls: with bit 60 set,
// bit 59 decides (0 saturates, 1 wraps) whatever token the call passes; with bit 60 clear the token
// decides (vcvt's spec).
// The register is the host prelude's (`get_ctrl` of pto/common/cpu_stub.hpp, included before the
// builtins); a prelude without one reads as 0. The call names an empty dependent pack so that it is
// looked up when a vcvt is instantiated, and a prelude that lacks it still compiles.
// Between 16-bit float types (bf16 and f16) bit 48 decides alone: 0 saturates, 1 does not.
inline constexpr int ctrl_sat_enable_bit = 60;
inline constexpr int ctrl_sat_off_bit = 59;
inline constexpr int ctrl_sat_off_16_bit = 48;
template <typename... None>
std::uint64_t ctrl_register() {
    if constexpr (requires { get_ctrl(None{}...); })
        return get_ctrl(None{}...);
    else
        return 0;
}
template <bool Float16Pair>
inline void take_ctrl(options& o) {
    const std::uint64_t ctrl = ctrl_register();
    if constexpr (Float16Pair)
        o.saturate = (ctrl >> ctrl_sat_off_16_bit & 1) == 0;
    else if (ctrl >> ctrl_sat_enable_bit & 1)
        o.saturate = (ctrl >> ctrl_sat_off_bit & 1) == 0;
}
inline void take(options& o, part p) {
    // EVEN and ODD are parts 0 and 1 of two, P0 .. P3 parts 0 .. 3 of four.
    const int k = static_cast<int>(p);
    o.part = p == part::even || p == part::odd ? k : k - static_cast<int>(part::p0);
}
template <typename T>
    requires requires { T::value; }
inline void take(options& o, T) {
    o.rnd = T::value;
}

template <typename X>
inline constexpr bool is_rounding = std::is_same_v<X, round> || requires { std::remove_cvref_t<X>::value; };
template <typename X>
inline constexpr bool is_token = is_rounding<X> || std::is_same_v<X, sat> || std::is_same_v<X, part>;

[[noreturn]] inline void stop(const char* what) {
    std::fprintf(stderr, "PTO runtime error: vcvt: %s\n", what);
    std::exit(1);
}

// The rounding mode applied to a position (TCVT's RoundMode functions).
inline double integral(round r, double x) {
    switch (r) {
    case round::r:
        return sim::round_even(x);
    case round::a:
        return sim::round_away(x);
    case round::f:
        return sim::round_floor(x);
    case round::c:
        return sim::round_ceil(x);
    case round::z:
        return sim::round_trunc(x);
    case round::o:
        return sim::round_odd(x);
    case round::h:
        break;
    }
    stop("ROUND_H is on no conversion page; the simulation rounds with R, A, F, C, Z and O");
}

// Bits of a float kind's magnitude as an unsigned integer, and their value.
template <typename K>
using ubits = std::conditional_t<K::width == 4, std::uint32_t, std::uint16_t>;
template <typename K>
float decode_bits(ubits<K> b) {
    if constexpr (K::width == 4)
        return std::bit_cast<float>(b);
    else
        return K::decode(b);
}
template <typename K>
ubits<K> encode_bits(float v) {
    if constexpr (K::width == 4)
        return std::bit_cast<std::uint32_t>(v);
    else
        return K::encode(v);
}

template <typename D>
typename D::bits to_float(sim::exact_t x, const options& o) {
    using B = ubits<D>;
    constexpr B sign = static_cast<B>(B(1) << (D::width * 8 - 1));
    const bool negative = std::signbit(x);
    B out;
    if (x != x || x == 0 || std::isinf(x)) {
        out = encode_bits<D>(static_cast<float>(x));  // NaN stays NaN, zeros and infinities keep their sign
    } else {
        const sim::exact_t a = negative ? -x : x;
        const auto value = [](B b) { return static_cast<sim::exact_t>(decode_bits<D>(b)); };
        const B guess = static_cast<B>(encode_bits<D>(static_cast<float>(a)) & ~sign);
        out = sim::round_magnitude(a, negative, guess, value, [&](double p) { return integral(o.rnd, p); });
        if (negative)
            out = static_cast<B>(out | sign);
    }
    // Saturation turns an infinity (an overflow or an infinite source) into the largest finite value,
    // as TCVT's SaturationMode::ON does.
    if (o.saturate && std::isinf(decode_bits<D>(out)))
        out = static_cast<B>(out - 1);
    if constexpr (D::width == 4)
        return std::bit_cast<float>(out);
    else
        return out;
}

template <typename D>
typename D::bits to_integer(sim::exact_t x, bool from_float, const options& o) {
    using T = typename D::bits;
    if (from_float) {
        if (x != x)
            return T(0);
        x = static_cast<sim::exact_t>(integral(o.rnd, static_cast<double>(x)));
    }
    if (from_float || o.saturate) {
        if (x <= static_cast<sim::exact_t>(std::numeric_limits<T>::min()))
            return std::numeric_limits<T>::min();
        if (x >= static_cast<sim::exact_t>(std::numeric_limits<T>::max()))
            return std::numeric_limits<T>::max();
        return static_cast<T>(x);
    }
    return static_cast<T>(static_cast<std::int64_t>(x));  // modulo 2^bits of the destination
}

template <typename S>
sim::exact_t exact(typename S::bits b) {
    if constexpr (S::is_float)
        return static_cast<sim::exact_t>(static_cast<float>(S::decode(b)));
    else
        return static_cast<sim::exact_t>(b);
}

// The pairs the page's type tables list, and those A5 code converts besides (s64 to s32 and f32, bf16 to
// f16 and back): the CPU profile's list (vcvt's spec).
template <typename S, typename D>
inline constexpr bool admitted =
    (std::is_same_v<S, f32> && admits<D, i64, i32, i16, f16, bf16>) ||
    (std::is_same_v<S, f16> && admits<D, i32, i16, i8, u8, f32, bf16>) ||
    (std::is_same_v<S, bf16> && admits<D, i32, f32, f16>) ||
    (std::is_same_v<S, u8> && admits<D, f16, u16, u32>) ||
    (std::is_same_v<S, i8> && admits<D, f16, i16, i32>) ||
    (std::is_same_v<S, u16> && admits<D, u8, u32>) ||
    (std::is_same_v<S, i16> && admits<D, f16, f32, u8, u32, i32>) ||
    (std::is_same_v<S, u32> && admits<D, f32, u8, u16, i16>) ||
    (std::is_same_v<S, i32> && admits<D, f32, u8, u16, i16, i64>) ||
    (std::is_same_v<S, i64> && admits<D, i32, f32>);

// The 8- and 4-bit float formats A5's TCVT and TQUANT convert to: every call compiles; the pairs A5's
// TQUANT converts (`narrow_simulated`) run, the others stop when one runs.
template <typename K>
inline constexpr bool narrow_float = admits<K, f8e4m3, f8e5m2, f8e8m0, hif8, f4e2m1, f4e1m2>;
template <typename S, typename D>
inline constexpr bool narrow_simulated =
    (std::is_same_v<S, f32> && std::is_same_v<D, f8e4m3>) || (std::is_same_v<S, bf16> && std::is_same_v<D, f4e2m1>);

// f32 to E4M3 and bf16 to E2M1, to nearest even by the MX codecs (pto/common/mx_codecs.hpp), the only
// rounding A5 code asks of them. E4M3 saturates at +-448 under saturation; without it an infinity, or a
// value that rounds past 448, gives NaN (OCP's non-saturating conversion); NaN gives NaN. E2M1 has no
// code beyond 6, so it always saturates. Lanes: f32 lane j to byte 4j + part, as any 4:1 narrowing;
// bf16 lanes 2i and 2i + 1 to the low and high nibble of byte 4i + part (the byte A5's PK4_B32 store
// takes from each 32-bit lane). Every other byte is zero, and inactive lanes' codes too.
template <typename S, typename D, typename A_dst, typename A_src>
void to_narrow(A_dst& dst, const A_src& src, const pred& p, const options& o) {
    if (o.rnd != round::r)
        stop("the simulation rounds to 8- and 4-bit floats to nearest even only (ROUND_R)");
    const auto in = image(src);
    auto& out = image(dst);
    for (int i = 0; i < VL; ++i)
        out.set(i, std::uint8_t{0});
    for (int j = 0; j < VL / S::width; ++j) {
        if (!p.lane(j, S::width))
            continue;
        const double x = static_cast<double>(static_cast<float>(S::decode(in.get(j))));
        if constexpr (std::is_same_v<D, f8e4m3>) {
            using F = pto::detail::fp8_format<4, 3, 7, false>;
            const std::uint8_t largest = F::largest_finite();
            const double overflow = F::decode(largest) + (F::decode(largest) - F::decode(largest - 1)) / 2;
            std::uint8_t code = F::encode(x);
            if (!o.saturate && std::fabs(x) > overflow)  // infinity included; a tie goes to 448
                code = static_cast<std::uint8_t>((code & 0x80u) | 0x7fu);
            out.set(4 * j + o.part, code);
        } else {
            const std::uint8_t code = pto::detail::fp4_format<2, 1, 1>::encode_nearest(x);
            const int at = 4 * (j / 2) + o.part;
            out.set(at, static_cast<std::uint8_t>(out.get(at) | code << (j % 2 == 0 ? 0 : 4)));
        }
    }
}

} // namespace cvt

// vcvt(dst, src, mask, tokens...): each active source lane converted to dst's element type.
template <typename A_dst, typename A_src, typename... Tokens>
    requires(cvt::is_token<std::remove_cvref_t<Tokens>> && ...)
inline void vcvt(A_dst& dst, const A_src& src, const vector_bool& mask, Tokens... tokens) {
    using D = kind_of<A_dst>;
    using S = kind_of<A_src>;
    constexpr bool r00_pair = cvt::admitted<S, D> || cvt::narrow_float<D> || cvt::narrow_float<S>;
    static_assert(r00_pair, "vcvt [CPU]: the source and destination element types must be a pair of the page's "
                            "Supported Type Conversions tables");
    if constexpr (r00_pair) {
        if constexpr (cvt::narrow_simulated<S, D>) {
            cvt::options o;
            (cvt::take(o, tokens), ...);
            cvt::take_ctrl<false>(o);
            if (o.part >= 4)
                cvt::stop("the part names a lane the conversion's width ratio does not have");
            cvt::to_narrow<S, D>(dst, src, mask, o);
        } else if constexpr (cvt::narrow_float<D> || cvt::narrow_float<S>) {
            cvt::stop("the simulation converts to 8- and 4-bit floats only from float to float8_e4m3 and "
                      "from bfloat16_t to float4_e2m1 (the pairs A5's TQUANT converts)");
        } else {
            cvt::options o;
            (cvt::take(o, tokens), ...);
            cvt::take_ctrl<S::is_float && D::is_float && S::width == 2 && D::width == 2>(o);
            const auto in = image(src);
            const pred p = mask;
            auto& out = image(dst);
            constexpr int ws = S::width, wd = D::width;
            constexpr int r = ws > wd ? ws / wd : wd / ws;
            if (o.part >= r)
                cvt::stop("the part names a lane the conversion's width ratio does not have");
            for (int i = 0; i < VL / wd; ++i)
                out.set(i, typename D::bits{});
            for (int j = 0; j < VL / std::max(ws, wd); ++j) {
                const int si = ws >= wd ? j : r * j + o.part;  // source lane
                const int di = ws >= wd ? (ws == wd ? j : r * j + o.part) : j;  // destination lane
                if (!p.lane(si, ws))
                    continue;
                const sim::exact_t x = cvt::exact<S>(in.get(si));
                if constexpr (D::is_float)
                    out.set(di, cvt::to_float<D>(x, o));
                else
                    out.set(di, cvt::to_integer<D>(x, S::is_float, o));
            }
        }
    }
}

// vtrc(dst, src, rounding, mask[, mode]): each active float lane rounded to an integer value in its
// own type, the rounding a token or a `Round*Type` object as for vcvt (mask and mode: vtrc's spec).
template <typename A_dst, typename A_src, typename Rounding>
    requires cvt::is_rounding<Rounding>
inline void vtrc(A_dst& dst, const A_src& src, Rounding rounding, const vector_bool& mask,
                 mode lanes_mode = MODE_ZEROING) {
    using K = kind_of<A_dst>;
    constexpr bool r00_dtype = std::is_same_v<kind_of<A_src>, K> && admits<K, f16, f32, bf16>;
    static_assert(r00_dtype, "vtrc [CPU]: dst and src must hold one float type: half, float or bfloat16_t");
    if constexpr (r00_dtype) {
        cvt::options o;
        cvt::take(o, rounding);
        const auto in = image(src);
        each_lane(image(dst), mask, lanes_mode, [&](int i) {
            const float x = in.read(i);
            return x != x ? x : static_cast<float>(cvt::integral(o.rnd, static_cast<double>(x)));
        });
    }
}

// vci(dst, start[, order]): lane i holds start + i (INC_ORDER) or start - i (DEC_ORDER), wrapping in the
// lane's integer type; no mask (vci's spec).
template <typename A_dst, typename S>
    requires std::is_arithmetic_v<S>
inline void vci(A_dst& dst, S start, order ord = order::inc) {
    using K = kind_of<A_dst>;
    constexpr bool r00_dtype = admits<K, i8, u8, i16, u16, i32, u32>;
    static_assert(r00_dtype, "vci [CPU]: DType must be one of: int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t");
    if constexpr (r00_dtype) {
        using U = std::make_unsigned_t<typename K::bits>;
        auto& out = image(dst);
        const U base = static_cast<U>(start);
        for (int i = 0; i < VL / K::width; ++i) {
            const U step = static_cast<U>(i);
            out.set(i, static_cast<typename K::bits>(ord == order::inc ? U(base + step) : U(base - step)));
        }
    }
}

// vbitcast(dst, src): dst takes src's bits, whatever the two element types (every register is one
// 256-byte image); pbitcast does the same for a predicate, whose image has no granularity of its own.
// A5 code spells the same reinterpretation as a reference cast, `(vector_u8&)reg`, which needs no call.
template <typename A_dst, typename A_src>
inline void vbitcast(A_dst& dst, const A_src& src) {
    std::memcpy(image(dst).bytes, image(src).bytes, VL);
}
inline void pbitcast(vector_bool& dst, const vector_bool& src) {
    dst = src;
}

} // namespace pto::vsim

using pto::vsim::pbitcast;
using pto::vsim::vbitcast;
using pto::vsim::vci;
using pto::vsim::vcvt;
using pto::vsim::vtrc;
