// Events: what every intrinsic returns and what later intrinsics wait on.
#pragma once

#include <cstdint>
#include <type_traits>

#include "conv_tile.hpp"
#include "tile.hpp"

namespace pto {

// The simulator runs every op to completion before returning, so an event carries no state.
struct RecordEvent {};

// Traits that tell an event from a tile, so overloads that differ by a trailing tile operand
// (e.g. TRSQRT with a scratch tile) are not confused with a call passing events.
template <typename T>
struct is_event : std::is_same<std::remove_cv_t<T>, RecordEvent> {};

template <typename... Ts>
inline constexpr bool all_events_v = (is_event<Ts>::value && ...);

template <typename T>
inline constexpr bool is_tile_data_v = is_tile_v<T>;

// Upstream's convolution tiles (ConvTile, conv_tile.hpp), which TASSIGN also binds, are told apart
// by is_conv_tile_v; is_tile_data_v, as upstream's, names the Tile alone.

namespace sim {

// Number of events waited on so far on the calling core; lets tests prove that an op honoured its events.
inline std::uint64_t& wait_count() {
    static thread_local std::uint64_t count = 0;
    return count;
}

// Number of single-op barriers (TSYNC<Op>()) run so far on the calling core, per pipeline.
inline std::uint64_t& barrier_count(int pipe) {
    static thread_local std::uint64_t counts[16] = {};
    return counts[static_cast<unsigned>(pipe) % 16];
}

} // namespace sim

// Waits for the given events (upstream's name: what every intrinsic does with its events before it
// runs, and what TSYNC(events...) does). Ops complete synchronously here, so waiting only counts.
template <typename... Events>
void WaitAllEvents(Events&... events) {
    static_assert((std::is_same_v<std::remove_cv_t<Events>, RecordEvent> && ...),
                  "WaitAllEvents: every argument must be an event");
    (static_cast<void>(events), ...);
    sim::wait_count() += sizeof...(Events);
}

} // namespace pto
