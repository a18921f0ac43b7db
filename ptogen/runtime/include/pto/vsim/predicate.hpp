// Predicate builtins, as A5 vector code calls them.
// Generation: pset_b8/b16/b32(PAT_*) and pge_b8/b16/b32(PAT_*) set a pattern of lanes of 1, 2 or 4
// bytes; plt_b8/b16/b32(n, POST_UPDATE) sets the first n lanes (all of them when n exceeds the lane
// count) and takes the lanes it set off n, so a loop over a row of n elements gets a full predicate
// per register and the remainder in the last one.
// Algebra: pand, por, pxor, pnot and psel work bit by bit on the 256-bit image, so one call serves
// every lane width; ppack and punpack halve or double the bits per lane (b32 -> b16 -> b8 and back);
// pintlv_bN and pdintlv_bN interleave or deinterleave whole lanes of N bits.
// Loads and stores: plds/psts (a byte offset), pldi/psti (an offset in 8-byte units), pld/pst (an
// address register in 8-byte units) move a predicate between UB and the register, NORM as its 32
// bytes, US (loads) reading 16 bytes and doubling each bit, PK (stores) writing every other bit as 16
// bytes; with POST_UPDATE the access is at `base` and `base` then moves on by the offset.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include <pto/vsim/modes.hpp>
#include <pto/vsim/register.hpp>

// A predicate load's distribution as A5 code names it in a constant, `std::integral_constant<::Dist,
// Dist::DIST_US>()` beside the bare tokens NORM and US.
enum class Dist : std::uint8_t { DIST_NORM, DIST_US, DIST_DS };

namespace pto::vsim {

// How many of `lanes` lanes a pattern sets, counted from lane 0, or (PAT_H, PAT_Q) from the top.
struct pattern_lanes {
    int first;  // lanes [first, first + count) are set
    int count;
};

constexpr pattern_lanes lanes_of(pattern p, int lanes) {
    switch (p) {
    case pattern::all: return {0, lanes};
    case pattern::allf: return {0, 0};
    case pattern::vl1: return {0, 1};
    case pattern::vl2: return {0, 2};
    case pattern::vl3: return {0, 3};
    case pattern::vl4: return {0, 4};
    case pattern::vl8: return {0, 8};
    case pattern::vl16: return {0, 16};
    case pattern::vl32: return {0, 32};
    case pattern::vl64: return {0, 64};
    case pattern::vl128: return {0, 128};
    case pattern::m3: return {0, lanes - lanes % 3};  // the largest multiple of 3 lanes
    case pattern::m4: return {0, lanes - lanes % 4};  // the largest multiple of 4 lanes
    case pattern::h: return {lanes / 2, lanes / 2};   // the upper half
    case pattern::q: return {lanes - lanes / 4, lanes / 4};  // the upper quarter
    }
    return {0, 0};
}

// A pattern wider than the register (PAT_VL128 on 64 lanes of 4 bytes) sets nothing: the pages make
// it illegal, and a predicate must not reach past the register.
template <int Width>
inline vector_bool pattern_predicate(pattern p) {
    constexpr int lanes = VL / Width;
    const pattern_lanes set = lanes_of(p, lanes);
    vector_bool out{};
    if (set.first + set.count <= lanes)
        for (int i = set.first; i < set.first + set.count; ++i)
            out.set_lane(i, Width, true);
    return out;
}

template <int Width>
inline vector_bool first_lanes(std::uint32_t& n) {
    constexpr std::uint32_t lanes = VL / Width;
    const std::uint32_t count = n < lanes ? n : lanes;
    vector_bool out{};
    for (std::uint32_t i = 0; i < count; ++i)
        out.set_lane(static_cast<int>(i), Width, true);
    n -= count;
    return out;
}

// Lanes of Width bits of two predicates as one sequence of 2L lanes: interleaved (a0 b0 a1 b1 ...),
// whose first half goes to `lo` and second to `hi`; or, deinterleaving, a then b, whose even lanes go
// to `lo` and odd lanes to `hi`. Each lane moves all its bits.
template <int Width>
inline void interleave(pred& lo, pred& hi, const pred& a, const pred& b, bool deinterleave) {
    constexpr int lanes = VL / Width;
    pred out[2]{};
    for (int o = 0; o < 2; ++o)
        for (int j = 0; j < lanes; ++j) {
            const int k = deinterleave ? 2 * j + o : o * lanes + j;  // position in the sequence
            const bool from_b = deinterleave ? k >= lanes : k % 2 == 1;
            const int lane = deinterleave ? k % lanes : k / 2;
            for (int bit = 0; bit < Width; ++bit)
                out[o].set_bit(j * Width + bit, (from_b ? b : a).bit(lane * Width + bit));
        }
    lo = out[0];
    hi = out[1];
}

// ppack: bit 2k of the source becomes bit k of the selected half (each lane keeps half its bits), the
// other half cleared. punpack: bit k of the selected half becomes bits 2k and 2k + 1 (each lane's bits
// doubled).
inline pred pack(const pred& src, half_sel part) {
    constexpr int half = VL / 2;
    const int base = part == half_sel::higher ? half : 0;
    pred out{};
    for (int k = 0; k < half; ++k)
        out.set_bit(base + k, src.bit(2 * k));
    return out;
}

inline pred unpack(const pred& src, half_sel part) {
    const int base = part == half_sel::higher ? VL / 2 : 0;
    pred out{};
    for (int k = 0; k < VL; ++k)
        out.set_bit(k, src.bit(base + k / 2));
    return out;
}

template <typename F>
inline pred bitwise(const pred& a, const pred& b, F f) {
    pred out{};
    for (int i = 0; i < PL; ++i)
        out.bits[i] = static_cast<unsigned char>(f(a.bits[i], b.bits[i]));
    return out;
}

// The distribution token of a predicate load or store: NORM (the vector loads' token) or one of the
// predicate tokens PK, US and DS, as A5 code passes either.
struct pred_dist_t {
    enum class kind : std::uint8_t { norm, pk, us, ds, other } value;
    // only NORM of the vector loads' tokens names a predicate transfer
    constexpr pred_dist_t(load_dist d) : value(d == load_dist::norm ? kind::norm : kind::other) {}
    // each load token is a type of its own (A5 code writes `decltype(NORM){}`)
    template <load_dist D>
    constexpr pred_dist_t(load_token<D>) : pred_dist_t(D) {}
    constexpr pred_dist_t(pred_dist d)
        : value(d == pred_dist::pk ? kind::pk : d == pred_dist::us ? kind::us : kind::ds) {}
    constexpr pred_dist_t(Dist d)
        : value(d == Dist::DIST_NORM ? kind::norm : d == Dist::DIST_US ? kind::us : kind::ds) {}
    template <Dist D>
    constexpr pred_dist_t(std::integral_constant<Dist, D>) : pred_dist_t(D) {}
};

[[noreturn]] inline void pred_refuse(const char* builtin, const char* what) {
    std::fprintf(stderr, "PTO runtime error: %s: %s\n", builtin, what);
    std::abort();
}

inline void pred_load(const char* builtin, pred& dst, const void* at, pred_dist_t dist) {
    const auto* in = static_cast<const unsigned char*>(at);
    pred out{};
    switch (dist.value) {
    case pred_dist_t::kind::norm: std::memcpy(out.bits, in, PL); break;
    case pred_dist_t::kind::us:  // 16 bytes, bit k -> bits 2k and 2k + 1
        for (int k = 0; k < VL; ++k)
            out.set_bit(k, (in[k / 16] >> ((k / 2) % 8)) & 1u);
        break;
    default: pred_refuse(builtin, "the simulation loads NORM and US (the pages do not say what DS loads)");
    }
    dst = out;
}

inline void pred_store(const char* builtin, void* at, const pred& src, pred_dist_t dist) {
    auto* out = static_cast<unsigned char*>(at);
    switch (dist.value) {
    case pred_dist_t::kind::norm: std::memcpy(out, src.bits, PL); return;
    case pred_dist_t::kind::pk:  // bit 2k -> bit k of 16 bytes
        for (int i = 0; i < PL / 2; ++i) {
            unsigned byte = 0;
            for (int b = 0; b < 8; ++b)
                byte |= static_cast<unsigned>(src.bit(2 * (8 * i + b))) << b;
            out[i] = static_cast<unsigned char>(byte);
        }
        return;
    default: pred_refuse(builtin, "a store distribution is NORM or PK");
    }
}

} // namespace pto::vsim

using pred_dist_t = pto::vsim::pred_dist_t;  // NORM, US or DS (loads); NORM or PK (stores)

using pred_pattern_t = pto::vsim::pattern;   // PAT_* tokens of pset and pge
using post_update_t = pto::vsim::post;       // POST_UPDATE of plt
using pred_part_t = pto::vsim::half_sel;     // LOWER or HIGHER of ppack and punpack

inline vector_bool pset_b8(pred_pattern_t p) {
    return pto::vsim::pattern_predicate<1>(p);
}
inline vector_bool pset_b16(pred_pattern_t p) {
    return pto::vsim::pattern_predicate<2>(p);
}
inline vector_bool pset_b32(pred_pattern_t p) {
    return pto::vsim::pattern_predicate<4>(p);
}
inline vector_bool pge_b8(pred_pattern_t p) {
    return pto::vsim::pattern_predicate<1>(p);
}
inline vector_bool pge_b16(pred_pattern_t p) {
    return pto::vsim::pattern_predicate<2>(p);
}
inline vector_bool pge_b32(pred_pattern_t p) {
    return pto::vsim::pattern_predicate<4>(p);
}
inline vector_bool plt_b8(uint32_t& n, post_update_t) {
    return pto::vsim::first_lanes<1>(n);
}
inline vector_bool plt_b16(uint32_t& n, post_update_t) {
    return pto::vsim::first_lanes<2>(n);
}
inline vector_bool plt_b32(uint32_t& n, post_update_t) {
    return pto::vsim::first_lanes<4>(n);
}

// The governing predicate (the last operand of pand, por, pxor and pnot) does not change the result:
// the pages say so, and every call in upstream's A5 backend gives the same lanes either way.
inline void pand(vector_bool& dst, vector_bool src0, vector_bool src1, vector_bool) {
    dst = {pto::vsim::bitwise(src0, src1, [](unsigned a, unsigned b) { return a & b; })};
}
inline void por(vector_bool& dst, vector_bool src0, vector_bool src1, vector_bool) {
    dst = {pto::vsim::bitwise(src0, src1, [](unsigned a, unsigned b) { return a | b; })};
}
inline void pxor(vector_bool& dst, vector_bool src0, vector_bool src1, vector_bool) {
    dst = {pto::vsim::bitwise(src0, src1, [](unsigned a, unsigned b) { return a ^ b; })};
}
inline void pnot(vector_bool& dst, vector_bool src, vector_bool) {
    dst = {pto::vsim::bitwise(src, src, [](unsigned a, unsigned) { return ~a; })};
}
// Lane by lane (bit by bit): src0 where sel is set, src1 where it is clear.
inline void psel(vector_bool& dst, vector_bool src0, vector_bool src1, vector_bool sel) {
    const pto::vsim::pred taken = pto::vsim::bitwise(src0, sel, [](unsigned a, unsigned s) { return a & s; });
    const pto::vsim::pred kept = pto::vsim::bitwise(src1, sel, [](unsigned b, unsigned s) { return b & ~s; });
    dst = {pto::vsim::bitwise(taken, kept, [](unsigned a, unsigned b) { return a | b; })};
}
inline void ppack(vector_bool& dst, vector_bool src, pred_part_t part) {
    dst = {pto::vsim::pack(src, part)};
}
inline void punpack(vector_bool& dst, vector_bool src, pred_part_t part) {
    dst = {pto::vsim::unpack(src, part)};
}
inline void pintlv_b8(vector_bool& dst0, vector_bool& dst1, vector_bool src0, vector_bool src1) {
    pto::vsim::interleave<1>(dst0, dst1, src0, src1, false);
}
inline void pintlv_b16(vector_bool& dst0, vector_bool& dst1, vector_bool src0, vector_bool src1) {
    pto::vsim::interleave<2>(dst0, dst1, src0, src1, false);
}
inline void pintlv_b32(vector_bool& dst0, vector_bool& dst1, vector_bool src0, vector_bool src1) {
    pto::vsim::interleave<4>(dst0, dst1, src0, src1, false);
}
inline void pdintlv_b8(vector_bool& dst0, vector_bool& dst1, vector_bool src0, vector_bool src1) {
    pto::vsim::interleave<1>(dst0, dst1, src0, src1, true);
}
inline void pdintlv_b16(vector_bool& dst0, vector_bool& dst1, vector_bool src0, vector_bool src1) {
    pto::vsim::interleave<2>(dst0, dst1, src0, src1, true);
}
inline void pdintlv_b32(vector_bool& dst0, vector_bool& dst1, vector_bool src0, vector_bool src1) {
    pto::vsim::interleave<4>(dst0, dst1, src0, src1, true);
}

// Loads and stores. The UB pointer is `__ubuf__ uint32_t*` in A5 code (the qualifier is empty here).
inline void plds(vector_bool& dst, uint32_t* base, int32_t offset, pred_dist_t dist) {
    pto::vsim::pred_load("plds", dst, reinterpret_cast<unsigned char*>(base) + offset, dist);
}
inline void plds(vector_bool& dst, uint32_t*& base, int32_t offset, pred_dist_t dist, post_update_t) {
    plds(dst, base, 0, dist);
    base = reinterpret_cast<uint32_t*>(reinterpret_cast<unsigned char*>(base) + offset);
}
inline void psts(vector_bool src, uint32_t* base, int32_t offset, pred_dist_t dist) {
    pto::vsim::pred_store("psts", reinterpret_cast<unsigned char*>(base) + offset, src, dist);
}
inline void psts(vector_bool src, uint32_t*& base, int32_t offset, pred_dist_t dist, post_update_t) {
    psts(src, base, 0, dist);
    base = reinterpret_cast<uint32_t*>(reinterpret_cast<unsigned char*>(base) + offset);
}
inline void pldi(vector_bool& dst, uint32_t* base, int32_t offset, pred_dist_t dist) {
    pto::vsim::pred_load("pldi", dst, reinterpret_cast<unsigned char*>(base) + 8 * offset, dist);
}
inline void pldi(vector_bool& dst, uint32_t*& base, int32_t offset, pred_dist_t dist, post_update_t) {
    pldi(dst, base, 0, dist);
    base = reinterpret_cast<uint32_t*>(reinterpret_cast<unsigned char*>(base) + 8 * offset);
}
inline void psti(vector_bool src, uint32_t* base, int32_t offset, pred_dist_t dist) {
    pto::vsim::pred_store("psti", reinterpret_cast<unsigned char*>(base) + 8 * offset, src, dist);
}
inline void psti(vector_bool src, uint32_t*& base, int32_t offset, pred_dist_t dist, post_update_t) {
    psti(src, base, 0, dist);
    base = reinterpret_cast<uint32_t*>(reinterpret_cast<unsigned char*>(base) + 8 * offset);
}
inline void pld(vector_bool& dst, uint32_t* base, vector_address offset, pred_dist_t dist) {
    pto::vsim::pred_load("pld", dst, reinterpret_cast<unsigned char*>(base) + 8 * offset.offset, dist);
}
inline void pst(vector_bool src, uint32_t* base, vector_address offset, pred_dist_t dist) {
    pto::vsim::pred_store("pst", reinterpret_cast<unsigned char*>(base) + 8 * offset.offset, src, dist);
}
// The streaming store's alignment state is not defined by its page (its formula XORs the state with the
// predicate and stores nothing) and no A5 code calls it: the simulation stops rather than guess.
inline void pstu(vector_align&, vector_bool, uint32_t*&) {
    pto::vsim::pred_refuse("pstu", "the simulation has no streaming predicate store (its page defines none)");
}
