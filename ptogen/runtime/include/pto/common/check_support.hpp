// Op-independent support for the generated profile checks and simulator implementations.
#pragma once

#include <type_traits>

#include "tile.hpp"
#include "event.hpp"

namespace pto::sim {

template <typename T, typename... Allowed>
inline constexpr bool is_one_of_v = (std::is_same_v<T, Allowed> || ...);

// static_assert(always_false_v<T>) fires only when the enclosing template is instantiated.
template <typename...>
inline constexpr bool always_false_v = false;

// Stands in for an optional tile argument that was not passed (e.g. TPRELU's tmp on A5).
struct no_tile {};

template <typename A>
constexpr bool tiles_overlap(const A&, const no_tile&) {
    return false;
}
template <typename B>
constexpr bool tiles_overlap(const no_tile&, const B&) {
    return false;
}

// The leading tile of a trailing argument pack, or a no_tile when it does not start with one.
template <typename... Ts>
decltype(auto) tmp_or_none(Ts&... args) {
    if constexpr (leads_with_tile_v<Ts...>) {
        return (first_arg(args...));
    } else {
        static no_tile none;
        return (none);
    }
}

// Wait on the events of a pack that may start with a tile.
template <typename... Ts>
void sync_events(Ts&... args) {
    if constexpr (leads_with_tile_v<Ts...>) {
        sync_tail(args...);
    } else {
        TSYNC(args...);
    }
}

}  // namespace pto::sim
