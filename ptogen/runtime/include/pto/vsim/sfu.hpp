// The SFU/DSA set's hand-written builtins. The sort unit's UB-to-UB helpers, as A5 vector code calls them
// (TSORT32, TMRGSORT):
//   vbitsort(dst, src, idx, repeat)          each of `repeat` groups of 32 scores, paired with the
//                                            index at the same position of idx, sorted from the
//                                            largest score and written to dst as 8-byte records
//   vmrgsort4(dst, lists, count, config)     merges up to four lists of such records into dst
//   vaddreluconv(dst, a, b, mask[, MODE])    the fused add, ReLU and conversion (see below)
//   vmulconv(dst, a, b, mask[, MODE])        the fused multiply and conversion
// A record is the score in its first bytes, zero bytes up to byte 4, and the 4-byte index in bytes 4..7
// (TSORT32's and TMRGSORT's layout). Scores are compared as the element type orders them, through float.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <type_traits>

#include <pto/vsim/float16_codec.hpp>
#include <pto/vsim/micro.hpp>
#include <pto/vsim/modes.hpp>
#include <pto/vsim/register.hpp>
#include <pto/vsim/scope.hpp>

namespace pto::vsim::sort_unit {

inline constexpr int kRecordBytes = 8;
inline constexpr int kGroup = 32;

template <typename T>
inline constexpr int per_record = kRecordBytes / static_cast<int>(sizeof(T));

template <typename T>
inline float score(const T& v) {
    return static_cast<float>(v);
}

// Whether score a goes before score b in a descending sort: a NaN goes after every number (A5's TSORT32
// pads a short group with NaN so that the pad lands after every real score).
inline bool before(float a, float b) {
    if (std::isnan(a))
        return false;
    return std::isnan(b) || a > b;
}

} // namespace pto::vsim::sort_unit

// Sorts `repeat` consecutive groups of 32 scores. Equal scores keep their order in the group (the page's
// stable ties); each record carries the index read at the score's position.
template <typename T, typename I>
inline void vbitsort(__ubuf__ T* dst, __ubuf__ const T* src, __ubuf__ const I* idx, std::uint32_t repeat) {
    using namespace pto::vsim::sort_unit;
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "vbitsort: scores are 16- or 32-bit floats");
    static_assert(sizeof(I) == 4, "vbitsort: indices are 4 bytes wide");
    for (std::uint32_t g = 0; g < repeat; ++g) {
        const T* s = src + g * kGroup;
        const I* x = idx + g * kGroup;
        int order[kGroup];
        for (int k = 0; k < kGroup; ++k)
            order[k] = k;
        // insertion sort: stable, and 32 elements
        for (int k = 1; k < kGroup; ++k) {
            const int cur = order[k];
            int j = k;
            while (j > 0 && before(score(s[cur]), score(s[order[j - 1]]))) {
                order[j] = order[j - 1];
                --j;
            }
            order[j] = cur;
        }
        unsigned char* out = reinterpret_cast<unsigned char*>(dst) + g * kGroup * kRecordBytes;
        for (int k = 0; k < kGroup; ++k) {
            unsigned char record[kRecordBytes] = {};
            std::memcpy(record, &s[order[k]], sizeof(T));
            std::memcpy(record + 4, &x[order[k]], 4);
            std::memcpy(out + k * kRecordBytes, record, kRecordBytes);
        }
    }
}

// Merges the lists that config's bits 11..8 enable (list n at lists[n], holding count's 16 bits n records,
// sorted from the largest score) into dst: each step takes the head of largest score, on equal scores
// the lower-numbered list's, and a NaN head only when no other list has a head. Bits 7..0 repeat the
// merge over the next records of each list (list n's records of repeat r follow those of repeat r-1, the
// lists laid out one after the other as A5's single-source TMRGSORT passes them: each repeat reads
// count's records of each list from the end of the previous repeat's four lists). Bit 12 stops a merge
// when one enabled list is used up. get_vms4_sr() (micro.hpp) then reports the records taken per list.
template <typename D, typename S>
inline void vmrgsort4(__ubuf__ D* dst, __ubuf__ S** lists, std::uint64_t count, std::uint64_t config) {
    using namespace pto::vsim::sort_unit;
    static_assert(sizeof(D) == sizeof(S), "vmrgsort4: the lists and the destination hold one element type");
    static_assert(sizeof(S) == 2 || sizeof(S) == 4, "vmrgsort4: scores are 16- or 32-bit floats");
    const unsigned repeat = static_cast<unsigned>(config & 0xFFu);
    const unsigned enabled = static_cast<unsigned>((config >> 8) & 0xFu);
    const bool stop_when_used_up = ((config >> 12) & 1u) != 0;
    int len[4] = {};
    int lists_used = 0;
    for (int n = 0; n < 4; ++n) {
        if (enabled & (1u << n)) {
            len[n] = static_cast<int>((count >> (16 * n)) & 0xFFFFu);
            lists_used = n + 1;
        }
    }
    int taken[4] = {};
    unsigned char* out = reinterpret_cast<unsigned char*>(dst);
    for (unsigned r = 0; r < repeat; ++r) {
        int pos[4] = {};
        const unsigned char* head[4] = {};
        for (int n = 0; n < lists_used; ++n) {
            // a repeat past the first starts after the previous repeat's records of all the lists
            const int skip = static_cast<int>(r) * (len[0] + len[1] + len[2] + len[3]);
            head[n] = reinterpret_cast<const unsigned char*>(lists[n]) + skip * kRecordBytes;
        }
        for (;;) {
            int pick = -1;
            float best = 0.0f;
            for (int n = 0; n < lists_used; ++n) {
                if (!(enabled & (1u << n)) || pos[n] >= len[n])
                    continue;
                S v;
                std::memcpy(&v, head[n] + pos[n] * kRecordBytes, sizeof(S));
                const float f = score(v);
                if (pick < 0 || before(f, best)) {
                    pick = n;
                    best = f;
                }
            }
            if (pick < 0)
                break;
            std::memcpy(out, head[pick] + pos[pick] * kRecordBytes, kRecordBytes);
            out += kRecordBytes;
            ++pos[pick];
            bool used_up = false;
            for (int n = 0; n < lists_used; ++n)
                used_up = used_up || ((enabled & (1u << n)) && pos[n] == len[n]);
            if (stop_when_used_up && used_up)
                break;
        }
        for (int n = 0; n < 4; ++n)
            taken[n] = pos[n];
    }
    std::uint64_t status = 0;
    for (int n = 0; n < 4; ++n)
        status |= static_cast<std::uint64_t>(taken[n] & 0xFFFF) << (16 * n);
    pto::vsim::vms4_status() = status;  // what get_vms4_sr() reads (micro.hpp)
}

// vsort32 and vtranspose: declared, not simulated. No source gives their control word's fields, so a
// call stops the run instead of inventing a result.
namespace pto::vsim::sort_unit {
[[noreturn]] inline void not_simulated(const char* name) {
    std::fprintf(stderr,
                 "PTO runtime error: %s is not simulated: no source publishes its control word's layout\n", name);
    std::abort();
}
} // namespace pto::vsim::sort_unit

template <typename T>
inline void vsort32(__ubuf__ T*, __ubuf__ const T*, std::uint64_t) {
    pto::vsim::sort_unit::not_simulated("vsort32");
}

template <typename T>
inline void vtranspose(__ubuf__ T*, __ubuf__ const T*, std::uint64_t) {
    pto::vsim::sort_unit::not_simulated("vtranspose");
}

// The fused add (vaddreluconv) or multiply (vmulconv) with a conversion between element types, on the
// register model: result lane i comes from source lane i, for the lanes both registers have (a narrowing
// result fills its first N lanes, a widening one reads the source's first M). As the pages' C loops
// state it, the sum or product is rounded once to the source type, vaddreluconv then clamps a negative
// one to +0 (a NaN stays NaN), and the value is converted to the result type: to nearest even, and into
// an integer type saturating with NaN giving 0. The mask is read at the source's lane width; lanes it
// leaves inactive, and result lanes no source lane reaches, keep their value under MODE_MERGING (the
// default) and are zeroed under MODE_ZEROING.
namespace pto::vsim::sort_unit {

template <typename S, typename D>
inline constexpr bool conv_pair(int op) {
    const bool f32_f16 = std::is_same_v<S, f32> && std::is_same_v<D, f16>;
    const bool f16_f32 = std::is_same_v<S, f16> && std::is_same_v<D, f32>;
    const bool f16_s8 = std::is_same_v<S, f16> && std::is_same_v<D, i8>;
    return op == 0 ? (f32_f16 || f16_f32 || f16_s8) : f16_s8;
}

// The exact sum or product of two source lanes, rounded once to the source type S.
template <typename S>
inline float fused(int op, float a, float b) {
    if constexpr (std::is_same_v<S, f32>) {
        return op == 0 ? a + b : a * b;
    } else {  // two binary16 values: their sum and product are exact in double
        const double exact = op == 0 ? static_cast<double>(a) + b : static_cast<double>(a) * b;
        return pto::detail::half_bits_to_float(
            pto::detail::float_to_half_bits(pto::detail::double_to_float_round_odd(exact)));
    }
}

template <typename D>
inline typename D::calc converted(float v) {
    if constexpr (std::is_same_v<D, i8>) {
        if (v != v)
            return 0;
        const float r = std::nearbyint(v);  // the default rounding mode: to nearest even
        return static_cast<std::int8_t>(r > 127.0f ? 127.0f : (r < -128.0f ? -128.0f : r));
    } else {
        return v;  // a float result: its register encodes to nearest even
    }
}

template <int op, typename A_dst, typename A_lhs, typename A_rhs>
inline void fused_conv(A_dst& dst, const A_lhs& lhs, const A_rhs& rhs, const vector_bool& mask, mode m) {
    using S = kind_of<A_lhs>;
    using D = kind_of<A_dst>;
    static_assert(std::is_same_v<kind_of<A_rhs>, S>, "vaddreluconv/vmulconv: both sources hold one element type");
    static_assert(op != 0 || conv_pair<S, D>(0), "vaddreluconv: (source, result) must be one of (f32, f16), "
                                                 "(f16, f32), (f16, s8)");
    static_assert(op != 1 || conv_pair<S, D>(1), "vmulconv: (source, result) must be (f16, s8)");
    auto& d = image(dst);
    const auto a = image(lhs);
    const auto b = image(rhs);
    const pred p = mask;
    using R = std::remove_cvref_t<decltype(d)>;
    constexpr int from = std::remove_cvref_t<decltype(a)>::lanes;
    constexpr int reach = R::lanes < from ? R::lanes : from;
    for (int i = 0; i < R::lanes; ++i) {
        if (i < reach && p.lane(i, S::width)) {
            float v = fused<S>(op, a.read(i), b.read(i));
            if (op == 0 && !(v != v) && !(v > 0.0f))
                v = 0.0f;
            d.write(i, converted<D>(v));
        } else if (m != mode::merging) {
            d.set(i, typename D::bits{});
        }
    }
}

} // namespace pto::vsim::sort_unit

template <typename A_dst, typename A_lhs, typename A_rhs>
inline void vaddreluconv(A_dst& dst, const A_lhs& lhs, const A_rhs& rhs, const vector_bool& mask, pto::vsim::mode m) {
    pto::vsim::sort_unit::fused_conv<0>(dst, lhs, rhs, mask, m);
}
template <typename A_dst, typename A_lhs, typename A_rhs>
inline void vaddreluconv(A_dst& dst, const A_lhs& lhs, const A_rhs& rhs, const vector_bool& mask) {
    pto::vsim::sort_unit::fused_conv<0>(dst, lhs, rhs, mask, MODE_MERGING);
}

template <typename A_dst, typename A_lhs, typename A_rhs>
inline void vmulconv(A_dst& dst, const A_lhs& lhs, const A_rhs& rhs, const vector_bool& mask, pto::vsim::mode m) {
    pto::vsim::sort_unit::fused_conv<1>(dst, lhs, rhs, mask, m);
}
template <typename A_dst, typename A_lhs, typename A_rhs>
inline void vmulconv(A_dst& dst, const A_lhs& lhs, const A_rhs& rhs, const vector_bool& mask) {
    pto::vsim::sort_unit::fused_conv<1>(dst, lhs, rhs, mask, MODE_MERGING);
}
