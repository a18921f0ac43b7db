// Predicate generation, as A5 vector code calls it: pset_b8/b16/b32(PAT_*) and pge_b8/b16/b32(PAT_*)
// set a pattern of lanes of 1, 2 or 4 bytes; plt_b8/b16/b32(n, POST_UPDATE) sets the first n lanes
// (all of them when n exceeds the lane count) and takes the lanes it set off n, so a loop over a row
// of n elements gets a full predicate per register and the remainder in the last one.
#pragma once

#include <cstdint>

#include <pto/vsim/modes.hpp>
#include <pto/vsim/register.hpp>

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

} // namespace pto::vsim

inline vector_bool pset_b8(pto::vsim::pattern p) {
    return pto::vsim::pattern_predicate<1>(p);
}
inline vector_bool pset_b16(pto::vsim::pattern p) {
    return pto::vsim::pattern_predicate<2>(p);
}
inline vector_bool pset_b32(pto::vsim::pattern p) {
    return pto::vsim::pattern_predicate<4>(p);
}
inline vector_bool pge_b8(pto::vsim::pattern p) {
    return pto::vsim::pattern_predicate<1>(p);
}
inline vector_bool pge_b16(pto::vsim::pattern p) {
    return pto::vsim::pattern_predicate<2>(p);
}
inline vector_bool pge_b32(pto::vsim::pattern p) {
    return pto::vsim::pattern_predicate<4>(p);
}
inline vector_bool plt_b8(std::uint32_t& n, pto::vsim::post) {
    return pto::vsim::first_lanes<1>(n);
}
inline vector_bool plt_b16(std::uint32_t& n, pto::vsim::post) {
    return pto::vsim::first_lanes<2>(n);
}
inline vector_bool plt_b32(std::uint32_t& n, pto::vsim::post) {
    return pto::vsim::first_lanes<4>(n);
}
