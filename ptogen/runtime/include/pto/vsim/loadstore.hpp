// Vector loads and stores between UB and registers, as A5 vector code calls them. Offsets count
// elements of the pointer's type; with POST_UPDATE the access is at `ptr` and `ptr` then moves on by
// `offset` (or, for the unaligned stores, by what was stored).
//
// Loads, vlds(dst, ptr, offset, dist) and vlds(dst0, dst1, ptr, offset, DINTLV_*):
//   NORM         256 contiguous bytes
//   BRC_Bw       one w-bit element repeated in every lane
//   US_Bw        128 bytes, each w-bit element into two neighbouring lanes
//   DS_Bw        every second w-bit element of 512 bytes
//   UNPK_Bw      128 bytes, each w-bit element zero-extended into a lane of 2w bits
//   UNPK4_B8     64 bytes, each byte zero-extended into a 32-bit lane
//   DINTLV_Bw    512 bytes of w-bit elements: the even ones into dst0, the odd ones into dst1 (with one
//                destination, the even ones)
//   BLK          one 32-byte block, repeated in each of the register's eight blocks
//   E2B_Bw       eight w-bit elements, each repeated over one 32-byte block of lanes
// Stores, vsts(src, ptr, offset, dist, mask) and vsts(src0, src1, ptr, offset, INTLV_*, mask): the
// mask is read at the source's lane width (a lane is active when its first byte's bit is set).
//   NORM_Bw      the active w-bit lanes, contiguous
//   ONEPT_Bw     lane 0 alone, when active
//   PK_Bw        the low half of each active w-bit lane, packed (w = 16, 32, 64)
//   PK4_B32      the low byte of each active 32-bit lane, packed
//   INTLV_Bw     src0 and src1 interleaved element by element; an active lane i writes both
//                src0[i] and src1[i]
// also spelt as upstream's `std::integral_constant<DistVST, ...>` (DIST_NORM and DIST_ONEPT: the width
// of the pointer's type). Distributions with no A5 caller (SPLT*, MRG*, BRC_BLK) stop the run with a
// message naming the builtin.
//
// Unaligned streams keep their state in a `vector_align` (`UnalignReg`): vldas primes a load stream and
// vldus loads 256 bytes from any address of it; vstus and vstur append elements to a store stream, which
// writes each 32-byte block as it fills and keeps the tail until vstas or vstar flushes it. vstur
// stores the count the last vsqz(..., MODE_STORED) left, vstu the whole register at `base` plus the
// element offset of an address register; vsta flushes at `ptr + offset` as vstas does. Gathers and
// scatters (vgather2, vgather2_bc, vscatter) address UB by the element offsets of an index register,
// one request per index lane; an element narrower than the index lane is zero-extended into it
// (gather) or truncated from it (scatter). vgatherb gathers whole 32-byte blocks at the byte offsets
// in the first eight 32-bit lanes of its index register.
//
// Pairs, strides and blocks:
//   vldsx2(dst0, dst1, ptr, offset, DINTLV_Bw)        as the two-destination vlds
//   vstsx2(src0, src1, ptr, offset, INTLV_Bw, mask)   as the two-source vsts
//   vsld(dst, ptr, offset, STRIDE_Sk_Bw)              lane i (w bits) from element i * k
//   vsst(src, ptr, offset, STRIDE_Sk_Bw)              lane i to element i * k; the others untouched
//   vsldb(dst, ptr, config, mask), vsstb(src, ptr, config, mask)
//                                                     the register's eight 32-byte blocks at a stride:
//                                                     block b at byte (config >> 16) * 32 * b; with
//                                                     POST_UPDATE `ptr` then moves on by
//                                                     (config & 0xFFFF) * 32 bytes. A block takes part
//                                                     when the mask bit of its first byte is set; a
//                                                     load zeroes the others, a store leaves them.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include <pto/vsim/modes.hpp>
#include <pto/vsim/register.hpp>

namespace pto::vsim {

template <typename X>
concept register_like = is_reg<X> || requires { typename std::remove_cvref_t<X>::RegType; };

template <typename X>
inline unsigned char* bytes_of(X& reg) {
    return image(reg).bytes;
}
template <typename X>
inline const unsigned char* bytes_of(const X& reg) {
    return image(const_cast<X&>(reg)).bytes;
}

template <typename T>
inline unsigned char* raw(T* p) {
    return reinterpret_cast<unsigned char*>(const_cast<std::remove_cv_t<T>*>(p));
}

[[noreturn]] inline void refuse(const char* what) {
    std::fprintf(stderr, "PTO runtime error: %s\n", what);
    std::abort();
}

// Zero-extends the first `from` bytes of `src` into a lane of `to` bytes.
inline void widen(unsigned char* dst, const unsigned char* src, int from, int to) {
    std::memcpy(dst, src, from);
    std::memset(dst + from, 0, to - from);
}

inline void spread(unsigned char* dst, const unsigned char* at, int w, int from, int lanes, int copies) {
    for (int i = 0; i < lanes; ++i)
        for (int c = 0; c < copies; ++c)
            std::memcpy(dst + (i * copies + c) * w, at + i * from, w);
}

// One destination: false for a distribution the simulation does not have.
inline bool load(unsigned char* dst, const unsigned char* at, load_dist dist) {
    switch (dist) {
    case load_dist::norm: std::memcpy(dst, at, VL); return true;
    case load_dist::brc_b8: spread(dst, at, 1, 0, 1, VL); return true;
    case load_dist::brc_b16: spread(dst, at, 2, 0, 1, VL / 2); return true;
    case load_dist::brc_b32: spread(dst, at, 4, 0, 1, VL / 4); return true;
    case load_dist::us_b8: spread(dst, at, 1, 1, VL / 2, 2); return true;
    case load_dist::us_b16: spread(dst, at, 2, 2, VL / 4, 2); return true;
    case load_dist::ds_b8: spread(dst, at, 1, 2, VL, 1); return true;
    case load_dist::ds_b16: spread(dst, at, 2, 4, VL / 2, 1); return true;
    case load_dist::dintlv_b8: spread(dst, at, 1, 2, VL, 1); return true;
    case load_dist::dintlv_b16: spread(dst, at, 2, 4, VL / 2, 1); return true;
    case load_dist::dintlv_b32: spread(dst, at, 4, 8, VL / 4, 1); return true;
    case load_dist::blk:
        for (int b = 0; b < VL; b += 32)
            std::memcpy(dst + b, at, 32);
        return true;
    case load_dist::e2b_b16:
        for (int k = 0; k < 8; ++k)
            spread(dst + k * 32, at + k * 2, 2, 0, 1, 16);
        return true;
    case load_dist::e2b_b32:
        for (int k = 0; k < 8; ++k)
            spread(dst + k * 32, at + k * 4, 4, 0, 1, 8);
        return true;
    case load_dist::unpk_b8:
    case load_dist::unpk_b16:
    case load_dist::unpk_b32:
    case load_dist::unpk4_b8: {
        const int from = dist == load_dist::unpk_b16 ? 2 : dist == load_dist::unpk_b32 ? 4 : 1;
        const int to = dist == load_dist::unpk4_b8 ? 4 : 2 * from;
        for (int i = 0; i < VL / to; ++i)
            widen(dst + i * to, at + i * from, from, to);
        return true;
    }
    default: return false;
    }
}

constexpr int dintlv_width(load_dist d) {
    return d == load_dist::dintlv_b8 ? 1 : d == load_dist::dintlv_b16 ? 2 : d == load_dist::dintlv_b32 ? 4 : 0;
}

// The store distributions: the source lane width, what each active lane writes and where.
struct store_shape {
    int lane = 0;    // source lane width in bytes (0: not simulated)
    int keep = 0;    // bytes of each lane written
    bool one = false;  // lane 0 only
};

constexpr store_shape shape_of(store_dist d) {
    switch (d) {
    case store_dist::norm_b8: return {1, 1};
    case store_dist::norm_b16: return {2, 2};
    case store_dist::norm_b32: return {4, 4};
    case store_dist::onept_b8: return {1, 1, true};
    case store_dist::onept_b16: return {2, 2, true};
    case store_dist::onept_b32: return {4, 4, true};
    case store_dist::pk_b16: return {2, 1};
    case store_dist::pk_b32: return {4, 2};
    case store_dist::pk_b64: return {8, 4};
    case store_dist::pk4_b32: return {4, 1};
    default: return {};
    }
}

constexpr int intlv_width(store_dist d) {
    return d == store_dist::intlv_b8 ? 1 : d == store_dist::intlv_b16 ? 2 : d == store_dist::intlv_b32 ? 4 : 0;
}

inline void store(unsigned char* at, const unsigned char* src, store_shape s, const pred& mask) {
    const int lanes = s.one ? 1 : VL / s.lane;
    for (int i = 0; i < lanes; ++i)
        if (mask.lane(i, s.lane))
            std::memcpy(at + i * s.keep, src + i * s.lane, s.keep);
}

inline void store_interleaved(unsigned char* at, const unsigned char* a, const unsigned char* b, int w,
                              const pred& mask) {
    for (int i = 0; i < VL / w; ++i)
        if (mask.lane(i, w)) {
            std::memcpy(at + 2 * i * w, a + i * w, w);
            std::memcpy(at + (2 * i + 1) * w, b + i * w, w);
        }
}

// The two-register interleaving store (vsts with two sources, vstsx2).
inline void store_pair(unsigned char* at, const unsigned char* a, const unsigned char* b, store_dist dist,
                       const pred& mask, const char* what) {
    const int w = intlv_width(dist);
    if (w == 0)
        refuse(what);
    store_interleaved(at, a, b, w, mask);
}

template <typename T>
constexpr store_dist store_dist_of(DistVST d) {
    constexpr int w = static_cast<int>(sizeof(T));
    switch (d) {
    case DistVST::DIST_NORM:
        return w == 1 ? store_dist::norm_b8 : w == 2 ? store_dist::norm_b16 : store_dist::norm_b32;
    case DistVST::DIST_ONEPT:
        return w == 1 ? store_dist::onept_b8 : w == 2 ? store_dist::onept_b16 : store_dist::onept_b32;
    default: return static_cast<store_dist>(static_cast<int>(d));  // the enumerators share their order
    }
}

template <typename T>
constexpr bool simulated_store(DistVST d) {
    if ((d == DistVST::DIST_NORM || d == DistVST::DIST_ONEPT) && sizeof(T) > 4)
        return false;
    const store_dist s = store_dist_of<T>(d);
    return intlv_width(s) == 0 && shape_of(s).lane != 0;
}

// The count the last vsqz(..., MODE_STORED) left for vstur, in bytes.
inline int& squeezed_bytes() {
    static thread_local int bytes = 0;
    return bytes;
}

// Store streams: append bytes, write each 32-byte block of UB as it fills, keep the tail.
inline void stream_append(align& a, unsigned char* at, const unsigned char* src, int n, const char* who) {
    if (n < 0 || n > VL) {
        std::fprintf(stderr, "PTO runtime error: %s: %d bytes is more than one register\n", who, n);
        std::abort();
    }
    const auto addr = reinterpret_cast<std::uintptr_t>(at);
    if (a.count == 0)
        a.base = addr;
    else if (a.base + static_cast<std::uintptr_t>(a.count) != addr)
        refuse("vector_align: an unaligned store continues at an address other than where its stream ended; "
               "flush the stream with vstas or vstar first");
    std::memcpy(a.bytes + a.count, src, n);
    a.count += n;
    const std::uintptr_t end = a.base + static_cast<std::uintptr_t>(a.count);
    const int full = static_cast<int>((end & ~std::uintptr_t{31}) > a.base ? (end & ~std::uintptr_t{31}) - a.base : 0);
    if (full > 0) {
        std::memcpy(reinterpret_cast<unsigned char*>(a.base), a.bytes, full);
        std::memmove(a.bytes, a.bytes + full, a.count - full);
        a.count -= full;
        a.base += full;
    }
}

inline void stream_flush(align& a, const unsigned char* at, const char* who) {
    if (a.count > 0 && a.base + static_cast<std::uintptr_t>(a.count) != reinterpret_cast<std::uintptr_t>(at)) {
        std::fprintf(stderr, "PTO runtime error: %s: the flush address is not where the store stream ended\n", who);
        std::abort();
    }
    if (a.count > 0)
        std::memcpy(reinterpret_cast<unsigned char*>(a.base), a.bytes, a.count);
    a.count = 0;
    a.base = 0;
}

template <typename R, typename I, typename T>
inline void gather(R& dst, const T* base, const I& index, const pred& mask) {
    using K = kind_of<I>;
    auto& idx = image(const_cast<I&>(index));
    unsigned char* out = bytes_of(dst);
    static_assert(sizeof(T) <= K::width, "vgather2: the element is wider than a lane of the index register");
    for (int i = 0; i < VL / K::width; ++i) {
        if (mask.lane(i, K::width))
            widen(out + i * K::width, reinterpret_cast<const unsigned char*>(base + idx.get(i)), sizeof(T), K::width);
        else
            std::memset(out + i * K::width, 0, K::width);
    }
}

// The two-register deinterleaving load (vlds with two destinations, vldsx2).
inline void load_pair(unsigned char* even, unsigned char* odd, const unsigned char* at, load_dist dist,
                      const char* what) {
    const int w = dintlv_width(dist);
    if (w == 0)
        refuse(what);
    for (int i = 0; i < VL / w; ++i) {
        std::memcpy(even + i * w, at + 2 * i * w, w);
        std::memcpy(odd + i * w, at + (2 * i + 1) * w, w);
    }
}

// STRIDE_Sk_Bw: every k-th element of w bytes.
struct stride_shape {
    int step = 0;   // elements between two lanes' elements
    int width = 0;  // bytes per lane and element
};

constexpr stride_shape shape_of(stride s) {
    switch (s) {
    case stride::s3_b16: return {3, 2};
    case stride::s4_b64: return {4, 8};
    case stride::s8_b32: return {8, 4};
    case stride::s2_b64: return {2, 8};
    }
    return {};
}

// vsldb/vsstb's control word: the distance between the register's blocks (high half) and the pointer's
// post-update step (low half), both in 32-byte blocks.
inline constexpr int BLOCK = 32;
constexpr std::uintptr_t block_stride(std::uint32_t config) {
    return static_cast<std::uintptr_t>(config >> 16) * BLOCK;
}
constexpr std::uintptr_t repeat_stride(std::uint32_t config) {
    return static_cast<std::uintptr_t>(config & 0xFFFFu) * BLOCK;
}

} // namespace pto::vsim

// ----------------------------------------------------------------------------------------- loads

template <pto::vsim::register_like R, typename T>
inline void vlds(R& dst, const T* ptr, std::int32_t offset, pto::vsim::load_dist dist) {
    if (!pto::vsim::load(pto::vsim::bytes_of(dst), reinterpret_cast<const unsigned char*>(ptr + offset), dist))
        pto::vsim::refuse("vlds: the simulation has no SPLT4CHN, SPLT2CHN or BRC_BLK distribution");
}

template <pto::vsim::register_like R, typename T>
inline void vlds(R& dst, T*& ptr, std::int32_t offset, pto::vsim::load_dist dist, pto::vsim::post) {
    vlds(dst, static_cast<const T*>(ptr), 0, dist);
    ptr += offset;
}

template <pto::vsim::register_like R0, pto::vsim::register_like R1, typename T>
inline void vlds(R0& dst0, R1& dst1, const T* ptr, std::int32_t offset, pto::vsim::load_dist dist) {
    pto::vsim::load_pair(pto::vsim::bytes_of(dst0), pto::vsim::bytes_of(dst1),
                         reinterpret_cast<const unsigned char*>(ptr + offset), dist,
                         "vlds: two destinations take a DINTLV_B8/B16/B32 distribution");
}

template <pto::vsim::register_like R0, pto::vsim::register_like R1, typename T>
inline void vlds(R0& dst0, R1& dst1, T*& ptr, std::int32_t offset, pto::vsim::load_dist dist, pto::vsim::post) {
    vlds(dst0, dst1, static_cast<const T*>(ptr), 0, dist);
    ptr += offset;
}

// vldsx2: the deinterleaving pair load under its own name; the even elements go to dst0.
template <pto::vsim::register_like R0, pto::vsim::register_like R1, typename T>
inline void vldsx2(R0& dst0, R1& dst1, const T* ptr, std::int32_t offset, pto::vsim::load_dist dist) {
    pto::vsim::load_pair(pto::vsim::bytes_of(dst0), pto::vsim::bytes_of(dst1),
                         reinterpret_cast<const unsigned char*>(ptr + offset), dist,
                         "vldsx2: the simulation has DINTLV_B8, DINTLV_B16 and DINTLV_B32 only");
}

// vsld: lane i of STRIDE_Sk_Bw's w bytes from element i * k, counted from ptr + offset.
template <pto::vsim::register_like R, typename T>
inline void vsld(R& dst, const T* ptr, std::int32_t offset, pto::vsim::stride mode) {
    const pto::vsim::stride_shape s = pto::vsim::shape_of(mode);
    const auto* at = reinterpret_cast<const unsigned char*>(ptr + offset);
    unsigned char* out = pto::vsim::bytes_of(dst);
    for (int i = 0; i < pto::vsim::VL / s.width; ++i)
        std::memcpy(out + i * s.width, at + i * s.step * s.width, s.width);
}

// vsldb: block b of the register from byte b * block stride; a block whose mask bit is clear is zero
// and reads nothing.
template <pto::vsim::register_like R, typename T>
inline void vsldb(R& dst, const T* ptr, std::uint32_t config, const vector_bool& mask) {
    const auto* at = reinterpret_cast<const unsigned char*>(ptr);
    unsigned char* out = pto::vsim::bytes_of(dst);
    for (int b = 0; b < pto::vsim::VL / pto::vsim::BLOCK; ++b) {
        if (mask.lane(b, pto::vsim::BLOCK))
            std::memcpy(out + b * pto::vsim::BLOCK, at + b * pto::vsim::block_stride(config), pto::vsim::BLOCK);
        else
            std::memset(out + b * pto::vsim::BLOCK, 0, pto::vsim::BLOCK);
    }
}

template <pto::vsim::register_like R, typename T>
inline void vsldb(R& dst, T*& ptr, std::uint32_t config, const vector_bool& mask, pto::vsim::post) {
    vsldb(dst, static_cast<const T*>(ptr), config, mask);
    ptr = reinterpret_cast<T*>(pto::vsim::raw(ptr) + pto::vsim::repeat_stride(config));
}

// Unaligned loads: vldas primes the stream at any address, vldus reads 256 bytes from one.
template <typename T>
inline void vldas(vector_align& state, const T* ptr) {
    state.primed = true;
    state.base = reinterpret_cast<std::uintptr_t>(ptr) & ~std::uintptr_t{31};
}

template <pto::vsim::register_like R, typename T>
inline void vldus(R& dst, vector_align& state, const T* ptr) {
    if (!state.primed)
        pto::vsim::refuse("vldus: the alignment state was not primed by vldas");
    std::memcpy(pto::vsim::bytes_of(dst), ptr, pto::vsim::VL);
    state.base = reinterpret_cast<std::uintptr_t>(ptr + pto::vsim::VL / sizeof(T)) & ~std::uintptr_t{31};
}

// ----------------------------------------------------------------------------------------- stores

template <pto::vsim::register_like R, typename T>
inline void vsts(const R& src, T* ptr, std::int32_t offset, pto::vsim::store_dist dist, const vector_bool& mask) {
    const pto::vsim::store_shape s = pto::vsim::shape_of(dist);
    if (s.lane == 0)
        pto::vsim::refuse("vsts: one source takes NORM, ONEPT, PK or PK4 distributions; the simulation has no MRG*");
    pto::vsim::store(pto::vsim::raw(ptr + offset), pto::vsim::bytes_of(src), s, mask);
}

template <pto::vsim::register_like R, typename T>
inline void vsts(const R& src, T*& ptr, std::int32_t offset, pto::vsim::store_dist dist, const vector_bool& mask,
                 pto::vsim::post) {
    vsts(src, ptr, 0, dist, mask);
    ptr += offset;
}

template <pto::vsim::register_like R0, pto::vsim::register_like R1, typename T>
inline void vsts(const R0& src0, const R1& src1, T* ptr, std::int32_t offset, pto::vsim::store_dist dist,
                 const vector_bool& mask) {
    pto::vsim::store_pair(pto::vsim::raw(ptr + offset), pto::vsim::bytes_of(src0), pto::vsim::bytes_of(src1), dist,
                          mask, "vsts: two sources take an INTLV_B8/B16/B32 distribution");
}

template <pto::vsim::register_like R0, pto::vsim::register_like R1, typename T>
inline void vsts(const R0& src0, const R1& src1, T*& ptr, std::int32_t offset, pto::vsim::store_dist dist,
                 const vector_bool& mask, pto::vsim::post) {
    vsts(src0, src1, ptr, 0, dist, mask);
    ptr += offset;
}

template <pto::vsim::register_like R, typename T, DistVST D>
inline void vsts(const R& src, T* ptr, std::int32_t offset, std::integral_constant<DistVST, D>,
                 const vector_bool& mask) {
    static_assert(pto::vsim::simulated_store<T>(D),
                  "vsts: one source takes DIST_NORM, DIST_ONEPT (8- to 32-bit elements), NORM, ONEPT, PK or PK4");
    vsts(src, ptr, offset, pto::vsim::store_dist_of<T>(D), mask);
}

template <pto::vsim::register_like R, typename T, DistVST D>
inline void vsts(const R& src, T*& ptr, std::int32_t offset, std::integral_constant<DistVST, D> d,
                 const vector_bool& mask, pto::vsim::post) {
    vsts(src, ptr, 0, d, mask);
    ptr += offset;
}

// vstsx2: the interleaving pair store under its own name; an active lane i writes src0[i], src1[i].
template <pto::vsim::register_like R0, pto::vsim::register_like R1, typename T>
inline void vstsx2(const R0& src0, const R1& src1, T* ptr, std::int32_t offset, pto::vsim::store_dist dist,
                   const vector_bool& mask) {
    pto::vsim::store_pair(pto::vsim::raw(ptr + offset), pto::vsim::bytes_of(src0), pto::vsim::bytes_of(src1), dist,
                          mask, "vstsx2: the distribution is INTLV_B8, INTLV_B16 or INTLV_B32");
}

// vsst: lane i of STRIDE_Sk_Bw's w bytes to element i * k, counted from ptr + offset; the elements
// between are left as they are.
template <pto::vsim::register_like R, typename T>
inline void vsst(const R& src, T* ptr, std::int32_t offset, pto::vsim::stride mode) {
    const pto::vsim::stride_shape s = pto::vsim::shape_of(mode);
    unsigned char* at = pto::vsim::raw(ptr + offset);
    const unsigned char* in = pto::vsim::bytes_of(src);
    for (int i = 0; i < pto::vsim::VL / s.width; ++i)
        std::memcpy(at + i * s.step * s.width, in + i * s.width, s.width);
}

// vsstb: block b of the register to byte b * block stride, when the mask bit of its first byte is set.
template <pto::vsim::register_like R, typename T>
inline void vsstb(const R& src, T* ptr, std::uint32_t config, const vector_bool& mask) {
    unsigned char* at = pto::vsim::raw(ptr);
    const unsigned char* in = pto::vsim::bytes_of(src);
    for (int b = 0; b < pto::vsim::VL / pto::vsim::BLOCK; ++b)
        if (mask.lane(b, pto::vsim::BLOCK))
            std::memcpy(at + b * pto::vsim::block_stride(config), in + b * pto::vsim::BLOCK, pto::vsim::BLOCK);
}

template <pto::vsim::register_like R, typename T>
inline void vsstb(const R& src, T*& ptr, std::uint32_t config, const vector_bool& mask, pto::vsim::post) {
    vsstb(src, static_cast<T*>(ptr), config, mask);
    ptr = reinterpret_cast<T*>(pto::vsim::raw(ptr) + pto::vsim::repeat_stride(config));
}

// Unaligned stores: vstus appends `count` elements of the register's lane type, vstur the count the
// last vsqz(..., MODE_STORED) left; both move `ptr` past what they appended. vstas and vstar write the
// tail the stream still holds (vstas at ptr + offset, vstar at ptr: where the stream ended).
template <pto::vsim::register_like R, typename T>
inline void vstus(vector_align& state, std::uint32_t count, const R& src, T*& ptr, pto::vsim::post) {
    const int bytes = static_cast<int>(count) * pto::vsim::kind_of<R>::width;
    pto::vsim::stream_append(state, pto::vsim::raw(ptr), pto::vsim::bytes_of(src), bytes, "vstus");
    ptr = reinterpret_cast<T*>(pto::vsim::raw(ptr) + bytes);
}

// Without POST_UPDATE the caller names each append's address itself; the pointer is not moved.
template <pto::vsim::register_like R, typename T>
inline void vstus(vector_align& state, std::uint32_t count, const R& src, T* ptr) {
    vstus(state, count, src, ptr, POST_UPDATE);
}

template <pto::vsim::register_like R, typename T>
inline void vstur(vector_align& state, const R& src, T*& ptr, pto::vsim::post) {
    const int bytes = pto::vsim::squeezed_bytes();
    pto::vsim::stream_append(state, pto::vsim::raw(ptr), pto::vsim::bytes_of(src), bytes, "vstur");
    ptr = reinterpret_cast<T*>(pto::vsim::raw(ptr) + bytes);
}

template <typename T>
inline void vstas(vector_align& state, T* ptr, std::int32_t offset) {
    pto::vsim::stream_flush(state, pto::vsim::raw(ptr + offset), "vstas");
}

template <typename T>
inline void vstas(vector_align& state, T*& ptr, std::int32_t offset, pto::vsim::post) {
    vstas(state, static_cast<T*>(ptr), offset);
    ptr += offset;
}

template <typename T>
inline void vstar(vector_align& state, T* ptr) {
    pto::vsim::stream_flush(state, pto::vsim::raw(ptr), "vstar");
}

// vstu appends the whole register at base + offset (elements of the pointer's type); POST_UPDATE then
// moves the offset past it, NO_POST_UPDATE leaves it. vsta flushes at ptr + offset, as vstas does.
template <pto::vsim::register_like R, typename T>
inline void vstu(vector_align& state, vector_address& offset, const R& src, T* base, pto::vsim::post) {
    pto::vsim::stream_append(state, pto::vsim::raw(base + offset.offset), pto::vsim::bytes_of(src), pto::vsim::VL,
                             "vstu");
    offset.offset += pto::vsim::VL / static_cast<std::int64_t>(sizeof(T));
}

template <pto::vsim::register_like R, typename T>
inline void vstu(vector_align& state, vector_address& offset, const R& src, T* base, pto::vsim::no_post) {
    pto::vsim::stream_append(state, pto::vsim::raw(base + offset.offset), pto::vsim::bytes_of(src), pto::vsim::VL,
                             "vstu");
}

template <typename T>
inline void vsta(vector_align& state, T* ptr, std::int32_t offset) {
    pto::vsim::stream_flush(state, pto::vsim::raw(ptr + offset), "vsta");
}

// ----------------------------------------------------------------------------------------- gathers

// dst lane i = ptr[index[i]] for each active lane, lanes of the index register's width; inactive
// lanes are zero. vgather2_bc is the same request under its backward-compatible name.
template <pto::vsim::register_like R, typename T, pto::vsim::register_like I>
inline void vgather2(R& dst, const T* ptr, const I& index, const vector_bool& mask) {
    pto::vsim::gather(dst, ptr, index, mask);
}

template <pto::vsim::register_like R, typename T, pto::vsim::register_like I>
inline void vgather2_bc(R& dst, const T* ptr, const I& index, const vector_bool& mask) {
    pto::vsim::gather(dst, ptr, index, mask);
}

// vgatherb: block b of dst (32 bytes) from the byte offset in 32-bit lane b of `index`, b = 0..7; a block
// whose mask bit is clear is zero and reads nothing.
template <pto::vsim::register_like R, typename T, pto::vsim::register_like I>
inline void vgatherb(R& dst, const T* ptr, const I& index, const vector_bool& mask) {
    static_assert(pto::vsim::kind_of<I>::width == 4, "vgatherb: the byte offsets are a register of 32-bit lanes");
    auto& idx = pto::vsim::image(const_cast<I&>(index));
    const auto* base = reinterpret_cast<const unsigned char*>(ptr);
    unsigned char* out = pto::vsim::bytes_of(dst);
    for (int b = 0; b < pto::vsim::VL / pto::vsim::BLOCK; ++b) {
        if (mask.lane(b, pto::vsim::BLOCK))
            std::memcpy(out + b * pto::vsim::BLOCK, base + idx.get(b), pto::vsim::BLOCK);
        else
            std::memset(out + b * pto::vsim::BLOCK, 0, pto::vsim::BLOCK);
    }
}

// ptr[index[i]] = src lane i (its low sizeof(T) bytes) for each active lane. Where active lanes share
// an index the lowest lane's value stays, as the page says A5 does: the lanes are written from the top.
template <pto::vsim::register_like R, typename T, pto::vsim::register_like I>
inline void vscatter(const R& src, T* ptr, const I& index, const vector_bool& mask) {
    using K = pto::vsim::kind_of<I>;
    static_assert(sizeof(T) <= K::width, "vscatter: the element is wider than a lane of the index register");
    auto& idx = pto::vsim::image(const_cast<I&>(index));
    const unsigned char* in = pto::vsim::bytes_of(src);
    for (int i = pto::vsim::VL / K::width - 1; i >= 0; --i)
        if (mask.lane(i, K::width))
            std::memcpy(pto::vsim::raw(ptr + idx.get(i)), in + i * K::width, sizeof(T));
}

// A5 code calls vgatherb through its adaptation layer's `pto::pto_vgatherb`
// (pto/common/arch_cce_intrinsic.hpp), which a CPU build (`__CPU_SIM`) leaves out; the same forwarding.
namespace pto {
template <typename T, typename U, typename S>
inline void pto_vgatherb(T& dst, U* base, S& index, vector_bool& mask) {
    vgatherb(dst, base, index, mask);
}
} // namespace pto
