// The few helpers the generated profile checks need besides the tile types: it includes only the
// standard library, so the checks build both over ptogen's runtime and over upstream's include tree.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

namespace pto::sim {

template <typename T, typename... Allowed>
inline constexpr bool is_one_of_v = (std::is_same_v<T, Allowed> || ...);

// static_assert(always_false_v<T>) fires only when the enclosing template is instantiated.
template <typename...>
inline constexpr bool always_false_v = false;

// A violated run-time rule is a program error on the hardware too, so the simulator stops at once
// with a message tests can match on.
[[noreturn]] inline void fail(const char* op, const char* rule) {
    std::fprintf(stderr, "PTO runtime error: %s: %s\n", op, rule);
    std::fflush(stderr);
    std::abort();
}

inline void check(bool ok, const char* op, const char* rule) {
    if (!ok)
        fail(op, rule);
}

// Anything with tile storage (data() and a static SizeBytes()); spelled as a concept so this header
// does not need tile.hpp and placeholder arguments (no data()) are left to their own overloads.
template <typename T>
concept has_tile_storage = requires(const T& t) {
    t.data();
    { T::SizeBytes() } -> std::convertible_to<std::size_t>;
};

// Whether the byte ranges [data(), data() + SizeBytes()) of two tiles intersect.
template <typename A, typename B>
    requires has_tile_storage<A> && has_tile_storage<B>
bool tiles_overlap(const A& a, const B& b) {
    // Integer addresses: relational comparison of pointers into different objects is unspecified.
    const auto a0 = reinterpret_cast<std::uintptr_t>(a.data());
    const auto b0 = reinterpret_cast<std::uintptr_t>(b.data());
    return a0 < b0 + B::SizeBytes() && b0 < a0 + A::SizeBytes();
}

// Whether every element of the tile's valid region lies in [lo, hi]; a tile whose element type is
// not among `Only` (when any are named) is not checked. Bounds are long double, so every bound a
// spec states for a 32-bit element converts exactly.
template <typename... Only, typename TileT>
bool values_within(const TileT& t, long double lo, long double hi) {
    using D = typename TileT::DType;
    if constexpr (sizeof...(Only) > 0 && !is_one_of_v<D, Only...>) {
        return true;
    } else {
        for (int r = 0; r < t.GetValidRow(); ++r)
            for (int c = 0; c < t.GetValidCol(); ++c) {
                // Plain row- or column-major storage (what value-range rules' Vec tiles have),
                // indexed through data() so the check also builds over upstream's tiles.
                const int i = TileT::isRowMajor ? r * TileT::Cols + c : c * TileT::Rows + r;
                long double v;
                if constexpr (std::is_arithmetic_v<D>)
                    v = static_cast<long double>(t.data()[i]);
                else // half, bfloat16_t: through float
                    v = static_cast<long double>(static_cast<float>(t.data()[i]));
                if (!(v >= lo && v <= hi))
                    return false;
            }
        return true;
    }
}

} // namespace pto::sim
