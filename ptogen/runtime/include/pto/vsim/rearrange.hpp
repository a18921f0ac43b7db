// Data rearrangement between registers, as A5 vector code calls it. Lanes have the width of the first
// source's element type (any register image: a `vector_*`, `RegTensor<T>` or a reinterpreting cast).
//   vintlv(low, high, a, b)    the stream a0 b0 a1 b1 ...: its first half into low, its second into high
//   vdintlv(low, high, a, b)   the stream a then b: its even elements into low, its odd ones into high
//   vsqz(dst, src, mask[, mode]) the active lanes of src, in order, to the front of dst, the rest zero;
//                              MODE_STORED also keeps their count for the next vstur
//   vpack(dst, src, LOWER|HIGHER) each lane of src truncated to half its width, into the lower or upper
//                              half of dst; the other half is zero
#pragma once

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
