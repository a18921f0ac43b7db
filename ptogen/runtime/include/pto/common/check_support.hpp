// Op-independent support for the generated profile checks and intrinsics. It includes only
// upstream-named headers (and ptogen's check_core.hpp), so the generated intrinsics build over
// ptogen's runtime and over upstream's include tree alike.
#pragma once

#include <cstddef>
#include <type_traits>

#include <pto/common/check_core.hpp>
#include <pto/common/event.hpp>
#include <pto/common/pto_tile.hpp>

namespace pto::sim {

// Bytes a tile of either kind occupies in its memory (TASSIGN's footprint, the placement rule): a
// Tile's Rows x Cols elements, a ConvTile's BufferSize. Here rather than beside ConvTile because the
// profile checks use it over upstream's include tree too, whose ConvTile has no Rows or Cols.
template <typename T>
constexpr std::size_t tile_storage_bytes() {
    if constexpr (is_conv_tile_v<T>)
        return static_cast<std::size_t>(T::bufferSize);
    else
        return static_cast<std::size_t>(T::Rows) * static_cast<std::size_t>(T::Cols) * sizeof(typename T::DType);
}

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

// Some intrinsics take an optional tmp tile as the first element of their trailing `WaitEvents&...`
// pack; these split such a pack into that tile and the events behind it.
template <typename... Ts>
inline constexpr bool leads_with_tile_v = false;
template <typename T, typename... Rest>
inline constexpr bool leads_with_tile_v<T, Rest...> = is_tile_data_v<std::remove_cvref_t<T>>;

template <typename T, typename... Rest>
constexpr T& first_arg(T& a, Rest&...) {
    return a;
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

// Wait on the events of a pack that may start with a tile (WaitAllEvents: event.hpp, in both include
// trees); an empty pack waits on nothing.
template <typename T, typename... Rest>
void sync_tail(T&, Rest&... rest) {
    if constexpr (sizeof...(Rest) > 0)
        WaitAllEvents(rest...);
}

template <typename... Ts>
void sync_events(Ts&... args) {
    if constexpr (leads_with_tile_v<Ts...>) {
        sync_tail(args...);
    } else if constexpr (sizeof...(Ts) > 0) {
        WaitAllEvents(args...);
    }
}

}  // namespace pto::sim
