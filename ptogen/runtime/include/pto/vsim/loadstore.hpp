// Vector loads and stores between UB and a register, as A5 vector code calls them:
// vlds(dst, ptr, offset, dist) and vsts(src, ptr, offset, dist, mask), the offset in elements of the
// pointer's type. With POST_UPDATE the access is at `ptr` and `ptr` then moves on by `offset`.
// Distributions: NORM (256 contiguous bytes) and BRC_B8/B16/B32 (one element broadcast to every lane)
// for loads; NORM_B8/B16/B32 (the active lanes of that width, contiguous) for stores, also spelt as
// upstream's `std::integral_constant<DistVST, ...>` (DIST_NORM: the width of the pointer's type).
// Other distributions are refused at compile time, naming the builtin.
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
inline unsigned char* bytes_of(X& reg) {
    return image(reg).bytes;
}

inline void load(unsigned char* dst, const unsigned char* at, load_dist dist) {
    switch (dist) {
    case load_dist::norm: std::memcpy(dst, at, VL); return;
    case load_dist::brc_b8:
        for (int i = 0; i < VL; ++i)
            dst[i] = at[0];
        return;
    case load_dist::brc_b16:
        for (int i = 0; i < VL; i += 2)
            std::memcpy(dst + i, at, 2);
        return;
    case load_dist::brc_b32:
        for (int i = 0; i < VL; i += 4)
            std::memcpy(dst + i, at, 4);
        return;
    default: break;
    }
    std::abort();  // the overloads below admit no other distribution
}

inline constexpr bool simulated(load_dist d) {
    return d == load_dist::norm || d == load_dist::brc_b8 || d == load_dist::brc_b16 || d == load_dist::brc_b32;
}

inline int store_width(store_dist d) {
    return d == store_dist::norm_b8 ? 1 : d == store_dist::norm_b16 ? 2 : d == store_dist::norm_b32 ? 4 : 0;
}

inline void store(unsigned char* at, const unsigned char* src, int width, const pred& mask) {
    for (int i = 0; i < VL / width; ++i)
        if (mask.lane(i, width))
            std::memcpy(at + i * width, src + i * width, width);
}

template <typename T>
constexpr int dist_width(DistVST d) {
    switch (d) {
    case DistVST::DIST_NORM_B8: return 1;
    case DistVST::DIST_NORM_B16: return 2;
    case DistVST::DIST_NORM_B32: return 4;
    case DistVST::DIST_NORM: return sizeof(T) <= 4 ? static_cast<int>(sizeof(T)) : 0;
    default: return 0;
    }
}

[[noreturn]] inline void refuse(const char* what) {
    std::fprintf(stderr, "PTO runtime error: %s\n", what);
    std::abort();
}

} // namespace pto::vsim

template <typename R, typename T>
inline void vlds(R& dst, const T* ptr, std::int32_t offset, pto::vsim::load_dist dist) {
    if (!pto::vsim::simulated(dist))
        pto::vsim::refuse("vlds: the simulation has the NORM and BRC_B8/B16/B32 distributions only");
    pto::vsim::load(pto::vsim::bytes_of(dst), reinterpret_cast<const unsigned char*>(ptr + offset), dist);
}

template <typename R, typename T>
inline void vlds(R& dst, T*& ptr, std::int32_t offset, pto::vsim::load_dist dist, pto::vsim::post) {
    vlds(dst, static_cast<const T*>(ptr), 0, dist);
    ptr += offset;
}

template <typename R, typename T>
inline void vsts(const R& src, T* ptr, std::int32_t offset, pto::vsim::store_dist dist, const vector_bool& mask) {
    const int width = pto::vsim::store_width(dist);
    if (width == 0)
        pto::vsim::refuse("vsts: the simulation has the NORM_B8/B16/B32 distributions only");
    auto& image = pto::vsim::image(const_cast<R&>(src));
    pto::vsim::store(reinterpret_cast<unsigned char*>(ptr + offset), image.bytes, width, mask);
}

template <typename R, typename T>
inline void vsts(const R& src, T*& ptr, std::int32_t offset, pto::vsim::store_dist dist, const vector_bool& mask,
                 pto::vsim::post) {
    vsts(src, ptr, 0, dist, mask);
    ptr += offset;
}

template <typename R, typename T, DistVST D>
inline void vsts(const R& src, T* ptr, std::int32_t offset, std::integral_constant<DistVST, D>,
                 const vector_bool& mask) {
    constexpr int width = pto::vsim::dist_width<T>(D);
    static_assert(width != 0, "vsts: the simulation has the DIST_NORM and DIST_NORM_B8/B16/B32 distributions only");
    auto& image = pto::vsim::image(const_cast<R&>(src));
    pto::vsim::store(reinterpret_cast<unsigned char*>(ptr + offset), image.bytes, width, mask);
}

template <typename R, typename T, DistVST D>
inline void vsts(const R& src, T*& ptr, std::int32_t offset, std::integral_constant<DistVST, D> d,
                 const vector_bool& mask, pto::vsim::post) {
    vsts(src, ptr, 0, d, mask);
    ptr += offset;
}
