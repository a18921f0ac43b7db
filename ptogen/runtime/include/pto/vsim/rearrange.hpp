// Data rearrangement between registers, as A5 vector code calls it. Lanes have the width of the first
// source's element type (any register image: a `vector_*`, `RegTensor<T>` or a reinterpreting cast).
//   vintlv(low, high, a, b)    the stream a0 b0 a1 b1 ...: its first half into low, its second into high
//   vdintlv(low, high, a, b)   the stream a then b: its even elements into low, its odd ones into high
//   vsqz(dst, src, mask[, mode]) the active lanes of src, in order, to the front of dst, the rest zero;
//                              MODE_STORED also keeps their count for the next vstur
//   vpack(dst, src, LOWER|HIGHER) each lane of src truncated to half its width, into the lower or upper
//                              half of dst; the other half is zero
//   vintlvv2(dst, a, b, LOWER|HIGHER)   one result of vintlv(low, high, a, b): low or high
//   vdintlvv2(dst, a, b, LOWER|HIGHER)  one result of vdintlv(low, high, a, b): the even or the odd elements
//   vperm(dst, src, idx)        dst[i] = src[idx[i] mod N], N lanes; idx holds integer lanes of src's width
//   vshift(dst, src, amt)       dst[i] = src[i - amt] for i >= amt, zero below; 0 <= amt <= N
//   vslide(dst, src0, src1, amt) the window of the stream src1 then src0 that starts at N - amt:
//                              dst[i] = src0[i - amt] for i >= amt, src1[N - amt + i] below; 0 <= amt <= N
//   vusqz(dst, mask)            dst[i] = the number of active lanes of mask below lane i (integer lanes)
//   vsunpack(dst, src, LOWER|HIGHER)  the lower or upper half of src's lanes, each sign-extended to
//                              twice its width; vzunpack zero-extends
// An amount outside 0 .. N stops the run with the builtin's name and the values.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <pto/vsim/loadstore.hpp>
#include <pto/vsim/modes.hpp>
#include <pto/vsim/register.hpp>

namespace pto::vsim {

// Copies of the sources first, so a destination may also be a source.
template <typename A, typename B>
struct source_pair {
    reg<kind_of<A>> a;
    reg<kind_of<B>> b;
    source_pair(const A& x, const B& y) {
        std::memcpy(a.bytes, bytes_of(x), VL);
        std::memcpy(b.bytes, bytes_of(y), VL);
    }
};

// The lane count of a slide or shift, checked against the register's lanes.
inline void check_amount(const char* who, int amount, int lanes) {
    if (amount < 0 || amount > lanes) {
        std::fprintf(stderr, "PTO runtime error: %s: the amount %d is outside 0 .. %d (the register's lanes)\n", who,
                     amount, lanes);
        std::abort();
    }
}

// The lanes of one half of src, each extended to twice its width: sign-extended or zero-extended.
template <typename D, typename S>
inline void unpack_half(D& dst, const S& src, half_sel part, bool sign) {
    constexpr int w = kind_of<S>::width;
    constexpr int n = VL / (2 * w);  // lanes of the result
    const unsigned char* in = bytes_of(src) + (part == half_sel::lower ? 0 : VL / 2);
    reg<kind_of<D>> out;
    for (int i = 0; i < n; ++i) {
        const bool negative = sign && (in[i * w + w - 1] & 0x80u) != 0;  // little-endian: the top byte last
        std::memcpy(out.bytes + 2 * i * w, in + i * w, w);
        std::memset(out.bytes + 2 * i * w + w, negative ? 0xFF : 0x00, w);
    }
    std::memcpy(image(dst).bytes, out.bytes, VL);
}

template <typename D, typename S>
inline constexpr bool unpacks =
    !kind_of<S>::is_float && !kind_of<D>::is_float && kind_of<S>::width <= 4 && kind_of<D>::width == 2 * kind_of<S>::width;


} // namespace pto::vsim

template <pto::vsim::register_like L, pto::vsim::register_like H, pto::vsim::register_like A,
          pto::vsim::register_like B>
inline void vintlv(L& low, H& high, const A& a, const B& b) {
    constexpr int w = pto::vsim::kind_of<A>::width;
    static_assert(w == pto::vsim::kind_of<B>::width, "vintlv: the sources have one element width");
    const pto::vsim::source_pair<A, B> in(a, b);
    unsigned char* out[2] = {pto::vsim::bytes_of(low), pto::vsim::bytes_of(high)};
    constexpr int n = pto::vsim::VL / w;
    for (int k = 0; k < 2 * n; ++k) {
        const unsigned char* from = (k % 2 == 0 ? in.a.bytes : in.b.bytes) + (k / 2) * w;
        std::memcpy(out[k / n] + (k % n) * w, from, w);
    }
}

template <pto::vsim::register_like L, pto::vsim::register_like H, pto::vsim::register_like A,
          pto::vsim::register_like B>
inline void vdintlv(L& low, H& high, const A& a, const B& b) {
    constexpr int w = pto::vsim::kind_of<A>::width;
    static_assert(w == pto::vsim::kind_of<B>::width, "vdintlv: the sources have one element width");
    const pto::vsim::source_pair<A, B> in(a, b);
    unsigned char* out[2] = {pto::vsim::bytes_of(low), pto::vsim::bytes_of(high)};
    constexpr int n = pto::vsim::VL / w;
    for (int k = 0; k < 2 * n; ++k) {
        const unsigned char* from = (k < n ? in.a.bytes : in.b.bytes) + (k % n) * w;
        std::memcpy(out[k % 2] + (k / 2) * w, from, w);
    }
}

template <pto::vsim::register_like D, pto::vsim::register_like S>
inline void vsqz(D& dst, const S& src, const vector_bool& mask, pto::vsim::mode m = MODE_ZEROING) {
    constexpr int w = pto::vsim::kind_of<S>::width;
    pto::vsim::reg<pto::vsim::kind_of<S>> out;
    const unsigned char* in = pto::vsim::bytes_of(src);
    int kept = 0;
    for (int i = 0; i < pto::vsim::VL / w; ++i)
        if (mask.lane(i, w))
            std::memcpy(out.bytes + w * kept++, in + i * w, w);
    std::memcpy(pto::vsim::bytes_of(dst), out.bytes, pto::vsim::VL);
    if (m == MODE_STORED)
        pto::vsim::squeezed_bytes() = kept * w;
}

template <pto::vsim::register_like D, pto::vsim::register_like S>
inline void vpack(D& dst, const S& src, pto::vsim::half_sel part) {
    constexpr int w = pto::vsim::kind_of<S>::width;
    static_assert(w >= 2, "vpack: the source lanes are 16, 32 or 64 bits wide");
    pto::vsim::reg<pto::vsim::kind_of<S>> out;
    const unsigned char* in = pto::vsim::bytes_of(src);
    const int start = part == LOWER ? 0 : pto::vsim::VL / 2;
    for (int i = 0; i < pto::vsim::VL / w; ++i)
        std::memcpy(out.bytes + start + i * (w / 2), in + i * w, w / 2);  // little-endian: the low half
    std::memcpy(pto::vsim::bytes_of(dst), out.bytes, pto::vsim::VL);
}

template <pto::vsim::register_like D, pto::vsim::register_like A, pto::vsim::register_like B>
inline void vintlvv2(D& dst, const A& a, const B& b, pto::vsim::half_sel part) {
    constexpr bool one_width = pto::vsim::kind_of<D>::width == pto::vsim::kind_of<A>::width &&
                               pto::vsim::kind_of<A>::width == pto::vsim::kind_of<B>::width;
    static_assert(one_width, "vintlvv2: the sources and the result have one element width");
    if constexpr (one_width) {
        pto::vsim::reg<pto::vsim::kind_of<A>> low, high;
        vintlv(low, high, a, b);
        std::memcpy(pto::vsim::bytes_of(dst), (part == LOWER ? low : high).bytes, pto::vsim::VL);
    }
}

template <pto::vsim::register_like D, pto::vsim::register_like A, pto::vsim::register_like B>
inline void vdintlvv2(D& dst, const A& a, const B& b, pto::vsim::half_sel part) {
    constexpr bool one_width = pto::vsim::kind_of<D>::width == pto::vsim::kind_of<A>::width &&
                               pto::vsim::kind_of<A>::width == pto::vsim::kind_of<B>::width;
    static_assert(one_width, "vdintlvv2: the sources and the result have one element width");
    if constexpr (one_width) {
        pto::vsim::reg<pto::vsim::kind_of<A>> even, odd;
        vdintlv(even, odd, a, b);
        std::memcpy(pto::vsim::bytes_of(dst), (part == LOWER ? even : odd).bytes, pto::vsim::VL);
    }
}

template <pto::vsim::register_like D, pto::vsim::register_like S, pto::vsim::register_like I>
inline void vperm(D& dst, const S& src, const I& index) {
    constexpr int w = pto::vsim::kind_of<S>::width;
    static_assert(pto::vsim::kind_of<D>::width == w, "vperm: the source and the result have one element width");
    static_assert(pto::vsim::kind_of<I>::width == w && !pto::vsim::kind_of<I>::is_float,
                  "vperm: the index register holds integer lanes of the source's width");
    constexpr int n = pto::vsim::VL / w;
    const auto idx = pto::vsim::image(const_cast<I&>(index));
    pto::vsim::reg<pto::vsim::kind_of<S>> out;
    const unsigned char* in = pto::vsim::bytes_of(src);
    for (int i = 0; i < n; ++i)  // only the low bits of an index address a lane: n is a power of two
        std::memcpy(out.bytes + i * w, in + static_cast<int>(static_cast<std::uint64_t>(idx.get(i)) % n) * w, w);
    std::memcpy(pto::vsim::bytes_of(dst), out.bytes, pto::vsim::VL);
}

template <pto::vsim::register_like D, pto::vsim::register_like S0, pto::vsim::register_like S1>
inline void vslide(D& dst, const S0& src0, const S1& src1, std::int16_t amount) {
    constexpr int w = pto::vsim::kind_of<S0>::width;
    static_assert(pto::vsim::kind_of<D>::width == w && pto::vsim::kind_of<S1>::width == w,
                  "vslide: the sources and the result have one element width");
    constexpr int n = pto::vsim::VL / w;
    pto::vsim::check_amount("vslide", amount, n);
    const pto::vsim::source_pair<S0, S1> in(src0, src1);
    const int cut = amount * w;  // bytes of src1's tail in front of src0's head
    unsigned char* out = pto::vsim::bytes_of(dst);
    std::memcpy(out, in.b.bytes + pto::vsim::VL - cut, cut);
    std::memcpy(out + cut, in.a.bytes, pto::vsim::VL - cut);
}

template <pto::vsim::register_like D, pto::vsim::register_like S>
inline void vshift(D& dst, const S& src, std::int16_t amount) {
    constexpr bool one_width = pto::vsim::kind_of<D>::width == pto::vsim::kind_of<S>::width;
    static_assert(one_width, "vshift: the source and the result have one element width");
    pto::vsim::check_amount("vshift", amount, pto::vsim::VL / pto::vsim::kind_of<S>::width);
    if constexpr (one_width)
        vslide(dst, src, pto::vsim::reg<pto::vsim::kind_of<S>>{}, amount);  // a slide with zeros behind
}

template <pto::vsim::register_like D>
inline void vusqz(D& dst, const vector_bool& mask) {
    using K = pto::vsim::kind_of<D>;
    static_assert(!K::is_float && K::width <= 4, "vusqz: the result holds integer lanes of 8, 16 or 32 bits");
    auto& out = pto::vsim::image(dst);
    typename K::bits below = 0;
    for (int i = 0; i < out.lanes; ++i) {
        out.set(i, below);
        below = static_cast<typename K::bits>(below + (mask.lane(i, K::width) ? 1 : 0));
    }
}

template <pto::vsim::register_like D, pto::vsim::register_like S>
inline void vsunpack(D& dst, const S& src, pto::vsim::half_sel part) {
    static_assert(pto::vsim::unpacks<D, S>,
                  "vsunpack: integer lanes of 8, 16 or 32 bits, widened to a result of twice their width");
    pto::vsim::unpack_half(dst, src, part, true);
}

template <pto::vsim::register_like D, pto::vsim::register_like S>
inline void vzunpack(D& dst, const S& src, pto::vsim::half_sel part) {
    static_assert(pto::vsim::unpacks<D, S>,
                  "vzunpack: integer lanes of 8, 16 or 32 bits, widened to a result of twice their width");
    pto::vsim::unpack_half(dst, src, part, false);
}
